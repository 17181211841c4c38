"""``ferry check`` prints the same bytes for the same input, whatever Python's hash seed:
the analysis never lets the order of a set of places, names or nodes (which follows the
hashes of their strings, different in every process) decide which of two candidates a
finding or its evidence names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import torchferry

# the value stored into the array comes from a function of the run given two tensors on the
# device (a module's output and a moved tensor): its origins follow the parameters' order
TWO_PARAMETERS = """\
import numpy as np
import torch
from torch import nn


def distance(out, target):
    return torch.abs(out - target).mean()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 4).to(device)
losses = np.zeros((10, 1))
for i in range(10):
    x = torch.from_numpy(np.ones((2, 4))).to(device)
    y = torch.from_numpy(np.ones((2, 4))).to(device)
    loss = distance(model(x), y)
    loss.backward()
    losses[i] = loss.data
"""


def _check(path: Path, seed: str) -> str:
    src = str(Path(torchferry.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONHASHSEED": seed,
           "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run(
        [sys.executable, "-m", "torchferry", "check", "--no-cache", "--select", "ALL",
         "--output-format", "json", str(path)],
        capture_output=True, text=True, timeout=600, env=env, cwd=path.parent)
    assert proc.returncode == 1, proc.stderr
    return proc.stdout


def test_evidence_is_the_same_whatever_the_hash_seed(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TWO_PARAMETERS)
    first, second = _check(path, "0"), _check(path, "1")
    assert '"code": "FRY003"' in first
    assert "`loss.data` comes out of a module call at line 16" in first
    assert first == second
