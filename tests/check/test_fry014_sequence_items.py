"""FRY014 and a model's inputs given as the items of a sequence: ``model(*inputs)`` or
``model(inputs[0], inputs[1])`` of a parameter ``inputs`` that every call passes as a tuple
written out, followed to the item that reaches the model first.  A model built on the CPU
and never moved, given such an item moved to the device, is reported; an item that is not
moved, a sequence some call gives unknown items, or a model moved by its caller is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

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
    "    def forward(self, x, adj=None):\n"
    "        return self.fc(x)\n"
    "\n"
    "\n"
)


def _check(tmp_path: Path, body: str) -> list[int]:
    path = tmp_path / "train.py"
    path.write_text(HEAD + body)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([path], opts, jobs=1)
    return sorted(d.line - HEAD.count("\n") for o in outcomes for d in o.diagnostics)


STARRED = (
    "def step(net, inputs):\n"
    "    return net(*inputs)\n"  # line 2
    "\n"
    "\n"
    "x = torch.ones(3, 4).to(device)\n"
    "adj = torch.eye(3).to(device)\n"
    "model = Net()\n"
    "step(model, (x, adj))\n"
)

INDEXED = (
    "def step(net, batch):\n"
    "    return net(batch[0], batch[1])\n"  # line 2
    "\n"
    "\n"
    "step(Net(), (torch.ones(3, 4).cuda(), torch.eye(3).cuda()))\n"
)

FORWARDED = (
    "def evaluate(model, data):\n"
    "    with torch.no_grad():\n"
    "        return model(*data)\n"  # line 3
    "\n"
    "\n"
    "def train(model, data, epochs):\n"
    "    for _ in range(epochs):\n"
    "        evaluate(model, data)\n"
    "\n"
    "\n"
    "def load(device):\n"
    "    return torch.ones(3, 4).to(device), torch.eye(3).to(device)\n"
    "\n"
    "\n"
    "feats, adj = load(device)\n"
    "net = Net()\n"
    "train(net, (feats, adj), 2)\n"
)

LOCAL_TUPLE = (
    "def run():\n"
    "    net = Net()\n"
    "    inputs = (torch.ones(3, 4).to(device), None)\n"
    "    return net(*inputs)\n"  # line 4
)


#: a tensor moved whole by the caller: its items (rows) are where it is
WHOLE = (
    "def step(net, batch):\n"
    "    return net(batch[0])\n"  # line 2
    "\n"
    "\n"
    "def rows(net, batch):\n"
    "    return net(*batch)\n"  # line 6
    "\n"
    "\n"
    "model = Net()\n"
    "step(model, torch.ones(2, 3, 4).to(device))\n"
    "rows(model, torch.ones(2, 3, 4).to(device))\n"
)


def test_an_item_of_a_tensor_moved_whole_is_where_the_tensor_is(tmp_path: Path) -> None:
    assert _check(tmp_path, WHOLE) == [2, 6]


@pytest.mark.parametrize(("body", "line"), [
    (STARRED, 2), (INDEXED, 2), (FORWARDED, 3), (LOCAL_TUPLE, 4),
])
def test_a_moved_first_item_given_to_a_model_left_on_the_cpu_is_reported(
        tmp_path: Path, body: str, line: int) -> None:
    assert _check(tmp_path, body) == [line]


@pytest.mark.parametrize("body", [
    # the first item, the one the model takes first, is not moved
    STARRED.replace("step(model, (x, adj))", "step(model, (torch.ones(3, 4), adj))"),
    # the model is moved by the call that passes it
    STARRED.replace("step(model, (x, adj))", "step(model.to(device), (x, adj))"),
    # another call passes a sequence of unknown items
    STARRED + "for batch in torch.utils.data.DataLoader([]):\n    step(model, batch)\n",
    # an index past the tuple's items, and an index that is not a constant
    INDEXED.replace("batch[0], batch[1]", "batch[2]"),
    INDEXED.replace("def step(net, batch):\n    return net(batch[0], batch[1])",
                    "def step(net, batch, i=0):\n    return net(batch[i])"),
])
def test_an_item_not_known_to_be_moved_is_no_mismatch(tmp_path: Path, body: str) -> None:
    assert _check(tmp_path, body) == []
