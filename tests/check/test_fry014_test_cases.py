"""FRY014 and a unittest ``TestCase``: each test method runs on an instance of its own,
after ``setUp``, so a move of the model in one test method leaves the model of another
where ``setUp`` built it; a move in ``setUp`` reaches every test method."""

from __future__ import annotations

from collections.abc import Callable

MODELS = (
    "import torch.nn as nn\n"
    "\n"
    "class VAE(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
)


def _tests(built: str) -> str:
    return (
        "import torch\n"
        "import unittest\n"
        "from models import VAE\n"
        "\n"
        "class TestVAE(unittest.TestCase):\n"
        "    def setUp(self):\n"
        f"        self.model = {built}\n"
        "\n"
        "    def test_forward(self):\n"
        "        x = torch.randn(16, 4)\n"
        "        y = self.model(x)\n"
        "\n"
        "    def test_sample(self):\n"
        "        self.model.cuda()\n"
        "        y = self.model(torch.randn(2, 4).cuda())\n"
    )


def test_a_move_in_another_test_method_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"test_vae.py": _tests("VAE()"), "models.py": MODELS}, "FRY014") == []


def test_a_move_in_set_up_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = {"test_vae.py": _tests("VAE().cuda()"), "models.py": MODELS}
    assert finding_lines(files, "FRY014") == [11]
