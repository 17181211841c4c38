"""A call reaches a function of the file by what it calls: a bare name, or the name as an
attribute of an imported module; ``model.train()`` is no call of ``def train(model, ...)``."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.flow import analyze
from torchferry.check.flow.order import Point

SOURCE = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def train(m, x):
    return m(x)


def main():
    model = Net().to("cuda")
    model.train()
    train(model, torch.ones(4))
{more}

main()
"""


def _train(more: str = ""):
    tree = ast.parse(SOURCE.format(more=more))
    ff = analyze(tree, "/p/main.py")
    results = list(ff.results())
    fn = next(st for st in tree.body if isinstance(st, ast.FunctionDef) and st.name == "train")
    return ff, fn, next(r for r in results if r.node is fn)


def test_a_method_call_of_the_name_leaves_the_callers_of_a_function_known() -> None:
    ff, fn, _ = _train()
    main = next(st for st in ff.tree.body if isinstance(st, ast.FunctionDef) and st.name == "main")
    call = main.body[2].value
    assert ff.callers_of(fn) == [Point(main, call)]


@pytest.mark.parametrize("more", ["    import main as me\n    me.train(Net(), torch.ones(4))",
                                  "    torch.nn.train(Net(), torch.ones(4))"])
def test_a_call_of_the_name_on_an_imported_module_may_be_another_caller(more: str) -> None:
    ff, fn, _ = _train(more)
    assert ff.callers_of(fn) is None


def test_a_method_is_called_by_any_receiver() -> None:
    src = SOURCE.format(more="") + "other.forward2()\n"
    tree = ast.parse(src.replace("def forward(self, x)", "def forward2(self, x)").replace(
        "return m(x)", "return m.forward2(x)"))
    ff = analyze(tree, "/p/main.py")
    _ = list(ff.results())
    net = tree.body[2]
    assert isinstance(net, ast.ClassDef)
    assert ff.callers_of(net.body[1]) is None
