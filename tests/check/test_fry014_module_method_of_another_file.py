"""FRY014 through a method other than ``forward`` of a module class of another file of the
run: ``self.decoder.step(tgt, h)`` in a plain class's method, the decoder built by a
constructor of the caller's file from ``networks.py``, hands ``tgt`` to the decoder's own
embedding, so a CPU ``tgt`` given to that method meets weights on the device.  What the
method does is read from its body: a method that only converts its argument says nothing.

Where the receiver may be an instance of either of two classes (``A().to(d) if c else
B().to(d)``), the call is followed only where each class's method hands the argument to
weights, or where Python would refuse the call for the other class (a different number
of parameters: the program reaches the call only with an instance it binds)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

NETWORKS = """\
import torch.nn as nn


class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def step(self, idx, h):
        {body}


class Att(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def step(self, idx, h{extra}):
        return self.emb(idx.unsqueeze(1)), h
"""

MAIN = """\
import torch
from networks import Dec, Att


class Algo:
    def __init__(self, device, attention):
        self.decoder = {decoder}

    def update(self, tgt):
        cur = tgt[:, 0]
        for t in range(tgt.shape[1] - 1):
            {call}
            cur = tgt[:, t + 1]


device = "cuda" if torch.cuda.is_available() else "cpu"
algo = Algo(device, False)
y = torch.zeros(2, 3, dtype=torch.long){move}
algo.update(y)
"""

FEEDS = "return self.emb(idx.unsqueeze(1)), h"
CONVERTS = "return idx.tolist(), h"
ONE_CALL = "out, h = self.decoder.step(cur, None)"
BRANCHES = """if isinstance(self.decoder, Att):
                out, h = self.decoder.step(cur, None, cur)
            else:
                out, h = self.decoder.step(cur, None)"""


def _found(finding_places: Places, decoder: str, body: str = FEEDS, extra: str = "",
           call: str = ONE_CALL, move: str = "") -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(decoder=decoder, call=call, move=move),
             "networks.py": NETWORKS.format(body=body, extra=extra)}
    return finding_places(files, "FRY014")


def test_a_cpu_input_handed_to_a_method_that_feeds_it_to_the_modules_weights(finding_places: Places) -> None:
    assert _found(finding_places, "Dec().to(device)") == [("main.py", 19)]


@pytest.mark.parametrize(
    ("decoder", "body", "move"),
    [
        ("Dec().to(device)", FEEDS, ".to(device)"),  # the input moved too
        ("Dec().to(device)", CONVERTS, ""),  # the method only converts it
        ("Dec()", FEEDS, ""),  # the module left on the CPU
    ],
)
def test_a_moved_input_a_converting_method_or_an_unmoved_module_is_quiet(
    finding_places: Places, decoder: str, body: str, move: str
) -> None:
    assert _found(finding_places, decoder, body=body, move=move) == []


def test_either_of_two_classes_whose_methods_both_feed_it(finding_places: Places) -> None:
    assert _found(finding_places, "Att().to(device) if attention else Dec().to(device)") == [("main.py", 19)]


@pytest.mark.parametrize("decoder", ["Att().to(device) if attention else Dec().to(device)",
                                     "Dec().to(device) if attention else Att().to(device)"])
def test_either_of_two_classes_one_of_which_only_converts_it_is_quiet(finding_places: Places, decoder: str) -> None:
    assert _found(finding_places, decoder, body=CONVERTS) == []


def test_branches_whose_calls_bind_one_class_each(finding_places: Places) -> None:
    decoder = "Att().to(device) if attention else Dec().to(device)"
    assert _found(finding_places, decoder, extra=", enc", call=BRANCHES) == [("main.py", 22)]


def test_the_same_choice_in_one_file_with_a_converting_method_is_quiet(finding_places: Places) -> None:
    decoder = "Dec().to(device) if attention else Att().to(device)"
    one = NETWORKS.format(body=CONVERTS, extra="") + "\n\n" + MAIN.format(
        decoder=decoder, call=ONE_CALL, move="").replace("from networks import Dec, Att\n", "")
    assert finding_places({"main.py": one}, "FRY014") == []
