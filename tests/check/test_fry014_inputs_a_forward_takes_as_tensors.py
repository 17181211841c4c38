"""FRY014 takes an input of unknown kind moved to the device (``x = batch.text.to(device)``
of an iterator's batch) as a tensor where the model, a module class of the run, hands its
input first to a layer of ``torch.nn`` that takes tensors only (``x = self.embed(x)``): the
model never moved then meets it.  It stays quiet where that layer is recurrent (a packed
sequence is no tensor), where the first use is under a test, where the layer is bound
more than once, and where the model is moved."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
from torch import nn

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(model, batches):
    for batch in batches:
        x = batch.text.to(DEVICE)
        logit = model(x)
"""

EMBEDDING_FIRST = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        x = self.embed(x)
        out, _ = self.gru(x)
        return out
"""

REPORTED = {
    "embedding_first": EMBEDDING_FIRST,
    "linear_in_return": """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)
""",
}

QUIET = {
    "recurrent_first": """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        out, _ = self.gru(x)
        return out
""",
    "first_use_under_a_test": """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)

    def forward(self, x):
        if isinstance(x, tuple):
            x = x[0]
        return self.embed(x)
""",
    "layer_bound_twice": """
class Net(nn.Module):
    def __init__(self, packed):
        super().__init__()
        self.first = nn.Embedding(100, 8)
        if packed:
            self.first = nn.GRU(8, 8)

    def forward(self, x):
        return self.first(x)
""",
}

BUILT = """
model = Net({args})
train(model, [])
"""


def _lines(body: str, moved: bool = False, args: str = "") -> list[int]:
    tail = (
        BUILT.format(args=args).replace("Net(" + args + ")", "Net(" + args + ").to(DEVICE)")
        if moved
        else BUILT.format(args=args)
    )
    return [f.line for f in check_source(HEAD + body + tail, "t.py", select=["FRY014"])]


def _call_line() -> int:
    return next(i for i, ln in enumerate(HEAD.splitlines(), 1) if "logit = model(x)" in ln)


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_a_tensor_input_meets_the_model_left_behind(name: str) -> None:
    assert _lines(REPORTED[name]) == [_call_line()]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_an_input_of_unknown_kind_stays_unknown(name: str) -> None:
    assert _lines(QUIET[name], args="True" if "packed" in QUIET[name] else "") == []


def test_the_moved_model_is_quiet() -> None:
    assert _lines(EMBEDDING_FIRST, moved=True) == []
