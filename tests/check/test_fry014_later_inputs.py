"""FRY014 and a module's inputs after its first: the hidden state handed to a recurrent
layer of a module the run moves (``self.lstm(x, (h0, c0))`` with ``h0 = torch.zeros(...)``
in ``forward``), and the inputs after the first that a module class's ``forward`` hands to
its weights (``model(*inputs)``, ``model(x, adj)``).  An input made on the CPU and never
moved is reported where it meets the module; one moved (or made on the device), one the
``forward`` only uses on the CPU (the lengths of ``pack_padded_sequence``), and a module the
run never moves are not."""

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
)


def _check(
    finding_lines: Callable[..., list[int]], body: str, select: str = "FRY014", head: str = HEAD
) -> list[int]:
    lines = finding_lines({"train.py": head + body}, select)
    return [line - head.count("\n") for line in lines]


RNN = (
    "class Rnn(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lstm = nn.LSTM(4, 8, 2, batch_first=True)\n"
    "        self.fc = nn.Linear(8, 2)\n"
    "\n"
    "    def forward(self, x):\n"
    "        h0 = torch.zeros(2, x.size(0), 8){h}\n"
    "        c0 = torch.zeros(2, x.size(0), 8).to(device)\n"
    "        out, _ = self.lstm(x, (h0, c0))\n"  # line 10
    "        return self.fc(out[:, -1])\n"
    "\n"
    "\n"
    "model = Rnn(){move}\n"
    "for x in [torch.ones(3, 5, 4)]:\n"
    "    model(x.to(device))\n"
)


def test_hidden_state_made_on_the_cpu(finding_lines: Callable[..., list[int]]) -> None:
    assert _check(finding_lines, RNN.format(h="", move=".to(device)")) == [10]


@pytest.mark.parametrize("h", [".to(device)", ".to(x.device)", ".cuda()"])
def test_hidden_state_moved(finding_lines: Callable[..., list[int]], h: str) -> None:
    assert _check(finding_lines, RNN.format(h=h, move=".to(device)")) == []


def test_hidden_state_made_on_the_device(finding_lines: Callable[..., list[int]]) -> None:
    body = RNN.format(h="", move=".to(device)").replace(
        "torch.zeros(2, x.size(0), 8)\n", "torch.zeros(2, x.size(0), 8, device=x.device)\n"
    )
    assert _check(finding_lines, body) == []


def test_module_never_moved(finding_lines: Callable[..., list[int]]) -> None:
    """(The model left on the CPU is reported where it meets its moved input.)"""
    assert _check(finding_lines, RNN.format(h="", move="")) == [16]


def test_the_factory_rule_reports_the_factory(finding_lines: Callable[..., list[int]]) -> None:
    """FRY010 reports the factory (with its fix), FRY014 the call where the tensor meets
    the module: one finding each, at its own line."""
    body = RNN.format(h="", move=".to(device)")
    assert _check(finding_lines, body, "FRY010") == [8]
    assert _check(finding_lines, body, "ALL").count(10) == 1
    assert _check(finding_lines, body, "ALL").count(8) == 1


GRAPH = (
    "class Conv(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.w = nn.Parameter(torch.randn(4, 4))\n"
    "\n"
    "    def forward(self, x, adj):\n"
    "        return torch.spmm(adj, x @ self.w)\n"
    "\n"
    "\n"
    "class Gcn(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.gc = Conv()\n"
    "\n"
    "    def forward(self, x, adj, lengths=None):\n"
    "        if lengths is not None:\n"
    "            lengths = lengths.tolist()\n"
    "        return self.gc(x, adj)\n"
    "\n"
    "\n"
    "def step(model, inputs):\n"
    "    return model(*inputs)\n"  # line 22
    "\n"
    "\n"
    "def load(device):\n"
    "    feats = torch.ones(3, 4)\n"
    "    adj = torch.eye(3).to_sparse()\n"
    "    return feats.to(device), adj{adj}\n"
    "\n"
    "\n"
    "net = Gcn().to(device)\n"
    "feats, adj = load(device)\n"
    "step(net, (feats, adj))\n"
)


def test_second_item_of_a_sequence(finding_lines: Callable[..., list[int]]) -> None:
    assert _check(finding_lines, GRAPH.format(adj="")) == [22]


def test_second_item_moved(finding_lines: Callable[..., list[int]]) -> None:
    assert _check(finding_lines, GRAPH.format(adj=".to(device)")) == []


POSITIONAL = GRAPH.split("def step")[0] + (
    "def run(net, x):\n"
    "    adj = torch.eye(3)\n"
    "    n = torch.tensor([3])\n"
    "    return net(x, {adj}, n)\n"  # line 24
    "\n"
    "\n"
    "run(Gcn().to(device), torch.ones(3, 4).to(device))\n"
)


def test_second_positional_argument(finding_lines: Callable[..., list[int]]) -> None:
    assert _check(finding_lines, POSITIONAL.format(adj="adj")) == [24]


def test_lengths_left_on_the_cpu(finding_lines: Callable[..., list[int]]) -> None:
    """``lengths`` is only converted by ``forward``: it may rightly stay on the CPU."""
    assert _check(finding_lines, POSITIONAL.format(adj="adj.to(device)")) == []


def test_module_of_unknown_class(finding_lines: Callable[..., list[int]]) -> None:
    body = (
        "from lib import build\n"
        "\n"
        "\n"
        "def run(net, x):\n"
        "    return net(x, torch.eye(3))\n"
        "\n"
        "\n"
        "run(build().to(device), torch.ones(3, 4).to(device))\n"
    )
    assert _check(finding_lines, body) == []


def test_submodule_in_the_arm_that_moves_nothing(finding_lines: Callable[..., list[int]]) -> None:
    """The module is moved only when CUDA is available; the call on a CPU input in the other
    arm of the same test meets nothing on the device (no other place in the file may put a
    value there).  A method without the test does."""
    body = (
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(10, 4)\n"
        "\n"
        "    def forward(self, ids):\n"
        "        t = torch.LongTensor(ids)\n"
        "        if torch.cuda.is_available():\n"
        "            return self.emb(t.cuda())\n"
        "        else:\n"
        "            return self.emb(t)\n"  # line 11
        "\n"
        "    def tag(self, ids):\n"
        "        return self.emb(torch.LongTensor(ids))\n"  # line 14
        "\n"
        "\n"
        "model = Tagger()\n"
        "if torch.cuda.is_available():\n"
        "    model = model.cuda()\n"
        "model([1, 2])\n"
    )
    head = "import torch\nimport torch.nn as nn\n\n\n"
    assert _check(finding_lines, body, head=head) == [14]
