"""A call of a value that names one of several classes of the run (a table of classes,
``models[args.model](n)``, or a name bound to one class on each arm): what each
constructor builds, joined; the classes kept for the rules."""

from __future__ import annotations

from torchferry.check.flow import Kind

from .conftest import Snippet, wheres

CLASSES = """
import torch
import torch.nn as nn
class A(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
class B(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.act = nn.ReLU()
class G(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n).cuda()
"""


def _built(src: str, line: int):
    s = Snippet(CLASSES + src)
    call = s.call_at(line + CLASSES.count("\n") - 1)
    return s, call


def test_a_table_of_classes_builds_a_module_on_the_cpu() -> None:
    s, call = _built("def main(name):\n    models = {'a': A, 'b': B}\n    m = models[name](4)\n", 3)
    assert call.result.kinds == {Kind.MODULE}
    assert wheres(call.result) == {"CPU"}
    assert sorted(i.node.name for i in s.ff.built_among[id(call.node)]) == ["A", "B"]
    assert id(call.node) not in s.ff.built


def test_a_name_bound_to_one_class_on_each_arm() -> None:
    _, call = _built("def main(big):\n    cls = A if big else B\n    m = cls(4)\n", 3)
    assert wheres(call.result) == {"CPU"}


def test_a_class_whose_init_moves_it_joins_its_place() -> None:
    _, call = _built("def main(name):\n    models = {'a': A, 'g': G}\n    m = models[name](4)\n", 3)
    assert wheres(call.result) == {"CPU", "ACCEL"}


def test_a_table_holding_anything_else_is_unknown() -> None:
    _, call = _built("def main(name, f):\n    models = {'a': A, 'f': f}\n    m = models[name](4)\n", 3)
    assert call.result.kinds is None
