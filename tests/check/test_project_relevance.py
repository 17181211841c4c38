"""A helper whose text neither makes nor moves a tensor, checked because another file of
the run hands it one that may be on the device.

``ferry check`` interprets only the functions whose text mentions a factory, a move or a
loader (or calls one of the same file that does).  A plotting helper of ``viz.py`` or a
``predict`` function given a moved tensor or a moved model by ``train.py`` or ``app.py``
mentions none of these: it is checked all the same, with its parameters placed by those
callers.  Callers that pass CPU values, or no caller at all, leave it quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

VIZ = """\
import matplotlib.pyplot as plt


def plot_pair(signal, target):
    fig, ax = plt.subplots()
    ax.plot(signal.detach()[0])
    ax.plot(target.squeeze(0))
    plt.savefig("out.png")
"""
TRAIN = """\
import torch
from viz import plot_pair

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(loader, model):
    for x, y in loader:
        x, y = {move}
        out = model(x)
        plot_pair(out, y)
"""
MOVED = "x.to(device), y.to(device)"
UNMOVED = "x.float(), y.float()"
NET = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
"""
LOAD = """\
import numpy as np
import torch


def load_image(path):
    return torch.from_numpy(np.load(path)).float()
"""
PREDICT = """\
import torch
from utils import load_image


def predict(model, path):
    x = load_image(path)
    out = model(x)
    return out.argmax(1)
"""
APP = """\
import torch
from predict import predict
from model import Net


def load_model():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return Net(){move}


def main(path):
    model = load_model()
    print(predict(model, path))
"""
IMAGES = """\
import numpy as np


def to_image(t):
    return np.transpose(t.detach(), (1, 2, 0))
"""
EVALUATE = """\
import torch
import utils

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def evaluate(model, loader):
    for x, _ in loader:
        x = {move}
        print(utils.to_image(model(x)[0]))
"""
SCORES = """\
import numpy as np
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def scores(self, x):
        return np.array(self.fc(x).detach())
"""
SCORE = """\
import torch
from model import Net

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Net(){move}


def run(x):
    return net.scores(x)
"""


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return sorted(root.rglob("*.py"))


def found(root: Path, files: dict[str, str], select: str,
          cache: Cache | None = None) -> list[tuple[str, int, str]]:
    opts = Options(root=root, select=(select,), target_torch_version=None)
    outcomes = check_paths(write(root, files), opts, cache=cache, jobs=1)
    return [(Path(o.path).resolve().relative_to(root).as_posix(), d.line, d.code)
            for o in outcomes for d in o.diagnostics]


def test_a_plotting_helper_given_tensors_a_caller_moved(tmp_path: Path) -> None:
    """``plot_pair`` of ``viz.py`` (no torch word in the file) plots the model's output
    and the labels, which ``train.py`` moved; given the batch unmoved, it is quiet."""
    moved = {"viz.py": VIZ, "train.py": TRAIN.format(move=MOVED)}
    assert found(tmp_path / "moved", moved, "FRY003") == [("viz.py", 6, "FRY003"), ("viz.py", 7, "FRY003")]
    unmoved = {"viz.py": VIZ, "train.py": TRAIN.format(move=UNMOVED)}
    assert found(tmp_path / "unmoved", unmoved, "FRY003") == []


def test_a_predict_function_given_a_moved_model_and_cpu_input(tmp_path: Path) -> None:
    """``app.py`` hands ``predict`` the model ``load_model`` moved; ``predict`` calls it on
    an image a helper made on the CPU.  A model left on the CPU is quiet."""
    files = {"model.py": NET, "utils.py": LOAD, "predict.py": PREDICT}
    moved = {**files, "app.py": APP.format(move=".to(device)")}
    assert found(tmp_path / "moved", moved, "FRY014") == [("predict.py", 7, "FRY014")]
    unmoved = {**files, "app.py": APP.format(move="")}
    assert found(tmp_path / "unmoved", unmoved, "FRY014") == []


def test_a_helper_called_through_its_module(tmp_path: Path) -> None:
    """``import utils; utils.to_image(model(x)[0])`` with ``x`` moved: NumPy on the model's
    output; with ``x`` on the CPU, or no file calling it, quiet."""
    moved = {"utils.py": IMAGES, "evaluate.py": EVALUATE.format(move="x.to(device)")}
    assert found(tmp_path / "moved", moved, "FRY003") == [("utils.py", 5, "FRY003")]
    unmoved = {"utils.py": IMAGES, "evaluate.py": EVALUATE.format(move="x.float()")}
    assert found(tmp_path / "unmoved", unmoved, "FRY003") == []
    alone = {"utils.py": IMAGES, "evaluate.py": "import torch\nimport utils\n"}
    assert found(tmp_path / "alone", alone, "FRY003") == []


def test_a_method_called_on_a_model_another_file_moved(tmp_path: Path) -> None:
    """``net.scores(x)`` in ``run.py`` on the model it moved: ``Net.scores`` reads the
    output of its layer with NumPy; with the model on the CPU, quiet."""
    moved = {"model.py": SCORES, "run.py": SCORE.format(move=".to(device)")}
    assert found(tmp_path / "moved", moved, "FRY003") == [("model.py", 14, "FRY003")]
    unmoved = {"model.py": SCORES, "run.py": SCORE.format(move="")}
    assert found(tmp_path / "unmoved", unmoved, "FRY003") == []


def test_the_helpers_cached_findings_follow_its_caller(tmp_path: Path) -> None:
    """With the cache on: ``train.py`` stops moving the batch, ``viz.py`` is unchanged;
    its findings go, and come back with the move."""
    files = {"viz.py": VIZ, "train.py": TRAIN.format(move=MOVED)}
    expected = [("viz.py", 6, "FRY003"), ("viz.py", 7, "FRY003")]
    cache = Cache(tmp_path, "test")
    assert found(tmp_path, files, "FRY003", cache) == expected
    cache.save()
    for move, want in ((UNMOVED, []), (MOVED, expected)):
        files["train.py"] = TRAIN.format(move=move)
        cache = Cache(tmp_path, "test")
        assert found(tmp_path, files, "FRY003", cache) == want, move
        cache.save()
