"""In a ``torch.optim.Optimizer`` subclass, the parameters of ``self.param_groups`` (``p``
of ``group["params"]``), ``p.grad``, ``p.data`` and what is computed from them alone are
wherever the model is: a CPU factory meeting one of them fails on every run that trains
the model on an accelerator, as a module's own parameters do (``Certainty.OWN_TENSOR``,
the default rule set).  The per-parameter state (``state = self.state[p]``) holds what any
method of the class writes there: ``step()`` reads what ``reset()`` wrote.  A 0-dimensional
step counter mixes with any device."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

WHERE = "is where the parameters the optimizer updates are"

STEP = """
import torch
from torch.optim import Optimizer


class Rowwise(Optimizer):
    def __init__(self, params, lr=1e-3):
        super().__init__(params, dict(lr=lr))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    {init}
                state["step"] += 1
                {use}
                p.add_(grad, alpha=-group["lr"])
"""


def run(src: str, default: bool = True) -> list[tuple[int, str]]:
    select = None if default else ["FRY010"]
    return [(f.line, f.message) for f in check_source(textwrap.dedent(src), "t.py", select=select)
            if f.code == "FRY010"]


@pytest.mark.parametrize(("init", "use"), [
    # the state made on the CPU, then updated with the gradient
    ('state["row"] = torch.zeros(grad.shape[:-1])', 'state["row"].mul_(0.9).add_(grad.mean(dim=-1))'),
    # read back into a name first
    ('state["row"] = torch.zeros(p.shape[:-1])', 'row = state["row"]; row.add_(p.data.sum(dim=-1))'),
    # met in arithmetic with the parameter itself
    ('state["noise"] = torch.randn(p.shape)', 'p.data.mul_(1 - 1e-3 * state["noise"])'),
])
def test_state_made_on_the_cpu_meeting_a_parameter_is_reported_by_default(init: str, use: str) -> None:
    found = run(STEP.format(init=init, use=use))
    assert [ln for ln, _ in found] == [18]
    assert WHERE in found[0][1]


@pytest.mark.parametrize(("init", "use"), [
    # made where the parameter is
    ('state["row"] = torch.zeros(grad.shape[:-1], device=grad.device)', 'state["row"].add_(grad.mean(dim=-1))'),
    ('state["row"] = torch.zeros_like(p)', 'state["row"].add_(grad)'),
    # the 0-dimensional counter (made on the CPU) meets the gradient: it mixes anywhere
    ('state["n"] = 0', 'p.add_(grad * (1 - 0.9 ** state["step"]))'),
    # a factory read by a key the code never uses with the parameter
    ('state["seen"] = torch.zeros(3)', 'print(state["seen"])'),
])
def test_state_made_where_the_parameter_is_or_not_met_is_quiet(init: str, use: str) -> None:
    assert run(STEP.format(init=init, use=use), default=False) == []


RESET = """
import torch
from torch.optim.optimizer import Optimizer


class Factored(Optimizer):
    def reset(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["row"] = torch.zeros(p.grad.shape[:-1], dtype=p.grad.dtype)

    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if len(state) == 0:
                    state["row"] = torch.zeros_like(p.grad[..., 0])
                row = state["row"]
                row.mul_(0.9).add_(p.grad.pow(2).mean(dim=-1))
"""


def test_state_written_by_another_method_is_read_by_step() -> None:
    found = run(RESET)
    assert [ln for ln, _ in found] == [11]
    assert WHERE in found[0][1]


def test_a_class_that_is_no_optimizer_keeps_its_own_param_groups_unknown() -> None:
    src = RESET.replace("from torch.optim.optimizer import Optimizer", "from mylib import Optimizer")
    assert run(src, default=False) == []


def test_state_on_the_cpu_written_in_place_with_a_number_on_the_device_is_reported() -> None:
    # (a 0-dimensional tensor on the CPU mixes with any device; one on the device does not
    # go into a tensor on the CPU)
    src = STEP.format(init='state["row"] = torch.zeros(p.shape)', use='state["row"].add_(p.norm())')
    assert [ln for ln, _ in run(src)] == [18]
