"""FRY014 and modules without weights: a module that owns no parameter and no buffer has
no device, so an input on the accelerator given to it, never moved, is no mismatch --
whether it is called directly, held by ``nn.Sequential``, ``nn.ModuleList`` or
``nn.ModuleDict``, or by a module class of the run, in this file or another of the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

LAYERS = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Jitter(nn.Module):\n"
    "    def __init__(self, strength=0.4, batch_size=128):\n"
    "        super().__init__()\n"
    "        self.strength = strength\n"
    "        self.batch_size = batch_size\n"
    "\n"
    "    def forward(self, x):\n"
    "        factor = torch.empty(len(x), device=x.device).uniform_(0, self.strength)\n"
    "        return x * factor.view(-1, 1)\n"
    "\n"
    "\n"
    "class Flip(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x.flip(-1)\n"
    "\n"
    "\n"
    "class Scaled(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.register_buffer('scale', torch.ones(1, 4))\n"
    "\n"
    "    def forward(self, x):\n"
    "        return x * self.scale\n"
    "\n"
    "\n"
    "class Conv(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.conv = nn.Conv2d(3, 8, 3)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.conv(x)\n"
    "\n"
    "\n"
    "class Augment(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.ops = nn.ModuleList([Jitter(0.2), Flip()])\n"
    "        self.named = nn.ModuleDict({'flip': Flip()})\n"
    "\n"
    "    def forward(self, x):\n"
    "        for op in self.ops:\n"
    "            x = op(x)\n"
    "        return x\n"
    "\n"
    "\n"
    "class Ranged(nn.Module):\n"
    "    def __init__(self, strength=0.4, bound=(0, 1)):\n"
    "        super().__init__()\n"
    "        self.strength = self._check(strength, bound)\n"
    "\n"
    "    def _check(self, value, bound):\n"
    "        if isinstance(value, (int, float)):\n"
    "            value = [bound[0], value]\n"
    "        return value\n"
    "\n"
    "    def forward(self, x):\n"
    "        return x * self.strength[1]\n"
    "\n"
    "\n"
    "class Wrap(nn.Module):\n"
    "    def __init__(self, inner, scale=1.0):\n"
    "        super().__init__()\n"
    "        self.inner = self._check(inner)\n"
    "        self.scale = scale\n"
    "\n"
    "    def _check(self, value):\n"
    "        return value\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.inner(x) * self.scale\n"
    "\n"
    "\n"
    "class Head(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.body = nn.Sequential(Flip(), nn.Linear(4, 2))\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.body(x)\n"
)

#: the use: ``{build}`` is the model's construction; the input is moved, the model never
USE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from collections import OrderedDict\n"
    "from layers import Augment, Conv, Flip, Head, Jitter, Ranged, Scaled, Wrap\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "\n"
    "\n"
    "def augment(x):\n"
    "    model = {build}\n"
    "    return model(x)\n"
    "\n"
    "x = torch.ones(2, 4).to(device)\n"
    "y = augment(x)\n"
)

WEIGHTLESS = [
    "Jitter(0.4)",
    "nn.Sequential(Jitter(0.4))",
    "nn.Sequential(Jitter(0.4), Flip(), nn.ReLU())",
    "nn.Sequential(OrderedDict([('jitter', Jitter()), ('flip', Flip())]))",
    "Augment()",
    "nn.Sequential(Ranged(0.2, bound=(0, 2)), Ranged(-0.5))",
]
WEIGHTED = [
    "nn.Sequential(Flip(), nn.Linear(4, 2))",
    "nn.Sequential(Jitter(), Conv())",
    "Conv()",
    "Scaled()",
    "Head()",
    "nn.Sequential(*[Conv() for _ in range(2)])",
    "nn.Sequential(Wrap(nn.Linear(4, 2)), Flip())",
]


def _check(tmp_path: Path, build: str) -> list[tuple[str, int, str]]:
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "use.py").write_text(USE.replace("{build}", build))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "layers.py", tmp_path / "use.py"], opts, jobs=1)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("build", WEIGHTLESS)
def test_a_module_without_weights_of_the_run_is_no_mismatch(tmp_path: Path, build: str) -> None:
    assert _check(tmp_path, build) == []


@pytest.mark.parametrize("build", WEIGHTED)
def test_a_module_with_weights_left_on_the_cpu_is_reported(tmp_path: Path, build: str) -> None:
    assert _check(tmp_path, build) == [("use.py", 11, "FRY014")]


ONE_FILE = LAYERS + (
    "\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "x = torch.ones(2, 4).to(device)\n"
    "model = {build}\n"
    "out = model(x)\n"
)


@pytest.mark.parametrize(("build", "found"), [
    *((b, False) for b in WEIGHTLESS[:3]),
    ("nn.Sequential(Ranged(0.2, bound=(0, 2)), Ranged(-0.5))", False),
    ("nn.ModuleList([Jitter(), Flip()])[0]", False),
    *((b, True) for b in WEIGHTED[:3]),
])
def test_in_one_file_the_same(tmp_path: Path, build: str, found: bool) -> None:
    source = "from collections import OrderedDict\n" + ONE_FILE.replace("{build}", build)
    (tmp_path / "one.py").write_text(source)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "one.py"], opts, jobs=1)
    lines = [d.line for o in outcomes for d in o.diagnostics]
    assert lines == ([source.count("\n")] if found else [])


#: an item of a batch whose ``.to()`` is a statement: a tensor's copy is lost, an object's
#: move may be in place (a DGL graph of DGL 0.4, a PyG ``Data``)
ITEM = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "\n"
    "\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = torch.nn.Linear(4, 2)\n"
    "\n"
    "    def forward(self, g):\n"
    "        return self.fc(g)\n"
    "\n"
    "\n"
    "def collate(items):\n"
    "    return items\n"
    "\n"
    "\n"
    "def train(loader, ds):\n"
    "    model = Net().to(device)\n"
    "    for {target} in {loader}:\n"
    "        {move}\n"
    "        y = y.to(device)\n"
    "        out = model({item})\n"
    "        out.sum().backward()\n"
)


@pytest.mark.parametrize(("target", "loader", "move", "item", "found"), [
    # the loader is a parameter: its items may be graphs
    ("graph, y", "loader", "graph.to(torch.device('cuda:0'))", "graph", False),
    ("i, (graph, y)", "enumerate(loader)", "graph.cuda()", "graph", False),
    # a collate function of the file: its items may be objects with an in-place move
    ("data, y", "DataLoader(ds, collate_fn=collate)", "data.to(device)", "data", False),
    # torch's loader with its default collation: tensors, whose copy is lost
    ("x, y", "DataLoader(ds, batch_size=4)", "x.to(device)", "x", True),
    ("i, (x, y)", "enumerate(DataLoader(ds))", "x.cuda()", "x", True),
    # not moved at all, another item of the batch moved: still reported
    ("graph, y", "loader", "pass", "graph", True),
])
def test_an_item_moved_by_a_statement(tmp_path: Path, target: str, loader: str, move: str,
                                      item: str, found: bool) -> None:
    source = ITEM.replace("{target}", target).replace("{loader}", loader) \
        .replace("{move}", move).replace("{item}", item)
    (tmp_path / "train.py").write_text(source)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "train.py"], opts, jobs=1)
    assert [d.line for o in outcomes for d in o.diagnostics] == ([25] if found else [])
