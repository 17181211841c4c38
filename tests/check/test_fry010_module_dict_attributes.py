"""FRY010 with a submodule read as an attribute of an ``nn.ModuleDict`` whose keys are
written out (``self.transformer.wpe(pos)`` of ``nn.ModuleDict(dict(wpe=nn.Embedding(...)))``):
it is that entry, where the container is, so a factory's tensor given to it meets its
weights."""

from __future__ import annotations

from collections.abc import Callable

import pytest

GPT = '''\
import torch
import torch.nn as nn


class GPT(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.transformer = nn.ModuleDict(BUILT)
        self.head = nn.Linear(d, n)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        return self.head(self.transformer.act(x))
'''

FACTORY = GPT.splitlines().index("        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)") + 1

WRITTEN = [
    "dict(wte=nn.Embedding(n, d), wpe=nn.Embedding(16, d), act=nn.GELU())",
    '{"wte": nn.Embedding(n, d), "wpe": nn.Embedding(16, d), "act": nn.GELU()}',
]


@pytest.mark.parametrize("built", WRITTEN)
def test_a_factory_given_to_a_module_dict_entry_with_weights(
    finding_lines: Callable[..., list[int]], built: str
) -> None:
    assert finding_lines({"gpt.py": GPT.replace("BUILT", built)}, "FRY010") == [FACTORY]


@pytest.mark.parametrize("built", [
    # the entry has no weights: nothing to meet
    "dict(wte=nn.Embedding(n, d), wpe=nn.Identity(), act=nn.GELU())",
    # the keys are not written out: which module ``wpe`` is, is not known
    "{name: nn.Embedding(n, d) for name in ('wte', 'wpe', 'act')}",
])
def test_an_entry_without_known_weights_is_quiet(finding_lines: Callable[..., list[int]], built: str) -> None:
    assert finding_lines({"gpt.py": GPT.replace("BUILT", built)}, "FRY010") == []


def test_a_factory_made_on_the_inputs_device_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    src = GPT.replace("BUILT", WRITTEN[0]).replace("dtype=torch.long)", "dtype=torch.long, device=idx.device)")
    assert finding_lines({"gpt.py": src}, "FRY010") == []
