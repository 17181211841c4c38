"""FRY013 and a batch item the model's ``forward`` hands, through a submodule and a helper
of the run, to a loop that uses each of its elements as text (``sent.strip()``): a list of
strings, no tensor, that meets nothing on the device."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


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


def findings(finding_places: Places, encoder: str = ENCODER, model: str = MODEL) -> list[tuple[str, int]]:
    files = {"src/lxrt/__init__.py": "", "src/lxrt/encoder.py": encoder, "src/tasks/__init__.py": "",
             "src/tasks/model.py": model, "src/tasks/train.py": TRAIN}  # (in the order of their paths)
    return finding_places(files, "FRY013")


def test_sentences_the_model_tokenizes_are_left_behind_rightly(finding_places: Places) -> None:
    assert findings(finding_places) == []


@pytest.mark.parametrize("loop", [
    "    for sent in sents:\n",
    "    for sent in list(sents):\n",  # (not the parameter itself: unknown)
])
def test_a_loop_over_the_item_itself_or_not(finding_places: Places, loop: str) -> None:
    encoder = ENCODER.replace("    for i, sent in enumerate(sents):\n", loop)
    assert findings(finding_places, encoder) == ([] if loop.endswith("in sents:\n") else [("train.py", 8)])


def test_elements_used_as_tensors_could_be_is_reported(finding_places: Places) -> None:
    # ``tokenize(sent)``: nothing says the element is no tensor
    assert findings(finding_places, ENCODER.replace("sent.strip()", "sent")) == [("train.py", 8)]
    # ``sent.split()``: a tensor has ``split`` too
    assert findings(finding_places, ENCODER.replace("sent.strip()", "sent.split()")) == [("train.py", 8)]


def test_an_item_the_forward_also_combines_is_reported(finding_places: Places) -> None:
    model = MODEL.replace("return self.head(self.encoder(sent, feat))",
                          "return self.head(self.encoder(sent, feat)) * sent")
    assert findings(finding_places, model=model) == [("train.py", 8)]


def test_a_submodule_rebound_to_something_else_is_not_followed(finding_places: Places) -> None:
    model = MODEL.replace("        self.head = nn.Linear(4, 2)\n",
                          "        self.head = nn.Linear(4, 2)\n"
                          "    def swap(self, other):\n"
                          "        self.encoder = other\n")
    assert findings(finding_places, model=model) == [("train.py", 8)]


@pytest.mark.parametrize("rebuild", [
    "        sent = sum(zip(sent, sent), ())\n",
    "        sent = list(sent)\n",
])
def test_an_item_the_forward_rebuilds_of_its_elements_is_followed(finding_places: Places, rebuild: str) -> None:
    model = MODEL.replace("    def forward(self, feat, sent):\n", "    def forward(self, feat, sent):\n" + rebuild)
    assert findings(finding_places, model=model) == []


def test_an_item_the_forward_rebuilds_otherwise_is_reported(finding_places: Places) -> None:
    model = MODEL.replace("    def forward(self, feat, sent):\n",
                          "    def forward(self, feat, sent):\n        sent = sum(zip(sent, feat), ())\n")
    assert findings(finding_places, model=model) == [("train.py", 8)]
    model = MODEL.replace("    def forward(self, feat, sent):\n",
                          "    def forward(self, feat, sent):\n        sent = list(sent)\n        feat = feat * sent\n")
    assert findings(finding_places, model=model) == [("train.py", 8)]
