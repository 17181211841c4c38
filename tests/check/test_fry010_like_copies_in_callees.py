"""FRY010 and a helper method that meets its parameter, the factory's CPU result, with a
tensor that may be on the device, and also makes a copy where the parameter is
(``torch.ones_like(layer_mask)``, ``layer_mask.new_ones(...)``): the copy is on the CPU
with it, so it says nothing of a move and does not silence the meeting.  A helper that
moves the parameter where the partner is (``layer_mask.to(attention_mask.device)``) is
quiet."""

from __future__ import annotations

from collections.abc import Callable

CODE = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "\n"
    "class M(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "\n"
    "    def make_layer_mask(self, attention_mask):\n"
    "        return (torch.eye(attention_mask.size(1)) < 1).unsqueeze(0).expand_as(attention_mask)\n"
    "\n"
    "    def combine(self, attention_mask, layer_mask):\n"
    "        {EXTRA}\n"
    "        combined = torch.cat([attention_mask, layer_mask], dim=-1)\n"
    "        return combined, other\n"
    "\n"
    "    def forward(self, x, attention_mask):\n"
    "        layer_mask = self.make_layer_mask(attention_mask)\n"
    "        return self.fc(x), self.combine(attention_mask, layer_mask)\n"
)


def test_a_like_copy_of_the_parameter_does_not_silence_it(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{EXTRA}", "other = torch.cat([attention_mask, torch.ones_like(layer_mask)], dim=-1)")
    assert finding_lines({"m.py": code}, "FRY010") == [11]


def test_a_new_copy_of_the_parameter_does_not_silence_it(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{EXTRA}", "other = layer_mask.new_ones(layer_mask.shape)")
    assert finding_lines({"m.py": code}, "FRY010") == [11]


def test_a_parameter_read_for_its_device_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{EXTRA}", "other = attention_mask.to(layer_mask.device)")
    assert finding_lines({"m.py": code}, "FRY010") == []
