"""FRY003 through an attribute of ``self`` that holds one of the instance's own methods
(``self.rl_loss = self.dqn_loss`` on one branch, ``self.dist_loss`` on the other): a call of
the attribute is a call of one of those methods, so what it returns is their results joined.
Where every one of them brings the result to the CPU, NumPy reading it is quiet; where one
may return a tensor on the device, or anything else is bound to the attribute (a parameter
in another method, a store from outside the class), it is reported as before."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

TWO_ARMS = '''
import torch


class Algo:
    def __init__(self, model, device, distributional):
        self.model = model
        self.device = device
        if distributional:
            self.rl_loss = self.dist_loss
        else:
            self.rl_loss = self.dqn_loss

    def dqn_loss(self, qs, target):
        q = qs.cpu()
        delta = target - q
        return delta.abs()

    def dist_loss(self, log_ps, target):
        p = log_ps.cpu()
        return (p - target).abs()

    def step(self, x, target):
        qs = self.model(x.to(self.device))
        errors = self.rl_loss(qs, target)
        return errors.numpy()
'''

ONE_EXPRESSION = TWO_ARMS.replace('''        if distributional:
            self.rl_loss = self.dist_loss
        else:
            self.rl_loss = self.dqn_loss''', '''        self.rl_loss = self.dist_loss if distributional else self.dqn_loss''')

SITE = "return errors.numpy()"


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


@pytest.mark.parametrize("source", [TWO_ARMS, ONE_EXPRESSION], ids=["two_arms", "one_expression"])
def test_held_methods_that_bring_the_result_home_are_quiet(source: str) -> None:
    assert lines(source) == []


def test_one_held_method_on_the_device_is_reported() -> None:
    source = TWO_ARMS.replace("p = log_ps.cpu()", "p = log_ps")
    assert lines(source) == [line_of(source, SITE)]


@pytest.mark.parametrize("change", [
    # another method binds a parameter to the attribute
    ("    def dqn_loss(", "    def set_loss(self, fn):\n        self.rl_loss = fn\n\n    def dqn_loss("),
    # the file binds it from outside the class
    ("class Algo:", "def swap(a, f):\n    a.rl_loss = f\n\n\nclass Algo:"),
    # the class body binds it
    ("class Algo:\n", "class Algo:\n    rl_loss = None\n\n"),
    # a held name that is no method of the class
    ("self.rl_loss = self.dqn_loss", "self.rl_loss = self.model"),
], ids=["parameter_in_a_method", "store_from_outside", "class_level", "not_a_method"])
def test_an_attribute_bound_to_anything_else_is_reported(change: tuple[str, str]) -> None:
    source = TWO_ARMS.replace(*change)
    assert source != TWO_ARMS
    assert lines(source) == [line_of(source, SITE)]


def test_a_static_method_held_is_not_resolved_as_bound() -> None:
    source = TWO_ARMS.replace("    def dist_loss(self, log_ps, target):",
                              "    @staticmethod\n    def dist_loss(log_ps, target):")
    assert lines(source) == [line_of(source, SITE)]
