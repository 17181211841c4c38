"""FRY001 and ``.cuda()`` of a ``torch.nn`` module that holds no tensor: a loss or an
activation built from constants moves nothing, and runs on a machine without a GPU."""

from __future__ import annotations

from collections.abc import Callable


def test_a_loss_built_from_constants_moves_nothing(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = (
        "import torch.nn as nn\n"
        "criterion = nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=-1).cuda()\n"
        "act = nn.ReLU(inplace=True).cuda()\n"
    )
    assert finding_lines({"train.py": src}, "FRY001") == []


def test_a_loss_given_a_tensor_or_a_layer_is_still_flagged(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = (
        "import torch\n"
        "import torch.nn as nn\n"
        "w = torch.ones(10)\n"
        "criterion = nn.CrossEntropyLoss(weight=w).cuda()\n"
        "layer = nn.Linear(2, 2).cuda()\n"
        "pos = nn.BCEWithLogitsLoss(**opts).cuda()\n"
        "crit = nn.MSELoss()\n"
        "crit.cuda()\n"
    )
    assert finding_lines({"train.py": src}, "FRY001") == [4, 5, 6, 8]
