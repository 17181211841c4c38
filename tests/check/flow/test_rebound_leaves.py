"""Which statements may leave a method before a later store replaces an attribute: a
``return``, ``raise``, ``break`` or ``continue`` anywhere in the statement's blocks (the
handlers' and ``case`` blocks included), none in a nested function or class."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.flow.rebound import _may_leave
from torchferry.check.flow.walk import own_nodes

LEAVE = [
    "if a:\n    return\n",
    "try:\n    x = 1\nexcept E:\n    raise\n",
    "try:\n    x = 1\nfinally:\n    y = 2\n    return y\n",
    "for i in xs:\n    while c:\n        break\n",
    "with m:\n    for i in xs:\n        pass\n    else:\n        continue\n",
    "match v:\n    case 1:\n        return 2\n",
]
STAY = [
    "x = f(lambda: 1)\n",
    "def g():\n    return 1\n",
    "class C:\n    def m(self):\n        raise E\n",
    "if a:\n    def g():\n        return 1\nelse:\n    x = [y for y in z]\n",
]


@pytest.mark.parametrize("source,leaves", [(s, True) for s in LEAVE] + [(s, False) for s in STAY])
def test_a_statement_leaves_by_its_blocks_alone(source: str, leaves: bool) -> None:
    st = ast.parse(source).body[0]
    walked = any(isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue))
                 for n in own_nodes(ast.Module(body=[st], type_ignores=[])))
    assert _may_leave(st) is leaves is walked
