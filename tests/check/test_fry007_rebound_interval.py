"""FRY007 stays quiet under an ``if`` whose body rebinds a name its test reads, the mark of
the next logging interval (``if nimg >= last + tick:`` with ``last = nimg`` in the body)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch


def train(model, loader, opt, tick):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    nimg, last = 0, 0
    for x in loader:
        loss = model(x.to(device)).mean()
        loss.backward()
        opt.step()
        nimg += x.shape[0]
        if nimg >= last + tick:
            {body}
            print(loss.item())
"""


def lines(body: str) -> list[int]:
    src = textwrap.dedent(SOURCE.format(body=body))
    return [f.line for f in check_source(src, "t.py", select=["FRY007"])]


def test_a_read_under_an_interval_the_body_moves_on_is_not_reported() -> None:
    assert lines("last = nimg") == []


@pytest.mark.parametrize("body", ["pass", "other = nimg"])
def test_a_read_under_a_test_the_body_leaves_alone_is_reported(body: str) -> None:
    assert lines(body) == [16]
