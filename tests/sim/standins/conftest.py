from __future__ import annotations

import pytest

from torchferry.sim import kinds
from torchferry.sim.state import SimState


@pytest.fixture
def cuda2() -> SimState:
    """The state of a two-device cuda simulation that is not running (no torch patch)."""
    return SimState.new(kinds.spec("cuda"), 2, 1 << 30)
