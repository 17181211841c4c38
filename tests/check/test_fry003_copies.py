"""FRY003 on a copy of a device tensor: ``copy.deepcopy(t)`` and ``copy.copy(t)`` (also
imported as ``from copy import deepcopy``) are tensors where ``t`` is, so a copy handed to
NumPy or matplotlib is reported as the tensor itself would be; a copy moved to the CPU, and a
copy of something that is no tensor, stay quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

DEEPCOPY_THEN_MOVED = '''
import numpy as np
import torch
from copy import deepcopy

device = torch.device("cuda")

def log_labels(loader):
    kept = []
    for x, labels in loader:
        labels = deepcopy(labels).float().to(device)
        kept.append(labels)
    return np.array(kept)
'''

COPY_OF_AN_OUTPUT = '''
import copy
import numpy as np
import torch

def predict(x):
    out = torch.as_tensor(x).cuda() * 2
    snapshot = copy.copy(out)
    return np.asarray(snapshot)
'''

DEEPCOPY_OF_A_MOVED_TENSOR = '''
import copy
import matplotlib.pyplot as plt
import torch

def show(t):
    best = copy.deepcopy(torch.as_tensor(t).cuda())
    plt.imshow(best)
'''

SITES = {
    "DEEPCOPY_THEN_MOVED": (DEEPCOPY_THEN_MOVED, "return np.array(kept)"),
    "COPY_OF_AN_OUTPUT": (COPY_OF_AN_OUTPUT, "return np.asarray(snapshot)"),
    "DEEPCOPY_OF_A_MOVED_TENSOR": (DEEPCOPY_OF_A_MOVED_TENSOR, "plt.imshow(best)"),
}


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


@pytest.mark.parametrize("name", sorted(SITES))
def test_a_copy_of_a_device_tensor_is_that_tensor(name: str) -> None:
    source, site = SITES[name]
    assert lines(source) == [line_of(source, site)]


@pytest.mark.parametrize(("name", "change"), [
    ("DEEPCOPY_THEN_MOVED", (".to(device)", ".cpu()")),
    ("COPY_OF_AN_OUTPUT", ("np.asarray(snapshot)", "np.asarray(snapshot.cpu())")),
    ("COPY_OF_AN_OUTPUT", (".cuda()", "")),
    ("DEEPCOPY_OF_A_MOVED_TENSOR", (".cuda()", ".cpu()")),
])
def test_a_copy_on_the_cpu_is_quiet(name: str, change: tuple[str, str]) -> None:
    source = SITES[name][0].replace(*change)
    assert lines(source) == []


def test_a_copy_of_a_config_is_no_tensor() -> None:
    source = '''
import copy
import numpy as np
import torch

def run(cfg):
    x = torch.ones(3).cuda()
    settings = copy.deepcopy(cfg)
    return np.array(settings["sizes"]), x
'''
    assert lines(source) == []
