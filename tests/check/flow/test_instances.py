"""An instance of a plain class whose network the code moves from outside the class
(``agent.q.to(device)``): the move is kept with the name, at each later read of it, and
followed into the functions every call of which hands them the instance."""

from __future__ import annotations

import ast

from torchferry.check.flow.instances import held_attr, instance_class

from .conftest import Snippet, wheres

SRC = """
import torch
import torch.nn as nn
class Agent:
    def __init__(self):
        self.q = nn.Linear(4, 2)
def use(agent):
    return agent.q
def deeper(agent):
    return use(agent)
def main(device, flag):
    agent = Agent()
    agent.q.to(device)
    deeper(agent)
    other = Agent()
    if flag:
        other.q.to(device)
    use(other)
    return agent.q, other.q
def main2():
    agent = Agent()
    agent.q = agent.q.cuda()
    return deeper(agent)
"""


def _name(s: Snippet, fn: str, name: str, line: int) -> tuple:
    res = s.function(fn)
    node = next(n for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == name and n.lineno == line)
    return res, node, res.value(node)


def test_a_move_from_outside_is_kept_with_the_name():
    s = Snippet(SRC)
    ret = s.function("main").returns
    assert ret.elts is not None
    assert wheres(ret.elts[0]) == {"ACCEL"}  # (``agent.q`` after the move, device chosen by the code)
    res, node, v = _name(s, "main", "other", 18)
    assert held_attr(s.ff, res, node, v, "q") is None  # (moved under a branch only)


def test_a_parameter_is_followed_to_every_call_that_hands_the_instance():
    """``use(agent)`` is called from ``deeper`` (from ``main`` and ``main2``, both moving the
    network) and from ``main`` with ``other`` (moved under a branch): ``use``'s parameter is
    not known, ``deeper``'s is, and the class is ``Agent`` for both."""
    s = Snippet(SRC)
    res, node, v = _name(s, "deeper", "agent", 9)
    held = held_attr(s.ff, res, node, v, "q")
    assert held is not None and wheres(held) == {"ACCEL"}
    info = instance_class(s.ff, res, node, v)
    assert info is not None and info.node.name == "Agent"
    res, node, v = _name(s, "use", "agent", 7)
    assert held_attr(s.ff, res, node, v, "q") is None
