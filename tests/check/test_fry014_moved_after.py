"""FRY014 and a model moved to the device only after the call: ``out = self.forward(x)``
followed by ``self.to(device)`` in the same method runs the module where it was built, so
the CPU input meets CPU weights; the same move before the call is reported."""

from __future__ import annotations

from collections.abc import Callable

HEAD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 2)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
)


def test_a_module_run_before_its_own_move_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    body = (
        "    def test(self):\n"
        "        x = torch.rand(1, 4)\n"
        "        out = self.forward(x)\n"
        "        self.to(torch.device('cuda'))\n"
        "        return out\n"
    )
    assert finding_lines({"net.py": HEAD + body}, "FRY014") == []


def test_a_module_run_after_its_own_move_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    body = (
        "    def test(self):\n"
        "        x = torch.rand(1, 4)\n"
        "        self.to(torch.device('cuda'))\n"
        "        out = self.forward(x)\n"
        "        return out\n"
    )
    assert finding_lines({"net.py": HEAD + body}, "FRY014") == [HEAD.count("\n") + 4]

