"""A ``DataLoader`` of torch over a ``TensorDataset`` of tensors made on the CPU, collated
by torch's default, yields CPU tensors: an item handed unmoved to a model on the device is
reported even where no other item of the batch is moved, and so is
``loader.dataset.tensors[i]``.  A loader whose batches may be anything else (a collate
function of the run, a ``**`` mapping that may hold one, another library's loader, a dataset of tensors that
may be on the device) stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, default_collate

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1)
model.to(device)
features = torch.from_numpy(np.zeros((8, 4), "f"))
loader = DataLoader(TensorDataset(features, torch.zeros(8)), batch_size=2)


def train():
    for data, target in loader:
        loss = model(data).mean()
        loss.backward()


def first():
    return model(loader.dataset.tensors[0])
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def test_an_item_of_a_tensor_dataset_is_reported_without_a_moved_sibling() -> None:
    assert _lines(SOURCE) == [16, 21]


@pytest.mark.parametrize("collate", ["collate_fn=default_collate", "collate_fn=None",
                                     "pin_memory=True", "shuffle=True, num_workers=2"])
def test_the_default_collate_keeps_the_items_on_the_cpu(collate: str) -> None:
    assert _lines(SOURCE.replace("batch_size=2", f"batch_size=2, {collate}")) == [16, 21]


def test_an_item_moved_before_the_model_is_quiet() -> None:
    moved = SOURCE.replace("model(data)", "model(data.to(device))").replace(
        "model(loader.dataset.tensors[0])", "model(loader.dataset.tensors[0].to(device))")
    assert _lines(moved) == []


_FEATURES = 'features = torch.from_numpy(np.zeros((8, 4), "f"))'


@pytest.mark.parametrize("change", [
    [("batch_size=2)", "batch_size=2, collate_fn=lambda b: b)")],
    [("batch_size=2)", "**opts)"), ("loader =", "opts = {}\nopts.update(extra)\nloader =")],
    [("batch_size=2)", "2, False, None, None, 0, lambda b: b)")],
    [(_FEATURES, "features = torch.zeros(8, 4, device=device)")],
    [(_FEATURES, "features = torch.zeros(8, 4).to(device)")],
    [("import DataLoader, TensorDataset,", "import TensorDataset,"),
     ("import numpy as np", "import numpy as np\nfrom torch_geometric.loader import DataLoader")],
])
def test_a_batch_that_may_be_elsewhere_is_quiet(change: list[tuple[str, str]]) -> None:
    changed = SOURCE
    for old, new in change:
        assert old in changed
        changed = changed.replace(old, new)
    line = next(n for n, text in enumerate(changed.splitlines(), 1) if "model(data)" in text)
    assert line not in _lines(changed)
