"""Hugging Face programs under ``ferry run --simulate cuda``: a ``Trainer`` with
``TrainingArguments(torch_compile=True)``, and ``accelerate launch`` started from a
simulated script (the programs are ``benchmarks/sim_programs/``'s)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "benchmarks" / "sim_programs"
FERRY = [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda"]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["HF_HOME"] = str(tmp_path / "hf")  # no user's accelerate config, no hub cache
    env.pop("LOCAL_RANK", None)
    return env


def _run(cmd: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_trainer_with_torch_compile_trains_with_the_cpu_losses(tmp_path):
    pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    script = str(PROGRAMS / "trainer_compile.py")
    cpu = _run([sys.executable, script, str(tmp_path / "cpu"), "--steps", "3", "--no-compile"],
               tmp_path)
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    sim = _run([*FERRY, script, str(tmp_path / "sim"), "--steps", "3"], tmp_path)
    assert sim.returncode == 0, sim.stderr[-3000:]
    losses = re.findall(r"^step \d+ loss \S+$", sim.stdout, re.M)
    assert len(losses) == 3 and losses == re.findall(r"^step \d+ loss \S+$", cpu.stdout, re.M)
    assert "device cuda:0 compiled True" in sim.stdout
    assert "device cpu compiled False" in cpu.stdout
    assert "compiled kernels are not what runs" in sim.stderr


@pytest.mark.slow
def test_accelerate_launch_from_a_simulated_script_gives_each_rank_its_gpu(tmp_path):
    pytest.importorskip("accelerate")
    r = _run([*FERRY, "--device-count", "2", str(PROGRAMS / "accelerate_launch.py"), "2"], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert sorted(x for x in r.stdout.splitlines() if x.startswith("rank ")) == [
        "rank 0 of 2 device cuda:0 backend nccl sum 3.0 on cuda:0",
        "rank 1 of 2 device cuda:1 backend nccl sum 3.0 on cuda:1",
    ]
