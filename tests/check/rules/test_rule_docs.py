"""Each rule's documentation is complete, and its examples are checked by the rule itself:
the ``## Example`` code is reported, the ``## Use instead`` code is not."""

from __future__ import annotations

import ast
import re

import pytest

from torchferry.check.engine import check_source
from torchferry.check.rules import all_rules

SECTIONS = ["What it does", "Why is this bad", "Example", "Use instead", "Fix safety", "Known limits"]
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def _section(doc: str, name: str) -> str:
    m = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    assert m, f"missing section {name!r}"
    return m.group(1)


def _code(doc: str, name: str) -> str:
    blocks = FENCE.findall(_section(doc, name))
    assert blocks, f"no python block in {name!r}"
    return "\n".join(blocks)


def _prelude(code: str) -> str:
    """Make a snippet self-contained the way the docs leave implicit: torch imported and a
    portable device chosen; everything else is as written."""
    head = "import torch\nimport torch.nn as nn\nimport numpy as np\nimport time\n"
    head += "import matplotlib.pyplot as plt\n"
    if "device =" not in code:
        head += 'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
    return head + code


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_rule_documentation(rule) -> None:
    doc = rule.__doc__ or ""
    assert re.fullmatch(r"FRY\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.NAME)
    assert rule.FIX in ("safe", "unsafe", "none")
    assert doc.splitlines()[0].strip(), "first line is the summary"
    positions = [doc.index(f"## {s}\n") for s in SECTIONS]
    assert positions == sorted(positions), "sections out of order"
    assert rule.FIX.capitalize() in _section(doc, "Fix safety") or (
        rule.FIX == "none" and "No fix" in _section(doc, "Fix safety")
    )


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_rule_examples_are_checked(rule) -> None:
    doc = rule.__doc__ or ""
    bad = _prelude(_code(doc, "Example"))
    good = _prelude(_code(doc, "Use instead"))
    ast.parse(bad)
    ast.parse(good)
    assert check_source(bad, select=[rule.CODE]), f"{rule.CODE}: its Example is not reported"
    found = check_source(good, select=[rule.CODE])
    assert not found, f"{rule.CODE}: its 'Use instead' is reported: {found}"
