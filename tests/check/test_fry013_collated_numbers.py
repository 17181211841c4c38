"""A batch position that the loader's ``collate_fn`` fills with Python numbers (``x, n =
zip(*[(a, a.shape[0]) for a in batch])``, ``return torch.stack(x), n``) is no tensor:
FRY013 does not tell to move it.  The loader may be built in another file, with a collate
function of a third, and handed to the loop as a parameter; the collate function may
return tuples of several lengths.  A position that is a tensor is still reported."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from torchferry.check.engine import check_source

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

ONE_FILE = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def coll(batch):
    x, n = zip(*[(a, a.shape[0]) for a in batch])
    return torch.stack(x), n


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, lengths):
        return self.fc(x[:, :lengths[0]])


model = Net().cuda()
loader = DataLoader(list(range(8)), collate_fn=coll)


def run():
    for x, n in loader:
        out = model(x.cuda(), lengths=n)
"""

DATASET = """
import torch


def coll(batch):
    if len(batch[0]) == 2:
        x, n, y = zip(*[(a, a.shape[0], b) for (a, b) in batch])
    else:
        x, n, y, z = zip(*[(a, a.shape[0], b, c) for (a, b, c) in batch])
    data = torch.stack(x)
    labels = torch.LongTensor(y)
    if len(batch[0]) == 3:
        return data, n, labels, torch.stack(z)
    return data, n, labels
"""

LOADERS = """
import torch
from pkg.dataset import coll


def get_loaders(ds):
    return {x: torch.utils.data.DataLoader(ds[x], batch_size=2, collate_fn=coll, pin_memory=True)
            for x in ["train", "test"]}
"""

MAIN = """
import torch
import torch.nn as nn
from pkg.loaders import get_loaders


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, lengths, boundaries=None):
        return self.fc(x[:, :lengths[0]])


def evaluate(model, dset_loader, use_boundary):
    for batch_idx, data in enumerate(dset_loader):
        if use_boundary:
            input, lengths, labels, boundaries = data
            boundaries = boundaries.cuda()
        else:
            input, lengths, labels = data
            boundaries = None
        logits = model(input.cuda(), lengths=lengths, boundaries=boundaries)


def main():
    model = Net().cuda()
    loaders = get_loaders({"train": [], "test": []})
    evaluate(model, loaders["test"], True)
    evaluate(model, loaders["train"], False)
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY013"])]


def test_numbers_a_collate_function_returns_are_not_reported() -> None:
    assert _lines(ONE_FILE) == []


def test_a_tensor_a_collate_function_returns_is_reported() -> None:
    assert _lines(ONE_FILE.replace("return torch.stack(x), n", "return torch.stack(x), torch.tensor(n)")) == [27]


def _project(finding_places: Places, dataset: str = DATASET, main: str = MAIN) -> list[tuple[str, int]]:
    files = {"pkg/__init__.py": "", "pkg/dataset.py": dataset, "pkg/loaders.py": LOADERS, "main.py": main}
    return finding_places(files, "FRY013")


def test_numbers_of_a_loader_handed_in_from_another_file_are_not_reported(finding_places: Places) -> None:
    assert _project(finding_places) == []


@pytest.mark.parametrize("change", [
    ("return data, n, labels, torch.stack(z)", "return data, torch.LongTensor(n), labels, torch.stack(z)"),
    ("return data, n, labels\n", "return data, labels, n\n"),
])
def test_a_position_that_may_be_a_tensor_is_reported(finding_places: Places, change: tuple[str, str]) -> None:
    assert change[0] in DATASET
    assert _project(finding_places, dataset=DATASET.replace(*change)) == [("main.py", 24)]


def test_a_loader_of_another_call_is_asked_too(finding_places: Places) -> None:
    main = MAIN + "\n\ndef other(model, batches):\n    evaluate(model, batches, True)\n"
    assert _project(finding_places, main=main) == [("main.py", 24)]
