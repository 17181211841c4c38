"""FRY014 and a model whose constructor builds most of its layers in a base class of the run
(``super().__init__(...)``) and then moves itself whole (``self.to(device)``): the instance
is where the ``device`` parameter (or its default) says, so a CPU input meets device
weights; a constructor that moves nothing, or a call given ``device="cpu"``, stays quiet."""

from __future__ import annotations

from collections.abc import Callable

HEAD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Core(nn.Module):\n"
    "    def __init__(self, n):\n"
    "        super().__init__()\n"
    "        self.conv = nn.Conv2d(1, n, 3)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.conv(x)\n"
    "\n"
    "\n"
    "class Model(Core):\n"
    "    def __init__(self, n, device={default}):\n"
    "        super().__init__(n)\n"
    "        {move}\n"
    "        self.head = nn.Linear(n, 1)\n"
    "        {move}\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.head(super().forward(x))\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    x = torch.randn(2, 1, 8, 8)\n"
    "    model = Model({args})\n"
    "    out = model(x)\n"
)


def _source(default: str = '"cuda"', move: str = "self.to(device)", args: str = "4") -> str:
    return HEAD.format(default=default, move=move, args=args)


def test_a_cpu_input_of_a_model_moved_after_its_base_init_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _source()}, "FRY014") == [28]
    typed = _source(default='torch.device("cuda")')
    assert finding_lines({"m.py": typed}, "FRY014") == [28]
    given = _source(args='4, device="cuda"')
    assert finding_lines({"m.py": given}, "FRY014") == [28]


def test_a_constructor_that_moves_nothing_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _source(move="pass")}, "FRY014") == []


def test_a_model_kept_on_the_cpu_by_its_call_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"m.py": _source(args='4, device="cpu"')}, "FRY014") == []
