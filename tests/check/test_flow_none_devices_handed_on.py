"""A device parameter of default ``None`` handed on to another function's device parameter:
where the call leaves it to that default (or passes ``None``), ``.to(device=device)`` in
the callee is ``.to(device=None)``, no move, as it is where the callee itself is called so.
A call that passes a device still moves."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

PROGRAM = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "\n"
    "class Det(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(4, 16)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.lin(x)\n"
    "\n"
    "\n"
    "def create(cfg, *, device=None):\n"
    "    m = Det()\n"
    "    m = m.to(device=device)\n"
    "    return m\n"
    "\n"
    "\n"
    "{loader}"
    "\n"
    "\n"
    "def test_detect():\n"
    "    det = {call}\n"
    "    msg = det(torch.ones(2, 4))\n"
    "    assert torch.eq(msg, torch.randint(0, 2, (1, 16))).all()\n"
)

FUNCTION = "def load(card, device=None):\n    return create(card, device=device)\n"
STATIC = (
    "class Loader:\n"
    "    @staticmethod\n"
    "    def load(card, device=None):\n"
    "        return create(card, device=device)\n"
)
DEVICE = "'cuda' if torch.cuda.is_available() else 'cpu'"


def _lines(loader: str, call: str, select: list[str] | None = None) -> list[int]:
    found = check_source(PROGRAM.format(loader=loader, call=call), "t.py", select=select)
    return [f.line for f in found if f.code == "FRY010"]


@pytest.mark.parametrize("select", [None, ["ALL"]])
@pytest.mark.parametrize(("loader", "call"), [
    (FUNCTION, "load('x')"),
    (FUNCTION, "load('x', None)"),
    (FUNCTION, "load('x', device=None)"),
    (STATIC, "Loader.load('x')"),
])
def test_a_none_device_handed_on_moves_nothing(loader: str, call: str, select: list[str] | None) -> None:
    assert _lines(loader, call, select) == []


@pytest.mark.parametrize(("loader", "call"), [
    (FUNCTION, f"load('x', {DEVICE})"),
    (STATIC, f"Loader.load('x', device={DEVICE})"),
])
def test_a_device_handed_on_still_moves(loader: str, call: str) -> None:
    assert _lines(loader, call) != []


def test_a_rebound_parameter_is_no_longer_none() -> None:
    loader = (
        "def load(card, device=None):\n"
        "    device = device or torch.device('cuda')\n"
        "    return create(card, device=device)\n"
    )
    assert _lines(loader, "load('x')") != []
