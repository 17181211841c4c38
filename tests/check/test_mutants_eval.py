"""benchmarks/check_mutants.py: the mutation sites, the span edits that keep every other
byte, and one oracle run on the simulated GPU."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "check_mutants", REPO / "benchmarks" / "check_mutants.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_mutants"] = mod
    spec.loader.exec_module(mod)
    return mod


cm = _load()

SCRIPT = """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
ckpt = torch.load("w.pt", map_location=device)
for step in range(3):
    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long).to(device)
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    mask = torch.ones(8, device=device)
    x = x.to(device)
    print(out.detach().cpu().numpy().shape, x.to(torch.float16).dtype)
"""


def _sites(text: str) -> dict[str, list[str]]:
    src, tree = cm._Source(text), ast.parse(text)
    out: dict[str, list[str]] = {}
    for finder in cm.SITE_FINDERS:
        for op, _node, new in finder(src, tree):
            out.setdefault(op, []).append(new)
    return out


def _changed(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), "a mutation keeps the line count"
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_every_operator_finds_its_site_and_changes_only_that_line() -> None:
    sites = _sites(SCRIPT)
    assert set(sites) == set(cm.OPERATORS)
    expect = {
        "drop-model-move": ("model = nn.Linear(4, 2).to(device)", "model = nn.Linear(4, 2)"),
        "drop-map-location": (
            'ckpt = torch.load("w.pt", map_location=device)',
            'ckpt = torch.load("w.pt")',
        ),
        "drop-device-kw": (
            "    mask = torch.ones(8, device=device)",
            "    mask = torch.ones(8)",
        ),
        "drop-cpu-numpy": (
            "    print(out.detach().cpu().numpy().shape, x.to(torch.float16).dtype)",
            "    print(out.detach().numpy().shape, x.to(torch.float16).dtype)",
        ),
        "add-numpy": ("    out = model(x)", "    out = model(x); _probe = out.detach().numpy()"),
        "add-item": (
            "    loss = nn.functional.cross_entropy(out, y)",
            "    loss = nn.functional.cross_entropy(out, y); _probe = loss.item()",
        ),
    }
    for op, (before, after) in expect.items():
        assert [_changed(SCRIPT, new) for new in sites[op]] == [[(before, after)]], op


def test_moves_of_tensors_and_their_assignments_are_dropped_one_at_a_time() -> None:
    sites = _sites(SCRIPT)
    line = "    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long).to(device)"
    moves = sorted(after for new in sites["drop-move"] for _, after in _changed(SCRIPT, new))
    assert moves == sorted(
        [
            "    x, y = torch.randn(8, 4), torch.zeros(8, dtype=torch.long).to(device)",
            "    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long)",
            "    x = x",
        ]
    ), "a dtype cast (.to(torch.float16)) is not a move"
    assigns = [after for new in sites["drop-assign"] for _, after in _changed(SCRIPT, new)]
    assert assigns == ["    x.to(device)"], "only a name moved onto itself loses its assignment"
    assert line in SCRIPT


def test_the_program_list_has_sites_and_licensed_sources() -> None:
    assert (cm.PROGRAMS_DIR / "LICENSE").read_text().startswith("BSD 3-Clause License")
    for program in cm.PROGRAMS:
        ms = cm.mutants(program)
        assert ms, program.name
        keys = [m.key for m in ms]
        assert len(keys) == len(set(keys))
        for m in ms:
            compile(m.source, m.key, "exec")


def test_held_out_programs_run_only_when_asked_and_are_copied_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held_out = [p for p in cm.PROGRAMS if p.held_out]
    assert len(held_out) >= 3 and len(held_out) < len(cm.PROGRAMS)
    source = (cm.PROGRAMS_DIR / "SOURCE.md").read_text()
    for program in held_out:
        assert f"`{program.directory}/" in source, f"{program.name}: its origin is not recorded"
    chosen: list[list[str]] = []

    def fake_evaluate(programs, *args, **kwargs):  # type: ignore[no-untyped-def]
        chosen.append([p.name for p in programs])
        return []

    monkeypatch.setattr(cm, "evaluate", fake_evaluate)
    cm.main([])
    cm.main(["--held-out"])
    assert chosen[0] == [p.name for p in cm.PROGRAMS if not p.held_out]
    assert chosen[1] == [p.name for p in held_out]


def test_the_table_counts_only_confirmed_mutants() -> None:
    program = cm.PROGRAMS[0]
    m = cm.mutants(program)[0]
    results = [
        cm.Result(m, cm.Verdict(True, "e", []), caught=True, caught_any=True),
        cm.Result(m, cm.Verdict(True, "e", []), caught=False, caught_any=True),
        cm.Result(m, cm.Verdict(False, "passes", [])),
    ]
    op = cm.OPERATORS[m.op]
    row = next(r for r in cm.table(results).splitlines() if r.startswith(f"| {op.what} |"))
    assert row.endswith("| 3 | 2 | 1 | 50% | 100% |")


@pytest.mark.slow
def test_the_oracle_confirms_a_dropped_move_and_passes_the_original(tmp_path: Path) -> None:
    prog_dir = tmp_path / "programs" / "tiny"
    prog_dir.mkdir(parents=True)
    (prog_dir / "main.py").write_text(
        "import torch\nfrom torch import nn\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "model = nn.Linear(4, 2).to(device)\n"
        "x = torch.randn(3, 4).to(device)\n"
        "print(model(x).sum().item())\n"
    )
    program = cm.Program("tiny", "tiny", "main.py", ())
    old = cm.PROGRAMS_DIR
    cm.PROGRAMS_DIR = tmp_path / "programs"
    try:
        ws = cm.Workspace(tmp_path / "ws")
        assert cm.baseline_ok(ws, program) is None
        drop = next(m for m in cm.mutants(program) if m.op == "drop-move")
        verdict = cm.oracle(ws, drop)
        assert verdict.confirmed and "RuntimeError" in verdict.why
        assert 6 in verdict.frames
    finally:
        cm.PROGRAMS_DIR = old
