"""What widely used libraries do with a GPU, each reproduced in a few lines.

Each test fails on a simulation that differs from a real GPU in that behaviour.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim.session import simulate


# ---------------------------------------------------------------- Module.to(device=...)
def test_module_to_device_keyword_moves_parameters():
    with simulate("cuda"):
        m = nn.Linear(2, 2)
        assert m.to(device="cuda") is m
        assert str(m.weight.device) == "cuda:0"
        m.to(device=torch.device("cpu"))
        assert str(m.weight.device) == "cpu"


def test_parse_to_device_keyword_reads_the_device():
    with simulate("cuda"):
        assert torch._C._nn._parse_to(device="cuda")[0] == torch.device("cuda")
        assert torch._C._nn._parse_to(device=0)[0] == torch.device("cuda", 0)
        assert torch._C._nn._parse_to("cuda", torch.float16)[:2] == (
            torch.device("cuda"), torch.float16)


# ---------------------------------------------------------------- CUDA graph classes
def test_cuda_graph_classes_work_in_annotations_and_refuse_when_made():
    with simulate("cuda"):
        assert isinstance(torch.cuda.CUDAGraph, type) and isinstance(torch.cuda.graph, type)
        hint = torch.cuda.CUDAGraph | None  # transformers' generation utils annotate this way
        assert type(None) in hint.__args__
        assert not isinstance(object(), torch.cuda.CUDAGraph)
        with pytest.raises(UnsupportedFeatureError, match=r"CUDA graphs \(torch.cuda.CUDAGraph\)"):
            torch.cuda.CUDAGraph()
        with pytest.raises(UnsupportedFeatureError, match=r"CUDA graphs \(torch.cuda.graph\)"):
            torch.cuda.graph(None)


# ---------------------------------------------------------------- probing for Triton
def test_find_spec_triton_answers_none_and_import_is_refused():
    import importlib.util

    with simulate("cuda"):
        assert importlib.util.find_spec("triton") is None
        with pytest.raises(ModuleNotFoundError, match="Triton kernels cannot run") as info:
            import triton  # noqa: F401
        assert info.value.name == "triton"
