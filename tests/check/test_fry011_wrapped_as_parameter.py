"""FRY011 on a tensor that ``__init__`` stores on ``self`` and then, later in the same
``__init__``, wraps as a parameter under the same name (``self.alpha =
nn.Parameter(self.alpha)``): ``Module.__setattr__`` takes the name out of the plain
attributes and registers the parameter, which moves with the module.  The attribute is
judged by what ``__init__`` leaves it as on every path: a path on which it stays a plain
tensor (the wrap under an ``if``, a ``return`` before it) keeps the finding, and so does a
buffer stored over the plain attribute (PyTorch refuses the name)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

MODULE = '''
import numpy as np
import torch
from torch import nn


class Slopes(nn.Module):
    def __init__(self, n, init=2.0, flag=False):
        super().__init__()
{body}

    def forward(self, x):
        return x * self.alpha
'''

QUIET = {
    # (FrEIA's inv_auto_layers: a start value reshaped, then wrapped)
    "wrapped_two_lines_later": '''
        self.alpha = np.log(init) * torch.ones(n)
        self.alpha = self.alpha.view(1, -1)
        self.alpha = nn.Parameter(self.alpha)''',
    "filled_in_place_then_wrapped": '''
        self.alpha = torch.zeros(4, n)
        self.alpha[0, 0] = 1
        self.alpha = torch.cat([self.alpha] * 2, 0)
        self.alpha = nn.Parameter(self.alpha)
        self.alpha.requires_grad = False''',
    "unpacked_then_wrapped": '''
        self.alpha = torch.randn(n, n)
        self.alpha, s, v = torch.svd(self.alpha)
        self.alpha = nn.Parameter(self.alpha)''',
    "wrapped_after_a_branch": '''
        self.alpha = torch.ones(n)
        if flag:
            self.alpha = self.alpha * 2
        self.alpha = torch.nn.parameter.Parameter(self.alpha, requires_grad=False)''',
    "annotated_wrap": '''
        self.alpha = torch.ones(n)
        self.alpha: nn.Parameter = nn.Parameter(self.alpha)''',
}

# the lines (of the body) whose store keeps the finding
FLAGGED = {
    "wrapped_on_one_arm": ('''
        self.alpha = torch.ones(n)
        if flag:
            self.alpha = nn.Parameter(self.alpha)''', [1]),
    "returns_before_the_wrap": ('''
        self.alpha = torch.ones(n)
        if flag:
            return
        self.alpha = nn.Parameter(self.alpha)''', [1]),
    # (what ``.cuda()`` returns is a plain tensor: its own finding, and the first stays)
    "moved_wrap_is_no_parameter": ('''
        self.alpha = torch.ones(n)
        self.alpha = nn.Parameter(self.alpha).cuda()''', [1, 2]),
    "buffer_over_the_attribute": ('''
        self.alpha = torch.ones(n)
        self.alpha = nn.Buffer(self.alpha)''', [1]),
    "registered_over_the_attribute": ('''
        self.alpha = torch.ones(n)
        self.register_buffer("alpha", self.alpha)''', [1]),
}


def _lines(body: str) -> list[int]:
    src = MODULE.format(body=body.strip("\n"))
    first = src.splitlines().index("        super().__init__()") + 1  # (1-based line of the body's start)
    return sorted(f.line - first for f in check_source(src, "m.py", select=["FRY011"]))


@pytest.mark.parametrize("name", QUIET)
def test_an_attribute_wrapped_as_a_parameter_on_every_path_is_quiet(name):
    assert _lines(QUIET[name]) == []


@pytest.mark.parametrize("name", FLAGGED)
def test_a_path_that_leaves_a_plain_tensor_keeps_the_finding(name):
    body, lines = FLAGGED[name]
    assert _lines(body) == lines
