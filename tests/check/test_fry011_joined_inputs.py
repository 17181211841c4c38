"""FRY011 and a ``forward`` input handed on, as it is, to a helper that joins it with the
plain attribute (``torch.cat((state, self.context), -1)``): ``cat`` (and ``stack``, ...)
takes a sequence of tensors, so the input is a tensor there and follows the model to its
device, as ``self.density(state * 2)`` does.  A registered attribute is quiet."""

from __future__ import annotations

from collections.abc import Callable

CODE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Policy(nn.Module):\n"
    "    def __init__(self, n):\n"
    "        super().__init__()\n"
    "        {CONTEXT}\n"
    "        self.mean = nn.Linear(n + 4, 2)\n"
    "\n"
    "    def density(self, state):\n"
    "        h = torch.{JOIN}((state, self.context), dim=-1)\n"
    "        return self.mean(h)\n"
    "\n"
    "    def forward(self, state):\n"
    "        return self.density(state)\n"
)
PLAIN = "self.context = torch.zeros(n)"


def test_an_input_joined_in_a_helper_follows_the_model(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{CONTEXT}", PLAIN).replace("{JOIN}", "cat")
    assert finding_lines({"policy.py": code}, "FRY011") == [8]


def test_a_stacked_input_follows_the_model_too(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{CONTEXT}", PLAIN).replace("{JOIN}", "stack")
    assert finding_lines({"policy.py": code}, "FRY011") == [8]


def test_a_registered_context_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{CONTEXT}", 'self.register_buffer("context", torch.zeros(n))').replace("{JOIN}", "cat")
    assert finding_lines({"policy.py": code}, "FRY011") == []
