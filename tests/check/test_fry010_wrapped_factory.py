"""FRY010 through the wrappers of a tensor: ``nn.Parameter(torch.zeros(n))`` and
``Variable(torch.zeros(n))`` are the tensor the factory made, where it made it. A
parameter rebuilt in ``forward`` from a factory without ``device=`` meets the input on
the device (reported); the same parameter registered in ``__init__`` follows the model's
``.to(device)`` (quiet)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

IN_FORWARD = '''
import torch
from torch import nn

class Attention(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n)

    def forward(self, q, k):
        self.wbias = nn.Parameter(torch.Tensor([1.0, 0.5, 0.25]))
        scores = self.proj(q) @ k.transpose(-1, -2)
        return scores * self.wbias

model = Attention(3).cuda()
out = model(torch.randn(2, 3).cuda(), torch.randn(2, 3).cuda())
'''

ZEROS_IN_FORWARD = '''
import torch
import torch.nn as nn

class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        bias = nn.Parameter(torch.zeros(self.n))
        return self.fc(x) + bias

device = torch.device("cuda")
model = Gate(4).to(device)
y = model(torch.randn(8, 4, device=device))
'''

VARIABLE = '''
import torch
import torch.nn as nn
from torch.autograd import Variable

class Decoder(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.rnn = nn.GRU(n, n, batch_first=True)

    def forward(self, x):
        h0 = Variable(torch.zeros(1, x.size(0), self.n))
        out, _ = self.rnn(x, h0)
        return out

model = Decoder(4).cuda()
y = model(torch.randn(2, 5, 4).cuda())
'''

IN_INIT = '''
import torch
import torch.nn as nn

class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.bias = nn.Parameter(torch.zeros(n))
        self.scale = nn.Parameter(torch.Tensor([1.0]))

    def forward(self, x):
        return self.fc(x) * self.scale + self.bias

device = torch.device("cuda")
model = Gate(4).to(device)
y = model(torch.randn(8, 4, device=device))
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (IN_FORWARD, "torch.Tensor([1.0"),
    (ZEROS_IN_FORWARD, "torch.zeros(self.n)"),
    (VARIABLE, "torch.zeros(1,"),
], ids=["parameter-tensor", "parameter-zeros", "variable-zeros"])
def test_a_wrapped_cpu_factory_in_forward_is_reported(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


def test_a_parameter_registered_in_init_is_quiet() -> None:
    assert _lines(IN_INIT) == []


@pytest.mark.parametrize(("source", "change"), [
    (ZEROS_IN_FORWARD, ("torch.zeros(self.n)", "torch.zeros(self.n, device=x.device)")),
    (VARIABLE, ("torch.zeros(1, x.size(0), self.n)", "torch.zeros(1, x.size(0), self.n).to(x.device)")),
], ids=["device-given", "moved"])
def test_a_wrapped_factory_on_the_input_device_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []
