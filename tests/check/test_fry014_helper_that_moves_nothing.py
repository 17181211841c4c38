"""FRY014 with a model handed to a function of another file of the run that provably puts
it nowhere: ``model.apply(fn)`` of a nested ``fn`` that only tests each submodule and sets
numbers on it (``m.momentum = 0``, ``m.backup = m.momentum``) keeps the model where it
was, so a model built on the CPU is still there when it meets an input moved to the
device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


HELPERS = """\
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm


def disable_stats(model):
    def _disable(module):
{body}

    model.apply(_disable)
"""

MAIN = """\
import torch
from torch import nn
from helpers import disable_stats

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(10, 10), nn.BatchNorm1d(10))
x = torch.ones(4, 10).to(device)
disable_stats(model)
out = model(x)
"""

SETS_NUMBERS = """\
        if isinstance(module, _BatchNorm) and hasattr(module, "momentum"):
            module.backup_momentum = module.momentum
            module.momentum = 0"""


def _found(finding_places: Places, body: str) -> list[tuple[str, int]]:
    return finding_places({"main.py": MAIN, "helpers.py": HELPERS.format(body=body)}, "FRY014")


def test_a_model_handed_to_a_helper_that_sets_numbers_stays_on_the_cpu(finding_places: Places) -> None:
    assert _found(finding_places, SETS_NUMBERS) == [("main.py", 9)]


@pytest.mark.parametrize(
    "body",
    [
        "        module.cuda()",  # moves each submodule
        "        if isinstance(module, nn.Linear):\n            module.weight = nn.Parameter(module.weight.cuda())",
        "        kept.append(module)",  # kept by something that may move it later
        "        module.momentum = torch_default()",  # a value of unknown place
    ],
)
def test_a_helper_that_may_put_the_model_elsewhere_keeps_it_quiet(finding_places: Places, body: str) -> None:
    assert _found(finding_places, body) == []
