"""Streams and events on a state alone (sim/standins/streams.py)."""

from __future__ import annotations

import pytest

from torchferry.sim.standins import streams


def test_a_stream_made_current_comes_back_off(cuda2):
    Stream = streams.stream_class(cuda2)
    assert streams.stream_class(cuda2) is Stream  # one class per simulation
    s1 = Stream(1)
    assert s1.device_type == "cuda" and s1.cuda_stream == 0x1000 and Stream(0).cuda_stream == 0x1010
    with streams.stream(cuda2, s1):
        assert streams.current_stream(cuda2) is s1 and cuda2.current == 1
    assert cuda2.current == 0 and streams.current_stream(cuda2, 1) is streams.default_stream(cuda2, 1)
    streams.set_stream(cuda2, s1)
    assert streams.current_stream(cuda2, 1) is s1
    assert repr(s1) == "<torch.cuda.Stream device=cuda:1 cuda_stream=0x1000>"


def test_default_streams_are_numbered_zero_and_kept(cuda2):
    d = streams.default_stream(cuda2)
    assert d.cuda_stream == 0 and streams.default_stream(cuda2, 0) is d
    with pytest.raises(type(cuda2.ordinal_error())):
        streams.default_stream(cuda2, 3)


def test_events_time_host_time_and_need_timing():
    a, b = streams.Event(enable_timing=True), streams.Event(enable_timing=True)
    with pytest.raises(ValueError, match="must be recorded"):
        a.elapsed_time(b)
    a.record()
    b.record()
    assert a.elapsed_time(b) >= 0.0 and a.query()
    with pytest.raises(ValueError, match="enable_timing=True"):
        streams.Event().elapsed_time(b)
