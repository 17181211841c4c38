"""Facts of a class's text found once per class, and parameter conversions kept per function:
the same answers as walking the text at every question."""

import ast

import pytest

from torchferry.check.flow.converted import converted_params
from torchferry.check.flow.program import (
    ClassCalls,
    FileFlow,
    class_calls,
    holds_parameters,
    weightless,
)


def _reference(node: ast.ClassDef) -> ClassCalls:
    """The answers of a plain ``ast.walk`` with ``isinstance`` tests."""
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    attrs = [n.func.attr for n in calls if isinstance(n.func, ast.Attribute)]
    adds = any(a in ("add_module", "register_module", "__setattr__") for a in attrs) or any(
        isinstance(n.func, ast.Name) and n.func.id == "setattr" for n in calls) or any(
        isinstance(n, ast.Attribute) and n.attr == "__dict__" for n in ast.walk(node))
    return ClassCalls("register_parameter" in attrs, "register_buffer" in attrs, adds)


@pytest.mark.parametrize("body", [
    "def f(self):\n        self.x = 1",
    "def f(self):\n        self.register_buffer('b', t)",
    "def f(self):\n        self.register_parameter('p', w)",
    "def f(self):\n        setattr(self, 'a', m)",
    "def f(self):\n        self.add_module('m', m)",
    "def f(self):\n        self.__dict__.update(d)",
    "def f(self):\n        register_buffer('b', t)",  # a plain name: not a method call
    "def f(self):\n        def g():\n            self.blocks.register_module('m', m)\n        g()",
    "x = [lambda s: s.register_parameter('p', w)]",
    "class Inner:\n        def f(self):\n            object.__setattr__(self, 'a', 1)",
    "def f(self, register_buffer):\n        return register_buffer",
])
def test_the_facts_of_a_class_equal_a_walk_of_its_text(body):
    node = ast.parse(f"class A:\n    {body}\n").body[0]
    assert class_calls(node) == _reference(node)


MODULES = """
import torch
from torch import nn

class Buffered(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.ones(3))

class Dynamic(nn.Module):
    def __init__(self, layers):
        super().__init__()
        for i, layer in enumerate(layers):
            self.add_module(f"l{i}", layer)

class Plain(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
"""


def test_a_class_is_walked_once_whatever_is_asked_about_its_weights():
    ff = FileFlow(ast.parse(MODULES), "m.py")
    buffered, dynamic, plain = (ff.class_info(n) for n in ff.tree.body[2:])
    assert buffered._seen is None
    assert holds_parameters(buffered) and not holds_parameters(buffered, buffers=False)
    seen = buffered._seen
    assert seen is not None and seen.register_buffer and not seen.register_parameter
    assert holds_parameters(buffered) and buffered._seen is seen  # (not walked again)
    assert not weightless(dynamic)  # ``add_module``: attributes the analysis does not follow
    assert dynamic.calls_seen().adds_attributes
    assert weightless(plain) and plain.calls_seen() == ClassCalls(False, False, False)


CONVERTS = """
def helper(x, lengths):
    n = int(lengths)
    return x.cpu()[:n]

def caller(a, b):
    return helper(a, b)
"""


def test_the_converted_parameters_are_kept_per_function_and_depth():
    ff = FileFlow(ast.parse(CONVERTS), "c.py")
    helper, caller = ff.tree.body
    assert converted_params(ff, helper) == frozenset({0, 1})
    assert converted_params(ff, caller) == frozenset({0, 1})  # through the helper
    assert (id(caller), 0, 0) in ff.converted_memo and (id(helper), 0, 1) in ff.converted_memo
    again = FileFlow(ast.parse(CONVERTS), "c.py")
    assert converted_params(again, again.tree.body[1], None, 3) == frozenset()  # too deep
    assert converted_params(again, again.tree.body[1]) == frozenset({0, 1})
