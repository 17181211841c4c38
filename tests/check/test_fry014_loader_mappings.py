"""What a ``DataLoader`` of torch yields when it is given a ``**`` mapping the file builds
with literal keys, when its dataset is one of two ``TensorDataset`` s of different lengths,
and what ``isinstance(batch, list)`` says of its batch (torch's default collate makes a
list of a batch of tuples): an item (or ``loader.dataset.tensors[i]``) made on the CPU and handed unmoved to a model on the
device is reported; a mapping that may hold a ``collate_fn`` (written after it is built,
updated, aliased, of keys the analysis cannot read) stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}
features = torch.from_numpy(np.zeros((8, 4), "f"))
dataset = TensorDataset(features)
loader = DataLoader(dataset, batch_size=2, shuffle=True, **kwargs)
model = nn.Linear(4, 1).to(device)


def train():
    for batch in loader:
        data = batch[0]
        loss = model(data).mean()
        loss.backward()
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _changed(changes: list[tuple[str, str]]) -> str:
    out = SOURCE
    for old, new in changes:
        assert old in out
        out = out.replace(old, new)
    return out


def test_a_mapping_of_literal_keys_keeps_the_default_collate() -> None:
    assert _lines(SOURCE) == [_line(SOURCE, "model(data)")]


def test_a_mapping_of_a_class_dataset_keeps_the_default_collate() -> None:
    source = _changed([("dataset = TensorDataset(features)", """
class Rows(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(4), 0


dataset = Rows()""")])
    assert _lines(source) == [_line(source, "model(data)")]


@pytest.mark.parametrize("changes", [
    [('"pin_memory": True}', '"pin_memory": True, "collate_fn": lambda b: b}')],
    [("\nloader =", '\nkwargs["collate_fn"] = lambda b: b\nloader =')],
    [("\nloader =", "\nkwargs.update(options)\nloader =")],
    [("\nloader =", "\nkept = kwargs\nloader =")],
    [("\nloader =", "\nkwargs |= options\nloader =")],
    [("kwargs = {", "kwargs = {key: 1, "), ("\nuse_cuda", "\nkey = sys.argv[1]\nuse_cuda")],
    [("kwargs = {", "kwargs = options or {")],
    [("**kwargs)", "**{'collate_fn': None})")],
])
def test_a_mapping_that_may_hold_a_collate_function_is_quiet(changes: list[tuple[str, str]]) -> None:
    assert _lines(_changed(changes)) == []


def test_datasets_of_different_lengths_joined_yield_cpu_items() -> None:
    source = _changed([("dataset = TensorDataset(features)", """if len(sys.argv) > 1:
    dataset = TensorDataset(features, torch.from_numpy(np.zeros(8, "i8")))
else:
    dataset = TensorDataset(features)""")])
    assert _lines(source) == [_line(source, "model(data)")]


def test_the_tensors_of_datasets_joined_are_made_on_the_cpu() -> None:
    source = _changed([("dataset = TensorDataset(features)", """if len(sys.argv) > 1:
    dataset = TensorDataset(features, torch.from_numpy(np.zeros(8, "i8")))
else:
    dataset = TensorDataset(features)"""), ("        data = batch[0]\n", ""),
        ("model(data)", "model(loader.dataset.tensors[0])")])
    assert _lines(source) == [_line(source, "model(loader.dataset.tensors[0])")]


def test_datasets_joined_with_a_moved_tensor_are_quiet() -> None:
    source = _changed([("dataset = TensorDataset(features)", """if len(sys.argv) > 1:
    dataset = TensorDataset(features, torch.zeros(8).to(device))
else:
    dataset = TensorDataset(features.to(device))""")])
    assert _lines(source) == []


def test_a_batch_the_default_collate_makes_is_a_list() -> None:
    source = _changed([("        data = batch[0]\n", """        data = batch
        if isinstance(data, list):
            data = data[0]
""")])
    assert _lines(source) == [_line(source, "model(data)")]


def test_a_batch_of_a_collate_function_is_not_read_as_a_list() -> None:
    source = _changed([("        data = batch[0]\n", """        data = batch
        if isinstance(data, list):
            data = data[0]
"""), ("shuffle=True, **kwargs)", "collate_fn=lambda b: b)")])
    assert _lines(source) == []
