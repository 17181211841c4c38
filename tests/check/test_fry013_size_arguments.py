"""FRY013 and the arguments of ``torch.nn.functional`` functions that torch reads as numbers."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

LOOP = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader([])\n"
    "for data in loader:\n"
    "    rgb = data['rgb'].cuda()\n"
    "    size = data['size']\n"
)


def findings(tmp_path: Path, use: str) -> list[int]:
    (tmp_path / "run.py").write_text(LOOP + use)
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    return [d.line for o in check_paths([tmp_path / "run.py"], opts, jobs=1) for d in o.diagnostics]


def test_an_output_size_of_interpolate_meets_nothing(tmp_path: Path) -> None:
    assert findings(tmp_path, "    out = F.interpolate(rgb, size, mode='bilinear')\n") == []
    assert findings(tmp_path, "    out = F.interpolate(rgb, size=size)\n") == []
    assert findings(tmp_path, "    out = F.adaptive_avg_pool2d(rgb, size)\n") == []


def test_an_item_given_to_a_function_that_computes_with_it_is_reported(tmp_path: Path) -> None:
    assert findings(tmp_path, "    out = F.mse_loss(rgb, size)\n") == [8]
    assert findings(tmp_path, "    out = F.interpolate(rgb, size) + size\n") == [8]
