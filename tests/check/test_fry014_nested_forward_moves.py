"""FRY014 stays quiet where calling the model moves its input where the model is through
the chain of its ``forward``: the model hands the input, as it came in, to a submodule of a
class of the run whose own ``forward`` moves it (``self.encoder(batch)`` of an encoder that
runs ``a, b = batch`` then ``a.cuda()``), a submodule deep, and hands nothing of it unmoved
to weights (a later argument of a submodule counts only where that submodule's ``forward``
hands it to weights: a readout that only counts with a list of sizes).  The model may be a
parameter every call of the run passes such a model.  Still reported: a chain in which no
``forward`` moves the input, a model that runs a layer on the input before handing it on,
and a later argument a submodule gives its own weights."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import numpy as np
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, batch):
        a, b, scope = batch
        if next(self.parameters()).is_cuda:
            a, b = a.cuda(), b.cuda()
        return self.fc(a) + self.fc(b)


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, batch):
        a, b, scope = batch
        return self.fc(a) + self.fc(b)


class Readout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, emb, scope):
        rows = [emb[i:i + n].sum(0) for i, n in scope]
        return self.fc(torch.stack(rows))


class Weighing(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.gate = nn.Linear(4, 2)

    def forward(self, emb, extra):
        return self.fc(emb) + self.gate(extra)
'''


def _model(enc: str = "Encoder", readout: str = "Readout", first: str = "") -> str:
    return f'''

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = {enc}()
        self.readout = {readout}()
        self.fc = nn.Linear(4, 4)

    def forward(self, batch):
        a, b, scope = batch{first}
        out = self.enc(batch)
        return self.readout(out, scope)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Model()

    def forward(self, batch):
        return self.model(batch)
'''


LOADER = '''

def predict(model, loader):
    for item in loader:
        batch, target = item
        target = target.cuda()
        preds = model(batch)
        print(preds, target)


def main(loader):
    net = {model}().cuda()
    predict(net, loader)
'''

FIRST = "\n        a = self.fc(a)"

QUIET = {
    "batch_item_a_submodule_deep": _model() + LOADER.format(model="Model"),
    "batch_item_two_submodules_deep": _model() + LOADER.format(model="Outer"),
}

FLAGGED = {
    "no_forward_of_the_chain_moves": (_model("Plain") + LOADER.format(model="Model"), "preds = model(batch)"),
    "deep_chain_none_moves": (_model("Plain") + LOADER.format(model="Outer"), "preds = model(batch)"),
    "a_layer_runs_on_it_first": (_model(first=FIRST) + LOADER.format(model="Model"), "preds = model(batch)"),
    "a_later_argument_meets_weights": (_model(readout="Weighing") + LOADER.format(model="Model"),
                                       "preds = model(batch)"),
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_an_input_a_nested_forward_moves_is_no_mismatch(name: str) -> None:
    assert _lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_an_input_no_forward_of_the_chain_moves_is_flagged(name: str) -> None:
    body, text = FLAGGED[name]
    line = next(i for i, ln in enumerate((HEAD + body).splitlines(), 1) if text in ln)
    assert _lines(body) == [line]
