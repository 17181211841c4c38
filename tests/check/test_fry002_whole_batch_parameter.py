"""FRY002 and a parameter that every call of the run hands the whole batch of a loop
over a loader (``for data in loader: self.step(model, data)``): the batch object (a PyG
``Batch``, a tokenizer's ``BatchEncoding``), whose ``.to`` moves it in place, as the
same ``data.to(device)`` written in the loop itself is.  An item of the batch, or a call
that hands anything else, is still reported."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = '''
import torch


class Estimator:
    def __init__(self, device):
        self.device_ = device

    def run_epoch(self, model, loader):
        for data in loader:
            self.run_step(model, data)

    def run_step(self, model, data):
        data.to(self.device_)
        return model(data)
'''
MOVE_LINE = 14


def lines(src: str) -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=("FRY002",))]


def test_a_whole_batch_handed_to_a_method_is_quiet() -> None:
    assert lines(SRC) == []


@pytest.mark.parametrize("keyword", [False, True])
def test_by_keyword_or_by_position(keyword: bool) -> None:
    call = "self.run_step(model, data=data)" if keyword else "self.run_step(model, data)"
    assert lines(SRC.replace("self.run_step(model, data)", call)) == []


def test_an_item_of_the_batch_is_reported() -> None:
    src = SRC.replace("for data in loader:", "for data, target in loader:")
    assert lines(src) == [MOVE_LINE]


def test_a_call_that_hands_something_else_is_reported() -> None:
    src = SRC + "\n    def probe(self, model):\n        self.run_step(model, torch.ones(2))\n"
    assert lines(src) == [MOVE_LINE]


def test_no_call_of_the_run_is_reported() -> None:
    src = SRC.replace("            self.run_step(model, data)\n", "            pass\n")
    assert lines(src) == [MOVE_LINE]
