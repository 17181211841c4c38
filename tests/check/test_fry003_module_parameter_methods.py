"""FRY003 and a model handed to a function of another file that first calls a method of
``nn.Module`` that returns the module and moves nothing (``m.eval()``, ``m.train()``,
``m.requires_grad_(False)``, ``m.zero_grad()``): such a use says the parameter is a
module, not that what its other methods return is one, so ``m.sample(5)``, computed where
the model is, still reaches NumPy from the device.  A model never moved stays quiet."""

from __future__ import annotations

from collections.abc import Callable

import pytest

FLOWS = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
    "    def sample(self, n):\n"
    "        device = next(self.parameters()).device\n"
    "        return self(torch.randn(n, 4, device=device))\n"
)
UTILS = (
    "def plot(m):\n"
    "    m.{method}\n"
    "    x = m.sample(5).detach().numpy()\n"
    "    return x\n"
)
MAIN = (
    "import torch\n"
    "import fl\n"
    "import utils\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = fl.Net()\n"
    "{move}\n"
    "utils.plot(model)\n"
)


def _run(method: str, move: str = "model.to(device)") -> dict[str, str]:
    return {"utils.py": UTILS.format(method=method), "fl.py": FLOWS, "main.py": MAIN.format(move=move)}


@pytest.mark.parametrize("method", ["eval()", "train()", "requires_grad_(False)", "zero_grad()"])
def test_a_module_method_of_the_parameter_keeps_its_outputs_on_the_device(
    finding_lines: Callable[..., list[int]], method: str,
) -> None:
    assert finding_lines(_run(method), "FRY003") == [3]


def test_a_model_never_moved_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines(_run("eval()", move="pass"), "FRY003") == []
