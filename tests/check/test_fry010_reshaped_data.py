"""FRY010 on ``torch.tensor(x.reshape(1, -1))``: data given a shape of at least one size
written out by ``reshape`` or ``view``, or flattened, has at least one dimension whatever
``x`` is, so the tensor does not mix with one on the device as a 0-dimensional one would.
A shape the code does not write out (``x.reshape(shape)``, which may be ``()``) tells
nothing.  The fix never names the device of the data the factory reads: a tensor on a
device there would have put the result there."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

AGENT = '''
import numpy as np
import torch
from torch import nn


class Agent:
    def __init__(self, dim):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.actor = nn.Linear(dim, 2).to(self.device)

    def act(self, state):
        state = torch.tensor({data}, dtype=torch.float)
        return self.actor(state).cpu().numpy()


def main(dim):
    agent = Agent(dim)
    return agent.act(np.zeros(dim))
'''


def findings(source: str, select: list[str] | None = None) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_source(textwrap.dedent(source), "t.py", select=select)
            if f.code == "FRY010"]


@pytest.mark.parametrize("data", ["state.reshape(1, -1)", "state.reshape(-1)", "state.reshape((1, 4))",
                                  "state.view(1, -1)", "state.flatten()", "state.ravel()"])
def test_reshaped_data_meets_the_moved_model_by_default(data: str) -> None:
    found = findings(AGENT.format(data=data))
    assert [line for line, _ in found] == [13]
    assert "the code puts on the accelerator when there is one" in found[0][1]


def test_the_fix_names_no_device_of_the_data() -> None:
    (f,) = check_source(textwrap.dedent(AGENT.format(data="state.reshape(1, -1)")), "t.py", select=["FRY010"])
    assert "state.device" not in f.message and f.fix is None


@pytest.mark.parametrize("data", ["state.reshape(shape)", "state.reshape(())", "state.reshape(*dims)",
                                  "state.view(torch.float32)", "state.flatten(0)", "state.sum()"])
def test_a_shape_not_written_out_is_quiet(data: str) -> None:
    source = AGENT.format(data=data).replace("def act(self, state):",
                                             "def act(self, state, shape=(), dims=()):")
    assert findings(source, ["FRY010"]) == []
