"""FRY013 beyond a loader's batches: the tensors one call returns, unpacked by one
assignment (``train_x, train_y = data_generator(n)``), of which the code moves one to the
device and never the other, that then meets the moved side (the model's output in a loss,
``pred.eq(train_y)``), in the scope of the unpacking or in a function reading the names as
globals.  A sibling moved later (before it meets anything), moved inside the function it is
handed to, a 0-dimensional tensor, a Python number, or one the code never moves a sibling
of, stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''\
import argparse
import torch
from torch import nn


def data_generator(n):
    seq = torch.randint(1, 9, (n, 4)).float()
    zeros = torch.zeros((n, 3))
    return torch.cat((seq, zeros), 1), torch.cat((zeros, seq), 1).long()


def with_scale(n):
    return torch.zeros(n, 7), torch.tensor(0.5)


def with_count(n):
    return torch.zeros(n, 7), 3


parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_false")
args = parser.parse_args()
criterion = nn.CrossEntropyLoss()
'''


def _found(body: str) -> list[tuple[int, str]]:
    src = HEAD + body
    lines = src.splitlines()
    return [(f.line, lines[f.line - 1].strip()) for f in check_source(src, "t.py", select=["FRY013"])]


GLOBALS = '''\
train_x, train_y = data_generator(100)
model = nn.Linear(7, 7)
if args.cuda:
    model.cuda()
    train_x = train_x.cuda()
{later}

def train():
    x = train_x[0:10]
    y = train_y[0:10]
    out = model(x)
    loss = criterion(out, y.view(-1))
    pred = out.max(1, keepdim=True)[1]
    correct = pred.eq(y.view_as(pred)).sum()
    return loss, correct


train()
'''


def test_a_sibling_left_behind_is_reported_where_a_function_reads_it() -> None:
    found = _found(GLOBALS.format(later=""))
    assert found == [(35, "loss = criterion(out, y.view(-1))"),
                     (37, "correct = pred.eq(y.view_as(pred)).sum()")]


def test_the_fix_moves_it_after_its_sibling() -> None:
    src = HEAD + GLOBALS.format(later="")
    f = check_source(src, "t.py", select=["FRY013"])[0]
    assert f.fix is not None and not f.fix.safe
    (edit,) = f.fix.edits
    assert (edit.line, edit.content) == (29, "    train_y = train_y.cuda()\n")


def test_a_sibling_moved_later_is_quiet() -> None:
    assert _found(GLOBALS.format(later="train_y = train_y.cuda()\n")) == []


def test_in_one_function() -> None:
    body = '''\
def main(device):
    model = nn.Linear(7, 7).to(device)
    x, y = data_generator(100)
    x = x.to(device)
    out = model(x)
    return criterion(out, y)
'''
    assert _found(body) == [(29, "return criterion(out, y)")]


@pytest.mark.parametrize("body", [
    # moved inside the function it is handed to
    '''\
def step(model, x, y, device):
    y = y.to(device)
    return criterion(model(x), y)


def main(device):
    model = nn.Linear(7, 7).to(device)
    x, y = data_generator(100)
    x = x.to(device)
    return step(model, x, y, device)
''',
    # no sibling moved
    '''\
def main(device):
    model = nn.Linear(7, 7).to(device)
    x, y = data_generator(100)
    return criterion(model(x), y)
''',
    # a 0-dimensional sibling
    '''\
def main(device):
    model = nn.Linear(7, 7).to(device)
    x, scale = with_scale(100)
    x = x.to(device)
    return model(x) * scale
''',
    # a number
    '''\
def main(device):
    model = nn.Linear(7, 7).to(device)
    x, k = with_count(100)
    x = x.to(device)
    return model(x) * k
''',
])
def test_near_misses_stay_quiet(body: str) -> None:
    assert _found(body) == []
