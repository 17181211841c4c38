"""Memory queries on a state (sim/standins/memory.py): live tagged storages count."""

from __future__ import annotations

import pytest
import torch

from torchferry.sim import tags
from torchferry.sim.standins import memory


def test_memory_is_the_devices_live_storages(cuda2):
    x = torch.ones(256)  # 1 KiB, tagged as if on cuda:1
    tags.tag(x, cuda2.devices[1])
    try:
        assert memory.memory_allocated(cuda2, 1) == 1024 and memory.memory_allocated(cuda2, 0) == 0
        assert memory.mem_get_info(cuda2, 1) == ((1 << 30) - 1024, 1 << 30)
        stats = memory.memory_stats_as_nested_dict(cuda2, 1)
        assert stats["allocated_bytes"]["all"]["current"] == 1024 and stats["num_ooms"] == 0
        del x
        assert memory.memory_allocated(cuda2, 1) == 0
        assert memory.max_memory_allocated(cuda2, 1) >= 1024
        memory.reset_peak_memory_stats(cuda2, 1)
        assert memory.max_memory_allocated(cuda2, 1) == 0
    finally:
        tags.clear()


def test_memory_fraction_is_checked_and_remembered(cuda2):
    assert memory.get_per_process_memory_fraction(cuda2) == 1.0
    memory.set_per_process_memory_fraction(cuda2, 0.5, 1)
    assert memory.get_per_process_memory_fraction(cuda2, 1) == 0.5
    with pytest.raises(TypeError, match="must be `float`"):
        memory.set_per_process_memory_fraction(cuda2, 1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        memory.set_per_process_memory_fraction(cuda2, 1.5)
    assert memory.recommended_max_memory(cuda2) == 1 << 30
