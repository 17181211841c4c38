"""FRY014 and an instance of a class of another package (not torch's or torchvision's,
nor a class of the run), built in the file and called on a moved input: it may hold no
weights at all (a pair miner, a sampler), so only a use of it as a module in the file
(``miner.eval()``, ``miner.parameters()``) shows that its weights were left behind."""

from __future__ import annotations

from collections.abc import Callable

TRAIN = (
    "import torch\n"
    "from pytorch_metric_learning import miners\n"
    "\n"
    "\n"
    "def train(loader, device):\n"
    "    miner = miners.MultiSimilarityMiner()\n"
    "    for ff, labels in loader:\n"
    "        labels = labels.to(device)\n"
    "        pairs = miner(ff, labels)\n"
    "    return pairs\n"
)


def test_an_outside_instance_only_called_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"train.py": TRAIN}, "FRY014") == []


def test_an_outside_instance_used_as_a_module_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = TRAIN.replace("    for ff", "    miner.eval()\n    for ff")
    assert finding_lines({"train.py": text}, "FRY014") == [10]


def test_a_torchvision_model_only_called_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = TRAIN.replace(
        "from pytorch_metric_learning import miners", "from torchvision import models"
    )
    text = text.replace("miners.MultiSimilarityMiner()", "models.resnet18()")
    assert finding_lines({"train.py": text}, "FRY014") == [9]
