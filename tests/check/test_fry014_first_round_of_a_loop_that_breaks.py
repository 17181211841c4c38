"""FRY014 on a module left on the CPU that a loop feeds, on its first round, a slice of a
tensor every caller moves to the device, in a ``while True`` loop that ends by ``break``
(greedy decoding: ``hidden = self.encoder(x)``, then ``self.decoder(current, hidden)``
until the end token).  The loop rebinds the decoder's input to what the decoder returns,
so only the first round is known to hand it the moved slice; a ``break`` of that loop
ends it, so the first round is the call's first run and fails on a GPU machine.  A
``continue`` before the call may skip the first round, and then nothing is said."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

SRC = """\
import torch
import torch.nn as nn


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, idx, h=None):
        return self.emb(idx), h


class Algo:
    def __init__(self, device):
        self.decoder = {decoder}
        self.encoder = Dec().to(device)

    def transduce(self, x):
        hidden = self.encoder(x)
        current = x[:1]
        steps = 0
        while True:
            steps += 1
            {skip}
            logits, _ = self.decoder(current, hidden)
            current = logits.sum(-1).long()
            if int(current) == 2:
                break


device = "cuda" if torch.cuda.is_available() else "cpu"
Algo(device).transduce(torch.zeros(3, dtype=torch.long).to(device))
"""


@pytest.mark.parametrize(
    ("decoder", "skip", "found"),
    [
        ("Dec()", "", [("main.py", 26)]),
        ("Dec().to(device)", "", []),  # the decoder moved too
        ("Dec()", "if steps == 1:\n                continue", []),  # round 1 may be skipped
    ],
)
def test_the_first_round_of_a_loop_that_ends_by_break(
    finding_places: Places, decoder: str, skip: str, found: list[tuple[str, int]]
) -> None:
    assert finding_places({"main.py": SRC.format(decoder=decoder, skip=skip)}, "FRY014") == found
