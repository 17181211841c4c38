"""The name a loop over a loader binds, rebound to an item of the batch that the run made
on the CPU (``for data in loader: data = data[0]`` over a ``TensorDataset``), holds a
tensor: its discarded ``data.to(device)`` is reported and leaves it on the CPU.  The whole
batch of a loader the analysis does not know (a ``BatchEncoding``, a collate function's
object) may move in place and stays quiet."""

from __future__ import annotations

from torchferry.check.engine import check_source

SOURCE = """
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = torch.from_numpy(np.zeros((8, 4), "f"))
loader = DataLoader(TensorDataset(features), batch_size=2)
model = nn.Linear(4, 1).to(device)


def train():
    for data in loader:
        data = data[0]
        data.to(device)
        loss = model(data).mean()
        loss.backward()
"""


def _found(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(source, "t.py", select=["FRY002", "FRY014"])]


def test_a_rebound_item_of_a_batch_made_on_the_cpu_is_a_tensor() -> None:
    assert _found(SOURCE) == [("FRY002", 16), ("FRY014", 17)]


def test_the_whole_batch_of_an_unknown_loader_moves_in_place() -> None:
    source = SOURCE.replace("        data = data[0]\n", "").replace(
        "DataLoader(TensorDataset(features), batch_size=2)", "make_loader()")
    assert _found(source) == []
