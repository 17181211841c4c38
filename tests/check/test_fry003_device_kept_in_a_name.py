"""FRY003 and a helper of the run that makes its result on the device of its argument
kept in a name first (``device = seg.device``; ``torch.zeros(..., device=device)``): the
result is wherever the argument is, so a caller passing a CPU tensor may read it with
NumPy, and one passing a tensor on the accelerator may not.  A parameter that is a device
itself (``def make(n, device)``) still makes its tensors on the accelerator the code
chose."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = '''
import numpy as np
import torch

def class2one_hot(seg, k):
    b, *img_shape = seg.shape
    device = seg.device
    res = torch.zeros((b, k, *img_shape), dtype=torch.int32, device=device)
    return res.scatter_(1, seg[:, None, ...], 1)

def test_closure():
    a = np.zeros((1, 8, 8))
    return class2one_hot(torch.Tensor(a).type(torch.int64), k=2).numpy()
'''


def lines(src: str) -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=("FRY003",))]


def last(src: str) -> int:
    """The line of the NumPy read (the last)."""
    return len(src.rstrip("\n").splitlines())


def test_a_cpu_argument_gives_a_cpu_result() -> None:
    assert lines(SRC) == []


def test_an_argument_on_the_accelerator_is_reported() -> None:
    src = SRC.replace("torch.Tensor(a).type(torch.int64)", "torch.Tensor(a).long().cuda()")
    assert lines(src) == [last(src)]


@pytest.mark.parametrize("inline", [False, True])
def test_a_device_parameter_is_the_device_the_code_chose(inline: bool) -> None:
    src = SRC.replace("def class2one_hot(seg, k):", "def class2one_hot(seg, k, device='cuda'):") \
        .replace("    device = seg.device\n", "" if inline else "    dev = device\n")
    if not inline:
        src = src.replace("device=device)", "device=dev)")
    assert lines(src) == [last(src)]


def test_an_argument_of_unknown_place_is_reported() -> None:
    # ``seg`` of a function no call binds: the kept device reads as the accelerator
    src = SRC + "\ndef through(seg):\n    return class2one_hot(seg, k=2).numpy()\n"
    assert lines(src) == [last(src)]


def test_inside_the_helper_the_kept_device_is_an_accelerator() -> None:
    # FRY010: a CPU tensor meeting what the helper made on the kept device
    src = SRC.replace("    return res.scatter_(", "    res = res + torch.ones(b, k, *img_shape)\n    return res.scatter_(")
    found = [d.code for d in check_source(src, "t.py", select=("FRY010",))]
    assert found == ["FRY010"]
