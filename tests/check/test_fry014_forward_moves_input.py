"""FRY014 stays quiet where the model's ``forward``, of a module class of the run, moves
its input itself before the input meets the weights (``x = x.to(self.device)``): a CPU
tensor handed to it is no mismatch -- called as ``net(x)`` or ``net.forward(x)``, in the
scope that moves the model or through the class that keeps it.  A forward that hands the
input to a layer before moving it, moves it to the CPU, moves another parameter, or one of
two classes the model may be that does not move it, still leaves the finding.  A move in
a loop (``x = layer(x.to(self.device))`` each round) counts: the input as it came in is
moved there on the first round."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import numpy as np
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
'''


def _net(forward: str, name: str = "Net") -> str:
    return f'''

class {name}(nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.fc = nn.Linear(4, 2).to(self.device)

    def forward(self, x, y=None):
{forward}
'''


MOVES = "        x = x.to(self.device) / 255.0\n        return self.fc(x).cpu()\n"
CUDA = "        x = x.cuda()\n        return self.fc(x)\n"
SOME_PATH = "        if self.training:\n            x = x.cuda()\n        return self.fc(x)\n"
LATE = "        h = self.fc(x)\n        return h + x.to(self.device).sum()\n"
TO_CPU = '        x = x.to("cpu")\n        return self.fc(x)\n'
OTHER = "        y = y.to(self.device)\n        return self.fc(x) + y\n"
EACH_ROUND = "        for _ in range(2):\n            x = self.fc(x.to(self.device)).repeat(1, 2)\n        return x\n"

CALL = '''

def main(obs):
    net = Net().to(device)
    s = torch.tensor(obs, dtype=torch.float32)
    return net(s)
'''

CALL_FORWARD = '''

def main(obs):
    net = Net().to(device)
    s = torch.from_numpy(obs)
    return net.forward(s)
'''

KEPT = '''

class Agent:
    def __init__(self, big):
        if big:
            self.q = Net().to(device)
        else:
            self.q = Other().to(device)

    def learn(self, batch):
        s = torch.tensor(batch[0])
        return self.q.forward(s)
'''

QUIET = {
    "moved_in_forward": _net(MOVES) + CALL,
    "moved_in_forward_called_by_name": _net(MOVES) + CALL_FORWARD,
    "cuda_in_forward": _net(CUDA) + CALL,
    "moved_on_some_path": _net(SOME_PATH) + CALL,
    "moved_in_each_round_of_a_loop": _net(EACH_ROUND) + CALL,
    "kept_by_a_class_either_moves": _net(MOVES) + _net(CUDA, "Other") + KEPT,
}

FLAGGED = {
    "plain_forward": CALL.replace("Net()", "Plain()"),
    "moved_after_a_layer": _net(LATE) + CALL,
    "moved_to_the_cpu": _net(TO_CPU) + CALL,
    "another_parameter_moved": _net(OTHER) + CALL,
    "kept_by_a_class_one_does_not_move": _net(MOVES) + _net(LATE, "Other") + KEPT,
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_a_forward_that_moves_its_input_is_no_mismatch(name: str) -> None:
    assert _lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_an_input_the_forward_does_not_move_is_flagged(name: str) -> None:
    source = HEAD + FLAGGED[name]
    call = next(i for i, ln in enumerate(source.splitlines(), 1)
                if "return net(s)" in ln or "return self.q.forward(s)" in ln)
    assert _lines(FLAGGED[name]) == [call]


def test_a_dtype_cast_in_forward_is_no_move() -> None:
    body = _net("        x = x.to(torch.float32)\n        return self.fc(x)\n") + CALL
    source = HEAD + body
    call = next(i for i, ln in enumerate(source.splitlines(), 1) if "return net(s)" in ln)
    assert _lines(body) == [call]
