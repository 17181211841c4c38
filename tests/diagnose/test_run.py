"""``ferry run``: device errors explained after the traceback, ``--trips``, ``--report FILE``.

The bundled examples' runs, through the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from torchferry.cli import main

pytestmark = pytest.mark.slow  # starts processes / runs whole programs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FERRY = [sys.executable, "-m", "torchferry"]
LABELS = "examples/labels_left_behind.py"
ITEMS = "examples/item_every_step.py"


def _ferry(*args):
    return subprocess.run([*FERRY, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)


def _line_of(path, needle):
    with open(os.path.join(ROOT, path)) as f:
        for i, line in enumerate(f, 1):
            if needle in line:
                return i
    raise AssertionError(needle)


def test_labels_left_behind_is_explained_after_the_traceback(tmp_path):
    report = tmp_path / "r.json"
    r = _ferry("run", "--simulate", "cuda", "--report", str(report), LABELS)
    assert r.returncode == 1 and r.stdout == ""
    err = r.stderr
    assert err.startswith("Traceback (most recent call last):")
    msg = ("RuntimeError: Expected all tensors to be on the same device, but got target is on "
           "cpu, different from other tensors on cuda:0 (when checking argument in method "
           "wrapper_CUDA_nll_loss_forward)")
    assert msg in err
    text = err[err.index(msg) + len(msg):]  # the report comes after the traceback
    loss_line = _line_of(LABELS, "loss = loss_fn(model(inputs), labels)")
    loop_line = _line_of(LABELS, "for inputs, labels in loader:")
    assert f"at {LABELS}:{loss_line}" in text
    assert "> labels" in text and "<- on cpu while the others are on cuda:0" in text
    assert f"labels was created at {LABELS}:{loop_line}" in text
    assert "fix: labels = labels.to(device)" in text
    assert "rule: FRY013 partial-batch-move" in text

    data = json.loads(report.read_text())
    assert set(data) == {"error", "trips"}
    e = data["error"]
    assert set(e) == {"type", "message", "path", "line", "source", "operands", "fix", "rule", "kind"}
    assert e["type"] == "RuntimeError" and e["message"] == msg[len("RuntimeError: "):]
    assert e["path"].endswith(LABELS) and e["line"] == loss_line and e["rule"] == "FRY013"
    assert e["source"].startswith("loss = loss_fn(model(inputs), labels)")
    ops = {o["expr"]: o for o in e["operands"]}
    for o in ops.values():
        assert set(o) == {"expr", "device", "dtype", "shape", "created_at", "culprit"}
    assert ops["labels"] == {
        "expr": "labels", "device": "cpu", "dtype": "int64", "shape": [32],
        "created_at": {"path": ops["labels"]["created_at"]["path"], "line": loop_line,
                       "call": "torch.stack(...)"},
        "culprit": True,
    }
    assert ops["model(inputs)"]["device"] == "cuda:0" and not ops["model(inputs)"]["culprit"]
    assert isinstance(data["trips"], list)
    assert any(t["kind"] == "module_move" for t in data["trips"])


def test_trips_show_the_item_line_once_per_step_with_the_fix(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # in-process (the CLI path above is the same code)
    report = tmp_path / "r.json"
    assert main(["run", "--simulate", "cuda", "--trips", "--report", str(report), ITEMS]) == 0
    r = capsys.readouterr()
    assert r.out.startswith("mean loss")  # the script's own output is untouched
    item_line = _line_of(ITEMS, "running += loss.item()")
    row = next(line for line in r.err.splitlines() if f"{ITEMS}:{item_line} " in line)
    assert " sync " in row and " item " in row and " 20 " in row
    assert "a host sync (item) once per iteration of the loop" in r.err
    assert "20 iterations" in r.err and "FRY007 sync-in-loop" in r.err
    assert "accumulate on the device" in r.err
    data = json.loads(report.read_text())
    assert data["error"] is None
    (item,) = [t for t in data["trips"] if t["line"] == item_line]
    assert (item["kind"], item["op"], item["count"], item["bytes"], item["rule"]) == (
        "sync", "item", 20, 0, "FRY007")
    for t in data["trips"]:
        assert t["kind"] in ("h2d", "d2h", "d2d", "sync", "module_move")
        assert {"path", "line", "source", "kind", "op", "count", "bytes", "rule"} <= set(t)


def test_non_device_error_passes_through_with_exit_1(tmp_path, capsys):
    script = tmp_path / "bad.py"
    script.write_text("import torch\nx = torch.ones(2)\nraise KeyError('nope')\n")
    report = tmp_path / "r.json"
    assert main(["run", "--report", str(report), str(script)]) == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith("KeyError: 'nope'") and "torchferry explain" not in err
    e = json.loads(report.read_text())["error"]
    assert e["type"] == "KeyError" and e["line"] == 3 and e["kind"] is None and e["operands"] == []


def test_sys_exit_code_kept_and_report_written(tmp_path, capsys):
    script = tmp_path / "ok.py"
    script.write_text("import sys\nprint('hi')\nsys.exit(3)\n")
    report = tmp_path / "r.json"
    assert main(["run", "--trips", "--report", str(report), str(script)]) == 3
    out = capsys.readouterr()
    assert out.out == "hi\n" and "torchferry trips: no host<->device copies" in out.err
    assert json.loads(report.read_text()) == {"error": None, "trips": []}


@pytest.mark.parametrize(
    ("target", "needle"),
    [("{tmp}/no/such/dir/r.json", "does not exist"), ("{tmp}", "is a directory")],
)
def test_bad_report_path_is_a_one_line_usage_error(tmp_path, capsys, target, needle):
    script = tmp_path / "ok.py"
    script.write_text("print('never runs')\n")
    code = main(["run", "--report", target.format(tmp=tmp_path), str(script)])
    err = capsys.readouterr()
    assert code == 2 and err.out == ""
    assert err.err.count("\n") == 1 and needle in err.err and err.err.startswith("ferry run: error:")


def test_missing_script_with_report_is_usage_error(tmp_path, capsys):
    assert main(["run", "--report", str(tmp_path / "r.json"), str(tmp_path / "nope.py")]) == 2
    assert "no such script" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_the_trip_counters_frames_are_not_in_the_scripts_traceback():
    from torchferry._internal import frames, registry
    from torchferry.diagnose import sites, tripcount
    from torchferry.sim.runner import foreign_frame

    assert foreign_frame(tripcount.__file__, "_record")
    assert foreign_frame(sites.__file__, "_recording")
    assert foreign_frame(frames.__file__, "user_frame")
    assert foreign_frame(registry.__file__, "sweep")  # a Ctrl-C can land in its sweep
    assert not foreign_frame(os.path.join(ROOT, "examples", "item_every_step.py"), "<module>")


def test_ctrl_c_still_prints_the_trips_and_writes_the_report(tmp_path):
    import signal

    (tmp_path / "loop.py").write_text(
        "import torch\nx = torch.ones(3, device='cuda')\nstep = 0\n"
        "while True:\n    x.sum().item()\n    step += 1\n"
        "    if step == 5:\n        print('looping', flush=True)\n"
    )
    report = tmp_path / "r.json"
    # (a shell starts a background job with SIGINT ignored: give the command the default)
    proc = subprocess.Popen(
        [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda", "--trips",
         "--report", str(report), "loop.py"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "looping\n"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGINT, err  # dies by the signal, as python does
    assert "KeyboardInterrupt" in err and "torchferry trips" in err
    shown = err[:err.index("torchferry trips")]  # the traceback: the script's frames only
    assert "torchferry" not in shown and 'loop.py", line ' in shown, shown
    assert "loop.py:5" in err and "FRY007" in err
    data = json.loads(report.read_text())
    assert data["error"]["type"] == "KeyboardInterrupt"
    (row,) = [r for r in data["trips"] if r["line"] == 5]
    assert row["kind"] == "sync" and row["count"] >= 5
