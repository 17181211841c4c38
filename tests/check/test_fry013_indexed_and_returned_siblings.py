"""FRY013 with tensor indexing as a meeting, and with siblings a function returns moved.

A tensor is indexed only by indices on the CPU or on its own device, so an item of a batch
left on the CPU while another item was moved, indexed by a tensor on the device
(``data[:, :, permute]``), fails there; a tensor on the device indexed by an item on the
CPU does not.  The tensors a function of the file returns together, some moved to the
device in its ``return`` and one not (``return x.to(device), y, a.to(device)``), are
siblings as those the caller moves after the unpacking; one left behind is also followed
into a function of the file it is handed to, where it meets another argument (``target[mask]``
of ``train(target, idx_train)``)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

LOOP = '''\
import torch
from torch import nn
from torch.utils.data import DataLoader

loader = DataLoader(list(range(8)), batch_size=2)
model = nn.Linear(4, 2)
device = torch.device("cuda")
model.to(device)
permute = torch.randperm(4).to(device)
for data, target in loader:
    {move}
    data = data.view(-1, 4)
    data = {use}
    loss = nn.functional.nll_loss(model(data), target)
'''


def _found(src: str) -> list[tuple[int, str]]:
    lines = src.splitlines()
    return [(f.line, lines[f.line - 1].strip()) for f in check_source(src, "t.py", select=["FRY013"])]


def test_an_item_left_on_the_cpu_indexed_by_a_device_index_is_reported() -> None:
    src = LOOP.format(move="data, target = data, target.to(device)", use="data[:, permute]")
    assert _found(src) == [(13, "data = data[:, permute]")]


@pytest.mark.parametrize(("move", "use"), [
    ("data, target = data.to(device), target.to(device)", "data[:, permute]"),  # both moved
    ("data, target = data, target.to(device)", "data[:, permute.cpu()]"),  # index on the CPU
    ("data, target = data, target.to(device)", "permute[data.long()]"),  # the item is the index
    ("data, target = data, target", "data[:, permute]"),  # no item moved
])
def test_an_indexing_that_cannot_fail_stays_quiet(move: str, use: str) -> None:
    assert _found(LOOP.format(move=move, use=use)) == []


RETURNED = '''\
import torch

def load(device):
    x = torch.zeros(10, 4)
    y = torch.LongTensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 0])
    return x.to(device), {y}


def train(data, target, mask):
    {first}
    return data[mask].sum() + target[mask].float().sum()


device = torch.device("cuda")
features, labels = load(device)
idx = torch.randperm(10).to(device)
train(features, labels, {idx})
'''


def test_a_returned_sibling_left_behind_is_followed_into_the_function_it_is_handed_to() -> None:
    src = RETURNED.format(y="y", first="pass", idx="idx")
    assert _found(src) == [(17, "train(features, labels, idx)")]


def test_a_returned_sibling_left_behind_indexed_where_it_is_unpacked_is_reported() -> None:
    src = RETURNED.format(y="y", first="pass", idx="idx") + "picked = labels[idx]\n"
    assert (18, "picked = labels[idx]") in _found(src)


@pytest.mark.parametrize(("y", "first", "idx"), [
    ("y.to(device)", "pass", "idx"),  # returned moved too
    ("y", "target = target.to(mask.device)", "idx"),  # the callee moves it first
    ("y", "pass", "idx.cpu()"),  # the index is on the CPU
    ("torch.tensor(0.5)", "pass", "idx"),  # 0-dimensional
])
def test_a_returned_sibling_that_cannot_fail_stays_quiet(y: str, first: str, idx: str) -> None:
    assert _found(RETURNED.format(y=y, first=first, idx=idx)) == []


def test_a_device_tensor_indexed_by_a_returned_sibling_on_the_cpu_stays_quiet() -> None:
    src = RETURNED.format(y="y", first="pass", idx="idx").replace(
        "train(features, labels, idx)", "train(features, idx, labels)")
    assert _found(src) == []
