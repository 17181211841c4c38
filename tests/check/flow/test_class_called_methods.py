"""A static or class method called through its class (``Part.make(idx, mesh)``,
``Mesh.from_tensor(m, vs)``), in the class's file or imported from another file of the
run: a call of the run, whose parameters the call binds and whose return it gives."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.flow import Callee, Kind, Project

from .conftest import Snippet, wheres

PARTS = """
import torch
class Part:
    @staticmethod
    def make(idx, size):
        mask = torch.zeros(size)
        mask[idx] = 1
        return mask
    @classmethod
    def moved(cls, t):
        return t.cuda()
    def plain(self, t):
        return t
"""

USE = """
def run(size):
    idx = torch.arange(3).cuda()
    a = Part.make(idx, size)
    b = Part.moved(torch.ones(2))
    return a, b
"""


@pytest.mark.parametrize("same_file", [True, False])
def test_a_static_or_class_method_called_through_its_class_is_resolved(same_file):
    """``Part.make(idx, size)`` returns the CPU mask its body makes, ``Part.moved(t)`` (a
    classmethod: ``cls`` comes first) the tensor it moves; in the same file or with
    ``from parts import Part``."""
    if same_file:
        s = Snippet("import torch\n" + textwrap.dedent(PARTS) + textwrap.dedent(USE))
    else:
        main = "import torch\nfrom parts import Part\n" + textwrap.dedent(USE)
        files = {"/r/parts.py": textwrap.dedent(PARTS).encode(), "/r/main.py": main.encode()}
        s = Snippet(main, path="/r/main.py", project=Project(files, packages=()))
    calls = {getattr(c.node.func, "attr", None): c for c in s.function("run").calls.values()}
    assert calls["make"].callee is Callee.FUNCTION
    a, b = s.function("run").returns.elts
    assert a.is_(Kind.TENSOR) and wheres(a) == {"CPU"}
    assert b.is_(Kind.TENSOR) and wheres(b) == {"ACCEL"}


def test_the_static_method_parameter_is_placed_by_the_call_through_the_class():
    """``idx`` of ``Part.make``: on the device, as the only call of the file passes it."""
    s = Snippet("import torch\n" + textwrap.dedent(PARTS) + textwrap.dedent(USE))
    make = s.function("make")
    v = s.ff.placed(make, s.value_at(8, "idx"))
    assert wheres(v) == {"ACCEL"}
