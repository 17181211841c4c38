"""FRY003 and the old API's read of a loss as a number: ``loss.data[0]`` (or
``loss[0]``) of what a loss of ``torch.nn`` with a reducing ``reduction`` returned is a
0-dimensional tensor indexed by a position, which runs only where it gives a Python
number; sums of those handed to NumPy or matplotlib are no finding.  A loss that keeps
its dimensions (``reduction="none"``), a slice, or a loss of unknown make is still a
tensor that may be on the accelerator."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

TRAIN = '''
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn

net = nn.Linear(3, 2).cuda()
criterion = {loss}
loader = torch.utils.data.DataLoader([], batch_size=2)
losses = []
for epoch in range(3):
    total = 0
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = criterion(net(x), y)
        total += {read}
    losses.append(total / len(loader))
    print(np.exp(total / len(loader)))
plt.plot(losses)
'''


def lines(loss: str, read: str) -> list[int]:
    source = TRAIN.format(loss=loss, read=read)
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


@pytest.mark.parametrize("loss", ["nn.CrossEntropyLoss()", "nn.MSELoss(reduction='sum')",
                                  "nn.NLLLoss(torch.ones(2))"])
@pytest.mark.parametrize("read", ["loss.data[0]", "loss[0]"])
def test_a_reduced_loss_read_by_position_is_a_number(loss: str, read: str) -> None:
    assert lines(loss, read) == []


@pytest.mark.parametrize("loss, read", [
    ("nn.CrossEntropyLoss(reduction='none')", "loss.data[0]"),
    ("nn.CrossEntropyLoss(reduce=False)", "loss.data[0]"),
    ("nn.CrossEntropyLoss()", "loss.data[:1]"),
    ("nn.CrossEntropyLoss()", "loss.data"),
    ("nn.Linear(2, 2).cuda()", "loss.data[0]"),
])
def test_a_tensor_that_keeps_its_place_is_reported(loss: str, read: str) -> None:
    assert lines(loss, read) == [18, 19]
