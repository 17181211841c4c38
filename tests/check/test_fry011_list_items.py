"""FRY011 on a plain tensor attribute indexed by an item of a list of tensors.

``entities = [v.view(-1)]`` of a ``forward`` input ``v``, grown by ``entities.append(nb.to(device))``,
holds tensors that move with the model: ``self.table[entities[h]]`` indexes a CPU tensor
with them once the model is on the accelerator, so the attribute is flagged.  A list of
CPU tensors (or one grown by what is brought to the CPU) never follows the model: quiet;
an item of a tensor (``v[0]``) indexes like an integer: quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

TABLE = """
import torch
import torch.nn as nn

class Walk(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.device = device
        self.emb = nn.Embedding(n, 4)
        self.table = torch.zeros(n, 2, dtype=torch.long)

    def forward(self, v):
        entities = [v.view(-1)]
        for h in range(2):
            nb = self.table[entities[h]].view(-1).to(self.device)
            entities.append(nb)
        return self.emb(entities[-1])
"""


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


def test_an_item_of_a_list_of_model_following_tensors_is_flagged() -> None:
    assert lines(TABLE) == [10]


@pytest.mark.parametrize(
    "old, new",
    [
        ("entities = [v.view(-1)]", "entities = [torch.arange(3)]"),
        (".to(self.device)", ".cpu()"),
        ("entities.append(nb)", "entities.append(torch.arange(3))"),
        ("self.table[entities[h]]", "self.table[v[0]]"),
    ],
)
def test_a_list_that_never_follows_the_model_is_quiet(old: str, new: str) -> None:
    assert lines(TABLE.replace(old, new)) == []
