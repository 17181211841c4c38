"""A factory in a script's module-level code, without ``device=``, whose tensor meets a
model the script puts on the accelerator is reported, as the same lines in a function are."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Linear(4, 2){move}
noise = torch.randn(8, 4{kw})
for step in range(3):
    batch = torch.randn(8, 4{kw})
    out = net(batch)
fake = net(noise)
"""


def lines(move: str = ".to(device)", kw: str = "") -> list[int]:
    src = textwrap.dedent(SOURCE.format(move=move, kw=kw))
    return [f.line for f in check_source(src, "t.py", select=["FRY010"])]


def test_module_level_factories_meeting_a_moved_model_are_reported() -> None:
    assert lines() == [7, 9]


@pytest.mark.parametrize("move, kw", [(".to(device)", ", device=device"), ("", "")])
def test_factories_where_the_model_is_are_not_reported(move: str, kw: str) -> None:
    assert lines(move, kw) == []
