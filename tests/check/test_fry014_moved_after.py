"""FRY014 and a model moved to the device only after the call: ``out = self.forward(x)``
followed by ``self.to(device)`` in the same method runs the module where it was built, so
the CPU input meets CPU weights; the same move before the call is reported."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

HEAD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 2)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
)


def _lines(tmp_path: Path, body: str) -> list[int]:
    path = tmp_path / "net.py"
    path.write_text(HEAD + body)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([path], opts, jobs=1)
    return sorted(d.line - HEAD.count("\n") for o in outcomes for d in o.diagnostics)


def test_a_module_run_before_its_own_move_is_not_reported(tmp_path: Path) -> None:
    body = (
        "    def test(self):\n"
        "        x = torch.rand(1, 4)\n"
        "        out = self.forward(x)\n"
        "        self.to(torch.device('cuda'))\n"
        "        return out\n"
    )
    assert _lines(tmp_path, body) == []


def test_a_module_run_after_its_own_move_is_reported(tmp_path: Path) -> None:
    body = (
        "    def test(self):\n"
        "        x = torch.rand(1, 4)\n"
        "        self.to(torch.device('cuda'))\n"
        "        out = self.forward(x)\n"
        "        return out\n"
    )
    assert _lines(tmp_path, body) == [4]

