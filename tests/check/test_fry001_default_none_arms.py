"""FRY001 and a test of a device parameter against None: ``if device is not None:`` says
nothing of the accelerator, so its ``else`` (and the body of ``if device is None:``), the
arm that runs on the parameter's default None, is no guard where a call of the run leaves
the parameter to that default; the finding names that call and offers no fix (the device
variable is None there).  Where every call passes a device, or the test is on another
value, it stays a guard, as a test naming the device is."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import torch\nimport torch.nn as nn\n\n\n"

FLAGGED = {
    "else-of-is-not-none": (
        "def build(device=None):\n"
        "    if device is not None:\n"
        "        return nn.Linear(2, 2).to(device)\n"
        "    else:\n"
        "        return nn.Linear(2, 2).cuda()\n"
        "net = build()\n"
    ),
    "body-of-is-none": (
        "def make(x, *, device=None):\n"
        "    if device is None:\n"
        "        return x.cuda()\n"
        "    return x.to(device)\n"
        "y = make(torch.ones(2))\n"
    ),
    "conditional-expression": (
        "def make(x, device=None):\n"
        "    return x.cuda() if device is None else x.to(device)\n"
        "y = make(torch.ones(2))\n"
    ),
}

QUIET = {
    "every-call-passes-a-device": FLAGGED["else-of-is-not-none"].replace("build()", "build('cpu')"),
    "no-call-in-the-run": FLAGGED["body-of-is-none"].replace("y = make(torch.ones(2))\n", ""),
    "the-arm-with-a-device": (
        "def build(device=None):\n"
        "    if device is not None:\n"
        "        return nn.Linear(2, 2).cuda()\n"
        "    return nn.Linear(2, 2)\n"
        "net = build()\n"
    ),
    "default-not-none": FLAGGED["body-of-is-none"].replace("device=None", "device=0"),
    "rebound-parameter": FLAGGED["body-of-is-none"].replace(
        "    if device is None:\n", "    device = device or pick()\n    if device is None:\n"),
}


def _found(source: str):
    return [f for f in check_source(HEAD + source, "t.py", select=["FRY001"]) if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_the_arm_of_the_default_none_is_no_guard_where_a_call_relies_on_it(case: str) -> None:
    source = HEAD + FLAGGED[case]
    lines = source.splitlines()
    found = _found(FLAGGED[case])
    assert [f.line for f in found] == [next(i for i, t in enumerate(lines, 1) if "cuda" in t)]
    assert [e.line for e in found[0].evidence] == [len(lines)]
    assert found[0].fix is None


@pytest.mark.parametrize("case", sorted(QUIET))
def test_it_stays_a_guard_where_no_call_is_known_to_take_that_arm(case: str) -> None:
    assert _found(QUIET[case]) == []
