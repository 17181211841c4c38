"""Legacy tensor type names (sim/standins/legacy.py)."""

from __future__ import annotations

import pytest
import torch

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import tags
from torchferry.sim.standins import legacy


def test_isinstance_follows_the_simulated_device_and_dtype(cuda2):
    cuda_float = legacy.legacy_type("FloatTensor", torch.float32, "cuda", torch.cuda.FloatTensor,
                                    torch.FloatTensor)
    cpu_float = legacy.legacy_type("FloatTensor", torch.float32, None, torch.FloatTensor,
                                   torch.FloatTensor)
    x = torch.ones(2)
    assert isinstance(x, cpu_float) and not isinstance(x, cuda_float)
    tags.tag(x, cuda2.devices[0])
    try:
        assert isinstance(x, cuda_float) and not isinstance(x, cpu_float)
        assert not isinstance(x.double(), cuda_float)
    finally:
        tags.clear()
    assert repr(cuda_float) == repr(torch.cuda.FloatTensor)


def test_set_default_tensor_type_refuses_an_accelerator_type():
    called = []
    fake_cuda_type = type("FloatTensor", (), {"__module__": "torch.cuda"})
    with pytest.raises(UnsupportedFeatureError, match=r"torch.set_default_device\('cuda'\)"):
        legacy.set_default_tensor_type(called.append, fake_cuda_type)
    legacy.set_default_tensor_type(called.append, "torch.DoubleTensor")
    assert called == [torch.DoubleTensor]
