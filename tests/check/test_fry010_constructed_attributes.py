"""FRY010 in a method of a plain class (here a subclass of ``torch.distributions.Distribution``,
whose ``__init__`` keeps only its own shapes) that reads an attribute ``__init__`` keeps from
a constructor's parameter (``self.scale = scale``): every construction of the run says
where it is (``Vmf(loc, torch.ones(4, 1, device=device))``), so a factory on the CPU
meeting it is reported.  Quiet when a construction gives a CPU tensor, when the class is
named other than in a construction (handed to a function that may build it), or when no
construction of the run is known."""

from __future__ import annotations

from collections.abc import Callable

SRC = """\
import torch


class Vmf(torch.distributions.Distribution):
    def __init__(self, loc, scale, validate_args=None):
        self.loc = loc
        self.scale = scale
        super(Vmf, self).__init__(self.loc.size(), validate_args=validate_args)

    def bound(self):
        return torch.max(torch.Tensor([0.0]), self.scale - 10)


def build(n):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    q = Vmf(torch.randn(n, 5, device=device), torch.ones(n, 1{where}))
    return q.bound()
{more}"""


def _lines(finding_lines: Callable[..., list[int]], where: str = ", device=device", more: str = "") -> list[int]:
    return finding_lines({"m.py": SRC.format(where=where, more=more)}, "FRY010")


def test_a_cpu_factory_meets_an_attribute_every_construction_puts_on_the_device(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _lines(finding_lines) == [11]


def test_quiet_when_a_construction_gives_a_cpu_tensor(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _lines(finding_lines, where="") == []
    more = "\n\nq = Vmf(torch.zeros(3, 5), torch.ones(3, 1))\n"
    assert _lines(finding_lines, where="", more=more) == []
    assert _lines(finding_lines, more=more) == [11]  # (one construction puts it on the device)


def test_quiet_when_the_class_is_handed_on_or_never_built(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _lines(finding_lines, more="\n\nfactories = [Vmf]\n") == []
    assert finding_lines({"m.py": SRC.split("def build")[0]}, "FRY010") == []
