"""FRY011 in the default rule set and named: an attribute that ``__init__`` puts on a device
the program chooses when it runs (``args.device`` of a configuration handed to ``__init__``,
``"cuda" if torch.cuda.is_available() else "cpu"``, also through a name bound once or through
``self.device`` set so by ``__init__`` or by a base's) is where the program puts the model too,
unless it moves the model elsewhere: the default set does not report it, a selector naming the
rule does.  The default set still reports an attribute on a device written out (``.cuda()``),
on a parameter's default, on the device of a tensor handed in, or left on the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

BASE = """\
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.device = {base_device}
        self.size = args.hidden
"""
MODEL = """\
import torch
import torch.nn as nn
from base import Base


class Model(Base):
    def __init__(self, args, x_example, device="cpu"):
        super().__init__(args)
        {prelude}
        self.table = torch.arange(args.hidden).float(){placement}
        self.proj = nn.Linear(args.hidden, args.hidden)

    def forward(self, x):
        return self.proj(x) + self.table
"""

CHOSEN = [
    ("", ".to(args.device)", "args.device"),
    ("", ".to(torch.device(args.device))", "args.device"),
    ("dev = 'cuda' if torch.cuda.is_available() else 'cpu'", ".to(dev)", "args.device"),
    ("", ".to(self.device)", "args.device"),
    ("", ".to(self.device)", "'cuda' if torch.cuda.is_available() else 'cpu'"),
    ("self.dev = torch.device(args.device)", ".to(self.dev)", "'cpu'"),
]
WRITTEN = [
    ("", ".cuda()", "args.device"),
    ("", ".to(device)", "args.device"),
    ("", ".to(x_example.device)", "args.device"),
    ("", "", "args.device"),
    ("", ".to(self.device)", "'cuda:0'"),
    ("dev = 'cuda' if torch.cuda.is_available() else 'cpu'\n        dev = 'cuda:1'", ".to(dev)", "args.device"),
]


def _found(tmp_path: Path, prelude: str, placement: str, base_device: str, select: str | None) -> list[int]:
    (tmp_path / "base.py").write_text(BASE.format(base_device=base_device))
    (tmp_path / "model.py").write_text(MODEL.format(prelude=prelude or "pass", placement=placement))
    opts = Options(root=tmp_path, select=None if select is None else (select,), target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts)
    return [d.line for o in outcomes for d in o.diagnostics if d.code == "FRY011"]


@pytest.mark.parametrize(("prelude", "placement", "base_device"), CHOSEN)
def test_a_device_chosen_when_run_is_reported_only_when_named(
        tmp_path: Path, prelude: str, placement: str, base_device: str) -> None:
    assert _found(tmp_path, prelude, placement, base_device, None) == []
    assert _found(tmp_path, prelude, placement, base_device, "FRY011") != []


@pytest.mark.parametrize(("prelude", "placement", "base_device"), WRITTEN)
def test_the_default_set_reports_other_places(
        tmp_path: Path, prelude: str, placement: str, base_device: str) -> None:
    assert _found(tmp_path, prelude, placement, base_device, None) != []
