"""A tensor made by a legacy typed constructor the code picks by the accelerator's
availability (``FloatTensor = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor``) is
made on the device the code chose: a model left on the CPU that is given it is reported."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()
FloatTensor = {typed}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def play(board):
    model = Net(){move}
    state = FloatTensor(board)
    return model(state)
"""

CHOSEN = "torch.cuda.FloatTensor if use_cuda else torch.FloatTensor"


def lines(typed: str, move: str = "") -> list[int]:
    src = textwrap.dedent(SOURCE.format(typed=typed, move=move))
    return [f.line for f in check_source(src, "t.py", select=["FRY014"])]


def test_a_model_given_a_tensor_of_the_chosen_type_is_reported() -> None:
    assert lines(CHOSEN) == [21]


def test_a_model_given_a_tensor_of_the_cuda_type_is_reported() -> None:
    assert lines("torch.cuda.FloatTensor") == [21]


@pytest.mark.parametrize(
    "typed, move",
    [
        (CHOSEN, "\n    if use_cuda:\n        model.cuda()"),
        (CHOSEN, "\n    model.to('cuda' if use_cuda else 'cpu')"),
        ("torch.FloatTensor", ""),
    ],
)
def test_a_model_where_its_input_is_made_is_not_reported(typed: str, move: str) -> None:
    assert lines(typed, move) == []
