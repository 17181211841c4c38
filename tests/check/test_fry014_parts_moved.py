"""FRY014 and a model whose parts the code moves: through the methods that return the
module itself (``model.bfloat16().cuda()``), or part by part (``model.embed =
model.embed.to(dev)``, as a layer-by-layer calibration of a large model does)."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

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


def findings(tmp_path: Path, src: str) -> list[int]:
    (tmp_path / "run.py").write_text(src)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    return [d.line for o in check_paths([tmp_path / "run.py"], opts, jobs=1) for d in o.diagnostics]


def test_a_move_through_the_methods_that_return_the_module_moves_it(tmp_path: Path) -> None:
    assert findings(tmp_path, CHAINED.replace("MOVE", "model.bfloat16().cuda()")) == []
    assert findings(tmp_path, CHAINED.replace("MOVE", "model.eval().half().cuda()")) == []


def test_a_model_only_cast_is_still_on_the_cpu(tmp_path: Path) -> None:
    assert findings(tmp_path, CHAINED.replace("MOVE", "model.eval().bfloat16()")) == [6]


def test_parts_moved_to_the_inputs_device_are_not_a_model_left_behind(tmp_path: Path) -> None:
    assert findings(tmp_path, NET.replace("EMBED", "to(dev)").replace("FIRST", "to(dev)")) == []
    assert findings(tmp_path, NET.replace("EMBED", "float()").replace("FIRST", "cuda()")) == []


def test_parts_only_cast_leave_the_model_on_the_cpu(tmp_path: Path) -> None:
    cast = NET.replace("EMBED", "to(torch.float16)").replace("FIRST", "half()")
    assert findings(tmp_path, cast) == [16]
