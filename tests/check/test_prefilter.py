"""The pre-filter: a file is skipped unparsed only when no rule could report in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check import prefilter
from torchferry.check.runner import Options, check_paths


def write(root: Path, files: dict[str, str]) -> list[Path]:
    out = []
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        out.append(p)
    return out


def run(root: Path, paths: list[Path]) -> dict[str, tuple[bool, list[tuple[int, str]]]]:
    opts = Options(root=root, select=("ALL",), target_torch_version=None)
    return {o.path.name: (o.skipped, [(d.line, d.code) for d in o.diagnostics])
            for o in check_paths(paths, opts, jobs=1)}


@pytest.mark.parametrize("text", [
    "import torch\n", "from transformers import AutoModel\n", "import timm\n",
    "m = M.from_pretrained(n)\n", "enc = tok(s, return_tensors='pt')\n",
    "import lightning as L\n", "from diffusers import UNet2DModel\n", "import torchaudio\n",
])
def test_torch_and_the_libraries_the_analysis_knows_pass(text: str) -> None:
    assert prefilter.mentions(text.encode())


@pytest.mark.parametrize("text", [
    "import json\nprint(json.dumps({'timmy': 1}))\n",  # "timm" inside a word
    "boxes = instances.pred_boxes.tensor.numpy()\n",  # a method's name alone
    "x = y.to(d)\n", "dev = 'cuda'\n", "import numpy as np\nnp.zeros(3)\n",
])
def test_a_file_without_those_words_does_not(text: str) -> None:
    assert not prefilter.mentions(text.encode())


CLIP = """\
from transformers import CLIPModel, CLIPProcessor


class Clip:
    def __init__(self, name, device):
        self.clip_model = CLIPModel.from_pretrained(name).to(device)
        self.processor = CLIPProcessor.from_pretrained(name)

    def vectorize(self, texts):
        inputs = self.processor(text=texts, return_tensors="pt", padding=True)
        return self.clip_model(**inputs)
"""
APP = """\
from clip import Clip

clip = Clip("openai/clip", "cuda:0")
print(clip.vectorize(["a"]))
"""


def test_a_file_using_torch_only_through_a_library_is_checked(tmp_path: Path) -> None:
    """A library model moved where the caller says, called on a processor's CPU tensors:
    the file never spells torch, and is reported all the same."""
    out = run(tmp_path, write(tmp_path, {"clip.py": CLIP, "app.py": APP}))
    assert out["clip.py"] == (False, [(11, "FRY014")])
    # moved before the call: checked, and quiet
    safe = CLIP.replace("return self.clip_model(**inputs)",
                        "return self.clip_model(**inputs.to(self.clip_model.device))")
    out = run(tmp_path / "safe", write(tmp_path / "safe", {"clip.py": safe, "app.py": APP}))
    assert out["clip.py"] == (False, [])


MODELS = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def build_model(where):
    return Net().to(where)
"""
FEEDER = """\
from models import build_model
from reader import read_batch


def main(where):
    net = build_model(where)
    return net(read_batch())
"""
READER = """\
import numpy as np
from torch import from_numpy


def read_batch():
    return from_numpy(np.zeros((8, 4), dtype="float32"))
"""


def test_a_file_that_only_imports_checked_files_is_checked(tmp_path: Path) -> None:
    """``feeder.py`` spells none of the words: it calls another file's factory of a model
    and another's reader of a CPU tensor, so it is checked (and not, with no such import)."""
    out = run(tmp_path, write(tmp_path, {"models.py": MODELS, "feeder.py": FEEDER,
                                         "reader.py": READER}))
    assert out["feeder.py"][0] is False
    plain = {"helpers.py": "def add(a, b):\n    return a + b\n",
             "main.py": "from helpers import add\n\nprint(add(1, 2))\n"}
    out = run(tmp_path / "plain", write(tmp_path / "plain", plain))
    assert out == {"helpers.py": (True, []), "main.py": (True, [])}


def test_a_huge_file_is_searched_across_its_chunks(tmp_path: Path) -> None:
    """A file over the size limit is read in chunks: a word that a chunk's end cuts is
    found, and the tail of a word kept across the boundary (``timm`` of ``xtimm``) is no
    word."""
    from torchferry.check.runner import _contains

    size = 1 << 20
    cut = tmp_path / "cut.py"
    cut.write_bytes(b"#" * (size - 3) + b"torch\n")
    tail = tmp_path / "tail.py"
    tail.write_bytes(b"#" * (size - 1 - prefilter.LONGEST) + b"xtimm" + b"#" * (prefilter.LONGEST - 4)
                     + b"\n" * 8)
    assert _contains(cut) and not _contains(tail)
