"""FRY011 on a tensor attribute made from a NumPy or ``math`` function of a number
(``torch.tensor(np.log(init_alpha))``): 0-dimensional by construction, so where it meets the
model's tensors only in elementwise arithmetic (PyTorch takes a 0-dim CPU tensor with
tensors on any device) it is not flagged; a use that needs it on the device is."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

ALPHA = '''
import math

import numpy as np
import torch
from torch import nn
from torch.distributions import Normal

init_alpha = 0.01


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.log_alpha = torch.tensor(np.log(init_alpha))
        self.log_alpha.requires_grad = True

    def forward(self, x):
        mu, std = self.fc(x).chunk(2, -1)
        log_prob = Normal(mu, std.exp()).log_prob(mu)
        return -self.log_alpha.exp() * log_prob
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


@pytest.mark.parametrize("made", ["np.log(init_alpha)", "math.log(init_alpha)", "np.exp(-2.0)"])
def test_a_number_function_made_attribute_in_elementwise_use_is_quiet(made: str) -> None:
    src = ALPHA.replace("np.log(init_alpha)", made)
    assert _lines(src) == []


def test_a_non_scalar_use_is_still_flagged() -> None:
    src = ALPHA.replace("return -self.log_alpha.exp() * log_prob",
                        "return log_prob @ self.log_alpha.exp().expand(2, 2)")
    assert _lines(src) == [16]


def test_an_array_function_is_no_number() -> None:
    src = ALPHA.replace("np.log(init_alpha)", "np.log(np.ones(3) * init_alpha)")
    assert _lines(src) == [16]
