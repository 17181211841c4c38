"""FRY014 reports a call of a function of the file that hands a model's output on the
device to one parameter and a tensor surely on the CPU to another, where the callee (or a
function it calls) makes the two meet in an operation that wants one device: reported at
the call, with the meeting inside the callee in the evidence.  Quiet where the caller moves
both, the helper moves one, the meeting sits under a test of the devices, the CPU tensor is
0-dimensional, or the two never meet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def acc(outputs, labels):
    return (outputs.argmax(1) == labels).sum()


def same(output, target):
    c = 0
    for i, j in zip(target.view(-1, 4), output.view(-1, 4)):
        if torch.equal(i, j):
            c += 1
    return c


def step(out, y):
    return acc(out, y)


def moves(outputs, labels):
    labels = labels.to(outputs.device)
    return (outputs.argmax(1) == labels).sum()


def guarded(outputs, labels):
    if outputs.device != labels.device:
        return 0
    return (outputs.argmax(1) == labels).sum()


def apart(outputs, labels):
    return outputs.argmax(1).cpu().numpy(), labels.numpy()


def scalar(outputs, labels):
    return outputs * labels
'''


def _made(helper: str, label: str = "torch.zeros(8, dtype=torch.long)", move: str = "") -> str:
    return f'''

def main():
    net = nn.Linear(4, 2).to(device)
    x = torch.randn(8, 4, device=device)
    labels = {label}{move}
    out = net(x)
    return {helper}(out, labels)
'''


def _loader(helper: str, move: str = "") -> str:
    return f'''

def main(train_set, test_set):
    net = nn.Linear(4, 2).to(device)
    train = DataLoader(train_set, batch_size=8)
    test = DataLoader(test_set, batch_size=8)
    for x, y in train:
        x, y = x.to(device), y.to(device)
        print({helper}(net(x), y))
    for x, y in test:{move}
        out = net(x)
        print({helper}(out, y))
'''


CAUGHT = {
    "operator": (_made("acc"), 10),
    "zip_items": (_made("same"), 16),
    "helper_of_a_helper": (_made("step"), 10),
}
QUIET = {
    "caller_moves_both": _made("acc", move=".to(device)"),
    "helper_moves_one": _made("moves"),
    "device_test": _made("guarded"),
    "never_meet": _made("apart"),
    "zero_dim": _made("scalar", label="torch.tensor(0.5)"),
    "unknown_make": '''

def main(labels):
    net = nn.Linear(4, 2).to(device)
    out = net(torch.randn(8, 4, device=device))
    return acc(out, labels)
''',
    "model_not_moved": '''

def main():
    net = nn.Linear(4, 2)
    out = net(torch.randn(8, 4))
    return acc(out, torch.zeros(8, dtype=torch.long))
''',
}


def _found(body: str) -> list[tuple[int, list[int]]]:
    src = HEAD + body
    return [(f.line, [e.line for e in f.evidence]) for f in check_source(src, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_a_model_output_meeting_a_cpu_tensor_in_a_helper_is_reported(name: str) -> None:
    body, meet = CAUGHT[name]
    lines = HEAD.count("\n") + body.count("\n")
    found = _found(body)
    assert [line for line, _ in found] == [lines]
    assert found[0][1][-1] == meet  # (the meeting inside the callee)
    if name == "helper_of_a_helper":
        assert found[0][1][-2] == 22  # (``step`` hands them on to ``acc``)


@pytest.mark.parametrize("name", sorted(QUIET))
def test_no_meeting_of_a_cpu_tensor_is_quiet(name: str) -> None:
    assert _found(QUIET[name]) == []


CALL = HEAD.count("\n") + 12  # (the helper's call in the test loop)


def test_an_unmoved_test_batch_item_meets_the_output_in_a_helper() -> None:
    """The training loop moves the labels it gives the helper; the test loop does not (nor
    its inputs: the model's call is reported too)."""
    found = _found(_loader("same"))
    assert [line for line, _ in found] == [CALL - 1, CALL]
    assert found[1][1][-1] == 16


def test_the_test_batch_item_moved_too_is_quiet() -> None:
    moved = _found(_loader("same", move="\n        x, y = x.to(device), y.to(device)"))
    assert moved == []
