"""FRY010 and a factory that a function of another file returns on one path, beside a
tensor computed from its argument on another (``return torch.tensor([[1]])`` under a
condition, ``return torch.argmax(logits)`` otherwise), met by the caller with a tensor it
moved: the caller's move acted on its own tensor (made in its own file), not on the
factory's result, which reaches the caller whole on its path.  A move of what the
function returned, or a function that combines the factory's result with its argument
(``torch.tensor(2.0) * logits``), is quiet."""

from __future__ import annotations

from collections.abc import Callable

SAMPLER = (
    "import torch\n"
    "\n"
    "\n"
    "def sample(logits, greedy):\n"
    "    if greedy:\n"
    "        return {MADE}\n"
    "    return torch.argmax(logits, dim=-1, keepdim=True)\n"
)
MAIN = (
    "import torch\n"
    "from sampler import sample\n"
    "\n"
    'DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    "gen = torch.zeros(1, 1, dtype=torch.long).to(DEVICE)\n"
    "nxt = {CALL}\n"
    "gen = torch.cat([gen, nxt], dim=1)\n"
)
FACTORY = "torch.tensor([[2564]], dtype=torch.long)"


def test_a_returned_factory_beside_the_callers_move_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = {"sampler.py": SAMPLER.replace("{MADE}", FACTORY),
             "main.py": MAIN.replace("{CALL}", "sample(gen, True)")}
    assert finding_lines(files, "FRY010") == [6]


def test_a_move_of_the_returned_value_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    files = {"sampler.py": SAMPLER.replace("{MADE}", FACTORY),
             "main.py": MAIN.replace("{CALL}", "sample(gen, True).to(DEVICE)")}
    assert finding_lines(files, "FRY010") == []


def test_a_factory_combined_with_the_argument_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    files = {"sampler.py": SAMPLER.replace("{MADE}", "torch.tensor(2.0) * logits"),
             "main.py": MAIN.replace("{CALL}", "sample(gen, True)")}
    assert finding_lines(files, "FRY010") == []
