"""FRY010 and a model of the run whose ``forward`` moves its input where the model is before
any layer sees it (``x = x.to(self.device)``, or ``b(x.to(self.device))`` for each block
of a ``ModuleList``): a tensor made on the CPU and given to it meets no weights on the
CPU, so neither FRY010 nor FRY014 claims the call fails.  A ``forward`` that hands the
input on unmoved is still reported by both."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SOURCE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, device):\n"
    "        super().__init__()\n"
    "        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])\n"
    "        self.device = device\n"
    "        self.to(self.device)\n"
    "\n"
    "    def forward(self, x):\n"
    "{body}"
    "        return x\n"
    "\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "net = Net(device)\n"
    "out = net(torch.zeros(2, 4))\n"
)
IN_LOOP = "        for b in self.blocks:\n            x = b(x.to(self.device))\n"
FIRST = "        x = x.to(self.device)\n        for b in self.blocks:\n            x = b(x)\n"
UNMOVED = "        for b in self.blocks:\n            x = b(x)\n"


@pytest.mark.parametrize("body", [IN_LOOP, FIRST])
def test_an_input_the_forward_moves_is_quiet(finding_lines: Callable[..., list[int]], body: str) -> None:
    src = {"m.py": SOURCE.format(body=body)}
    assert finding_lines(src, "FRY010") == []
    assert finding_lines(src, "FRY014") == []


def test_an_input_the_forward_hands_on_unmoved_is_reported(finding_lines: Callable[..., list[int]]) -> None:
    src = {"m.py": SOURCE.format(body=UNMOVED)}
    assert finding_lines(src, "FRY010") == [20]
    assert finding_lines(src, "FRY014") == [20]
