"""A ``.to(...)`` with a string among its positional arguments after the first is not
torch's move: torch's ``Tensor.to`` and ``Module.to`` take only a dtype and bools there and
raise TypeError on a string, so the receiver is another library's object (PyG's
``data.to(device, "x", "y")`` moves only the named attributes) and what it holds is not
taken to be on the device."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source
from torchferry.check.names import strings_after_the_device

LOOP = (
    "import torch\n"
    "\n"
    "\n"
    "def train(data, device):\n"
    "    for split in range(3):\n"
    "        nodes = torch.arange(data.x.shape[0])[data.train_mask]\n"
    "        data = data.{move}\n"
    "        print(nodes)\n"
    "\n"
    "\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "train(torch.load('d.pt', map_location='cpu', weights_only=True), device)\n"
)


def _lines(move: str, select: list[str] | None) -> list[int]:
    found = check_source(LOOP.format(move=move), "t.py", select=select)
    return [f.line for f in found if f.code == "FRY010"]


@pytest.mark.parametrize("select", [None, ["ALL"]])
@pytest.mark.parametrize("move", ["to(device, 'x', 'y')", "to(device, 'train_mask')",
                                  "to(device, f'{name}')"])
def test_named_attributes_moved_are_no_move_of_the_object(move: str, select: list[str] | None) -> None:
    assert _lines(move, select) == []


@pytest.mark.parametrize("move", ["to(device)", "to(device, torch.float32)",
                                  "to(device, torch.float32, True)", "to(device, non_blocking=True)"])
def test_torch_moves_still_count(move: str) -> None:
    assert _lines(move, None) == [6]


def test_only_the_to_method_is_read() -> None:
    import ast
    call = ast.parse("x.cuda(0, 'a')", mode="eval").body
    assert isinstance(call, ast.Call) and not strings_after_the_device(call)
