"""A call's arguments bound to a function's parameters as Python binds them: by position,
by keyword, keyword-only parameters, defaults; unknown where a spread hides what is passed
or where Python would refuse the call."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.flow.binding import bind

DEF = "def loss(model, x, y=None, *, beta=1.0, gamma):\n    pass\n"


def bound(call: str, definition: str = DEF, first: int = 0) -> dict[int, str] | None:
    fn = ast.parse(definition).body[0]
    node = ast.parse(call).body[0].value
    assert isinstance(node, ast.Call)
    b = bind(fn, node, first)
    return None if b is None else {k: ast.unparse(a.node) for k, a in b.args.items()}


def test_keywords_bind_by_name() -> None:
    assert bound("loss(model=m, x=d, y=t, gamma=g)") == {0: "m", 1: "d", 2: "t", 4: "g"}


def test_positional_and_keyword_mixed_in_any_order() -> None:
    assert bound("loss(m, y=t, gamma=g, x=d)") == {0: "m", 2: "t", 4: "g", 1: "d"}


def test_keyword_only_parameter_is_numbered_after_the_positional_ones() -> None:
    fn = "def f(a, *rest, flag, **kw):\n    pass\n"
    assert bound("f(x, y, z, flag=w)", fn) == {0: "x", 2: "w"}


def test_defaults_fill_the_parameters_left_out() -> None:
    fn = ast.parse(DEF).body[0]
    node = ast.parse("loss(m, d, gamma=g)").body[0].value
    assert isinstance(node, ast.Call)
    b = bind(fn, node)
    assert b is not None and b.defaulted == frozenset({2, 3})
    assert b.args[4].keyword == "gamma" and b.args[1].position == 1


@pytest.mark.parametrize(
    "call",
    [
        "loss(m, d, **kw)",  # what the mapping holds is not written out
        "loss(*xs, gamma=g)",  # nor what the sequence holds
        "loss(m, d, gamma=g, delta=1)",  # no parameter of that name, no **kwargs
        "loss(m, d, x=d, gamma=g)",  # bound twice
        "loss(m, d, t, 2.0, gamma=g)",  # too many positional arguments, no *args
        "loss(m, d)",  # a keyword-only parameter without a default left out
        "loss(m, gamma=g)",  # a positional one without a default left out
    ],
)
def test_a_binding_python_would_refuse_or_cannot_be_read_is_unknown(call: str) -> None:
    assert bound(call) is None


def test_a_positional_only_parameter_named_by_keyword_goes_to_kwargs_or_fails() -> None:
    assert bound("f(1, a=2)", "def f(a, /, **kw):\n    pass\n") == {0: "1"}
    assert bound("f(a=2)", "def f(a, /):\n    pass\n") is None


def test_unknown_keywords_go_to_kwargs() -> None:
    assert bound("f(x, extra=1)", "def f(a, **kw):\n    pass\n") == {0: "x"}


def test_first_parameters_bound_by_the_call_itself() -> None:
    method = "def step(self, x, y=0):\n    pass\n"
    assert bound("net.step(d, y=t)", method, first=1) == {1: "d", 2: "t"}
    assert bound("net.step(d, self=t)", method, first=1) is None
