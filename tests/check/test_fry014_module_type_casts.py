"""FRY014 and ``module.type(T)``: the module's parameters and buffers are cast in place to
``T`` (``Module.type`` applies ``t.type(T)`` to each), so a CUDA tensor type, or a type the
caller chooses (a parameter ``dtype`` set to ``torch.cuda.FloatTensor``), may put the
module on the device; a CPU tensor type or a dtype leaves it on the CPU."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = '''import torch
import torch.nn as nn


def build_cnn(dtype):
    cnn = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
    cnn.type(CAST)
    cnn.eval()
    return cnn


def run(use_gpu, img):
    dtype = torch.FloatTensor
    if use_gpu:
        dtype = torch.cuda.FloatTensor
    cnn = build_cnn(dtype)
    x = torch.FloatTensor(img).type(dtype)
    return cnn(x)
'''


def _lines(cast: str) -> list[int]:
    source = SOURCE.replace("CAST", cast)
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("cast", ["dtype", "torch.cuda.FloatTensor", "dst_type=dtype"])
def test_a_cast_to_a_type_that_may_be_cuda_is_not_the_cpu(cast: str) -> None:
    assert _lines(cast) == []


@pytest.mark.parametrize("cast", ["torch.FloatTensor", "torch.float64"])
def test_a_cast_that_keeps_the_module_on_the_cpu_is_still_reported(cast: str) -> None:
    assert _lines(cast) == [SOURCE.splitlines().index("    return cnn(x)") + 1]
