"""FRY010 with submodules taken from a module container by index or key
(``self.blocks[i](h)``, ``self.heads["cls"](h)``, ``self.net[0](x)``, a slice of a module
list in a loop) and module lists extended with ``+=``: their outputs are the model's, as
those of the submodules a loop takes from the container."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

LIST_BY_INDEX = '''
import torch
import torch.nn as nn

class Stack(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])

    def forward(self, h):
        total = torch.zeros(h.size(0))
        for i in range(len(self.blocks)):
            h = self.blocks[i](h)
            total += h.sum(-1)
        return h, total
'''

DICT_BY_KEY = '''
import torch
import torch.nn as nn

class Heads(nn.Module):
    def __init__(self, names):
        super().__init__()
        self.heads = nn.ModuleDict({name: nn.Linear(8, 2) for name in names})

    def forward(self, h, name):
        scores = self.heads[name](h)
        pad = torch.full((scores.size(0), 1), -1e4)
        return torch.cat([scores, pad], dim=1)
'''

SEQUENTIAL_BY_INDEX = '''
import torch
import torch.nn as nn

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 6))

    def forward(self, x):
        first = self.net[0](x)
        return first * torch.rand(first.size(-1))
'''

EXTENDED_LIST = '''
import torch
import torch.nn as nn

class Flow(nn.Module):
    def __init__(self, dim, layer=nn.Linear):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(dim):
            self.layers += [layer(dim, dim)]

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x = layer(x)
            log_det -= x.mean(-1)
        return x, log_det
'''

SLICED_LIST = '''
import torch
import torch.nn as nn

class Tower(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(5, 5) for _ in range(n))

    def forward(self, x):
        for block in self.blocks[1:]:
            x = block(x)
        return x + torch.randn(5)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (LIST_BY_INDEX, "torch.zeros("),
    (DICT_BY_KEY, "torch.full("),
    (SEQUENTIAL_BY_INDEX, "torch.rand("),
    (EXTENDED_LIST, "torch.zeros("),
    (SLICED_LIST, "torch.randn("),
], ids=["list-index", "dict-key", "sequential-index", "extended-list", "sliced-list"])
def test_a_submodule_taken_from_a_container_is_the_models(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


UNKNOWN_CONTAINER = '''
import torch

def apply(blocks, h):
    total = torch.zeros(h.size(0))
    for i in range(len(blocks)):
        total += blocks[i](h).sum(-1)
    return total
'''

RUN_CLASS_WITH_GETITEM = '''
import torch
import torch.nn as nn

class Bank:
    def __init__(self):
        self.items = []

    def __getitem__(self, i):
        return self.items[i]

class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.bank = Bank()

    def forward(self, x):
        out = self.bank[0](x)
        return out * torch.ones(3)
'''


@pytest.mark.parametrize(("source", "change"), [
    # a number read back from the output: on the CPU on purpose
    (LIST_BY_INDEX, ("total += h.sum(-1)", "total += h.sum(-1).item()")),
    # indices kept on the CPU index a tensor on the device
    (SEQUENTIAL_BY_INDEX, ("first * torch.rand(first.size(-1))", "first[torch.arange(2)]")),
    # ``__init__`` runs before any move: its submodules' outputs are on the CPU there
    (DICT_BY_KEY, ("    def forward(self, h, name):", "        self.heads[names[0]](torch.ones(1, 8)) + "
                   "torch.zeros(2)\n\n    def forward(self, h, name):")),
    # a parameter that no call of the run gives a module list: not known to hold modules
    (UNKNOWN_CONTAINER, ("", "")),
    # a class of the run that defines ``__getitem__`` is no module container
    (RUN_CLASS_WITH_GETITEM, ("", "")),
], ids=["number", "cpu-indices", "construction", "unknown-parameter", "getitem"])
def test_what_stays_on_the_cpu_on_purpose_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change) if change[0] else source
    assert changed != source or not change[0]
    kept = [_line(changed, "torch.full(")] if "names[0]" in change[1] else []
    assert _lines(changed) == kept
