"""FRY014 and a model whose parts the code moves: through the methods that return the
module itself (``model.bfloat16().cuda()``), or part by part (``model.embed =
model.embed.to(dev)``, as a layer-by-layer calibration of a large model does)."""

from __future__ import annotations

from collections.abc import Callable

Lines = Callable[[dict[str, str], str], list[int]]



CHAINED = (
    "import torch\n"
    "import torch.nn as nn\n"
    "model = nn.Linear(2, 2)\n"
    "ids = torch.zeros(1, 2).cuda()\n"
    "MOVE\n"
    "out = model(ids)\n"
)
NET = (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.embed = nn.Linear(4, 4)\n"
    "        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])\n"
    "    def forward(self, x):\n"
    "        return self.layers[1](self.layers[0](self.embed(x)))\n"
    "def calibrate(loader, dev):\n"
    "    model = Net()\n"
    "    model.embed = model.embed.EMBED\n"
    "    layers = model.layers\n"
    "    layers[0] = layers[0].FIRST\n"
    "    for batch in loader:\n"
    "        model(batch[0].to(dev))\n"
)


def findings(finding_lines: Lines, src: str) -> list[int]:
    return finding_lines({"run.py": src}, "FRY014")


def test_a_move_through_the_methods_that_return_the_module_moves_it(finding_lines: Lines) -> None:
    assert findings(finding_lines, CHAINED.replace("MOVE", "model.bfloat16().cuda()")) == []
    assert findings(finding_lines, CHAINED.replace("MOVE", "model.eval().half().cuda()")) == []


def test_a_model_only_cast_is_still_on_the_cpu(finding_lines: Lines) -> None:
    assert findings(finding_lines, CHAINED.replace("MOVE", "model.eval().bfloat16()")) == [6]


def test_parts_moved_to_the_inputs_device_are_not_a_model_left_behind(finding_lines: Lines) -> None:
    assert findings(finding_lines, NET.replace("EMBED", "to(dev)").replace("FIRST", "to(dev)")) == []
    assert findings(finding_lines, NET.replace("EMBED", "float()").replace("FIRST", "cuda()")) == []


def test_parts_only_cast_leave_the_model_on_the_cpu(finding_lines: Lines) -> None:
    cast = NET.replace("EMBED", "to(torch.float16)").replace("FIRST", "half()")
    assert findings(finding_lines, cast) == [16]
