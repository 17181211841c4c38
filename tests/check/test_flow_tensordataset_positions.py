"""``DataLoader(TensorDataset(t1, t2, ...))`` with the default collate function, collating
in the calling process: position k of each batch is where tensor k is, moved or made on
the CPU (torch 2.13's ``TensorDataset.__getitem__`` gives ``tuple(tensor[index] for tensor
in self.tensors)``, ``default_collate`` stacks each position with ``torch.stack``).  A loader
with workers, ``pin_memory`` or a collate function of its own is not read so for a moved
tensor."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SRC = '''\
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


device = "cuda" if torch.cuda.is_available() else "cpu"
enc = Enc(){model_move}
x = torch.tensor([[1, 2]]).long()
y = torch.tensor([[1, 2]]).long().to(device)
for a, b in DataLoader(TensorDataset(x, y), batch_size=2{options}):
    enc({fed})
'''

Places = Callable[..., list[tuple[str, int]]]


def found(finding_places: Places, model_move: str = "", options: str = "", fed: str = "b") -> list[tuple[str, int]]:
    src = SRC.format(model_move=model_move, options=options, fed=fed)
    return finding_places({"main.py": src}, "FRY014")


def test_a_moved_position_meets_an_unmoved_model(finding_places: Places) -> None:
    assert found(finding_places) == [("main.py", 20)]


def test_the_cpu_position_beside_it_meets_a_moved_model(finding_places: Places) -> None:
    assert found(finding_places, model_move=".to(device)", fed="a") == [("main.py", 20)]
    assert found(finding_places, model_move=".to(device)", fed="b") == []


@pytest.mark.parametrize("options", [", num_workers=2", ", pin_memory=True", ", collate_fn=lambda r: r"])
def test_workers_pinning_or_an_own_collate_keep_the_moved_position_unknown(finding_places: Places,
                                                                          options: str) -> None:
    assert found(finding_places, options=options) == []


def test_workers_set_to_zero_collate_in_process(finding_places: Places) -> None:
    assert found(finding_places, options=", num_workers=0, pin_memory=False") == [("main.py", 20)]


def test_workers_given_by_position_keep_the_moved_position_unknown(finding_places: Places) -> None:
    src = SRC.format(model_move="", options="", fed="b").replace("batch_size=2", "2, False, None, None, 2")
    assert finding_places({"main.py": src}, "FRY014") == []
