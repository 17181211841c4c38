"""A ``torch.nn`` loss built with a tensor (``nn.CrossEntropyLoss(weight=w)``) uses it with
the inputs of every call (its ``forward`` hands ``self.weight`` to the functional loss), so
a factory given as ``weight=`` / ``pos_weight=`` meets what the loss is called with.  A loss
that is moved (``crit.to(device)``, ``.cuda()``), held by a model, or handed to other code,
takes its buffers along or may, and is not reported."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
from torch import nn
from torch.nn import CrossEntropyLoss

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def run(out, y, hand):
    out = out.to(device)
    y = y.to(device)
"""


def fry010(body: str, default: bool = True) -> list[tuple[int, str]]:
    src = textwrap.dedent(HEAD) + textwrap.indent(textwrap.dedent(body), "    ")
    select = None if default else ["FRY010"]
    return [(f.line, f.message.split("meets `")[1].split("`")[0])
            for f in check_source(src, "t.py", select=select) if f.code == "FRY010"]


@pytest.mark.parametrize("body", [
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.CrossEntropyLoss(weight=w)\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\ncrit = CrossEntropyLoss(w)\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\nreturn nn.NLLLoss(w, reduction='sum')(out, y)",
    "w = torch.tensor([1.0, 2.0])\nreturn nn.MultiMarginLoss(1, 1.0, w)(out, y)",
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.BCEWithLogitsLoss(pos_weight=w)\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.BCEWithLogitsLoss(None, None, None, 'mean', w)\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\nreturn nn.BCELoss(weight=w)(out, y)",
])
def test_a_weight_of_a_loss_meets_its_inputs(body: str) -> None:
    assert fry010(body) == [(12, "out")]


@pytest.mark.parametrize("body", [
    # moved: the buffers go along
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.CrossEntropyLoss(weight=w)\ncrit.to(device)\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.CrossEntropyLoss(weight=w).cuda()\nreturn crit(out, y)",
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.CrossEntropyLoss(weight=w)\ncrit = crit.to(y.device)\nreturn crit(out, y)",
    # handed to other code, which may move it
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.CrossEntropyLoss(weight=w)\nhand(crit)\nreturn crit(out, y)",
    # no tensor of the loss's own: the positional argument of MultiMarginLoss is its `p`
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.MultiMarginLoss(w)\nreturn crit(out, y)",
    # a loss whose forward reads no tensor it was built with
    "w = torch.tensor([1.0, 2.0])\ncrit = nn.MSELoss(w)\nreturn crit(out, y)",
    # made where the inputs are
    "w = torch.tensor([1.0, 2.0], device=out.device)\ncrit = nn.CrossEntropyLoss(weight=w)\nreturn crit(out, y)",
])
def test_a_loss_moved_or_without_such_a_tensor_is_quiet(body: str) -> None:
    assert fry010(body, default=False) == []


def test_a_loss_held_by_a_moved_model_is_quiet() -> None:
    src = textwrap.dedent("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self.crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0, 1.0]))

            def forward(self, x, y):
                return self.crit(self.fc(x), y)

        net = Net().to("cuda")
        net(torch.randn(4, 2).cuda(), torch.ones(4, 2).cuda())
    """)
    assert [f for f in check_source(src, "t.py", select=["FRY010"])] == []
