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
