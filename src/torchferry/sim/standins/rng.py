"""Random numbers: each simulated device has its own generator (a CPU generator, so the
numbers are the CPU's), independent of the CPU one as on a GPU: seeding or drawing on the
device leaves the CPU stream alone (``modes.py`` runs random ops on a device tensor with
the device's generator).  The generators are ``SimState.generators``.

>>> from torchferry.sim import kinds
>>> from torchferry.sim.state import SimState
>>> st = SimState.new(kinds.spec("cuda"), 2, 1 << 30)
>>> st.generators = new_generators(st)
>>> manual_seed_all(st, 7); initial_seed(st), str(st.generators[1].device)
(7, 'cuda:1')
"""

from __future__ import annotations

from typing import Any

import torch

from torchferry.sim.state import SimState

_BASE: Any = torch._C.Generator


class _GeneratorMeta(type(_BASE)):  # type: ignore[misc]
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _BASE)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, _BASE)


class Generator(_BASE, metaclass=_GeneratorMeta):
    """``torch.Generator(device="cuda")``: a CPU generator that reports the simulated device."""

    def __new__(cls, device: Any = "cpu") -> Any:
        from torchferry.sim import modes

        d = modes.resolve(device)
        self = super().__new__(cls, "cpu" if d is not NotImplemented else device)
        self._ferry_device = d if d is not None and d is not NotImplemented else None
        return self

    def __init__(self, device: Any = "cpu") -> None:
        pass

    @classmethod
    def _for(cls, device: torch.device) -> Any:
        """A simulated device's default generator (seeded as torch seeds a GPU's)."""
        self = super().__new__(cls, "cpu")
        self._ferry_device = device
        self._ferry_default = True
        return self

    @property
    def device(self) -> torch.device:
        d = self._ferry_device
        if d is None:
            return _BASE.device.__get__(self)
        # torch.Generator(device="cuda") reports "cuda"; a device's default generator
        # (torch.cuda.default_generators[i]) reports "cuda:i"
        return d if getattr(self, "_ferry_default", False) else torch.device(d.type)


Generator.__name__ = Generator.__qualname__ = "Generator"
Generator.__module__ = "torch"


def new_generators(s: SimState) -> list[Any]:
    """One default generator per simulated device."""
    return [Generator._for(d) for d in s.devices]


def _generator_of(s: SimState, device: Any) -> Any:
    if device is None:
        device = s.kind
    if isinstance(device, str):
        device = torch.device(device)
    idx = device if isinstance(device, int) else device.index
    return s.generators[s.check_index(s.current if idx is None else idx)]


def manual_seed(s: SimState, seed: int) -> None:
    s.generators[s.current].manual_seed(int(seed))


def manual_seed_all(s: SimState, seed: int) -> None:
    for g in s.generators:
        g.manual_seed(int(seed))


def seed(s: SimState) -> None:
    s.generators[s.current].seed()


def seed_all(s: SimState) -> None:
    # torch.cuda.seed_all: one random seed for every device
    first = s.generators[0].seed()
    for g in s.generators[1:]:
        g.manual_seed(first)


def initial_seed(s: SimState) -> int:
    return int(s.generators[s.current].initial_seed())


def get_rng_state(s: SimState, device: Any = None) -> torch.Tensor:
    return _generator_of(s, device).get_state()


def set_rng_state(s: SimState, new_state: torch.Tensor, device: Any = None) -> None:
    _generator_of(s, device).set_state(new_state)


def get_rng_state_all(s: SimState) -> list[torch.Tensor]:
    return [g.get_state() for g in s.generators]


def set_rng_state_all(s: SimState, new_states: Any) -> None:
    for i, st in enumerate(new_states):
        set_rng_state(s, st, i)


def mps_get_rng_state(s: SimState, device: Any = "mps") -> torch.Tensor:
    """``torch.mps.get_rng_state``: the one device's state."""
    return get_rng_state(s)


def mps_set_rng_state(s: SimState, new_state: torch.Tensor, device: Any = "mps") -> None:
    set_rng_state(s, new_state)
