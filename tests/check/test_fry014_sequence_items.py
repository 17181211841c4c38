"""FRY014 and a model's inputs given as the items of a sequence: ``model(*inputs)`` or
``model(inputs[0], inputs[1])`` of a parameter ``inputs`` that every call passes as a tuple
written out, followed to the item that reaches the model first.  A model built on the CPU
and never moved, given such an item moved to the device, is reported; an item that is not
moved, a sequence some call gives unknown items, or a model moved by its caller is not."""

from __future__ import annotations

from collections.abc import Callable
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


def _check(finding_lines: Callable[..., list[int]], body: str) -> list[int]:
    lines = finding_lines({"train.py": HEAD + body}, "FRY014")
    return [line - HEAD.count("\n") for line in lines]


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


def test_an_item_of_a_tensor_moved_whole_is_where_the_tensor_is(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _check(finding_lines, WHOLE) == [2, 6]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (STARRED, 2),
        (INDEXED, 2),
        (FORWARDED, 3),
        (LOCAL_TUPLE, 4),
    ],
)
def test_a_moved_first_item_given_to_a_model_left_on_the_cpu_is_reported(
    finding_lines: Callable[..., list[int]], body: str, line: int
) -> None:
    assert _check(finding_lines, body) == [line]


@pytest.mark.parametrize(
    "body",
    [
        # the first item, the one the model takes first, is not moved
        STARRED.replace("step(model, (x, adj))", "step(model, (torch.ones(3, 4), adj))"),
        # the model is moved by the call that passes it
        STARRED.replace("step(model, (x, adj))", "step(model.to(device), (x, adj))"),
        # another call passes a sequence of unknown items
        STARRED + "for batch in torch.utils.data.DataLoader([]):\n    step(model, batch)\n",
        # an index past the tuple's items, and an index that is not a constant
        INDEXED.replace("batch[0], batch[1]", "batch[2]"),
        INDEXED.replace(
            "def step(net, batch):\n    return net(batch[0], batch[1])",
            "def step(net, batch, i=0):\n    return net(batch[i])",
        ),
    ],
)
def test_an_item_not_known_to_be_moved_is_no_mismatch(
    finding_lines: Callable[..., list[int]], body: str
) -> None:
    assert _check(finding_lines, body) == []


#: the other direction: the model is on the device, an item the callers pass was made on
#: the CPU (returned unmoved by a loader function beside a moved one)
CPU_ITEM = (
    "def load(device):\n"
    "    feats = torch.FloatTensor([[1.0, 2.0, 3.0, 4.0]])\n"
    "    adj = torch.eye(1)\n"
    "    return feats.to_sparse(), adj.to(device)\n"
    "\n"
    "\n"
    "def evaluate(model, data):\n"
    "    return model(*data)\n"  # line 8
    "\n"
    "\n"
    "def train(model, data, epochs):\n"
    "    for _ in range(epochs):\n"
    "        evaluate(model, data)\n"
    "\n"
    "\n"
    "feats, adj = load(device)\n"
    "net = Net().to(device)\n"
    "train(net, (feats, adj), 2)\n"
)

CPU_INDEXED = (
    "def step(net, batch):\n"
    "    return net(batch[0], batch[1])\n"  # line 2
    "\n"
    "\n"
    "step(Net().cuda(), (torch.ones(3, 4), torch.eye(3).cuda()))\n"
)


@pytest.mark.parametrize(("body", "line"), [(CPU_ITEM, 8), (CPU_INDEXED, 2)])
def test_a_first_item_made_on_the_cpu_given_to_a_model_on_the_device_is_reported(
    finding_lines: Callable[..., list[int]], body: str, line: int
) -> None:
    assert _check(finding_lines, body) == [line]


def test_the_finding_names_the_item(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(HEAD + CPU_ITEM)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    [found] = [d for o in check_paths([path], opts, jobs=1) for d in o.diagnostics]
    assert "`data[0]` was made on the CPU" in found.message


@pytest.mark.parametrize(
    "body",
    [
        # the loader moves the first item too: both items are on the device
        CPU_ITEM.replace("feats.to_sparse(), adj", "feats.to_sparse().to(device), adj"),
        # the model stays on the CPU with its input
        CPU_ITEM.replace("net = Net().to(device)", "net = Net()"),
        # only the second item is made on the CPU (the model takes the first first)
        CPU_ITEM.replace(
            "return feats.to_sparse(), adj.to(device)", "return feats.to_sparse().to(device), adj"
        ),
        # another call passes the items moved
        CPU_ITEM + "evaluate(net, (feats.to(device), adj))\n",
        # another call passes a sequence of unknown items
        CPU_ITEM + "for batch in torch.utils.data.DataLoader([]):\n    evaluate(net, batch)\n",
        # an index past the tuple's items, and an index that is not a constant
        CPU_INDEXED.replace("batch[0], batch[1]", "batch[2]"),
        CPU_INDEXED.replace(
            "def step(net, batch):\n    return net(batch[0], batch[1])",
            "def step(net, batch, i=0):\n    return net(batch[i])",
        ),
    ],
)
def test_an_item_not_known_to_be_made_on_the_cpu_is_no_mismatch(
    finding_lines: Callable[..., list[int]], body: str
) -> None:
    assert _check(finding_lines, body) == []
