"""benchmarks/gpu/summarize.py: run_all.sh's summary lines, fed with the JSON that the GPU
paths write (produced here inside the simulated GPU), so the lines the one real GPU run
prints are checked before it happens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import torchferry
from torchferry.bench import report, transfer
from torchferry.cli import main

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu" / "summarize.py"


def summarize(kind: str, path: Path) -> str:
    r = subprocess.run([sys.executable, str(SCRIPT), kind, str(path)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.skipif(torch.cuda.is_available(), reason="uses the simulated GPU")
def test_bench_and_transfer_lines_from_gpu_shaped_json(tmp_path, capsys):
    with torchferry.simulate("cuda"):
        assert main(["bench", "--sizes", "32,64", "--min-time", "0.001", "--predict", "h200",
                     "--json", str(tmp_path / "bench.json")]) == 0
        doc = transfer.run_transfer([4096, 16384], min_time=0.001)
    capsys.readouterr()
    line = summarize("bench", tmp_path / "bench.json")
    assert "beats the CPU" in line or "never" in line
    assert "Model median |error|: resident" in line and "rides" in line

    report.write_json(doc, tmp_path / "transfer.json")
    assert summarize("transfer", tmp_path / "transfer.json").endswith("(link limit unknown)")
    from torchferry.bench.profiles import PROFILES

    h200 = PROFILES["h200"]
    doc["link"] = {"name": h200.link_name, "gb_per_s": h200.link_bandwidth / 1e9}
    report.write_json(doc, tmp_path / "transfer.json")
    line = summarize("transfer", tmp_path / "transfer.json")
    assert line.startswith("peak h2d_pageable") and "(link 63.0 GB/s per direction, PCIe Gen5 x16)" in line


def test_cpu_bench_and_loader_lines(tmp_path):
    (tmp_path / "b.json").write_text(json.dumps(
        {"predicted": True, "crossover_sentences": ["The NVIDIA T4 (predicted) beats the CPU."]}))
    assert summarize("bench", tmp_path / "b.json") == (
        "CPU measured, GPU predicted: The NVIDIA T4 (predicted) beats the CPU.")
    loader = {"status": "pass", "wrapped_step_s": 0.0051, "bound_s": 0.0055, "copy_s": 0.005,
              "compute_s": 0.0049, "plain_step_s": 0.0099}
    (tmp_path / "l.json").write_text(json.dumps(loader))
    assert summarize("loader", tmp_path / "l.json") == (
        "pass DeviceLoader 5.10 ms/step vs bound 5.50 ms (1.1 x max(copy 5.00, compute 4.90)); "
        "plain loop 9.90 ms")


def test_unreadable_file_never_fails(tmp_path):
    assert summarize("loader", tmp_path / "missing.json").startswith("(unreadable: ")
    (tmp_path / "bad.json").write_text("{")
    assert summarize("bench", tmp_path / "bad.json").startswith("(unreadable: ")
