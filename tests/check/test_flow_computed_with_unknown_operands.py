"""A torch function or arithmetic with one tensor operand that may be on the device computes
there whatever its operands of unknown place (they are there too, or 0-dimensional, or the
call fails): a loss of a library's output and a moved batch item is read on every step."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
import torch.nn.functional as F
import renderlib


class Trainer:
    def __init__(self):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = renderlib.Model()

    def train(self, loader):
        for data in loader:
            pixels = data["image"]{move}
            colors = self.model.render(pixels)
            loss = {loss}
            loss.backward()
            print(f"loss={{loss.item():.3f}}")
"""


def lines(move: str, loss: str) -> list[int]:
    src = textwrap.dedent(SOURCE.format(move=move, loss=loss))
    return [f.line for f in check_source(src, "t.py", select=["FRY007"])]


@pytest.mark.parametrize(
    "loss",
    [
        "F.l1_loss(colors, pixels)",
        "F.mse_loss(colors, pixels) * 2",
        "torch.lerp(F.l1_loss(colors, pixels), colors.mean(), 0.2)",
    ],
)
def test_a_loss_computed_with_a_moved_tensor_is_read_on_the_device(loss: str) -> None:
    assert lines(".to(self.device)", loss) == [18]


@pytest.mark.parametrize("loss", ["F.l1_loss(colors, pixels)", "colors.mean()"])
def test_a_loss_of_no_tensor_known_on_the_device_is_not_reported(loss: str) -> None:
    assert lines("", loss) == []
