"""FRY003 follows a class of the run that moves the batches it yields (``__iter__``
returning ``map(self.to_cuda, iter(self.loader))``): what it gathers from them and hands
to NumPy may be on the accelerator.  Brought home first, it is not flagged."""

from __future__ import annotations

from torchferry.check.engine import check_source

HEAD = '''\
import numpy as np
import torch
from torch.utils.data import DataLoader


class Feed:
    def __init__(self, data, use_cuda):
        self.loader = DataLoader(data)
        self.use_cuda = use_cuda

    def __iter__(self):
        return map(self.to_cuda, iter(self.loader))

    def to_cuda(self, tensors):
        return [t.cuda() if self.use_cuda else t for t in tensors]

    def labels(self):
        found = []
        for tensors in self:
            x, y = tensors
            found += [y]
'''


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY003"])]


def test_what_a_moving_iterator_yields_is_flagged_at_numpy() -> None:
    body = "        return np.array(torch.cat(found))\n"
    assert _lines(body) == [len((HEAD + body).splitlines())]


def test_brought_home_first_it_is_not() -> None:
    assert _lines("        return np.array(torch.cat(found).cpu())\n") == []
