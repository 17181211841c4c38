"""An ``assert`` statement runs its test: the calls and meetings in it happen, so a rule that
reads the flow sees a CPU factory meeting a tensor on the device inside an ``assert``."""

from __future__ import annotations

import textwrap

from torchferry.check.engine import check_source

HEAD = """
import torch


def normalised(scores, device):
    scores = scores.to(device)
    p = torch.zeros_like(scores) + 1.0
"""


def lines(source: str, rule: str = "FRY010") -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(HEAD + source), "t.py", select=[rule])]


def test_a_cpu_factory_meeting_a_device_tensor_in_an_assert_is_reported() -> None:
    assert lines("    assert torch.allclose(p.sum(1), torch.ones(p.shape[0]))\n    return p\n") == [
        8
    ]


def test_an_assert_message_is_read_too() -> None:
    src = "    assert p.numel() > 0, torch.ones(3) + p\n    return p\n"
    assert lines(src) == [8]


def test_a_factory_made_where_the_tensor_is_in_an_assert_is_not_reported() -> None:
    src = "    assert torch.allclose(p.sum(1), torch.ones(p.shape[0], device=p.device))\n    return p\n"
    assert lines(src) == []
