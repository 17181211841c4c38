"""FRY010 where a factory's result is an argument of a module whose code the analysis cannot
read (a model another file builds and hands to a training function): the arguments are taken
to meet each other, never surely (its ``forward`` may use the CPU tensor only as an index into
a tensor on the device, which PyTorch allows), so the default set does not report it; a
selector naming the rule does.  The meetings the analysis reads stay sure: the arguments of a
``torch.nn`` layer or loss, and of a class of the run that the file builds."""

from __future__ import annotations

import textwrap

from torchferry.check.engine import check_source

SURE = "the code puts on the accelerator when there is one"

TRAIN = """
import torch


def run(model, feats, device):
    inds = torch.tensor([0, 2, 5]).long()
    node_feats = feats.to(device)
    return {call}
"""
OWN = """
import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, inds, feats):
        return self.fc(feats) * inds


def run(feats, device):
    model = Mixer().to(device)
    inds = torch.tensor([0, 2, 5]).long()
    return model(inds, feats.to(device))
"""


def _found(source: str, select: list[str] | None) -> list[str]:
    return [f.message for f in check_source(textwrap.dedent(source), "t.py", select=select)
            if f.code == "FRY010"]


def test_the_arguments_of_an_unread_model_are_reported_only_when_named() -> None:
    source = TRAIN.format(call="model(inds, node_feats)")
    assert _found(source, None) == []
    named = _found(source, ["FRY010"])
    assert len(named) == 1 and SURE not in named[0]


def test_a_torch_layer_meets_its_arguments_surely() -> None:
    source = TRAIN.format(call="torch.nn.functional.mse_loss(inds.float(), node_feats)")
    assert len(_found(source, None)) == 1
    source = TRAIN.format(call="torch.nn.MSELoss()(inds.float(), node_feats)")
    assert len(_found(source, None)) == 1


def test_a_model_of_the_file_meets_its_arguments_surely() -> None:
    found = _found(OWN, None)
    assert len(found) == 1 and SURE in found[0]
