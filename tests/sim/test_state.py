"""The simulation's state is one typed record owned by the session (sim/state.py)."""

from __future__ import annotations

import pytest
import torch

from torchferry.sim import kinds, modes
from torchferry.sim.session import simulate
from torchferry.sim.state import SimState


def test_the_session_owns_the_state_the_mode_reads():
    assert modes.ACTIVE is None and simulate.running() is None
    with simulate("cuda", count=2) as sim:
        st = sim.state
        assert isinstance(st, SimState) and modes.ACTIVE is st and simulate.running() is sim
        torch.cuda.set_device(1)
        assert st.current == 1
        torch.set_default_device("cuda")
        assert st.default_device == torch.device("cuda", 1)
        torch.cuda.set_sync_debug_mode("warn")
        assert st.sync_mode == 1
        torch.set_default_device(None)
    assert modes.ACTIVE is None and simulate.running() is None
    assert not hasattr(modes, "S") and not hasattr(modes, "MPS_ACTIVE")


def test_activated_puts_the_previous_state_back():
    a = SimState.new(kinds.spec("cuda"), 1, 1024)
    b = SimState.new(kinds.spec("xpu"), 2, 1024)
    with modes.activated(a):
        with modes.activated(b):
            assert modes.ACTIVE is b
        assert modes.ACTIVE is a
        with pytest.raises(KeyError), modes.activated(b):
            raise KeyError
        assert modes.ACTIVE is a
    assert modes.ACTIVE is None


def test_quieted_restores_the_setting_also_after_an_error():
    st = SimState.new(kinds.spec("cuda"), 1, 1024)
    with pytest.raises(ValueError), st.quieted():
        assert st.quiet
        raise ValueError
    assert st.quiet is False


def test_printing_a_tensor_reports_one_sync_and_leaves_the_state_unquiet():
    from torchferry.sim.events import subscribed

    seen = []
    with simulate("cuda") as sim, subscribed(seen.append):
        x = torch.ones(3, device="cuda")
        str(x)
        assert sim.state.quiet is False
    assert [e.op for e in seen if e.kind == "sync"] == ["print"]


def test_check_index_raises_the_kinds_ordinal_error():
    st = SimState.new(kinds.spec("cuda"), 2, 1024)
    assert st.check_index(1) == 1
    with pytest.raises(type(kinds.spec("cuda").ordinal_error(2)), match="invalid device ordinal"):
        st.check_index(2)
