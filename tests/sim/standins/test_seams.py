"""Torch internals that must see simulated devices (sim/standins/seams.py)."""

from __future__ import annotations

import warnings

import pytest
import torch

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import tags
from torchferry.sim.standins import seams


def test_an_int_device_is_the_kinds():
    device = seams.device_class("xpu")
    assert device(1) == torch.device("xpu", 1) and device("cpu") == torch.device("cpu")
    assert isinstance(torch.device("cpu"), device) and device.__name__ == "device"


def test_parse_to_reads_an_int_device_as_the_kinds():
    got = seams.parse_to(torch._C._nn._parse_to, "cuda", 1)
    assert got[0] == torch.device("cuda", 1)
    got = seams.parse_to(torch._C._nn._parse_to, "cuda", device=0, dtype=torch.float16)
    assert got[0] == torch.device("cuda", 0) and got[1] is torch.float16


def test_grouping_keys_by_the_simulated_device(cuda2):
    a, b, c = torch.ones(2), torch.ones(2), torch.ones(2)
    orig = torch._C._group_tensors_by_device_and_dtype
    tags.tag(a, cuda2.devices[0])
    tags.tag(b, cuda2.devices[1])
    try:
        groups = seams.group_tensors_by_device_and_dtype(orig, [[a, b, c]], True)
        assert {k[0] for k in groups} == {cuda2.devices[0], cuda2.devices[1], torch.device("cpu")}
        assert groups[(cuda2.devices[1], torch.float32)][1] == [1]
    finally:
        tags.clear()


def test_storages_report_their_simulated_device_outside_torch(cuda2):
    x = torch.ones(2)
    real = torch._C.StorageBase.device.__get__
    assert seams.storage_device(real, x.untyped_storage()) == torch.device("cpu")
    tags.tag(x, cuda2.devices[1])
    try:
        assert seams.storage_device(real, x.untyped_storage()) == cuda2.devices[1]
        assert seams.cudnn_is_acceptable(lambda t: True, x) is False
    finally:
        tags.clear()


def test_a_warning_from_the_simulations_frames_is_shown_at_the_users_line():
    shown = []
    seams.showwarning(lambda *a: shown.append(a[2:4]), UserWarning("w"), UserWarning,
                      seams.__file__, 1)
    assert shown and shown[0][0] == __file__
    shown.clear()
    seams.showwarning(lambda *a: shown.append(a[2:4]), UserWarning("w"), UserWarning,
                      warnings.__file__, 7)
    assert shown == [(warnings.__file__, 7)]


def test_refused_features_name_themselves():
    Graph = seams.unsupported_class("CUDA graphs (torch.cuda.CUDAGraph)", "CUDAGraph")
    assert (Graph | None) is not None and Graph.__module__ == "torch.cuda"
    with pytest.raises(UnsupportedFeatureError, match=r"CUDA graphs \(torch.cuda.CUDAGraph\)"):
        Graph()
    nvtx = seams.NvtxStub()
    assert nvtx.rangePushA("a") == 0 and nvtx.rangePop() == 0 and nvtx.rangePop() == -1
