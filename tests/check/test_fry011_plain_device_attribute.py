"""FRY011 and a tensor made at a plain device attribute of ``self`` (``self.device =
device`` from the constructor): ``model.to(...)`` moves neither that attribute nor what is
made there, so such a tensor does not move with the model.  An attribute the constructor
put on a device meets it where both were put; a property that reads the parameters'
device still names the model's device."""

from __future__ import annotations

from torchferry.check.engine import check_source

PLAIN = """
import torch
import torch.nn as nn


class F(nn.Module):
    def __init__(self, device=None):
        super().__init__()
        self.device = device
        self.w = nn.Parameter(torch.ones(3))
        self.env = torch.arange(0, 3, 1, device=device)

    def forward(self, x):
        a = torch.zeros(3, device=self.device)
        return torch.einsum("p, p -> p", self.env, a)
"""

WITH_PARAMETER = PLAIN.replace("self.env, a)", "self.env, self.w * a)")


def _codes(source: str) -> list[str]:
    return [f.code for f in check_source(source, "t.py", select=["FRY011"])]


def test_quiet_at_a_plain_device_attribute() -> None:
    assert _codes(PLAIN) == []


def test_reported_with_the_moved_parameter() -> None:
    assert _codes(WITH_PARAMETER) == ["FRY011"]
