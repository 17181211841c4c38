"""`ferry bench` on a shared machine: cells that cannot be trusted are marked and
explained, and the CPU is timed so that the lesson's ranking (the CPU wins a
50 x 50 product, the GPU a large one) survives other work competing for the cores."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from torchferry.bench import matmul
from torchferry.cli.bench import cpu_threads


def _cpu(n, seconds, iqr=0.0):
    return matmul._record(n, "cpu", "CPU", "compute", "measured", seconds=seconds, iqr=iqr)


def test_a_cpu_time_that_does_not_grow_with_the_work_is_flagged():
    flat = [_cpu(50, 0.016), _cpu(100, 0.016), _cpu(500, 0.017), _cpu(1000, 0.4)]
    flagged = matmul.flag_unreliable(flat)
    assert [r["size"] for r in flagged] == [50, 100, 500]
    assert flat[0]["unreliable"].startswith("flat: 100 x 100 (8x the work of 50 x 50) took 1.0x")
    assert flat[3]["unreliable"] is None  # 8x the work, 24x the time: sound
    sound = [_cpu(50, 4e-6), _cpu(100, 2.5e-5), _cpu(500, 3e-3)]
    assert matmul.flag_unreliable(sound) == []


def test_a_noisy_cell_is_flagged_and_an_accelerator_may_be_flat():
    noisy = _cpu(200, 1e-3, iqr=8e-4)
    gpu = [matmul._record(n, "cuda:0", "GPU", "resident", "measured", seconds=1e-5, iqr=0.0)
           for n in (50, 100, 200)]  # launch latency: flat and fine
    assert matmul.flag_unreliable([noisy, *gpu]) == [noisy]
    assert noisy["unreliable"] == "noisy: the runs spread over 80% of the median"


def test_busy_cores_are_left_out_of_the_cpu_timing():
    assert cpu_threads(2.0, 2, 2)[0] == 1
    assert cpu_threads(1.6, 2, 2)[0] == 1
    assert cpu_threads(3.0, 8, 8)[0] == 5
    assert cpu_threads(0.2, 8, 8) == (8, None)
    assert cpu_threads(None, 8, 8) == (8, None)
    assert "--threads N overrides" in (cpu_threads(2.0, 2, 2)[1] or "")


def test_table_marks_and_lists_unreliable_cells(capsys, monkeypatch):
    from torchferry.cli import main

    real = matmul._timed

    def stalled(n, device, *a, **k):  # the CPU's timer counting waits: flat 16 ms
        rec = real(n, device, *a, **k)
        if device == "cpu":
            rec.update(seconds=0.016, gflops=None)
        return rec

    monkeypatch.setattr(matmul, "_timed", stalled)
    assert main(["bench", "--sizes", "32,64", "--min-time", "0", "--predict", "t4"]) == 0
    out = capsys.readouterr().out
    assert "16.0 ms?" in out and "? unreliable" in out
    assert "32 x 32 CPU: flat: 64 x 64 (8x the work of 32 x 32)" in out


@pytest.mark.slow
def test_the_lessons_ranking_survives_two_busy_processes(tmp_path):
    """Load 2 on this machine's cores, from processes started here, while it runs."""
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        out = tmp_path / "b.json"
        res = subprocess.run(
            [sys.executable, "-m", "torchferry", "bench", "--sizes", "50,2000",
             "--min-time", "0.02", "--predict", "t4", "--json", str(out)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    finally:
        for p in spin:
            p.kill()
            p.wait()
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    won = {(w["size"], w["mode"]): w["winner"] for w in doc["winners"]}
    assert won[(50, "resident")] == won[(50, "rides")] == "cpu", res.stdout
    assert won[(2000, "resident")] == won[(2000, "rides")] == "t4", res.stdout
