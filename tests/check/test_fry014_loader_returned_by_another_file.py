"""FRY014 with a loader over a torchvision dataset that a function of another file of the
run builds and returns (``loader = utils.get_loader(n)``): its ``DataLoader(...)`` and
dataset are read in that file, as for a loader built in the calling file."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


UTILS = """\
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def get_transform():
    return transforms.Compose([transforms.ToTensor(), transforms.Normalize((.5,), (.5,))])


def get_dataset():
    return datasets.MNIST(root="data", train=True, download=True, transform={transform})


def get_loader(batch_size):
    dataset = get_dataset()
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True{collate})
    return loader
"""

MAIN = """\
import torch
from torch import nn
import utils.utils as utils

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = utils.get_loader(4)
net = nn.Linear(784, 1).to(device)
for step, (images, _) in enumerate(loader):
    out = net({images})
"""


def _found(finding_places: Places, images: str = "images", transform: str = "get_transform()",
           collate: str = "") -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(images=images), "utils/__init__.py": "",
             "utils/utils.py": UTILS.format(transform=transform, collate=collate)}
    return finding_places(files, "FRY014")


def test_an_item_of_a_loader_another_file_returns_meets_a_moved_model(finding_places: Places) -> None:
    assert _found(finding_places) == [("main.py", 9)]


@pytest.mark.parametrize(
    ("images", "transform", "collate"),
    [
        ("images.to(device)", "get_transform()", ""),  # moved
        ("images", "transforms.Lambda(lambda x: x)", ""),  # a transform that may do anything
        ("images", "get_transform()", ", collate_fn=lambda b: b"),  # its batches made elsewhere
    ],
)
def test_a_moved_item_or_an_unknown_batch_stays_quiet(
    finding_places: Places, images: str, transform: str, collate: str
) -> None:
    assert _found(finding_places, images, transform, collate) == []
