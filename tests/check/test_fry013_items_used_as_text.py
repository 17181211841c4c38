"""FRY013 and a batch item the model's ``forward`` hands, through a submodule and a helper
of the run, to a loop that uses each of its elements as text (``sent.strip()``): a list of
strings, no tensor, that meets nothing on the device."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

ENCODER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "def features(sents, tokenizer):\n"
    "    out = []\n"
    "    for i, sent in enumerate(sents):\n"
    "        out.append(tokenizer.tokenize(sent.strip()))\n"
    "    return out\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self, tokenizer):\n"
    "        super().__init__()\n"
    "        self.tokenizer = tokenizer\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "    def forward(self, sents, feats):\n"
    "        ids = torch.tensor(features(sents, self.tokenizer)).cuda()\n"
    "        return self.fc(feats) + ids\n"
)
MODEL = (
    "import torch.nn as nn\n"
    "from lxrt.encoder import Encoder\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, tokenizer):\n"
    "        super().__init__()\n"
    "        self.encoder = Encoder(tokenizer)\n"
    "        self.head = nn.Linear(4, 2)\n"
    "    def forward(self, feat, sent):\n"
    "        return self.head(self.encoder(sent, feat))\n"
)
TRAIN = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "from tasks.model import Net\n"
    "model = Net(None).cuda()\n"
    "loader = DataLoader([])\n"
    "for feats, sent, target in loader:\n"
    "    feats, target = feats.cuda(), target.cuda()\n"
    "    logit = model(feats, sent)\n"
    "    torch.nn.functional.mse_loss(logit, target).backward()\n"
)


def findings(tmp_path: Path, encoder: str = ENCODER, model: str = MODEL) -> list[tuple[str, int]]:
    files = {"src/lxrt/encoder.py": encoder, "src/tasks/model.py": model, "src/tasks/train.py": TRAIN,
             "src/lxrt/__init__.py": "", "src/tasks/__init__.py": ""}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    paths = sorted(tmp_path.rglob("*.py"))
    return [(Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics]


def test_sentences_the_model_tokenizes_are_left_behind_rightly(tmp_path: Path) -> None:
    assert findings(tmp_path) == []


@pytest.mark.parametrize("loop", [
    "    for sent in sents:\n",
    "    for sent in list(sents):\n",  # (not the parameter itself: unknown)
])
def test_a_loop_over_the_item_itself_or_not(tmp_path: Path, loop: str) -> None:
    encoder = ENCODER.replace("    for i, sent in enumerate(sents):\n", loop)
    assert findings(tmp_path, encoder) == ([] if loop.endswith("in sents:\n") else [("train.py", 8)])


def test_elements_used_as_tensors_could_be_is_reported(tmp_path: Path) -> None:
    # ``tokenize(sent)``: nothing says the element is no tensor
    assert findings(tmp_path, ENCODER.replace("sent.strip()", "sent")) == [("train.py", 8)]
    # ``sent.split()``: a tensor has ``split`` too
    assert findings(tmp_path, ENCODER.replace("sent.strip()", "sent.split()")) == [("train.py", 8)]


def test_an_item_the_forward_also_combines_is_reported(tmp_path: Path) -> None:
    model = MODEL.replace("return self.head(self.encoder(sent, feat))",
                          "return self.head(self.encoder(sent, feat)) * sent")
    assert findings(tmp_path, model=model) == [("train.py", 8)]


def test_a_submodule_rebound_to_something_else_is_not_followed(tmp_path: Path) -> None:
    model = MODEL.replace("        self.head = nn.Linear(4, 2)\n",
                          "        self.head = nn.Linear(4, 2)\n"
                          "    def swap(self, other):\n"
                          "        self.encoder = other\n")
    assert findings(tmp_path, model=model) == [("train.py", 8)]


@pytest.mark.parametrize("rebuild", [
    "        sent = sum(zip(sent, sent), ())\n",
    "        sent = list(sent)\n",
])
def test_an_item_the_forward_rebuilds_of_its_elements_is_followed(tmp_path: Path, rebuild: str) -> None:
    model = MODEL.replace("    def forward(self, feat, sent):\n", "    def forward(self, feat, sent):\n" + rebuild)
    assert findings(tmp_path, model=model) == []


def test_an_item_the_forward_rebuilds_otherwise_is_reported(tmp_path: Path) -> None:
    model = MODEL.replace("    def forward(self, feat, sent):\n",
                          "    def forward(self, feat, sent):\n        sent = sum(zip(sent, feat), ())\n")
    assert findings(tmp_path, model=model) == [("train.py", 8)]
    model = MODEL.replace("    def forward(self, feat, sent):\n",
                          "    def forward(self, feat, sent):\n        sent = list(sent)\n        feat = feat * sent\n")
    assert findings(tmp_path, model=model) == [("train.py", 8)]
