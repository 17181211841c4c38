"""FRY003 and a CUDA default device set part-way through a script or notebook: a tensor the
script's own code makes before the call that sets it is on the CPU; one made after it is on
the GPU."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths


def _lines(tmp_path: Path, text: str) -> list[int]:
    path = tmp_path / "script.py"
    path.write_text(text)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    outcomes = check_paths([path], opts, jobs=1)
    return sorted(d.line for o in outcomes for d in o.diagnostics)


def test_a_tensor_made_before_the_default_is_set_is_not_reported(tmp_path: Path) -> None:
    text = (
        "import torch\n"
        "x = torch.randn(3)\n"
        "print(x.numpy())\n"
        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
    )
    assert _lines(tmp_path, text) == []


def test_a_tensor_made_after_the_default_is_set_is_reported(tmp_path: Path) -> None:
    text = (
        "import torch\n"
        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
        "x = torch.randn(3)\n"
        "print(x.numpy())\n"
    )
    assert _lines(tmp_path, text) == [4]
