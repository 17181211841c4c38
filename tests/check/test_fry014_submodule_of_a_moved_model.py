"""A module class held as a submodule (``self.encoder = Encoder(...)`` in the ``__init__``
of a module class) goes where its owner goes: when the run puts an instance of the owner
on the device, ``self`` of the submodule's methods may be there too, so its layers fed a
tensor made on the CPU (``self.position_embedding(torch.arange(n))``) fail there."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SRC = '''\
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(10, 4)
        self.position = nn.Embedding(10, 4)

    def forward(self, x):
        positions = {positions}
        return self.word(x) + self.position(positions)


class {owner}:
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, x):
        return self.encoder(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = {build}
out = model.forward(torch.zeros(2, 5, dtype=torch.long, device=device))
'''

CPU_MADE = "torch.arange(0, x.shape[1]).expand(x.shape[0], x.shape[1])"


def _found(positions: str = CPU_MADE, owner: str = "Model(nn.Module)", build: str = "Model().to(device)") -> list[int]:
    src = SRC.format(positions=positions, owner=owner, build=build)
    return [f.line for f in check_source(src, "t.py", select=["FRY014"])]


def test_a_cpu_tensor_fed_to_a_layer_of_a_submodule_of_a_moved_model_is_reported() -> None:
    assert _found() == [13]


@pytest.mark.parametrize(("positions", "owner", "build"), [
    ("torch.arange(0, x.shape[1], device=x.device).expand(x.shape[0], x.shape[1])",
     "Model(nn.Module)", "Model().to(device)"),  # made where the input is
    (CPU_MADE, "Model(nn.Module)", "Model()"),  # the owner never moved
    (CPU_MADE, "Model(nn.Module)", 'Model().to("cpu")'),  # moved to the CPU
    (CPU_MADE, "Model", "Model()"),  # a plain class holds it
])
def test_a_submodule_whose_layers_stay_with_their_input_stays_quiet(positions: str, owner: str, build: str) -> None:
    # (an owner left on the CPU is reported where it is given the input on the device)
    assert 13 not in _found(positions, owner, build)
