"""FRY002 and a `.to(...)` naming a keyword no torch move accepts: the receiver is some other
library's object (pymatgen's `Structure.to(filename=...)` writes a file), whatever the
analysis holds it to be; a move with torch's own keywords still counts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

CONVERTER = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "class Converter(nn.Module):\n"
    "    def forward(self, structure, graph_id=None):\n"
    "        coords = torch.tensor(structure.frac_coords)\n"
    "        try:\n"
    "            graph = structure.neighbors()\n"
    "        except Exception as exc:\n"
    "            structure.{call}\n"
    "            raise RuntimeError(graph_id) from exc\n"
    "        return coords, graph\n"
)


@pytest.mark.parametrize("call", ['to(filename="error.cif")', 'to("cif", filename="e.cif")',
                                  "cuda(stream=s)", "cpu(fmt=1)"])
def test_a_move_named_with_a_keyword_torch_rejects_is_quiet(
    call: str, finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"conv.py": CONVERTER.format(call=call)}, "FRY002") == []


@pytest.mark.parametrize("call", ['to(device="cuda", non_blocking=True)', "cuda(non_blocking=True)",
                                  "to(dtype=torch.float16)"])
def test_a_move_with_torch_keywords_is_still_reported(
    call: str, finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"conv.py": CONVERTER.format(call=call)}, "FRY002") == [10]
