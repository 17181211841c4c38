"""A bare ``.cuda()`` in the body of ``if <expr>.is_cuda:`` goes to the current CUDA device,
not necessarily ``<expr>``'s, whose device is at hand as ``<expr>.device``: with the input on
``cuda:1`` the value lands on ``cuda:0``.  FRY001 reports it where a selector names the rule
(the test is no guard for that lesson), and stays quiet where the default rule set alone
runs it, where the call names a device, outside the test's body, and for ``<expr>`` itself."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch


def forward(x, model, a):
    t = torch.from_numpy(a)
    LINE
    return t + x
"""


def found(line: str, select: list[str] | None = None) -> list[tuple[int, str]]:
    """FRY001's findings (``select=None``: the default rule set's) with ``LINE`` in place."""
    src = textwrap.dedent(SOURCE).replace("LINE", textwrap.indent(line, "    ").lstrip())
    return [(f.line, f.message) for f in check_source(src, "t.py", select=select) if f.code == "FRY001"]


@pytest.mark.parametrize(("line", "device"), [
    ("if x.is_cuda:\n    t = t.cuda()", "x.device"),
    ("if next(model.parameters()).is_cuda:\n    t = t.cuda()", "next(model.parameters()).device"),
    ("if x.is_cuda:\n    if t.dim() > 1:\n        t = t.cuda()", "x.device"),
])
def test_a_bare_cuda_under_an_is_cuda_test(line: str, device: str) -> None:
    (hit,) = found(line, ["FRY001"])
    assert f"use `.to({device})`" in hit[1]
    assert "current CUDA device" in hit[1]


def test_the_evidence_names_the_test() -> None:
    src = textwrap.dedent(SOURCE).replace("LINE", "if x.is_cuda:\n        t = t.cuda()")
    (f,) = check_source(src, "t.py", select=["FRY001"])
    assert [(e.line, e.column) for e in f.evidence] == [(7, 7)]
    assert "`x` is tested to be on CUDA" in f.evidence[0].message


@pytest.mark.parametrize("line", [
    "if x.is_cuda:\n    t = t.cuda(x.device)",
    "if x.is_cuda:\n    t = t.cuda(device=x.get_device())",
    "if x.is_cuda:\n    x = x.cuda()",
    "if not x.is_cuda:\n    t = t.cuda()",
    "if x.is_cuda:\n    pass\nelse:\n    t = t.cuda()",
    "if torch.cuda.is_available():\n    t = t.cuda()",
    "if x.is_cuda:\n    t = t.to(x.device)",
])
def test_quiet_where_the_device_is_named_or_not_tested(line: str) -> None:
    assert found(line, ["FRY001"]) == []


def test_not_in_the_default_rule_set() -> None:
    assert found("if x.is_cuda:\n    t = t.cuda()", select=None) == []


TWICE = """
import torch


class Runner:
    def __init__(self, args, net):
        self.cuda = args.cuda
        self.device = torch.device(args.device)
        self.net = net

    def deploy(self, x, device):
        LINE
        return self.net(x)
"""


def twice(line: str, select: list[str] | None = None) -> list[tuple[int, str]]:
    """FRY001's findings in ``TWICE`` with ``LINE`` in place."""
    src = textwrap.dedent(TWICE).replace("LINE", textwrap.indent(line, "        ").lstrip())
    return [(f.line, f.message) for f in check_source(src, "t.py", select=select) if f.code == "FRY001"]


@pytest.mark.parametrize(("line", "device"), [
    ("x = x.to(self.device)\nif self.cuda:\n    x = x.cuda()", "self.device"),
    ("x = x.to(device)\nif self.cuda:\n    x = x.cuda()", "device"),
    ("x = x.to(device=self.device)\nprint(x.shape)\nif self.cuda:\n    y = x.cuda()", "self.device"),
    ("self.net = self.net.to(self.device)\nif self.cuda:\n    self.net = self.net.cuda()", "self.device"),
])
def test_a_value_moved_to_a_chosen_device_then_to_the_current_gpu(line: str, device: str) -> None:
    (hit,) = twice(line, ["FRY001"])
    assert f"keep `.to({device})` alone" in hit[1]


def test_the_evidence_names_the_first_move() -> None:
    line = "x = x.to(self.device)\nif self.cuda:\n    x = x.cuda()"
    src = textwrap.dedent(TWICE).replace("LINE", textwrap.indent(line, "        ").lstrip())
    (f,) = check_source(src, "t.py", select=["FRY001"])
    assert [e.line for e in f.evidence] == [12]
    assert "`x` is moved to `self.device` here" in f.evidence[0].message


@pytest.mark.parametrize("line", [
    "x = x.to('cuda:1')\nif self.cuda:\n    x = x.cuda()",
    "x = x.to(self.device)\nx = x * 2\nif self.cuda:\n    x = x.cuda()",
    "x = x.to(self.device)\nif self.cuda:\n    x = x.cuda(1)",
    "x = x.to(self.device)\nif self.cuda:\n    y = y.cuda()",
    "if self.cuda:\n    x = x.cuda()\nx = x.to(self.device)",
    "if device:\n    x = x.to(device)\nelse:\n    if self.cuda:\n        x = x.cuda()",
])
def test_quiet_without_a_chosen_device_for_the_same_value(line: str) -> None:
    assert [m for _, m in twice(line, ["FRY001"]) if "current CUDA device" in m] == []


def test_moved_twice_not_in_the_default_rule_set() -> None:
    assert twice("x = x.to(self.device)\nif self.cuda:\n    x = x.cuda()") == []
