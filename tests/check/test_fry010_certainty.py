"""How sure FRY010 is that the tensor a factory's result meets is on the accelerator:
``Certainty.SURE`` where the run's own code puts it there (``x.to(device)``, a model after
``model.to(device)``, what a call of the run gives a parameter), ``Certainty.MAY`` where only
a hint says so (an input of a module's ``forward`` no call of the run places, a parameter
annotated as a tensor).  The message says which; ``REPORTED`` chooses which are reported, by
how the run selects the rule."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.api import Selected
from torchferry.check.engine import check_source
from torchferry.check.rules import fry010_factory_without_device as fry010
from torchferry.check.rules.fry010_factory_without_device import Certainty

SURE = "the code puts on the accelerator when there is one"
MAY = "may be on an accelerator"
LAYER = "is a layer of the module whose weights go wherever the module is moved"

TAGGER = '''
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1])
        x = self.embed(tokens) + self.embed(positions)
        h0 = torch.zeros(1, tokens.size(0), x.size(-1))
        return self.rnn(x, h0)
'''

RUN = TAGGER + '''

def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Tagger(10, 4){move}
    tokens = torch.randint(0, 10, (2, 5)){move}
    return model(tokens)
'''

HELPER = '''
import torch


def gather_rows(table, idx):
    return table[idx]


def run(n, device):
    idx = torch.randint(0, n, (8,)){move}
    table = torch.zeros(n, 3)
    return gather_rows(table, idx)
'''

ANNOTATED = '''
import torch
from torch import Tensor


def add_noise(x: Tensor) -> Tensor:
    return x + torch.randn(x.shape[0], 3)
'''

MOVED_HERE = '''
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def step(batch):
    x = batch.to(device)
    return x + torch.randn(x.shape[0], 3)
'''


def findings(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_source(textwrap.dedent(source), "t.py", select=["FRY010"])]


def levels(source: str) -> list[str]:
    return ["sure" if SURE in m else "may" if MAY in m else "layer" if LAYER in m else "?"
            for _, m in findings(source)]


@pytest.fixture
def sure_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(fry010.REPORTED, Selected.NAMED, Certainty.SURE)


def test_every_finding_is_reported_where_a_selector_names_the_rule() -> None:
    assert fry010.REPORTED == {Selected.NAMED: Certainty.MAY, Selected.BY_DEFAULT: Certainty.OWN_TENSOR}
    assert levels(TAGGER) == ["layer", "layer"]  # (the inputs of its own layers)
    assert levels(ANNOTATED) == ["may"]


def test_a_model_the_run_moves_makes_its_forward_meetings_sure() -> None:
    assert levels(RUN.format(move=".to(device)")) == ["sure", "sure"]


def test_a_model_the_run_never_moves_leaves_them_unsure() -> None:
    assert levels(RUN.format(move="")) == ["may", "may"]


def test_a_callee_given_a_moved_index_is_sure() -> None:
    assert levels(HELPER.format(move=".to(device)")) == ["sure"]


def test_a_tensor_moved_by_the_function_is_sure() -> None:
    assert levels(MOVED_HERE) == ["sure"]


def test_sure_only_keeps_the_findings_the_run_establishes(sure_only: None) -> None:
    assert levels(RUN.format(move=".to(device)")) == ["sure", "sure"]
    assert levels(HELPER.format(move=".to(device)")) == ["sure"]
    assert levels(MOVED_HERE) == ["sure"]


def test_sure_only_is_quiet_where_only_a_hint_places_the_partner(sure_only: None) -> None:
    assert findings(TAGGER) == []
    assert findings(ANNOTATED) == []
    assert findings(RUN.format(move="")) == []


def test_a_callee_given_an_index_on_the_cpu_is_no_meeting() -> None:
    assert findings(HELPER.format(move="")) == []


JOINED = '''
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(loader, model, steps):
    it = iter(loader)
    for _ in range(steps):
        try:
            x, y = next(it)
        except StopIteration:
            pass
        c = y.clone()
        z = torch.cat([c, torch.zeros(c.size(0), 2)], 1)
        y = y.to(device)
        model(x.to(device), z.to(device))
'''


def test_a_value_joined_with_the_last_rounds_move_is_unsure() -> None:
    # (the ``except`` keeps the last round's ``y.to(device)``; this round's ``y`` is on the CPU)
    assert levels(JOINED) == ["may"]


def test_a_value_joined_with_the_last_rounds_move_is_quiet_when_sure_only(sure_only: None) -> None:
    assert findings(JOINED) == []
