"""FRY013 and the arguments of ``torch.nn.functional`` functions that torch reads as numbers."""

from __future__ import annotations

from collections.abc import Callable

Lines = Callable[[dict[str, str], str], list[int]]



LOOP = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader([])\n"
    "for data in loader:\n"
    "    rgb = data['rgb'].cuda()\n"
    "    size = data['size']\n"
)


def findings(finding_lines: Lines, use: str) -> list[int]:
    return finding_lines({"run.py": LOOP + use}, "FRY013")


def test_an_output_size_of_interpolate_meets_nothing(finding_lines: Lines) -> None:
    assert findings(finding_lines, "    out = F.interpolate(rgb, size, mode='bilinear')\n") == []
    assert findings(finding_lines, "    out = F.interpolate(rgb, size=size)\n") == []
    assert findings(finding_lines, "    out = F.adaptive_avg_pool2d(rgb, size)\n") == []


def test_an_item_given_to_a_function_that_computes_with_it_is_reported(finding_lines: Lines) -> None:
    assert findings(finding_lines, "    out = F.mse_loss(rgb, size)\n") == [8]
    assert findings(finding_lines, "    out = F.interpolate(rgb, size) + size\n") == [8]
