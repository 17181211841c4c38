"""An item read by a literal key from a parameter as it came in (``r["d"]``) is what the
calls of the run pass at that key (``h({"d": out, "n": 3})``): a tensor there that may be on
the accelerator, handed to NumPy, is reported; one brought to the CPU first is not."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch


def h(r):
    return r["d"].numpy()


def main(model, x):
    model = model.cuda()
    out = model(x.cuda())
    return h({passed})
"""


def lines(passed: str) -> list[int]:
    src = textwrap.dedent(SOURCE.format(passed=passed))
    return [f.line for f in check_source(src, "t.py", select=["FRY003"])]


def test_a_keyed_item_on_the_device_is_reported() -> None:
    assert lines('{"d": out, "n": 3}') == [6]


@pytest.mark.parametrize(
    "passed",
    ['{"d": out.cpu(), "n": 3}', '{"e": out.cpu(), "d": x}', '{"d": out.detach().cpu()}'],
)
def test_a_keyed_item_on_the_cpu_is_not_reported(passed: str) -> None:
    assert lines(passed) == []
