"""The legacy iterators of torchtext (``data.BucketIterator.splits((train, valid),
batch_size=32)``) are loaders whose batches' tensors are made on the CPU, unless they are
given a ``device`` (by keyword, or fourth in place for ``Iterator``/``BucketIterator``); and
FRY014 weighs the items of a loader a function of the file is handed by every call of the
file (``train(model, train_iter)``), as FRY013 does."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchtext import data

DEVICE = torch.device("cuda")
TEXT = data.Field(batch_first=True)
LABEL = data.Field(sequential=False)
trainset, testset = data.TabularDataset.splits(path=".", fields=[("text", TEXT), ("label", LABEL)])
train_iter, test_iter = {loaders}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.embed(x).mean(1))


def train(model, train_iter):
    for batch in train_iter:
        x, y = {x}, {y}
        logit = model(x)
        loss = F.cross_entropy(logit, y)
        loss.backward()


model = Net().to(DEVICE)
train(model, train_iter)
'''

SPLITS = "data.BucketIterator.splits((trainset, testset), batch_size=32, shuffle=True)"


def _found(loaders: str, x: str, y: str) -> list[tuple[str, int]]:
    src = SRC.format(loaders=loaders, x=x, y=y)
    return [(f.code, f.line) for f in check_source(src, "t.py", select=["FRY013", "FRY014"])]


def test_a_label_left_on_the_cpu_by_a_legacy_iterator_is_reported() -> None:
    assert _found(SPLITS, "batch.text.to(DEVICE)", "batch.label") == [("FRY013", 27)]


def test_a_text_left_on_the_cpu_by_a_legacy_iterator_is_reported_at_the_model() -> None:
    assert _found(SPLITS, "batch.text", "batch.label.to(DEVICE)") == [("FRY014", 26)]


@pytest.mark.parametrize("loaders", [
    "data.BucketIterator.splits((trainset, testset), batch_size=32, device=DEVICE)",
    "data.BucketIterator(trainset, 32, None, DEVICE), data.BucketIterator(testset, 32, None, DEVICE)",
    "data.BucketIterator(trainset, 32, device=DEVICE), data.BucketIterator(testset, 32, device=DEVICE)",
])
def test_a_legacy_iterator_given_a_device_is_not_taken_for_the_cpu(loaders: str) -> None:
    assert _found(loaders, "batch.text.to(DEVICE)", "batch.label") == []
    assert _found(loaders, "batch.text", "batch.label.to(DEVICE)") == []


def test_one_iterator_without_a_device_is_a_loader_too() -> None:
    loaders = "data.BucketIterator(trainset, batch_size=32), data.Iterator(testset, batch_size=32)"
    assert _found(loaders, "batch.text.to(DEVICE)", "batch.label") == [("FRY013", 27)]


def test_every_item_moved_stays_quiet() -> None:
    assert _found(SPLITS, "batch.text.to(DEVICE)", "batch.label.to(DEVICE)") == []


def test_an_unknown_iterable_stays_quiet() -> None:
    assert _found("iter(trainset), iter(testset)", "batch.text", "batch.label.to(DEVICE)") == []


PASSED = '''\
import torch
from torch import nn
from torch.utils.data import DataLoader

device = torch.device("cuda")


def train(model, loader):
    for data, target in loader:
        {move}
        out = model(data)
        loss = nn.functional.nll_loss(out, target)


net = nn.Linear(4, 2).to(device)
train(net, DataLoader(list(range(8))))
'''


def test_a_loader_handed_to_a_function_is_weighed_by_fry014() -> None:
    src = PASSED.format(move="target = target.to(device)")
    assert [(f.code, f.line) for f in check_source(src, "t.py", select=["FRY014"])] == [("FRY014", 11)]


def test_a_loader_handed_to_a_function_with_every_item_moved_stays_quiet() -> None:
    src = PASSED.format(move="data, target = data.to(device), target.to(device)")
    assert check_source(src, "t.py", select=["FRY014"]) == []
