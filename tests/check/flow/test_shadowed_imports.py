"""Which imported names a module also binds otherwise (flow.shadowed), for each way a
name is bound: the tree's index is read first, and must not let one of them pass."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.shadowed import shadowed_imports


def _answer(src: str) -> tuple[list[str], list[str]]:
    tree = ast.parse(src)
    shadowed, settled = shadowed_imports(tree, set(FileFlow(tree, "<test>").imports))
    return sorted(shadowed), sorted(settled)


@pytest.mark.parametrize(("src", "shadowed", "settled"), [
    ("import model\nmodel = model.Net()\n", ["model"], ["model"]),
    ("import model\nmodel: object = model.Net()\n", ["model"], ["model"]),
    ("import model\nmodel += 1\n", ["model"], []),
    ("import model\nfor model in range(2):\n    pass\n", ["model"], []),
    ("import model\nwith open('f') as model:\n    pass\n", ["model"], []),
    ("import model\na, model = 1, 2\n", ["model"], ["model"]),
    ("import model\ndel model\n", ["model"], []),
    ("import model\ndef model():\n    pass\n", ["model"], []),
    ("import model\nclass model:\n    pass\n", ["model"], []),
    ("import model\nif ok:\n    model = model.Net()\n", ["model"], []),
    ("import model\n[model := 1]\n", ["model"], []),
])
def test_each_binding_of_an_imported_name_shadows_it(src: str, shadowed: list[str], settled: list[str]) -> None:
    assert _answer(src) == (shadowed, settled)


def test_a_name_bound_only_in_a_function_or_by_an_import_is_not_shadowed() -> None:
    assert _answer("import model\nimport model as model\ndef f():\n    model = 1\n") == ([], [])
    assert _answer("import importlib\nth = importlib.import_module('torch')\nimport th\n") == ([], [])


def test_a_name_a_function_declares_global_is_not_settled() -> None:
    src = "import model\nmodel = model.Net()\ndef f():\n    global model\n    model = None\n"
    assert _answer(src) == (["model"], [])


def test_a_call_of_the_files_own_function_before_the_binding_unsettles_it() -> None:
    src = "import model\ndef build():\n    return model.Net()\nx = build()\nmodel = model.Net()\n"
    assert _answer(src) == (["model"], [])
    src = "import model\nclass Build:\n    pass\nx = Build()\nmodel = model.Net()\n"
    assert _answer(src) == (["model"], [])
