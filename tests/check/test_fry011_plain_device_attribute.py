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


PROPERTY = PLAIN.replace("        self.device = device\n", "").replace(
    "    def forward(self, x):",
    "    @property\n    def device(self):\n        return next(self.parameters()).device\n\n    def forward(self, x):",
)

LIKE = PLAIN.replace(
    'return torch.einsum("p, p -> p", self.env, a)',
    'h = torch.einsum("p, p -> p", self.env, a)\n'
    "        return torch.where(h != 0, h, 1e-9 * torch.ones_like(h))",
)


def test_reported_at_a_property_reading_the_parameters() -> None:
    assert _codes(PROPERTY) == ["FRY011"]


def test_quiet_with_a_like_of_the_meeting() -> None:
    assert _codes(LIKE) == []


def test_a_cpu_attribute_still_meets_a_moved_input() -> None:
    cpu = PLAIN.replace("torch.arange(0, 3, 1, device=device)", "torch.arange(0, 3, 1)").replace(
        "self.env, a)", "self.env, x)"
    )
    assert _codes(cpu) == ["FRY011"]
