"""benchmarks/gpu/run_all.sh on a CPU-only machine: it starts, skips what needs a GPU with
a message, keeps to the 8-file result contract, prints the summary last, and a failing
step neither stops the others nor goes unreported."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu" / "run_all.sh"
ALLOWED = {"summary.txt", "log.txt", "bench.json", "bench.png", "transfer.json", "loader.json",
           "fidelity.txt", "trips.txt"}

pytestmark = [
    pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only path"),
    pytest.mark.slow,
]


def run_all(out: Path, python: str = sys.executable) -> subprocess.CompletedProcess:
    env = dict(os.environ, OUT=str(out), FERRY_GPU_QUICK="1", PYTHON=python)
    env.pop("TORCHFERRY_DEVICE", None)
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env,
                          timeout=240)


def summary_rows(text: str) -> dict[str, str]:
    block = text[text.index("==== torchferry device checks: summary"):]
    return {m.group(1): m.group(2) for m in
            re.finditer(r"^(environment|bench matmul|bench transfer|loader overlap|fidelity|trips)"
                        r"\s+(\S+)", block, re.M)}


def test_cpu_run_skips_gpu_steps_with_messages(tmp_path):
    r = run_all(tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = r.stdout.rstrip().splitlines()
    # the summary table is the last thing printed
    start = max(i for i, line in enumerate(lines) if "summary" in line and "====" in line)
    tail = "\n".join(lines[start:])
    assert lines[-2].startswith("overall: OK") and "0 failed" in lines[-2]
    rows = summary_rows(tail)
    assert rows == {"environment": "ok", "bench matmul": "ok", "bench transfer": "skipped",
                    "loader overlap": "skipped", "fidelity": "skipped", "trips": "skipped"}
    assert "no CUDA GPU" in tail and "exit code 3" in tail
    files = {p.name for p in tmp_path.iterdir()}
    assert files <= ALLOWED and {"summary.txt", "log.txt", "bench.json", "bench.png",
                                 "loader.json"} <= files
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", f) for f in files)
    assert (tmp_path / "summary.txt").read_text() in r.stdout
    bench = json.loads((tmp_path / "bench.json").read_text())
    assert bench["predicted"] is True and bench["sizes"][-1] == 1000  # --quick
    loader = json.loads((tmp_path / "loader.json").read_text())
    assert loader["status"] == "skipped" and loader["plain_step_s"] > 0
    for name in ("fidelity.txt", "trips.txt"):
        if (tmp_path / name).exists():
            assert (tmp_path / name).read_text().startswith("skipped:")


def test_failing_steps_are_recorded_and_the_rest_still_run(tmp_path):
    # a "python3" that crashes at once: every step fails, none stops the script
    wrapper = tmp_path / "py"
    wrapper.write_text('#!/usr/bin/env bash\necho "simulated crash" >&2\nexit 7\n')
    wrapper.chmod(0o755)
    out = tmp_path / "out"
    r = run_all(out, python=str(wrapper))
    assert r.returncode == 1
    rows = summary_rows(r.stdout)
    assert rows["environment"] == "FAIL(7)" and rows["bench matmul"] == "FAIL(7)"
    assert rows["bench transfer"] == "FAIL(7)" and rows["loader overlap"] == "FAIL(7)"
    assert rows["trips"] == "skipped"  # 'ferry run --help' could not even run
    assert "overall: FAILED (0 passed, 4 failed" in r.stdout
    assert r.stdout.rstrip().splitlines()[-1].startswith("files in")
    assert "simulated crash" in (out / "log.txt").read_text()
