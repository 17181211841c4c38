"""FRY013 and a batch item handed to a function or method of the file that meets, as it
came in, a tensor on the device there: ``self._run_batch(source, targets)`` whose
``F.cross_entropy(output, targets)`` meets the output of a model moved in ``__init__``.
Reported at the argument; not when the callee moves or converts the item first, when the
caller moved it, or when what it meets is not known to be on the device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lines = Callable[[dict[str, str], str], list[int]]


TRAINER = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "\n"
    "class Trainer:\n"
    "    def __init__(self, model, train_data: DataLoader, gpu_id: int):\n"
    "        self.gpu_id = gpu_id\n"
    "        self.model = model.to(gpu_id)\n"
    "        self.train_data = train_data\n"
    "\n"
    "    def _run_batch(self, source, targets):\n"
    "        output = self.model(source)\n"
    "        loss = F.cross_entropy(output, targets)\n"
    "        loss.backward()\n"
    "\n"
    "    def _run_epoch(self):\n"
    "        for source, targets in self.train_data:\n"
    "            source = source.to(self.gpu_id)\n"
    "            self._run_batch(source, targets)\n"  # line 20
)

FUNCTION = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = nn.Linear(4, 2).to(device)\n"
    "criterion = nn.CrossEntropyLoss()\n"
    "\n"
    "\n"
    "def step(out, y):\n"
    "    return criterion(out, y)\n"
    "\n"
    "\n"
    "for x, y in DataLoader([]):\n"
    "    x = x.to(device)\n"
    "    step(model(x), y)\n"  # line 16
)


def _check(finding_lines: Lines, text: str) -> list[int]:
    return finding_lines({"train.py": text}, "FRY013")


@pytest.mark.parametrize(("text", "line"), [(TRAINER, 20), (FUNCTION, 16)])
def test_an_unmoved_item_met_on_the_device_in_a_callee_is_reported(
        finding_lines: Lines, text: str, line: int) -> None:
    assert _check(finding_lines, text) == [line]


@pytest.mark.parametrize("text", [
    # the caller moves it with the other item
    TRAINER.replace("            self._run_batch", "            targets = targets.to(self.gpu_id)\n"
                    "            self._run_batch"),
    # the callee moves it first, or brings it to the CPU with the output
    TRAINER.replace("F.cross_entropy(output, targets)", "F.cross_entropy(output, targets.to(output.device))"),
    TRAINER.replace("F.cross_entropy(output, targets)", "F.cross_entropy(output.cpu(), targets)"),
    # the model is not moved: the output is wherever the model was made
    TRAINER.replace("self.model = model.to(gpu_id)", "self.model = model"),
    # the callee only counts it
    TRAINER.replace("loss = F.cross_entropy(output, targets)", "loss = output.sum() + len(targets)"),
    # what the function is given to meet is computed on the CPU
    FUNCTION.replace("step(model(x), y)", "step(model(x).cpu(), y)"),
])
def test_an_item_met_by_nothing_on_the_device_in_the_callee_is_not_reported(
        finding_lines: Lines, text: str) -> None:
    assert _check(finding_lines, text) == []
