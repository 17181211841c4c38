"""FRY011 on a plain tensor attribute of a module whose only device use is in a subclass
defined in another file of the run (``class Latent(DDPM)`` in ``latent.py`` indexing
``self.logvar`` that ``DDPM.__init__`` stored): the finding is at the store and names the
subclass's method.  A subclass that moves, stores again or registers the attribute itself
takes it out of the question."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

BASES = {
    # a positional table, indexed by positions made on the input's device
    "positions": """\
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.pe = torch.randn(n, d) * 0.02

    def forward(self, x):
        return self.proj(x)
""",
    # a per-step log-variance of a diffusion model, indexed by steps drawn on its device
    "logvar": """\
import torch
from torch import nn


class Diffusion(nn.Module):
    def __init__(self, net, steps):
        super().__init__()
        self.net = net
        self.logvar = torch.full(size=(steps,), fill_value=0.0)

    def forward(self, x):
        return self.net(x)
""",
    # a scale vector that a subclass's forward multiplies the output by
    "scale": """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.scale = torch.ones(d) * 0.5
""",
}
SUBS = {
    "positions": """\
import torch
from base import Encoder


class PosEncoder(Encoder):
    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        return self.proj(x) + {use}
""",
    "logvar": """\
import torch
from base import Diffusion


class LatentDiffusion(Diffusion):
    def p_losses(self, x, t):
        lv = {use}
        return (self.net(x) - x).pow(2).mean() / torch.exp(lv).mean()

    def forward(self, x):
        t = torch.randint(0, 1000, (x.shape[0],), device=self.device)
        return self.p_losses(x, t)
""",
    "scale": """\
from base import Head


class ScaledHead(Head):
    def forward(self, x):
        return {use}
""",
}
USES = {"positions": "self.pe[pos]", "logvar": "self.logvar[t]", "scale": "self.fc(x) * self.scale"}
MOVED_USES = {"positions": "self.pe.to(x.device)[pos]", "logvar": "self.logvar.to(t.device)[t]",
              "scale": "self.fc(x) * self.scale.to(x.device)"}
STORED_AT = {"positions": 9, "logvar": 9, "scale": 9}
METHOD = {"positions": "PosEncoder.forward", "logvar": "LatentDiffusion.p_losses",
          "scale": "ScaledHead.forward"}


def found(root: Path, files: dict[str, str]):
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY011",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line, d.message) for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("name", sorted(BASES))
def test_use_in_a_subclass_of_another_file(tmp_path: Path, name: str) -> None:
    files = {"base.py": BASES[name], "sub.py": SUBS[name].format(use=USES[name])}
    (f,) = found(tmp_path, files)
    assert f[:2] == ("base.py", STORED_AT[name])
    assert f"`{METHOD[name]}` combines it" in f[2], f[2]


@pytest.mark.parametrize("name", sorted(BASES))
def test_no_finding_where_the_subclass_moves_it_where_used(tmp_path: Path, name: str) -> None:
    files = {"base.py": BASES[name], "sub.py": SUBS[name].format(use=MOVED_USES[name])}
    assert found(tmp_path, files) == []


REGISTERED = """\
import torch
from base import Encoder


class PosEncoder(Encoder):
    def __init__(self, n, d):
        super().__init__(n, d)
        pe = self.pe
        del self.pe
        self.register_buffer("pe", pe)

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        return self.proj(x) + self.pe[pos]
"""
STORED_AGAIN = """\
import torch
from torch import nn
from base import Encoder


class PosEncoder(Encoder):
    def __init__(self, n, d):
        super().__init__(n, d)
        self.pe = nn.Parameter(torch.randn(n, d))

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        return self.proj(x) + self.pe[pos]
"""
CPU_INDEX = """\
import torch
from base import Encoder


class PosEncoder(Encoder):
    def forward(self, x):
        pos = torch.arange(x.shape[1])
        return self.proj(x) + self.pe[pos].to(x.device)
"""


@pytest.mark.parametrize("sub", [REGISTERED, STORED_AGAIN, CPU_INDEX])
def test_no_finding_where_the_subclass_registers_stores_or_indexes_on_the_cpu(tmp_path: Path, sub: str) -> None:
    assert found(tmp_path, {"base.py": BASES["positions"], "sub.py": sub}) == []


def test_the_base_file_alone_reports_nothing(tmp_path: Path) -> None:
    (tmp_path / "base.py").write_text(BASES["logvar"])
    (tmp_path / "sub.py").write_text(SUBS["logvar"].format(use=USES["logvar"]))
    opts = Options(root=tmp_path, select=("FRY011",), target_torch_version=None)
    assert [d for o in check_paths([tmp_path / "base.py"], opts) for d in o.diagnostics] == []
