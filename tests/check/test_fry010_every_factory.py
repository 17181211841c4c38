"""FRY010 and a met value that holds several factories' results: ``gamma ** (n - m)`` of
``n`` and ``m``, both made by ``torch.arange`` without a device, is at fault through each of
them (each takes its own ``device=``), so each factory is reported, in the function, in a
helper whose result the module multiplies with its scores, and where it is handed to a
function of the run; a factory whose result is moved before the meeting is not."""

from __future__ import annotations

from collections.abc import Callable

HELPER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Retention(nn.Module):\n"
    "    def __init__(self, d):\n"
    "        super().__init__()\n"
    "        self.q = nn.Linear(d, d)\n"
    "        self.gamma = 0.9\n"
    "\n"
    "    def forward(self, x):\n"
    "        scores = self.q(x) @ x.transpose(-1, -2)\n"
    "        return scores * self._decay(x.shape[1])\n"
    "\n"
    "    def _decay(self, length):\n"
    "        n = torch.arange(length).unsqueeze(1)\n"
    "        m = torch.arange(length).unsqueeze(0){MOVE}\n"
    "        return (self.gamma ** (n - m)) * (n >= m).float()\n"
)


def test_each_factory_of_the_met_value_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"net.py": HELPER.replace("{MOVE}", "")}, "FRY010") == [16, 17]


def test_a_factory_moved_before_the_meeting_is_not(
    finding_lines: Callable[..., list[int]],
) -> None:
    moved = HELPER.replace("{MOVE}", ".to(self.q.weight.device)")
    assert finding_lines({"net.py": moved}, "FRY010") == [16]


def test_both_moved_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    moved = HELPER.replace("{MOVE}", ".to(self.q.weight.device)").replace(
        "unsqueeze(1)\n", "unsqueeze(1).to(self.q.weight.device)\n"
    )
    assert finding_lines({"net.py": moved}, "FRY010") == []


def test_each_factory_handed_to_a_function_of_the_run_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = (
        "import torch\n"
        "\n"
        "\n"
        "def masked(scores, mask):\n"
        "    return scores * mask\n"
        "\n"
        "\n"
        "def run(x, device):\n"
        "    x = x.to(device)\n"
        "    a = torch.ones(4, 4)\n"
        "    b = torch.zeros(4, 4)\n"
        "    return masked(x, a + b)\n"
    )
    assert finding_lines({"run.py": code}, "FRY010") == [10, 11]
