"""FRY014 where a function's parameter is a module only because every call of the run hands
it one (``step(g)``, ``step(generator=g)``, in this file or another): ``generator(z)`` is a
module call there, and a CPU input meets the module where its callers moved it.  Quiet when
a call hands something else, no call of the run is known, the module stays on the CPU, or
the function moves the input."""

from __future__ import annotations

from collections.abc import Callable

HEAD = """\
import torch
import torch.nn as nn

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(3, 3)

    def forward(self, x):
        return self.l(x)


def step(generator, n=3):
    z = torch.rand(n, 3){move}
    return generator(z)


"""

CALLS = """\
def train():
    g = G(){place}
    step(g)
    step(generator=g, n=4)
"""


def _src(move: str = "", place: str = ".to(DEVICE)", calls: str = CALLS) -> str:
    return HEAD.format(move=move) + calls.format(place=place)


def test_a_cpu_input_meets_the_module_every_call_hands_on_the_device(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _src()}, "FRY014") == [18]


def test_the_module_handed_from_another_file(
    finding_lines: Callable[..., list[int]],
) -> None:
    other = "import m\n\n\ndef train():\n    m.step(m.G().to(m.DEVICE))\n"
    assert finding_lines({"m.py": _src(calls=""), "run.py": other}, "FRY014") == [18]


def test_quiet_when_the_module_stays_on_the_cpu_or_the_input_is_moved(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _src(place="")}, "FRY014") == []
    assert finding_lines({"m.py": _src(move=".to(DEVICE)")}, "FRY014") == []


def test_quiet_when_a_call_hands_something_else(
    finding_lines: Callable[..., list[int]],
) -> None:
    calls = CALLS + "    step(torch.tanh)\n"
    assert finding_lines({"m.py": _src(calls=calls)}, "FRY014") == []


def test_quiet_when_no_call_of_the_run_is_known(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _src(calls="")}, "FRY014") == []
    other = "from m import step\n\n\ndef train(g):\n    step(g)\n"
    assert finding_lines({"m.py": _src(calls=""), "run.py": other}, "FRY014") == []
