"""A device the code itself establishes as the CPU is no accelerator: a device parameter
that every call of the run points at the CPU (``"cpu"``, ``torch.device("cpu")``, a name
bound only to one where the call is, a module-level constant), and ``x.device`` of a tensor
on the CPU.  ``X.to(device)`` there keeps ``X`` on the CPU with an unmoved model, and
``.item()`` of what they compute waits for no accelerator.  A device chosen by
``torch.cuda.is_available()``, read from the environment or from a caller's argument, or
rebound before a later call, stays a device the code chose, which may be an accelerator."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

PROGRAM = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "\n"
    "\n"
    "class ConvNet(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 2)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
    "\n"
    "def train(model, device, loader):\n"
    "    model.train()\n"
    "    loss = 0\n"
    "    for X, y in loader:\n"
    "        X, y = X.to(device), y.to(device)\n"
    "        pred_prob = model(X)\n"
    "        loss += F.nll_loss(pred_prob, y).item()\n"
    "    return loss\n"
    "\n"
    "\n"
    "data = torch.utils.data.TensorDataset(torch.zeros(3, 4), torch.zeros(3, dtype=torch.long))\n"
    "loader = torch.utils.data.DataLoader(data, batch_size=2)\n"
    "{main}"
)

CPU_MAINS = {
    "bound": "device = torch.device('cpu')\nmodel = ConvNet()\nfor epoch in range(3):\n"
             "    train(model, device, loader)\n",
    "literal": "train(ConvNet(), 'cpu', loader)\ntrain(ConvNet(), torch.device('cpu'), loader)\n",
    "constant": "DEVICE = 'cpu'\n\n\ndef objective(trial):\n    return train(ConvNet(), DEVICE, loader)\n"
                "\n\nobjective(1)\n",
    "rebound after the call": "device = torch.device('cpu')\ntrain(ConvNet(), device, loader)\n"
                              "device = torch.device('cuda')\n",
}

OTHER_MAINS = {
    "is_available": "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                    "train(ConvNet(), device, loader)\n",
    "environment": "import os\ndevice = torch.device(os.environ.get('DEV', 'cpu'))\n"
                   "train(ConvNet(), device, loader)\n",
    "argument": "def main(device):\n    train(ConvNet(), device, loader)\n\n\nmain('cuda')\n",
    "one call of two": "train(ConvNet(), 'cpu', loader)\ntrain(ConvNet(), 'cuda', loader)\n",
    "rebound before a later call": "device = torch.device('cpu')\ntrain(ConvNet(), device, loader)\n"
                                   "device = torch.device('cuda')\ntrain(ConvNet(), device, loader)\n",
    "a cell rebinds the global": "device = 'cpu'\n\n\ndef objective(trial):\n"
                                 "    return train(ConvNet(), device, loader)\n\n\n"
                                 "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                                 "objective(1)\n",
}


def _codes(main: str) -> list[str]:
    found = check_source(PROGRAM.format(main=main), "t.py", select=["ALL"])
    return sorted(f.code for f in found if f.code in ("FRY007", "FRY014"))


@pytest.mark.parametrize("main", CPU_MAINS.values(), ids=CPU_MAINS.keys())
def test_a_device_every_call_points_at_the_cpu_is_no_accelerator(main: str) -> None:
    assert _codes(main) == []


@pytest.mark.parametrize("main", OTHER_MAINS.values(), ids=OTHER_MAINS.keys())
def test_a_device_the_code_chose_may_be_an_accelerator(main: str) -> None:
    assert _codes(main) == ["FRY007", "FRY014"]


def test_the_default_set_is_quiet_on_the_cpu() -> None:
    found = check_source(PROGRAM.format(main=CPU_MAINS["bound"]), "t.py")
    assert [f.code for f in found] == []


FACTORY = (
    "import numpy as np\n"
    "import torch\n"
    "\n"
    "\n"
    "def padded(arr, n):\n"
    "    mask = torch.from_numpy(arr)\n"
    "    return torch.cat((torch.zeros([n]).to(device=mask.device, dtype=mask.dtype), mask))\n"
    "\n"
    "\n"
    "def shifted(n, dev):\n"
    "    return torch.zeros(n).to(dev)\n"
    "\n"
    "\n"
    "padded(np.zeros(3), 2)\n"
    "{call}\n"
)


def _fry009(call: str) -> list[int]:
    found = check_source(FACTORY.format(call=call), "t.py", select=["ALL"])
    return [f.line for f in found if f.code == "FRY009"]


def test_a_factory_moved_to_the_cpu_copies_nothing() -> None:
    assert _fry009("shifted(3, torch.device('cpu'))") == []


def test_a_factory_moved_to_a_chosen_device_is_still_copied() -> None:
    assert _fry009("shifted(3, 'cuda' if torch.cuda.is_available() else 'cpu')") == [11]


def test_a_grad_mode_decorator_hands_the_device_on() -> None:
    program = PROGRAM.replace("def train(", "@torch.no_grad()\ndef train(")
    found = check_source(program.format(main=CPU_MAINS["bound"]), "t.py", select=["ALL"])
    assert [f.code for f in found if f.code in ("FRY007", "FRY014")] == []


PYTEST = (
    "import pytest\n"
    "import torch\n"
    "\n"
    "\n"
    "{decorator}"
    "def test_shapes(use_bias, device='cpu'):\n"
    "    device = torch.device(device)\n"
    "    inputs = torch.randint(0, 8, (3, 4)).to(device)\n"
    "    assert inputs.shape == (3, 4)\n"
)


@pytest.mark.parametrize(("path", "decorator", "lines"), [
    ("tests/test_model.py", "@pytest.mark.parametrize('use_bias', [True, False])\n", []),
    ("tests/test_model.py", "@pytest.mark.parametrize('device', ['cpu', 'cuda'])\n", [8]),
    ("tests/model.py", "@pytest.mark.parametrize('use_bias', [True, False])\n", [8]),
], ids=["default", "parametrized device", "not a test file"])
def test_a_test_that_pytest_runs_with_a_cpu_default(path: str, decorator: str, lines: list[int]) -> None:
    found = check_source(PYTEST.format(decorator=decorator), path, select=["ALL"])
    assert [f.line for f in found if f.code == "FRY009"] == lines
