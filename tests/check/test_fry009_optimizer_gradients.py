"""``torch.zeros(...).to(grad)`` in a ``torch.optim.Optimizer`` subclass, ``grad`` being
``p.grad`` of a parameter of ``self.param_groups``: the code itself establishes that
``grad`` is a tensor (a parameter the optimizer updates), so the factory is built on the
CPU and copied to the gradient's device and dtype."""

from __future__ import annotations

from torchferry.check.engine import check_source

SOURCE = """
import torch
from torch.optim import Optimizer


class Factored(Optimizer):
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad.data
                state = self.state[p]
                if len(state) == 0:
                    state["row"] = torch.zeros(grad.shape[:-1]).to(grad)
                state["row"].mul_(0.9).add_(grad.mean(dim=-1))
"""


def test_a_factory_moved_to_a_parameters_gradient_is_created_then_moved() -> None:
    found = [f for f in check_source(SOURCE, "t.py", select=["FRY009"]) if f.code == "FRY009"]
    assert [f.line for f in found] == [13]
    assert "device=grad.device, dtype=grad.dtype" in found[0].message


def test_a_class_that_is_no_optimizer_leaves_the_gradient_unknown() -> None:
    src = SOURCE.replace("from torch.optim import Optimizer", "from mylib import Optimizer")
    assert [f for f in check_source(src, "t.py", select=["FRY009"]) if f.code == "FRY009"] == []
