"""FRY011 stays quiet on a 0-dim CPU tensor attribute used only in elementwise operations
(PyTorch accepts a CPU 0-dim tensor there as a scalar), also where it is an elementwise
torch function of one (``torch.sqrt(torch.tensor(d, dtype=torch.float))``) and where the
number given to ``torch.tensor`` is a parameter that ``__init__`` also gives a ``torch.nn``
layer as a size (an integer).  Without that evidence, or used in a non-elementwise way, it
is still flagged."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch
from torch import nn
'''

QUIET = {
    "sqrt_of_a_factory_size_then_softmax": '''
class Att(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = torch.sqrt(torch.tensor(dim))
        self.Wk = nn.Parameter(torch.zeros((dim, dim)))

    def forward(self, key, query, value):
        score = torch.bmm(query, key.transpose(1, 2)) / self.scale
        attn = torch.nn.functional.softmax(score, -1)
        return torch.bmm(attn, value)
''',
    "sqrt_of_a_layer_size": '''
class Att(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.linear_msg = nn.Linear(in_channels, out_channels, bias=False)
        self.bias_att = nn.Parameter(torch.zeros(out_channels))
        self.scaler = torch.sqrt(torch.tensor(out_channels, dtype=torch.float))

    def forward(self, x_i, x_j):
        return (x_i * x_j + self.bias_att).sum(dim=-1) / self.scaler
''',
    "embedding_size_as_keyword": '''
class Embed(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(num_embeddings=vocab, embedding_dim=dim)
        self.norm = torch.tensor(dim)

    def forward(self, ids):
        return self.emb(ids) / self.norm
''',
    "exp_of_a_literal": '''
class Temp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.t = torch.exp(torch.tensor(0.5))

    def forward(self, x):
        return self.fc(x) * self.t
''',
}

FLAGGED = {
    "lone_factory_argument_may_be_a_shape": '''
class Att(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = torch.sqrt(torch.tensor(dim))
        self.Wk = nn.Parameter(torch.zeros(dim))

    def forward(self, key, query, value):
        score = torch.bmm(query, key.transpose(1, 2)) / self.scale
        return torch.bmm(torch.nn.functional.softmax(score, -1), value)
''',
    "softmax_of_the_attribute_itself": '''
class Att(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = torch.sqrt(torch.tensor(dim))
        self.Wk = nn.Parameter(torch.zeros((dim, dim)))

    def forward(self, key, query, value):
        w = torch.nn.functional.softmax(self.scale, -1)
        return torch.bmm(query, key) * w + torch.mm(w, value)
''',
    "size_of_nothing": '''
class Att(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scaler = torch.sqrt(torch.tensor(dims, dtype=torch.float))

    def forward(self, x):
        return self.fc(x) / self.scaler
''',
    "layer_size_in_a_matmul": '''
class Att(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.fc = nn.Linear(n, d)
        self.s = torch.sqrt(torch.tensor(d, dtype=torch.float))

    def forward(self, x):
        return self.fc(x) @ self.s
''',
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY011"])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_a_zero_dim_tensor_in_elementwise_use(name: str) -> None:
    assert _lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_still_flagged(name: str) -> None:
    source = HEAD + FLAGGED[name]
    stored = next(i for i, ln in enumerate(source.splitlines(), 1) if "= torch.sqrt(" in ln)
    assert _lines(FLAGGED[name]) == [stored]
