"""FRY011 on a plain tensor attribute of a subclass of torchmetrics' ``Metric``: the class
is an ``nn.Module`` by its qualified base (``class Metric(Module, ABC)``), and its
``forward`` hands its own arguments to ``update``, so ``update``'s parameters are the
module's inputs, where ``metric.to(device)`` puts the states of ``add_state`` and the
buffers, and leaves a plain attribute behind."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.program import FileFlow
from torchferry.check.project import module_classes

METRIC = """
import torch
{imports}


class Anomaly({base}):
    def __init__(self, means):
        super().__init__()
        self.means = torch.tensor(means)
        self.add_state("total", default=torch.tensor(0.0), dist_reduce_fx="sum")

    def update(self, preds, target):
        self.total += ((preds - self.means) * (target - self.means)).sum()

    def compute(self):
        return self.total
"""

FLAGGED = {
    "top_level_import": ("from torchmetrics import Metric", "Metric"),
    "module_import": ("import torchmetrics", "torchmetrics.Metric"),
    "defining_module": ("from torchmetrics.metric import Metric as Base", "Base"),
}

QUIET = {
    # a class of another package named ``Metric`` is no module by its name alone
    "other_package": ("from ignite.metrics import Metric", "Metric"),
    # a plain module's ``update`` is a method like any other: ``forward`` is not it
    "plain_module": ("from torch.nn import Module", "Module"),
}


def _lines(imports: str, base: str, extra: str = "") -> list[int]:
    source = METRIC.format(imports=imports, base=base) + extra
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_update_inputs_meet_the_plain_attribute(name: str) -> None:
    assert _lines(*FLAGGED[name]) == [9]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert _lines(*QUIET[name]) == []


def test_registered_as_a_buffer_is_quiet() -> None:
    source = METRIC.format(imports="from torchmetrics import Metric", base="Metric").replace(
        "self.means = torch.tensor(means)", 'self.register_buffer("means", torch.tensor(means))')
    assert [f.line for f in check_source(source, "t.py", select=["FRY011"])] == []


def test_a_forward_of_its_own_replaces_update() -> None:
    # the subclass's ``forward`` runs instead of the library's: ``update`` is a method
    extra = """
    def forward(self, preds, target):
        return preds.sum()
"""
    assert _lines("from torchmetrics import Metric", "Metric", extra) == []


def test_the_metric_is_a_module_and_update_takes_its_inputs() -> None:
    tree = ast.parse(METRIC.format(imports="from torchmetrics import Metric", base="Metric"))
    ff = FileFlow(tree, "<example>")
    cls = tree.body[-1]
    assert isinstance(cls, ast.ClassDef)
    info = ff.class_info(cls)
    assert info.is_module
    assert info.input_methods() == {"forward", "update"}


def test_the_class_header_pass_does_not_know_metric_by_name() -> None:
    assert module_classes([b"class Anomaly(Metric):\n    pass\n"]) == frozenset()
