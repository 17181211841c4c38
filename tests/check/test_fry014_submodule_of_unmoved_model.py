"""FRY014 on a submodule called through the model that holds it (``model.decoder(z)``):
it lives where its owner does, so a model never moved, called through its submodule on
an input moved to the device, is flagged; where the owner, or the submodule itself, may
be moved, it is not."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

VAE = """
import torch
import torch.nn as nn
from lib import run

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, z):
        return self.fc(z)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder()

    def forward(self, z):
        return self.decoder(z)


model = VAE()
model.eval()
z = torch.randn(1, 2).to(device)
sample = model.decoder(z)
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def test_submodule_of_a_model_never_moved_is_flagged() -> None:
    assert _lines(VAE) == [30]


@pytest.mark.parametrize("moved", [
    "model.to(device)",
    "model = model.cuda()",
    "model.decoder.to(device)",
    "model.decoder = model.decoder.to(device)",
    "run(model)",
])
def test_submodule_of_a_model_that_may_move_is_quiet(moved: str) -> None:
    src = VAE.replace("model.eval()\n", f"model.eval()\n{moved}\n")
    assert moved in src
    assert _lines(src) == []
