"""FRY014 and ``x.type(torch.FloatTensor)``: a legacy CPU tensor type gives a tensor on the
CPU whatever ``x`` is (an attribute of a dataset of unknown kind included)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = '''import torch
import torch.nn as nn
import torchvision

test_data = torchvision.datasets.MNIST(root="./mnist/", train=False)
test_x = torch.unsqueeze(test_data.test_data, dim=1).type(torch.FloatTensor)[:2000] / 255.


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(28, 10)

    def forward(self, x):
        return self.out(x)


cnn = CNN()
cnn.cuda()
out = cnn(test_x)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("cast", [
    "torch.unsqueeze(test_data.test_data, dim=1).type(torch.FloatTensor)[:2000] / 255.",
    "test_data.test_data.type(torch.FloatTensor)",
])
def test_a_cast_to_a_cpu_type_is_on_the_cpu(cast: str) -> None:
    source = SOURCE.replace(
        "torch.unsqueeze(test_data.test_data, dim=1).type(torch.FloatTensor)[:2000] / 255.", cast)
    assert _lines(source) == [source.splitlines().index("out = cnn(test_x)") + 1]


@pytest.mark.parametrize("fixed", [
    "torch.unsqueeze(test_data.test_data, dim=1).type(torch.cuda.FloatTensor)[:2000] / 255.",
    "torch.unsqueeze(test_data.test_data, dim=1).type(torch.FloatTensor)[:2000].cuda() / 255.",
    "torch.unsqueeze(test_data.test_data, dim=1).type(torch.float32)[:2000] / 255.",
])
def test_a_cast_that_keeps_or_reaches_the_device_is_quiet(fixed: str) -> None:
    source = SOURCE.replace(
        "torch.unsqueeze(test_data.test_data, dim=1).type(torch.FloatTensor)[:2000] / 255.", fixed)
    assert _lines(source) == []
