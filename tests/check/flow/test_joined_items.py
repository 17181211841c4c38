"""A subscript of a value that joins a tensor with another kind (an attribute that is
None until a method stores a tensor there, a local set on one branch only): the item keeps
the tensor part's places and origins; a key of several dimensions with a slice makes it a
tensor."""

from __future__ import annotations

import textwrap

from torchferry.check.flow import Kind, Op, Project

from .conftest import Snippet, wheres

HIDDEN = """
import torch

class Policy:
    def __init__(self, n):
        self.n = n
        self.hidden = None

    def init_hidden(self, episodes):
        self.hidden = torch.zeros((episodes, self.n, 64))

    def step(self, i):
        h = self.hidden[:, i, :]
        g = self.hidden[i]
        return h, g
"""


def test_an_item_of_an_attribute_that_may_be_none_is_the_tensor_s():
    s = Snippet(HIDDEN)
    h, g = s.function("step").returns.elts
    assert h.is_(Kind.TENSOR) and wheres(h) == {"CPU"}
    assert any(o.op is Op.MADE and o.line == 9 for o in h.origins)
    assert wheres(g) == {"CPU"} and g.may_be(Kind.TENSOR) and not g.is_(Kind.TENSOR)


AGENT = """
from policy import Policy

class Agent:
    def __init__(self):
        self.policy = Policy(3)

    def act(self, i):
        h = self.policy.hidden[:, i, :]
        return h
"""


def test_an_item_of_another_object_s_joined_attribute_keeps_its_place():
    """``self.policy.hidden[:, i, :]`` of a plain object built in another file."""
    files = {"/r/policy.py": textwrap.dedent(HIDDEN).encode(),
             "/r/agent.py": textwrap.dedent(AGENT).encode()}
    s = Snippet(AGENT, path="/r/agent.py", project=Project(files, packages=()))
    h = s.function("act").returns
    assert h.is_(Kind.TENSOR) and wheres(h) == {"CPU"}


def test_a_local_tensor_on_one_branch_keeps_its_place_through_a_subscript():
    s = Snippet("""
        import torch
        def f(first, n):
            mem = None if first else torch.ones(n, 4).cuda()
            row = mem[..., 0:2, 1]
            return row
    """)
    row = s.function("f").returns
    assert row.is_(Kind.TENSOR) and wheres(row) == {"ACCEL"}


def test_a_joined_value_of_a_parameter_is_where_the_callers_put_it():
    s = Snippet("""
        import torch
        def f(first, x):
            mem = None if first else x.float()
            return mem[:, 0]
    """)
    assert wheres(s.function("f").returns) == {"PARAM1"}


def test_a_joined_value_without_a_tensor_part_is_not_made_one():
    s = Snippet("""
        def f(first, shape):
            dims = None if first else (3, 4)
            return dims[0]
    """)
    out = s.function("f").returns
    assert not out.may_be(Kind.TENSOR) or out.places is None
