"""``torch.autocast(kind)`` on a state (sim/standins/autocast.py)."""

from __future__ import annotations

import pytest
import torch

from torchferry.sim import kinds
from torchferry.sim.standins import autocast, bound_class
from torchferry.sim.state import SimState


def test_kind_autocast_runs_as_cpu_autocast_with_the_kinds_dtype(cuda2):
    ac = bound_class(autocast.Autocast, cuda2)
    real = torch.is_autocast_enabled
    with ac("cuda"):
        assert cuda2.autocast_stack == [(True, torch.float16)]
        assert autocast.is_autocast_enabled(cuda2, real, "cuda")
        assert autocast.is_autocast_enabled(cuda2, real)  # the no-argument form asks about CUDA
        assert autocast.get_autocast_dtype(cuda2, torch.get_autocast_dtype, "cuda") is torch.float16
        assert torch.is_autocast_enabled("cpu")  # what it runs as
    assert cuda2.autocast_stack == [] and not autocast.is_autocast_enabled(cuda2, real, "cuda")


def test_float32_autocast_is_accepted_and_disabled():
    xpu = SimState.new(kinds.spec("xpu"), 1, 1024)
    ac = bound_class(autocast.Autocast, xpu)
    with ac("xpu", dtype=torch.float32):
        assert xpu.autocast_stack == [(True, torch.float32)] and not torch.is_autocast_enabled("cpu")
    with ac("xpu"):
        assert xpu.autocast_stack[-1][1] is torch.bfloat16  # the kind's default


def test_cuda_amp_autocast_warns_as_torch_does(cuda2):
    ac = bound_class(autocast.Autocast, cuda2)
    amp = bound_class(autocast.CudaAmpAutocast, cuda2, ac)
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cuda', args...\)") as rec:
        a = amp()
    assert rec[0].filename == __file__ and isinstance(a, ac)
