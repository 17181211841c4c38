"""FRY004 stays quiet on a file the run's own code writes, by name, only with values that
hold no accelerator's tensors -- a model built and never moved, a tensor made from host
data -- in a file that moves nothing to a device, whether the save is in the same file
or in another file of the run (a training script and its evaluation script).  It still
fires where a save may hold a device's tensors, or its file moves values to a device."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths


def lines(src: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(src), "<case>", select=["FRY004"])]


NET = """
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
"""

QUIET = {
    "global-model-state-dict": NET + """
net = Net()
def train():
    torch.save(net.state_dict(), "net.pt")
def evaluate():
    net.load_state_dict(torch.load("net.pt"))
""",
    "held-model": NET + """
class Agent:
    def __init__(self):
        self.actor = Net().to(torch.float64)
    def save(self):
        torch.save(self.actor.state_dict(), "actor.pth")
    def load(self):
        self.actor.load_state_dict(torch.load("actor.pth"))
""",
    "tensor-from-host-data": """
import numpy as np
import torch
def build(rows):
    emb = torch.tensor(np.stack(rows))
    torch.save(emb, "emb.pt")
def load():
    return torch.load("emb.pt")
""",
}

FIRES = {
    "global-moved-by-another-function": NET + """
net = Net()
def setup():
    net.cuda()
def save():
    torch.save(net, "net.pt")
def evaluate():
    return torch.load("net.pt")
""",
    "held-model-moved": NET + """
class Agent:
    def __init__(self, device):
        self.actor = Net()
        self.device = device
    def gpu(self):
        self.actor.to(self.device)
    def save(self):
        torch.save(self.actor.state_dict(), "actor.pth")
    def load(self):
        self.actor.load_state_dict(torch.load("actor.pth"))
""",
    "model-given": NET + """
def save(model):
    torch.save(model, "m.pt")
def load():
    return torch.load("m.pt")
""",
    "stacked-parameter-tensors": """
import torch
def save(outputs):
    torch.save(torch.stack(outputs), "out.pt")
def load():
    return torch.load("out.pt")
""",
    "one-cpu-save-one-moved": NET + """
def main(device):
    a = Net()
    torch.save(a.state_dict(), "net.pt")
    b = Net().to(device)
    torch.save(b.state_dict(), "net.pt")
def evaluate(net):
    net.load_state_dict(torch.load("net.pt"))
""",
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_on_a_file_saved_from_the_cpu(name: str) -> None:
    assert lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FIRES))
def test_fires_where_a_save_may_hold_device_tensors(name: str) -> None:
    assert len(lines(FIRES[name])) == 1


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY004",), target_torch_version=None)
    return sorted((Path(o.path).name, d.line)
                  for o in check_paths(sorted(root.rglob("*.py")), opts, cache=None, jobs=1)
                  for d in o.diagnostics)


TRAIN_CPU = NET + """
policy = Net()
for episode in range(10):
    if episode % 5 == 0:
        torch.save(policy, "policy.pkl")
"""
TRAIN_TABLE = """
import os
import torch
CKPT = "ckpt"
def build(counts):
    table = torch.zeros(len(counts))
    torch.save(table, os.path.join(CKPT, "table.pth"))
"""
RUN = """
import os
import torch
policy = torch.load("policy.pkl")
table = torch.load(os.path.join("ckpt", "table.pth"))
"""


def test_quiet_on_a_file_another_script_saves_from_the_cpu(tmp_path: Path) -> None:
    files = {"train.py": TRAIN_CPU, "tables.py": TRAIN_TABLE, "run.py": RUN}
    assert found(tmp_path, files) == []


def test_fires_where_another_script_saves_device_tensors(tmp_path: Path) -> None:
    moved = TRAIN_CPU.replace("policy = Net()", "policy = Net()\npolicy.cuda()")
    given = TRAIN_TABLE.replace("torch.zeros(len(counts))", "counts")
    files = {"train.py": moved, "tables.py": given, "run.py": RUN}
    assert found(tmp_path, files) == [("run.py", 4), ("run.py", 5)]


def test_fires_where_a_second_script_saves_the_file_from_a_device(tmp_path: Path) -> None:
    gpu = NET + """
device = torch.device("cuda")
policy = Net().to(device)
torch.save(policy, "policy.pkl")
"""
    files = {"train.py": TRAIN_CPU, "train_gpu.py": gpu, "run.py": RUN}
    assert ("run.py", 4) in found(tmp_path, files)


def test_a_saving_file_is_a_dependency_of_the_loading_one(tmp_path: Path) -> None:
    from torchferry.check.flow import Project

    files = {str(tmp_path / n): textwrap.dedent(t).encode()
             for n, t in {"train.py": TRAIN_CPU, "run.py": RUN, "other.py": NET}.items()}
    project = Project(files, packages=set())
    run, train = str(tmp_path / "run.py"), str(tmp_path / "train.py")
    before = project.dependency_salt(run)
    assert before and project.savers(run, "policy.pkl") == [train]
    files[train] += b"\n"
    assert Project(files, packages=set()).dependency_salt(run) != before


def test_fires_where_the_saving_script_is_in_another_directory(tmp_path: Path) -> None:
    files = {"prep/train.py": TRAIN_CPU, "prep/tables.py": TRAIN_TABLE, "eval/run.py": RUN}
    assert found(tmp_path, files) == [("run.py", 4), ("run.py", 5)]


def test_fires_where_another_script_saving_tensors_moves_values(tmp_path: Path) -> None:
    prep = """
import torch
def main(rows):
    feats = torch.tensor(rows)
    torch.save(feats, "feats.pt")
    model = torch.nn.Linear(2, 2).cuda()
"""
    run = "import torch\nfeats = torch.load('feats.pt')\n"
    assert found(tmp_path, {"prep.py": prep, "run.py": run}) == [("run.py", 2)]
    assert found(tmp_path, {"prep.py": prep.replace(".cuda()", ""), "run.py": run}) == []
