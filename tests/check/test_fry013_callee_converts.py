"""FRY013 and a model of the run that converts a batch item itself before using it."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

TRAIN = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "from model import Net\n"
    "device = torch.device('cuda')\n"
    "model = Net().to(device)\n"
    "loader = DataLoader([])\n"
    "for inputs, sizes in loader:\n"
    "    inputs = inputs.to(device)\n"
    "    out = model(inputs, sizes)\n"
    "    out.sum().backward()\n"
)
HEAD = "import torch\nimport torch.nn as nn\n"
INIT = "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n"
#: ``forward`` begins by bringing the lengths to the CPU for ``pack_padded_sequence``
LENGTHS_TO_CPU = HEAD + (
    "from torch.nn.utils.rnn import pack_padded_sequence\n"
    "class Net(nn.Module):\n" + INIT +
    "    def seq_lens(self, lengths):\n"
    "        return lengths // 2\n"
    "    def forward(self, x, lengths):\n"
    "        lengths = lengths.cpu().int()\n"
    "        out_lengths = self.seq_lens(lengths)\n"
    "        x = self.fc(x)\n"
    "        return pack_padded_sequence(x, out_lengths), out_lengths\n"
)
#: ``forward`` reads the lengths only as a Python list
LENGTHS_AS_A_LIST = HEAD + (
    "class Net(nn.Module):\n" + INIT +
    "    def forward(self, x, lengths):\n"
    "        x = self.fc(x)\n"
    "        for i, n in enumerate(lengths.tolist()):\n"
    "            x[i, n:] = 0\n"
    "        return x\n"
)
#: ``forward`` hands the mask to a helper of another file that moves it to ``x`` first
MASK_THROUGH_A_HELPER = HEAD + (
    "from helpers import apply_mask\n"
    "class Net(nn.Module):\n" + INIT +
    "    def forward(self, x, mask):\n"
    "        return self.fc(apply_mask(x, mask))\n"
)
HELPERS = (
    "def apply_mask(x, mask):\n"
    "    mask = mask.to(x.device)\n"
    "    return x * mask\n"
)
#: ``forward`` combines the mask as it came in: it must be on the device
MASK_COMBINED = HEAD + (
    "class Net(nn.Module):\n" + INIT +
    "    def forward(self, x, mask):\n"
    "        return self.fc(x) * mask\n"
)
#: the helper combines the mask as it came in
HELPERS_COMBINING = "def apply_mask(x, mask):\n    return x * mask\n"


def findings(tmp_path: Path, model: str, helpers: str = HELPERS) -> list[tuple[str, int, str]]:
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "train.py").write_text(TRAIN)
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    paths = [tmp_path / n for n in ("helpers.py", "model.py", "train.py")]
    return [(Path(o.path).name, d.line, d.code) for o in check_paths(paths, opts, jobs=1)
            for d in o.diagnostics]


def test_lengths_the_forward_brings_to_the_cpu_first_are_left_behind_rightly(tmp_path: Path) -> None:
    assert findings(tmp_path, LENGTHS_TO_CPU) == []


def test_lengths_the_forward_reads_as_a_list_are_left_behind_rightly(tmp_path: Path) -> None:
    assert findings(tmp_path, LENGTHS_AS_A_LIST) == []


def test_a_mask_a_helper_of_another_file_moves_first_is_left_behind_rightly(tmp_path: Path) -> None:
    assert findings(tmp_path, MASK_THROUGH_A_HELPER) == []


def test_an_item_the_callee_combines_as_it_came_in_is_reported(tmp_path: Path) -> None:
    assert findings(tmp_path, MASK_COMBINED) == [("train.py", 9, "FRY013")]
    assert findings(tmp_path, MASK_THROUGH_A_HELPER, HELPERS_COMBINING) == [("train.py", 9, "FRY013")]
    # a cast alone keeps the device: not a conversion
    cast = MASK_COMBINED.replace("        return self.fc(x) * mask\n",
                                 "        mask = mask.to(torch.float32)\n        return self.fc(x) * mask\n")
    assert findings(tmp_path, cast) == [("train.py", 9, "FRY013")]
