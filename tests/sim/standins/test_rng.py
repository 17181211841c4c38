"""Each simulated device's generator (sim/standins/rng.py), apart from the CPU's."""

from __future__ import annotations

import pytest
import torch

from torchferry.sim.standins import rng


def test_device_generators_are_seeded_apart_from_the_cpu(cuda2):
    cuda2.generators = rng.new_generators(cuda2)
    cpu_state = torch.default_generator.get_state()
    rng.manual_seed_all(cuda2, 3)
    cuda2.current = 1
    rng.manual_seed(cuda2, 5)
    assert [g.initial_seed() for g in cuda2.generators] == [3, 5] and rng.initial_seed(cuda2) == 5
    assert torch.equal(torch.default_generator.get_state(), cpu_state)
    saved = rng.get_rng_state(cuda2, "cuda:0")
    cuda2.generators[0].seed()
    rng.set_rng_state(cuda2, saved, 0)
    assert torch.equal(rng.get_rng_state(cuda2, 0), saved)
    assert len(rng.get_rng_state_all(cuda2)) == 2
    with pytest.raises(type(cuda2.ordinal_error())):
        rng.get_rng_state(cuda2, 2)


def test_seed_all_gives_every_device_one_seed(cuda2):
    cuda2.generators = rng.new_generators(cuda2)
    rng.seed_all(cuda2)
    a, b = (g.initial_seed() for g in cuda2.generators)
    assert a == b


def test_a_default_generator_reports_its_device_and_passes_isinstance(cuda2):
    g = rng.new_generators(cuda2)[1]
    assert str(g.device) == "cuda:1" and isinstance(g, torch._C.Generator)
    assert isinstance(torch.Generator(), rng.Generator) and rng.Generator.__module__ == "torch"
