"""FRY014 with a loader over a torchvision dataset that a function of another file of the
run builds and returns (``loader = utils.get_loader(n)``): its ``DataLoader(...)`` and
dataset are read in that file, as for a loader built in the calling file."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

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


def _found(tmp_path: Path, images: str = "images", transform: str = "get_transform()",
           collate: str = "") -> list[tuple[str, int]]:
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "utils.py").write_text(UTILS.format(transform=transform, collate=collate))
    (tmp_path / "main.py").write_text(MAIN.format(images=images))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    paths = [tmp_path / "main.py", tmp_path / "utils" / "__init__.py", tmp_path / "utils" / "utils.py"]
    return [
        (Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics
    ]


def test_an_item_of_a_loader_another_file_returns_meets_a_moved_model(tmp_path: Path) -> None:
    assert _found(tmp_path) == [("main.py", 9)]


@pytest.mark.parametrize(
    ("images", "transform", "collate"),
    [
        ("images.to(device)", "get_transform()", ""),  # moved
        ("images", "transforms.Lambda(lambda x: x)", ""),  # a transform that may do anything
        ("images", "get_transform()", ", collate_fn=lambda b: b"),  # its batches made elsewhere
    ],
)
def test_a_moved_item_or_an_unknown_batch_stays_quiet(
    tmp_path: Path, images: str, transform: str, collate: str
) -> None:
    assert _found(tmp_path, images, transform, collate) == []
