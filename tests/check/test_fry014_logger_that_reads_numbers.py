"""FRY014 with a model handed to an instance of a plain class of the run that is called
(``log(model, loss)`` of ``log = Log()``): its ``__call__``, which reads only numbers and
never the model, puts the model nowhere, so a model built on the CPU is still there when it
meets an input moved to the device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


LOG = """\
class Log:
    def __init__(self):
        self.total = 0.0
        self.steps = 0

    def __call__(self, model, loss):
{body}

    def _step(self, model, loss):
        self.total += loss.sum().item()
        self.steps += 1
"""

MAIN = """\
import torch
from torch import nn
from log import Log

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
log = Log()
model = nn.Linear(10, 2)
for step in range(3):
    x = torch.ones(4, 10).to(device)
    loss = model(x).sum()
    log(model, loss.cpu())
"""

READS_NUMBERS = "        self._step(model, loss)"


def _found(finding_places: Places, body: str) -> list[tuple[str, int]]:
    return finding_places({"main.py": MAIN, "log.py": LOG.format(body=body)}, "FRY014")


def test_a_model_handed_to_a_logger_that_reads_numbers_stays_on_the_cpu(finding_places: Places) -> None:
    assert _found(finding_places, READS_NUMBERS) == [("main.py", 10)]


@pytest.mark.parametrize(
    "body",
    [
        "        self.model = model",  # kept, to be moved by another method
        "        model.cuda()",  # moved
        "        move_it(model)",  # handed to a call the analysis cannot see into
    ],
)
def test_a_called_instance_that_may_move_the_model_keeps_it_quiet(finding_places: Places, body: str) -> None:
    assert _found(finding_places, body) == []
