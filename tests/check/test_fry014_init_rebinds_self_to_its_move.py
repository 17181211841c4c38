"""FRY014 and a model whose constructor ends with ``self = self.to(device)`` (or
``self = self.cuda()``): ``Module.to`` moves the module in place and returns it, so the
instance is on the device when the constructor returns.  An input moved to the device
meets it there (quiet); an input left on the CPU does not (reported).  Under a branch that
not every construction takes, the instance may be on either side: quiet both ways."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SOURCE = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, device, move=True):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        {move}

    def forward(self, x):
        return self.fc(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(4, 3){to}
model = Net(device, len(x) > 3)
y = model(x)
"""

REBINDS = ["self = self.to(device)", "self = self.cuda()", "self = self.to(device).float()"]
BRANCH = "if move:\n            self = self.to(device)"


def _lines(finding_lines: Callable[..., list[int]], move: str, to: str) -> list[int]:
    return finding_lines({"m.py": SOURCE.format(move=move, to=to)}, "FRY014")


@pytest.mark.parametrize("move", REBINDS)
def test_a_moved_input_of_a_model_that_rebinds_self_to_its_move_is_quiet(
    finding_lines: Callable[..., list[int]], move: str,
) -> None:
    assert _lines(finding_lines, move, ".to(device)") == []


@pytest.mark.parametrize("move", REBINDS)
def test_a_cpu_input_of_a_model_that_rebinds_self_to_its_move_is_reported(
    finding_lines: Callable[..., list[int]], move: str,
) -> None:
    assert _lines(finding_lines, move, "") == [18]


@pytest.mark.parametrize("to", [".to(device)", ""])
def test_a_rebinding_move_on_a_branch_is_quiet(finding_lines: Callable[..., list[int]], to: str) -> None:
    assert _lines(finding_lines, BRANCH, to) == []


def test_a_constructor_that_moves_nothing_is_reported_with_a_moved_input(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _lines(finding_lines, "pass", ".to(device)") == [18]
