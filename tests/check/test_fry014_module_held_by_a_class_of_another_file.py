"""FRY014 through a method of a plain class of another file of the run that runs a module
the class built in ``__init__``: ``algo.update(x)`` of ``from algo import Algo``, whose
``update`` hands ``x`` to ``self.encoder`` (``Enc().to(device)`` in ``__init__``), is
reported at the call when ``x`` was made on the CPU, as it is when the class is in the
caller's file; a moved input, or a module the class leaves on the CPU, says nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

ALGO = """\
import torch.nn as nn


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


class Algo:
    def __init__(self, device):
        self.encoder = {encoder}

    def update(self, src):
        return self.encoder(src)
"""

MAIN = """\
import torch
from algo import Algo

device = "cuda" if torch.cuda.is_available() else "cpu"
algo = Algo(device=device)
x = torch.tensor([[1, 2]]).long(){move}
algo.update(x)
"""


def _found(finding_places: Places, encoder: str, move: str = "") -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(move=move), "algo.py": ALGO.format(encoder=encoder)}
    return finding_places(files, "FRY014")


def test_a_cpu_input_handed_to_a_moved_module_of_another_files_class(finding_places: Places) -> None:
    assert _found(finding_places, "Enc().to(device)") == [("main.py", 7)]


def test_the_same_class_in_the_callers_file_is_reported_alike(finding_places: Places) -> None:
    one = ALGO.format(encoder="Enc().to(device)") + "\n\n" + MAIN.format(move="").replace(
        "from algo import Algo\n", "")
    assert finding_places({"main.py": one}, "FRY014") == [("main.py", 26)]


@pytest.mark.parametrize(
    ("encoder", "move"),
    [
        ("Enc().to(device)", ".to(device)"),  # the input moved too
        ("Enc()", ""),  # the module left on the CPU
    ],
)
def test_a_moved_input_or_a_module_not_known_on_the_device_is_quiet(
    finding_places: Places, encoder: str, move: str
) -> None:
    assert _found(finding_places, encoder, move) == []
