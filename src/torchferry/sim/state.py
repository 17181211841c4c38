"""The state of one running simulation, in one typed record.

A :class:`SimState` is made by ``torchferry.simulate`` on entry and owned by it
(``simulate(...).state``); the function mode (``modes.SimMode``) and every stand-in
(``sim/standins/``) are given it and read or change only it: the current device, the
set_sync_debug_mode level, the default device, the generators, the autocast stack, the
streams.  ``modes.activated(state)`` makes it the one the mode's handlers see while the
simulation runs, and puts the previous one back after.

>>> from torchferry.sim import kinds
>>> st = SimState.new(kinds.spec("cuda"), count=2, memory=1 << 30)
>>> st.kind, [str(d) for d in st.devices], st.current
('cuda', ['cuda:0', 'cuda:1'], 0)
>>> with st.quieted():
...     st.quiet
True
>>> st.quiet
False
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from torchferry.sim.kinds import DeviceKind

__all__ = ["SimState"]


@dataclass(eq=False)
class SimState:
    """What one simulation knows while it runs (see the module docstring).

    * ``spec``: the simulated :class:`~torchferry.sim.kinds.DeviceKind`; ``count`` devices
      (``devices``), each of ``memory`` bytes.
    * ``current``: the current device index (``torch.cuda.set_device``).
    * ``sync_mode``: ``set_sync_debug_mode``'s level (0 default, 1 warn, 2 error).
    * ``quiet``: host syncs are not reported (set while the simulation prints a tensor).
    * ``in_backward``: the autograd engine is running a backward pass started in the
      simulation (its Python hooks and custom functions run with the mode on; the
      gradients the engine made reach them untagged and take their call's device).
    * ``default_device``: ``torch.set_default_device``'s simulated device, or None.
    * ``thread``: the thread that entered the simulation (others run without the mode).
    * ``generators``: each device's default generator; ``autocast_stack``: the
      ``(enabled, dtype)`` of each ``torch.autocast(kind)`` block entered.
    * ``current_streams`` / ``default_streams``: per device index; ``memory_fractions``:
      ``set_per_process_memory_fraction``'s per device; ``stream_ids`` numbers new
      streams; ``stream_class`` is the simulation's ``torch.<kind>.Stream``,
      ``autocast_class`` its ``torch.autocast``.
    """

    spec: DeviceKind
    count: int
    memory: int
    devices: list[torch.device]
    thread: threading.Thread
    current: int = 0
    sync_mode: int = 0
    quiet: bool = False
    in_backward: bool = False
    default_device: torch.device | None = None
    generators: list[Any] = field(default_factory=list)
    autocast_stack: list[tuple[bool, torch.dtype]] = field(default_factory=list)
    current_streams: dict[int, Any] = field(default_factory=dict)
    default_streams: dict[int, Any] = field(default_factory=dict)
    memory_fractions: dict[int, float] = field(default_factory=dict)
    stream_ids: Iterator[int] = field(default_factory=lambda: itertools.count(0x1000, 0x10))
    stream_class: type | None = None  # torch.<kind>.Stream while simulating (standins/streams.py)
    autocast_class: type | None = None  # torch.autocast while simulating (standins/autocast.py)

    @classmethod
    def new(cls, spec: DeviceKind, count: int, memory: int) -> SimState:
        """The state of a fresh simulation of ``count`` ``spec`` devices, entered by this thread."""
        devices = [torch.device(spec.name, i) for i in range(count)]
        return cls(spec, count, memory, devices, threading.current_thread())

    @property
    def kind(self) -> str:
        """The simulated device type's name (``"cuda"``)."""
        return self.spec.name

    def ordinal_error(self) -> Exception:
        """The exception a device index past ``count`` raises on this kind."""
        return self.spec.ordinal_error(self.count)

    def check_index(self, idx: int) -> int:
        """``idx`` if it names one of the simulated devices, else the kind's ordinal error."""
        if not 0 <= idx < self.count:
            raise self.ordinal_error()
        return idx

    @contextlib.contextmanager
    def quieted(self) -> Iterator[None]:
        """Host syncs are not reported inside the block (the previous setting comes back)."""
        saved = self.quiet
        self.quiet = True
        try:
            yield
        finally:
            self.quiet = saved
