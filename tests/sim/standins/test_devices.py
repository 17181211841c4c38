"""Device queries and selection, called on a state alone (sim/standins/devices.py)."""

from __future__ import annotations

import pytest
import torch

from torchferry.sim.standins import bind, bound_class, devices, streams


def test_index_of_reads_none_ints_strings_devices_and_streams(cuda2):
    assert devices.index_of(cuda2) == 0
    cuda2.current = 1
    assert devices.index_of(cuda2, None) == 1
    assert devices.index_of(cuda2, "cuda") == 1
    assert devices.index_of(cuda2, torch.device("cuda", 0)) == 0
    assert devices.index_of(cuda2, 7) == 7  # unchecked
    assert devices.index_of(cuda2, streams.stream_class(cuda2)(0)) == 0
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        devices.index_of(cuda2, "cpu")


def test_set_device_checks_the_ordinal_and_ignores_negative(cuda2):
    devices.set_device(cuda2, 1)
    assert devices.current_device(cuda2) == 1
    devices.set_device(cuda2, -1)
    assert cuda2.current == 1
    with pytest.raises(type(cuda2.ordinal_error()), match="invalid device ordinal"):
        devices.set_device(cuda2, 2)


def test_properties_name_capability_and_size(cuda2):
    p = devices.get_device_properties(cuda2, 1)
    assert p.name == "torchferry simulated CUDA device 1" and p.total_memory == 1 << 30
    assert devices.get_device_capability(cuda2) == devices.SIM_CAPABILITY
    with pytest.raises(AssertionError, match="Invalid device id"):
        devices.get_device_properties(cuda2, 5)
    assert "total_memory=1024MB" in repr(p)


def test_device_context_restores_the_current_device(cuda2):
    device = bound_class(devices.Device, cuda2, name="device")
    with device(1):
        assert cuda2.current == 1
        with device(None):
            assert cuda2.current == 1
    assert cuda2.current == 0
    index = bound_class(devices.DeviceIndex, cuda2, device_class=device)
    with index(1):
        assert cuda2.current == 1
    assert cuda2.current == 0


def test_sync_debug_mode_names_and_levels(cuda2):
    devices.set_sync_debug_mode(cuda2, "error")
    assert devices.get_sync_debug_mode(cuda2) == 2
    devices.set_sync_debug_mode(cuda2, 1)
    assert cuda2.sync_mode == 1
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        devices.set_sync_debug_mode(cuda2, "loud")


def test_bound_stand_ins_keep_the_name_and_drop_the_state_from_the_signature(cuda2):
    import inspect

    f = bind(devices.get_device_name, cuda2)
    assert f.__name__ == "get_device_name" and f() == "torchferry simulated CUDA device 0"
    assert list(inspect.signature(f).parameters) == ["device"]
    assert devices.current_accelerator(cuda2) == torch.device("cuda")
