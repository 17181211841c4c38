"""FRY011 on the ``self`` attributes an unpacking stores from a method's return
(``self.edges, self.values = self.edge_info()`` with ``edge_info`` returning a tuple of
tensors the module makes on the CPU): each target is the item at its position, as
``self.edges = self.edge_info()[0]`` would store it.  An item that is no such tensor, one
the model's tensors never meet, or a value whose items are not known stays quiet; the
finding offers no fix (a ``register_buffer`` call cannot replace one target of an
unpacking)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

HEAD = """
import numpy as np
import torch
from torch import nn
import scipy.sparse as sp
"""

CLASS = """
class Gcn(nn.Module):
    def __init__(self, matrix):
        super().__init__()
        self.matrix = matrix
        self.fc = nn.Linear(4, 4)
        {store}

    def edge_info(self):
        rows = torch.from_numpy(self.matrix.row)
        cols = torch.from_numpy(self.matrix.col)
        edges = torch.stack([rows, cols]).type(torch.LongTensor)
        return edges, torch.ones(rows.shape[0])

    def forward(self, x):
        {use}
"""

FLAGGED = {
    "first-item-combined": ("self.edges, self.values = self.edge_info()",
                                    "return self.fc(x) @ self.edges.float()", ["edges"]),
    "second-item-combined": ("self.edges, self.values = self.edge_info()",
                             "return self.fc(x) * self.values", ["values"]),
    "both-items": ("[self.edges, self.values] = self.edge_info()",
                   "return self.fc(x) @ self.edges.float() * self.values", ["edges", "values"]),
    "local-and-attribute": ("edges, self.values = self.edge_info()",
                            "return self.fc(x) * self.values", ["values"]),
}

QUIET = {
    "items-unused": ("self.edges, self.values = self.edge_info()", "return self.fc(x)"),
    "registered": ("self.edges, values = self.edge_info()\n"
                   "        self.register_buffer('values', values)",
                   "return self.fc(x) * self.values"),
    "unknown-items": ("self.edges, self.values = sp.find(self.matrix)[:2]",
                      "return self.fc(x) * self.values"),
    "starred": ("self.edges, *self.rest = self.edge_info()", "return self.fc(x) * self.rest[0]"),
    "moved-where-used": ("self.edges, self.values = self.edge_info()",
                         "return self.fc(x) * self.values.to(x.device)"),
}


def found(store: str, use: str) -> list[tuple[int, str, bool]]:
    src = HEAD + textwrap.dedent(CLASS).format(store=store, use=use)
    return [(f.line, f.message, f.fix is not None)
            for f in check_source(src, "<case>", select=["FRY011"])]


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flags_each_item_the_model_meets(name: str) -> None:
    store, use, attrs = FLAGGED[name]
    got = found(store, use)
    assert [line for line, _, _ in got] == [12] * len(attrs)
    assert sorted(m.split("`")[1] for _, m, _ in got) == [f"self.{a}" for a in attrs]
    assert not any(fix for _, _, fix in got)


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_where_the_item_is_not_established_or_never_meets(name: str) -> None:
    assert found(*QUIET[name]) == []


def test_same_as_an_indexed_store() -> None:
    assert [line for line, _, _ in found("self.values = self.edge_info()[1]",
                                         "return self.fc(x) * self.values")] == [12]
