"""FRY014 and an input made on the CPU that reaches the model under another name: ``x =
img`` or a rebinding of the name to itself (``input = input``) is the same tensor, followed
back to the call that built it.  A model moved in the scope, called on such a name, is
reported; a name whose chain passes through a move, a device, or a value not built by a
call of the scope is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

HEAD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
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
    "\n"
)


def _check(finding_lines: Callable[..., list[int]], body: str) -> list[int]:
    lines = finding_lines({"infer.py": HEAD + body}, "FRY014")
    return [line - HEAD.count("\n") for line in lines]


ALIAS = (
    "def run(path, accel):\n"
    "    model = torch.load(path)\n"
    "    img = torch.ones(1, 4)\n"
    "    x = img\n"
    "    if accel:\n"
    "        model = model.to(device)\n"
    "    return model(x)\n"  # line 7
)

SELF_REBOUND = (
    "def run(path, accel):\n"
    "    model = torch.load(path)\n"
    "    x = torch.ones(1, 4).view(1, -1)\n"
    "    if accel:\n"
    "        model = model.to(device)\n"
    "        x = x\n"
    "    return model(x)\n"  # line 7
)


@pytest.mark.parametrize(("body", "line"), [(ALIAS, 7), (SELF_REBOUND, 7)])
def test_a_cpu_tensor_under_another_name_meets_the_moved_model(
    finding_lines: Callable[..., list[int]], body: str, line: int
) -> None:
    assert _check(finding_lines, body) == [line]


@pytest.mark.parametrize(
    "body",
    [
        # the rebinding moves it
        SELF_REBOUND.replace("        x = x\n", "        x = x.to(device)\n"),
        ALIAS.replace("    x = img\n", "    x = img.cuda()\n"),
        # the name it copies is made on the device
        ALIAS.replace("torch.ones(1, 4)", "torch.ones(1, 4, device=device)"),
        # the name it copies is a parameter: where it lives is not known here
        ALIAS.replace("def run(path, accel):\n", "def run(path, accel, img):\n").replace(
            "    img = torch.ones(1, 4)\n", ""
        ),
        # the model is not moved
        ALIAS.replace("model = model.to(device)", "model = model.eval()"),
    ],
)
def test_a_copy_of_a_tensor_not_left_on_the_cpu_is_no_mismatch(
    finding_lines: Callable[..., list[int]], body: str
) -> None:
    assert _check(finding_lines, body) == []
