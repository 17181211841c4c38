"""Which parameters of a function meet in an operation that wants one device, followed
through the function's calls of functions of the file."""

from __future__ import annotations

import ast

from torchferry.check.flow.lattice import Kind
from torchferry.check.flow.meetings import param_meetings
from torchferry.check.flow.program import FileFlow

SRC = '''
import torch


def acc(o, t):
    return (o.argmax(1) == t).sum()


def equal(o, t):
    return torch.equal(o.view(-1), t)


def outer(a, b, c):
    return equal(c, a)


def moved(o, t):
    t = t.to(o.device)
    return o + t


def tested(o, t):
    if o.is_cuda:
        t = t.cuda()
    return o + t


def reduced(o, t):
    s = t.sum()
    return o * s
'''


def _meetings(name: str, tensors: int = 2) -> list[tuple[int, int, int, int]]:
    ff = FileFlow(ast.parse(SRC), "<t>")
    res = ff.given_result(ff.defs[name], {k: Kind.TENSOR for k in range(tensors)})
    assert res is not None
    return [(m.first, m.second, getattr(m.node, "lineno", 0), len(m.via)) for m in param_meetings(ff, res)]


def test_an_operator_on_what_two_parameters_give_is_a_meeting() -> None:
    assert _meetings("acc") == [(0, 1, 6, 0)]


def test_a_torch_function_of_two_parameters_is_a_meeting() -> None:
    assert _meetings("equal") == [(0, 1, 10, 0)]


def test_a_meeting_of_a_callee_is_one_of_the_parameters_handed_to_it() -> None:
    assert _meetings("outer", 3) == [(2, 0, 10, 1)]  # (``c`` is ``o``, ``a`` is ``t``)


def test_a_parameter_moved_first_or_a_device_test_or_a_reduction_meets_nothing() -> None:
    assert _meetings("moved") == []
    assert _meetings("tested") == []
    assert _meetings("reduced") == []


def test_parameters_of_unknown_kind_meet_nothing() -> None:
    assert _meetings("acc", 0) == []


def test_the_items_of_star_args_are_not_bound_one_by_one() -> None:
    src = "import torch\ndef f(a, *rest):\n    return torch.equal(a, rest[0])\n"
    ff = FileFlow(ast.parse(src), "<t>")
    res = ff.given_result(ff.defs["f"], {0: Kind.TENSOR, 1: Kind.TENSOR})
    assert res is not None
    assert param_meetings(ff, res) == ()
