"""benchmarks/check_mutants.py's oracle: which errors of a run count as the mistake biting
on a GPU, and how the verdicts are cached beside the former oracle's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.check.test_mutants_eval import cm

SCRIPT = Path("/w/main.py")


def _report(type_: str, kind: str | None, line: int = 7) -> dict:
    error = {"type": type_, "message": "m", "path": "/w/main.py", "line": line, "kind": kind}
    return {"error": error, "trips": []}


def test_an_error_of_no_device_kind_is_not_confirmed() -> None:
    """``.detach().numpy()`` of a dict fails on every device: the report gives no kind."""
    run = cm.Run(1, 'File "/w/main.py", line 7', _report("AttributeError", None))
    verdict = cm.device_error(run, SCRIPT)
    assert not verdict.confirmed and verdict.kind is None
    assert verdict.why.startswith("AttributeError") and "no device error" in verdict.why
    assert verdict.frames == [7]


def test_a_device_mismatch_is_confirmed_with_its_kind() -> None:
    run = cm.Run(1, 'File "/w/main.py", line 7', _report("RuntimeError", "mixed_devices"))
    verdict = cm.device_error(run, SCRIPT)
    assert verdict.confirmed and verdict.kind is cm.Family.MIXED_DEVICES
    assert verdict.frames == [7]


def test_a_run_that_passes_or_writes_no_report_is_not_confirmed() -> None:
    assert cm.device_error(cm.Run(0, ""), SCRIPT).why == "passes"
    silent = cm.device_error(cm.Run(3, "killed"), SCRIPT)
    assert not silent.confirmed and silent.why == "exit 3, no error reported"


def test_a_device_error_that_the_plain_cpu_run_ends_with_too_is_not_confirmed() -> None:
    sim = cm.Run(1, "", _report("RuntimeError", "mixed_devices"))
    verdict = cm.device_error(sim, SCRIPT)
    same = cm.Run(1, "", _report("RuntimeError", None))
    elsewhere = cm.Run(1, "", _report("RuntimeError", None, line=9))
    assert not cm.on_the_cpu_too(verdict, sim, same).confirmed
    assert "also on the plain CPU" in cm.on_the_cpu_too(verdict, sim, same).why
    assert cm.on_the_cpu_too(verdict, sim, elsewhere) is verdict
    assert cm.on_the_cpu_too(verdict, sim, cm.Run(0, "")) is verdict


def test_a_verdict_keeps_its_kind_through_the_cache() -> None:
    verdict = cm.Verdict(True, "RuntimeError: m", [7], cm.Family.NUMPY_ON_DEVICE)
    entry = json.loads(json.dumps(verdict.to_json()))
    assert entry["kind"] == "numpy_on_device" and cm.Verdict.from_json(entry) == verdict
    assert cm._cached({"confirmed": True, "why": "e", "frames": []}) is None  # no kind kept


def test_only_the_former_verdicts_that_still_hold_are_taken_over() -> None:
    def former(confirmed: bool, why: str = "e") -> dict:
        return {"confirmed": confirmed, "why": why, "frames": [3]}

    assert cm.carried(former(True), "drop-move") is None  # its error's kind is unknown
    kept = cm.carried(former(False, "passes"), "drop-move")
    assert kept is not None and not kept.confirmed and kept.kind is None
    assert cm.carried(former(False, "exit 124"), "drop-move") is None  # a killed run
    syncs = cm.carried(former(True, "4 host syncs at the line"), "add-item")
    assert syncs is not None and syncs.confirmed
    assert cm.carried(former(False), "drop-map-location") is None  # now reads the kind
    assert cm.carried("passes", "drop-move") is None


def test_the_former_cache_is_read_and_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = cm.Program("tiny", "tiny", "main.py", ())
    (tmp_path / "programs" / "tiny").mkdir(parents=True)
    (tmp_path / "programs" / "tiny" / "main.py").write_text(
        "import torch\nx = torch.randn(3).to('cuda')\nprint(x.cpu().numpy())\n"
    )
    monkeypatch.setattr(cm, "PROGRAMS_DIR", tmp_path / "programs")
    monkeypatch.setattr(cm, "baseline_ok", lambda ws, program: None)
    ms = cm.mutants(program)
    digest = cm.sim_digest()
    keys = [cm._digest(digest, m.program.name, m.op, m.source) for m in ms]
    legacy = tmp_path / "mutants-cache.json"
    former = {keys[0]: {"confirmed": True, "why": "e", "frames": []}}
    former |= {k: {"confirmed": False, "why": "passes", "frames": []} for k in keys[1:]}
    legacy.write_text(json.dumps(former))
    ran: list[str] = []

    def oracle(ws: object, m: object) -> object:
        ran.append(m.key)  # type: ignore[attr-defined]
        return cm.Verdict(True, "RuntimeError: m", [], cm.Family.MIXED_DEVICES)

    monkeypatch.setattr(cm, "oracle", oracle)
    cache = tmp_path / "mutants-cache-v2.json"
    results = cm.evaluate([program], set(cm.OPERATORS), None, None, cache, 1, False, legacy)
    assert ran == [ms[0].key] and len(results) == len(ms) > 1
    assert json.loads(legacy.read_text()) == former
    written = json.loads(cache.read_text())
    assert written[keys[0]]["kind"] == "mixed_devices"
    assert all(written[k]["kind"] is None and not written[k]["confirmed"] for k in keys[1:])


_TINY = """\
import torch
from torch import nn
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
model = nn.Linear(4, 2).to(device)
x = torch.randn(3, 4).to(device)
def encoder(x):
    return {"y": model(x)}
out = encoder(x)
print(out["y"].sum().item())
"""


@pytest.mark.slow
def test_the_oracle_confirms_a_device_mismatch_and_not_numpy_of_a_dict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "programs" / "tiny").mkdir(parents=True)
    (tmp_path / "programs" / "tiny" / "main.py").write_text(_TINY)
    program = cm.Program("tiny", "tiny", "main.py", ())
    monkeypatch.setattr(cm, "PROGRAMS_DIR", tmp_path / "programs")
    ws = cm.Workspace(tmp_path / "ws")
    assert cm.baseline_ok(ws, program) is None
    by_op = {m.op: m for m in cm.mutants(program) if m.line == 5 or m.op == "add-numpy"}
    drop = cm.oracle(ws, by_op["drop-move"])
    assert drop.confirmed and drop.kind is cm.Family.MIXED_DEVICES and drop.frames == [8, 7]
    numpy = cm.oracle(ws, by_op["add-numpy"])  # out is a dict: no device error
    assert not numpy.confirmed and numpy.kind is None
    assert numpy.why.startswith("AttributeError")
