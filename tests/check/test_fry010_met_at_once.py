"""A factory's result met at once by a tensor that may be on the device, written in the
same expression (``torch.arange(n).view(-1, 1, 1) * ones``, never bound to a name alone),
is at fault only there: every later value is computed with that tensor, on its device on
every run that gets past the first meeting.  A later meeting of the product with a tensor
of the module is no fault of the factory's, and is not what the finding names."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
from torch import nn


class Baseline(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(size), requires_grad=False)

    def _feature(self, episodes):
        ones = episodes.mask.unsqueeze(2)
        {line}
        return torch.cat([episodes.observations, time_step, ones], dim=2)

    def forward(self, episodes):
        features = self._feature(episodes)
        return torch.mv(features.view(-1, 9), self.weight)
"""


def run(line: str, default: bool) -> list[tuple[int, str]]:
    src = textwrap.dedent(SOURCE.format(line=line))
    select = None if default else ["FRY010"]
    return [(f.line, f.message.split("meets `")[1].split("`")[0])
            for f in check_source(src, "t.py", select=select) if f.code == "FRY010"]


def test_a_factory_met_at_once_is_not_reported_for_a_later_tensor_of_the_module() -> None:
    line = "time_step = torch.arange(len(episodes)).view(-1, 1, 1) * ones / 100.0"
    assert run(line, default=True) == []


def test_a_factory_met_at_once_names_the_tensor_it_meets() -> None:
    line = "time_step = torch.arange(len(episodes)).view(-1, 1, 1) * ones / 100.0"
    assert run(line, default=False) == [(13, "ones")]


def test_a_factory_bound_to_a_name_first_still_meets_the_tensor_of_the_module() -> None:
    # (``steps`` alone is returned: it reaches ``self.weight`` on the CPU)
    line = "steps = torch.arange(len(episodes)).view(-1, 1, 1); time_step = steps"
    assert run(line, default=True) == [(13, "self.weight")]


SCATTER = """
import torch
from torch import nn


class SupCon(nn.Module):
    def forward(self, features, labels):
        device = torch.device("cuda") if features.is_cuda else torch.device("cpu")
        mask = torch.eq(labels, labels.T).float().to(device)
        n = features.shape[0]
        logits_mask = torch.scatter(torch.{like}(mask), 1, torch.arange(n).view(-1, 1), 0)
        return (mask * logits_mask).sum()
"""


@pytest.mark.parametrize("like", ["ones_like", "zeros_like"])
def test_a_copy_like_a_tensor_put_on_the_device_is_a_sure_partner(like: str) -> None:
    # (``torch.ones_like(mask)`` is on ``mask``'s device: the default rule set reports the
    # factory met at once there, naming that copy, not the later product with ``mask``)
    src = textwrap.dedent(SCATTER.format(like=like))
    found = [(f.line, f.message.split("meets `")[1].split("`")[0])
             for f in check_source(src, "t.py") if f.code == "FRY010"]
    assert found == [(11, f"torch.{like}(mask)")]
