"""FRY002 and a name of unknown kind whose function reads an attribute of it that no
tensor has (``data.y`` of a graph library's batch object, ``data.to(device)`` discarded):
an object of attributes, whose ``to`` may move them in place, is not reported; a name read
only as a tensor is (``data.shape``, a tensor's property), and so is one rebound in the
function (what it holds at the move is not followed)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = '''
import torch


class Estimator:
    def __init__(self, device):
        self.device_ = device

    def run_step(self, model, data):
        data.to(self.device_)
        out = model(data)
        return out, data.y
'''
MOVE_LINE = 10


def lines(src: str) -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=("FRY002",))]


def test_an_object_of_attributes_is_quiet() -> None:
    assert lines(SRC) == []


@pytest.mark.parametrize("read", ["data.shape", "data.T", "data.sum"])
def test_a_tensor_attribute_or_a_method_is_reported(read: str) -> None:
    assert lines(SRC.replace("data.y", read)) == [MOVE_LINE]


def test_a_name_rebound_in_the_function_is_reported() -> None:
    src = SRC.replace("        return out, data.y\n", "        data = out\n        return out, data.y\n")
    assert lines(src) == [MOVE_LINE]
