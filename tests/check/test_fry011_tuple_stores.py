"""FRY011 on a plain tensor attribute that a method stores back moved as an item of a
tuple assignment (``self.shift, self.scale = self.shift.to(device), self.scale.to(device)``
with ``device`` the parameters' device): the same as two statements that each store one
moved attribute back, item by item -- an item the assignment does not move keeps its
finding, and a value that is not a tuple written out tells nothing of its items."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch
from torch import nn
'''

# ``set_transformations`` is called by ``__init__`` and by whoever refits the model; every
# call stores the attributes back on the parameters' device
MOVED_BACK = '''
class Dynamics(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.fc = nn.Linear(n, n)
        self.set_transformations()

    def set_transformations(self, shift=None, scale=None):
        if shift is None:
            self.shift = torch.zeros(self.n)
            self.scale = torch.ones(self.n)
        else:
            self.shift = torch.from_numpy(shift)
            self.scale = torch.from_numpy(scale)
        device = next(self.parameters()).data.device
        self.shift, self.scale = {items}

    def forward(self, x):
        return self.fc((x - self.shift) / (self.scale + 1e-8))
'''

QUIET = {
    "both_moved": "self.shift.to(device), self.scale.to(device)",
    "list_target_items": "[self.shift.to(device), self.scale.to(device)]",
    # (each receives the other moved: both end on the parameters' device)
    "items_swapped": "self.scale.to(device), self.shift.to(device)",
}

# the attributes each keeps flagged
FLAGGED = {
    "second_left_unmoved": ("self.shift.to(device), self.scale", {"scale"}),
    "one_value_unpacked": ("self._placed(device)", {"shift", "scale"}),
}


def _findings(items: str) -> list[tuple[int, str]]:
    body = MOVED_BACK.format(items=items)
    if "_placed" in items:
        body += '''
    def _placed(self, device):
        return self.shift, self.scale
'''
    source = HEAD + body
    lines = source.splitlines()
    return [(f.line, lines[f.line - 1].strip()) for f in
            check_source(source, "t.py", select=["FRY011"])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_moved_back_item_by_item(name: str) -> None:
    assert _findings(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_an_item_left_unmoved_stays_flagged(name: str) -> None:
    items, attrs = FLAGGED[name]
    flagged = {text.split(" = ")[0].removeprefix("self.") for _, text in _findings(items)}
    assert flagged == attrs
