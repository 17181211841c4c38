"""``self.weight`` in a subclass of a ``torch.nn`` layer that always registers it
(``class WSConv2d(nn.Conv2d)``) is a parameter of the module: it follows the module, so a
CPU factory meeting it is reported by FRY010 and a plain tensor attribute combined with it
by FRY011.  An attribute the layer may leave None (``bias``), one the run's classes or the
file assign, or a base that is not such a layer keep it unknown."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
from torch import nn


class WSConv2d({base}):
    def __init__(self, cin, cout, k):
        super().__init__(cin, cout, k)
        self.gain = torch.ones(cout)

    def forward(self, x):
        w = self.{attr} * torch.ones(self.{attr}.shape)
        return w * self.gain.view(-1, 1, 1, 1)
"""


def findings(base: str = "nn.Conv2d", attr: str = "weight", extra: str = "") -> list[tuple[str, int]]:
    src = textwrap.dedent(SOURCE.format(base=base, attr=attr)) + textwrap.dedent(extra)
    return sorted((f.code, f.line) for f in check_source(src, "t.py", select=["FRY010", "FRY011"]))


@pytest.mark.parametrize("base", ["nn.Conv2d", "torch.nn.Linear", "nn.modules.conv.Conv1d", "nn.Embedding"])
def test_the_weight_a_layer_registers_meets_a_cpu_factory_and_a_plain_attribute(base: str) -> None:
    assert findings(base) == [("FRY010", 12), ("FRY011", 9)]


def test_a_subclass_of_a_subclass_in_the_run_inherits_the_weight() -> None:
    extra = """
    class Deeper(WSConv2d):
        def scale(self):
            return self.weight * torch.rand(self.weight.shape)
    """
    assert ("FRY010", 17) in findings(extra=extra)


@pytest.mark.parametrize(("base", "attr"), [
    ("nn.Conv2d", "bias"),  # None with bias=False
    ("nn.Module", "weight"),  # no layer registers it
    ("nn.BatchNorm2d", "weight"),  # None with affine=False
])
def test_an_attribute_the_layer_may_not_register_stays_unknown(base: str, attr: str) -> None:
    assert findings(base, attr) == []


def test_a_weight_the_file_assigns_from_outside_stays_unknown() -> None:
    extra = """
    conv = WSConv2d(3, 8, 3)
    conv.weight = torch.randn(8, 3, 3, 3)
    """
    assert findings(extra=extra) == []
