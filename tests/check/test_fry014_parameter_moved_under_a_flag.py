"""FRY014 and a function's parameter moved in the true arm of a fixed device flag, then
handed on: ``def train(model): if torch.cuda.is_available(): model = model.cuda()`` puts
the model on the GPU on every run that has one, so the function it hands the model to
meets it there, and an input left on the CPU there fails."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

LOOP = '''import torch


def train_epoch(model, loader):
    for input, target in loader:
        if torch.cuda.is_available():
            target = target.cuda()
        output = model(input)


def train(model, data):
    loader = torch.utils.data.DataLoader(data)
    {test}
        model = model.cuda()
    train_epoch(model=model, loader=loader)


train(torch.nn.Linear(3, 10), [(torch.zeros(3), 0)])
'''

#: the input moved too: nothing meets the CPU
BOTH_MOVED = LOOP.replace("output = model(input)", "input = input.cuda()\n        output = model(input)")

#: the model handed on only in the arm where the flag is false
OTHER_ARM = '''import torch


def train_epoch(model, loader):
    for input, target in loader:
        if torch.cuda.is_available():
            target = target.cuda()
        output = model(input)


def train(model, data):
    loader = torch.utils.data.DataLoader(data)
    if torch.cuda.is_available():
        model = model.cuda()
    else:
        train_epoch(model=model, loader=loader)


train(torch.nn.Linear(3, 10), [(torch.zeros(3), 0)])
'''


def _fry014(src: str) -> list[int]:
    return [f.line for f in check_source(src, "t.py", select=["FRY014"]) if f.code == "FRY014"]


@pytest.mark.parametrize("test", ["if torch.cuda.is_available():", "if True:"])
def test_a_parameter_moved_under_a_fixed_flag_is_on_the_device_where_it_is_handed(test: str) -> None:
    assert _fry014(LOOP.format(test=test)) == [8]


def test_a_parameter_moved_under_a_test_of_a_value_of_the_data_is_not() -> None:
    src = LOOP.format(test="if data:")
    assert _fry014(src) == []


def test_an_input_moved_too_is_not_flagged() -> None:
    assert _fry014(BOTH_MOVED.format(test="if torch.cuda.is_available():")) == []


def test_a_model_handed_on_where_the_flag_is_false_is_not_on_the_device() -> None:
    assert _fry014(OTHER_ARM) == []
