"""FRY014 and moves guarded by one device flag: ``if args.cuda: x = x.cuda()`` puts the input
on the GPU wherever the flag is true, so a model the code never moves (its move dropped)
meets it there and fails; a model moved under the same flag does not."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_false")
args = parser.parse_args()
'''

#: a script whose model is never moved; its data is, under ``if args.cuda:``
GLOBAL_DATA = HEAD + '''
train_x = torch.randn(64, 4)
model = nn.Linear(4, 2)
if args.cuda:
    train_x = train_x.cuda()


def train():
    for i in range(0, 64, 8):
        x = train_x[i:i + 8]
        out = model(x)
        out.sum().backward()


train()
'''

#: a loop that moves its batch in a one-line ``if args.cuda:``; the model is never moved
LOOP_BATCH = HEAD + '''
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4)))


def train():
    for (data,) in loader:
        if args.cuda: data = data.cuda()
        data = data.view(-1, 4)
        output = model(data)
        output.sum().backward()
'''

#: the pytorch/examples idiom: the flag bound once from ``torch.cuda.is_available()``
BOUND_FLAG = '''import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

model = nn.Linear(4, 2)
x = torch.randn(3, 4)
if args.cuda:
    x = x.cuda()


def run():
    return model(x)


run()
'''

#: a plain name bound from ``torch.cuda.is_available()``
NAME_FLAG = '''import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()
model = nn.Linear(4, 2)
x = torch.randn(3, 4)
if use_cuda:
    x = x.cuda()


def run():
    return model(x)


run()
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def test_a_model_never_moved_meets_data_moved_under_the_flag() -> None:
    assert _lines(GLOBAL_DATA) == [18]


def test_a_batch_moved_in_a_one_line_flag_test_meets_the_unmoved_model() -> None:
    assert _lines(LOOP_BATCH) == [17]


def test_a_flag_bound_once_from_is_available() -> None:
    assert _lines(BOUND_FLAG) == [17]


def test_a_name_bound_from_is_available() -> None:
    assert _lines(NAME_FLAG) == [12]


@pytest.mark.parametrize("source", [
    # everything moved under the flag
    GLOBAL_DATA.replace("    train_x = train_x.cuda()\n", "    train_x = train_x.cuda()\n    model.cuda()\n"),
    LOOP_BATCH.replace("model = nn.Linear(4, 2)\n", "model = nn.Linear(4, 2)\nif args.cuda:\n    model.cuda()\n"),
    BOUND_FLAG.replace("    x = x.cuda()\n", "    x = x.cuda()\n    model = model.cuda()\n"),
    NAME_FLAG.replace("    x = x.cuda()\n", "    x = x.cuda()\n    model.cuda()\n"),
])
def test_everything_moved_under_the_flag_is_quiet(source: str) -> None:
    assert _lines(source) == []


def test_a_flag_rebound_after_the_move_leaves_the_input_moved() -> None:
    # the move ran where the flag was true when the ``if`` ran: rebinding the flag later
    # does not bring the input back, and no path moves the model
    rebound = BOUND_FLAG.replace("\n\ndef run", "args.cuda = False\n\n\ndef run")
    assert _lines(rebound) == [18]
    name = NAME_FLAG.replace("\n\ndef run", "use_cuda = False\n\n\ndef run")
    assert _lines(name) == [13]


def test_a_flag_a_function_rebinds_after_the_move_leaves_the_input_moved() -> None:
    source = NAME_FLAG + "\n\ndef off():\n    global use_cuda\n    use_cuda = False\n"
    assert _lines(source) == [12]


def test_the_use_in_the_flag_false_arm_is_quiet() -> None:
    source = NAME_FLAG.replace("    return model(x)\n", "    if not use_cuda:\n        return model(x)\n")
    assert _lines(source) == []


def test_a_move_that_is_not_under_a_flag_is_quiet() -> None:
    source = NAME_FLAG.replace("if use_cuda:\n", "if x.sum() > 0:\n")
    assert _lines(source) == []


def test_moves_under_different_flags_are_quiet() -> None:
    mixed = NAME_FLAG.replace("\n\ndef run", "if x.sum() > 0:\n    x = x.cuda()\n\n\ndef run")
    assert _lines(mixed) == []


def test_model_and_input_under_different_flags_are_quiet() -> None:
    source = NAME_FLAG.replace(
        "\n\ndef run", "fast = torch.backends.cudnn.is_available()\nif fast:\n    model.cuda()\n\n\ndef run")
    assert _lines(source) == []
