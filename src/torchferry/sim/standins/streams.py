"""Streams and events: work on a simulated device is done when it is queued, so a stream
is always idle and an event has always happened; ``Event.elapsed_time`` measures host time.

The current and default stream of each device live in the simulation's state
(``current_streams``, ``default_streams``).

>>> from torchferry.sim import kinds
>>> from torchferry.sim.state import SimState
>>> st = SimState.new(kinds.spec("cuda"), 2, 1 << 30)
>>> S = stream_class(st)
>>> with S(1) as s1:
...     current_stream(st) is s1, st.current
(True, 1)
>>> current_stream(st, 1) is default_stream(st, 1), default_stream(st, 1).cuda_stream
(True, 0)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any, ClassVar

from torchferry.sim.standins.devices import checked_index
from torchferry.sim.state import SimState


class Event:
    """A simulated event: ``elapsed_time`` measures host time between records."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._t: float | None = None

    def record(self, stream: Any = None) -> None:
        self._t = time.perf_counter()

    def wait(self, stream: Any = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._t is None or end_event._t is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event._t - self._t) * 1000.0


class Stream:
    """A simulated stream: work is already done when it is queued."""

    _state: ClassVar[SimState]
    _ferry_simulated = True

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        s = self._state
        idx = checked_index(s, device)
        self.device = s.devices[idx]
        self.priority = priority
        self.cuda_stream = next(s.stream_ids)
        self.stream_id = self.cuda_stream
        self.device_index = idx
        self.device_type = s.kind

    def query(self) -> bool:
        return True

    def __enter__(self) -> Stream:
        # ``with stream:`` makes it current on its device, as torch.Stream does
        s, idx = self._state, self.device.index
        self._prev = (s.current_streams.get(idx), s.current)
        s.current_streams[idx] = self
        s.current = idx
        return self

    def __exit__(self, *exc: Any) -> None:
        s = self._state
        prev, prev_dev = self._prev
        idx = self.device.index
        s.current = prev_dev
        if prev is None:
            s.current_streams.pop(idx, None)
        else:
            s.current_streams[idx] = prev

    def is_capturing(self) -> bool:
        return False

    def synchronize(self) -> None:
        return None

    def wait_event(self, event: Any) -> None:
        return None

    def wait_stream(self, stream: Any) -> None:
        return None

    def record_event(self, event: Any = None) -> Any:
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device))

    def __repr__(self) -> str:
        kind = self._state.kind
        return f"<torch.{kind}.Stream device={self.device} {kind}_stream={self.cuda_stream:#x}>"


def stream_class(s: SimState) -> type[Stream]:
    """The simulation's ``torch.<kind>.Stream``: made once per simulation, kept in its state."""
    if s.stream_class is None:
        from torchferry.sim.standins import bound_class

        s.stream_class = bound_class(Stream, s)
    return s.stream_class


def default_stream(s: SimState, device: Any = None) -> Stream:
    idx = checked_index(s, device)
    if idx not in s.default_streams:
        st = stream_class(s)(idx)
        st.cuda_stream = 0
        s.default_streams[idx] = st
    return s.default_streams[idx]


def current_stream(s: SimState, device: Any = None) -> Stream:
    idx = checked_index(s, device)
    return s.current_streams.get(idx) or default_stream(s, idx)


def set_stream(s: SimState, stream: Any) -> None:
    if stream is not None:
        s.current_streams[stream.device.index] = stream


@contextlib.contextmanager
def stream(s: SimState, stream: Any) -> Iterator[None]:
    """``torch.cuda.stream(s)``: ``s`` is current on its device (which is current) inside."""
    if stream is None:
        yield
        return
    idx = stream.device.index
    prev = s.current_streams.get(idx)
    prev_dev = s.current
    s.current_streams[idx] = stream
    s.current = idx
    try:
        yield
    finally:
        s.current = prev_dev
        if prev is None:
            s.current_streams.pop(idx, None)
        else:
            s.current_streams[idx] = prev
