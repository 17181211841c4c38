"""FRY011 on a plain tensor attribute that ``__init__`` puts on its ``device`` parameter,
which has a value as default (``device="cpu"``): where every construction of the module in
the run names the device (``Mixer(feats, device=args.device)``), the default is never used
and the caller names the device the module is built for, as for a parameter without a
default, so no finding.  Reported still where a construction leaves the parameter out, spreads
``**kwargs``, where the class is handed on rather than called, or where the run builds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

MODEL = """\
import numpy as np
import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, feats: np.ndarray, dim: int, device: str = "cpu"):
        super(Mixer, self).__init__()
        self.feats = torch.from_numpy(feats.astype(np.float32)).to(device)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(ids) + self.feats
"""
TRAIN = """\
import torch
from model import Mixer


def main(args, feats):
    {build}
    model = model.to(args.device)
    return model(torch.ones(3, 3).to(args.device))
"""


def _check(tmp_path: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    opts = Options(root=tmp_path, select=("FRY011",), target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts)
    return [f"{Path(o.path).name}:{d.line}" for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("build", [
    "model = Mixer(feats, 3, device=args.device)",
    "model = Mixer(feats, 3, args.device)",
])
def test_a_device_every_construction_names_ties_the_attribute(tmp_path: Path, build: str) -> None:
    assert _check(tmp_path, {"model.py": MODEL, "train.py": TRAIN.format(build=build)}) == []


@pytest.mark.parametrize("build", [
    "model = Mixer(feats, 3)",
    "model = Mixer(feats, 3, **args.extra)",
    "model = (Mixer)(feats, 3, device=args.device) if args.mix else Mixer(feats, 3)",
])
def test_a_default_some_construction_uses_is_reported(tmp_path: Path, build: str) -> None:
    assert _check(tmp_path, {"model.py": MODEL, "train.py": TRAIN.format(build=build)}) == ["model.py:9"]


def test_one_construction_that_leaves_it_out_is_enough(tmp_path: Path) -> None:
    other = "from model import Mixer\n\n\ndef probe(feats):\n    return Mixer(feats, 3)\n"
    files = {"model.py": MODEL, "train.py": TRAIN.format(build="model = Mixer(feats, 3, device=args.device)"),
             "probe.py": other}
    assert _check(tmp_path, files) == ["model.py:9"]


def test_a_module_the_run_never_builds_is_reported(tmp_path: Path) -> None:
    assert _check(tmp_path, {"model.py": MODEL}) == ["model.py:9"]
