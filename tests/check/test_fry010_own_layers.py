"""A CPU factory's result handed to a layer of the module whose method runs it
(``self.lstm(x, (h0, c0))`` of ``self.lstm = nn.LSTM(...)``, ``self.embed(torch.arange(n))``)
meets that layer's weights, which are the module's own parameters: it fails on every run that
moves the module to an accelerator, whoever moves it (``Certainty.OWN_TENSOR``, reported by
the default rule set).  Only a ``torch.nn`` layer that always registers weights, stored on
``self`` as built, counts; not while the module is built, nor a layer held in a plain list
(``.to()`` does not reach it), one whose weights may be None, or one built moved."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

LAYER = "is a layer of the module whose weights go wherever the module is moved"

SOURCE = """
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, n, h):
        super().__init__()
        self.h = h
        {init}

    def forward(self, x):
        {line}
        return out
"""

REPORTED = {
    "lstm_state": ("self.rnn = nn.LSTM(4, 8)",
                   "out, _ = self.rnn(x, (torch.zeros(1, x.size(1), 8), torch.zeros(1, x.size(1), 8)))"),
    "embedding_positions": ("self.pos = nn.Embedding(16, 4)", "out = x + self.pos(torch.arange(x.size(1)))"),
    "linear_input": ("self.fc = nn.Linear(4, 4)", "out = self.fc(torch.ones(2, 4)) + x"),
}

QUIET = {
    # a layer whose weight may be None (``elementwise_affine=False``)
    "optional_weights": ("self.norm = nn.LayerNorm(4)", "out = self.norm(torch.ones(2, 4)) + x"),
    # a plain list of layers: ``model.to(device)`` does not move them
    "listed_layer": ("self.layers = [nn.Linear(4, 4)]", "out = self.layers[0](torch.ones(2, 4)) + x"),
    # built on the device (the run's own move decides, not the module's)
    "built_moved": ("self.fc = nn.Linear(4, 4).cuda()", "out = self.fc(torch.ones(2, 4).cuda()) + x"),
    # a layer without weights
    "weightless": ("self.act = nn.ReLU()", "out = self.act(torch.ones(2, 4)) + x"),
}


def run(init: str, line: str, default: bool = True) -> list[tuple[int, str]]:
    src = textwrap.dedent(SOURCE.format(init=init, line=line))
    select = None if default else ["FRY010"]
    return [(f.line, f.message) for f in check_source(src, "t.py", select=select) if f.code == "FRY010"]


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_a_factory_handed_to_a_layer_of_the_module_is_reported_by_default(name: str) -> None:
    found = run(*REPORTED[name])
    assert found and {ln for ln, _ in found} == {13}
    assert all(LAYER in m for _, m in found)


@pytest.mark.parametrize("name", sorted(QUIET))
def test_other_layers_stay_out_of_the_default_set(name: str) -> None:
    assert run(*QUIET[name]) == []


def test_not_while_the_module_is_built() -> None:
    src = textwrap.dedent("""
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Conv2d(3, 8, 3)
            self.size = self.flat_size()
            self.head = nn.Linear(self.size, 2)

        def flat_size(self):
            return self.features(torch.zeros(1, 3, 32, 32)).numel()

        def forward(self, x):
            return self.head(self.features(x).flatten(1))
    """)
    assert [f for f in check_source(src, "t.py") if f.code == "FRY010"] == []


BUILT = """
import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(torch.zeros(x.shape[0], 4)) + x


net = Policy(){move}
print(net(torch.ones(3, 2).to(next(net.parameters()).device)))
"""


@pytest.mark.parametrize(("move", "lines"), [("", []), (".cuda()", [12])])
def test_a_program_that_builds_the_module_decides_where_it_is(tmp_path: Path, move: str,
                                                                 lines: list[int]) -> None:
    # built and never moved: the program runs it on the CPU; moved: the run's own move
    (tmp_path / "t.py").write_text(BUILT.format(move=move), encoding="utf-8")
    opts = Options(root=tmp_path, select=("FRY010",), target_torch_version=None)
    found = [d for o in check_paths([tmp_path / "t.py"], opts) for d in o.diagnostics]
    assert [d.line for d in found if "layer of the module" in d.message or "puts on" in d.message] == lines
