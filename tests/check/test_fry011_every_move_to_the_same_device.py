"""FRY011 on a plain tensor attribute that ``__init__`` puts on a device written out
(``.cuda()``, ``"cuda"``) where every instance of the module is moved by the code that holds
it to that same device and nowhere else (``self.model = Encoder(n)`` in a trainer, then only
``model = self.model.cuda()``): the attribute is where the parameters are on every machine
the program runs on, so no finding.  Reported still where the model may go elsewhere: a
second move to another device, a move to a device chosen apart, replication by
``nn.DataParallel`` (the model handed to a function), a model never moved, or an attribute
placed under a test."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

ENCODER = """\
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = nn.Linear(n, n)
        {store}

    def forward(self):
        return torch.sparse.mm(self.adj, self.emb.weight)
"""
PLACED = "self.adj = torch.eye(n).cuda()"
TRAINER = """\
import torch
import torch.nn as nn
from enc import Encoder


class Trainer:
    def __init__(self, n):
        self.model = Encoder(n)

    def train(self):
        {moves}
        opt = torch.optim.Adam(model.parameters())
        return model(), opt
"""
OUTER = """\
import torch
import torch.nn as nn
from enc import Encoder


class Outer(nn.Module):
    def __init__(self, n):
        super(Outer, self).__init__()
        self.encoder = Encoder(n)

    def forward(self):
        return self.encoder()


def main(n):
    model = Outer(n)
    {moves}
    return model()
"""
MAIN = """\
import torch
from enc import Encoder


def main(n):
    model = Encoder(n)
    {moves}
    return model()
"""

SAME = {
    "trainer_cuda": (TRAINER, "model = self.model.cuda()"),
    "trainer_cuda_string": (TRAINER, 'model = self.model.to("cuda")'),
    "main_cuda_then_eval": (MAIN, "model.cuda()\n    model.eval()"),
    "submodule_of_a_model_moved": (OUTER, "model.cuda()"),
}
ELSEWHERE = {
    "second_move_to_cpu": (TRAINER, "model = self.model.cuda()\n        model.cpu()"),
    "device_chosen_apart": (MAIN, 'model.to("cuda" if torch.cuda.is_available() else "cpu")'),
    "device_variable": (MAIN, "model.to(torch.device(n))"),
    "data_parallel": (TRAINER, "model = nn.DataParallel(self.model.cuda())"),
    "data_parallel_after": (MAIN, "model.cuda()\n    model = torch.nn.DataParallel(model)"),
    "handed_to_a_function": (MAIN, "model.cuda()\n    torch.compile(model)"),
    "never_moved": (MAIN, "model.eval()"),
    "moved_under_a_test": (MAIN, "if n > 1:\n        model.cuda()"),
    "applied_function": (MAIN, "model.cuda()\n    model.apply(print)"),
    "other_cuda_device": (MAIN, "model.cuda(1)"),
    "submodule_of_a_model_never_moved": (OUTER, "model.eval()"),
    "submodule_of_a_replicated_model": (OUTER, "model = nn.DataParallel(model.cuda())"),
}


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY011",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics]


def files(holder: str, moves: str, store: str = PLACED) -> dict[str, str]:
    return {"enc.py": ENCODER.format(store=store), "run.py": holder.format(moves=moves)}


@pytest.mark.parametrize("name", sorted(SAME))
def test_no_finding_where_every_move_goes_where_the_attribute_is(tmp_path: Path, name: str) -> None:
    assert found(tmp_path, files(*SAME[name])) == []


@pytest.mark.parametrize("name", sorted(ELSEWHERE))
def test_reported_where_the_model_may_go_elsewhere(tmp_path: Path, name: str) -> None:
    assert found(tmp_path, files(*ELSEWHERE[name])) == [("enc.py", 9)]


def test_reported_where_the_attribute_stays_on_the_cpu(tmp_path: Path) -> None:
    got = found(tmp_path, files(*SAME["trainer_cuda"], store="self.adj = torch.eye(n)"))
    assert got == [("enc.py", 9)]


def test_reported_where_the_attribute_is_placed_under_a_test(tmp_path: Path) -> None:
    store = "if n > 1:\n            self.adj = torch.eye(n).cuda()\n        else:\n            self.adj = torch.eye(n)"
    got = found(tmp_path, files(*SAME["trainer_cuda"], store=store))
    assert ("enc.py", 10) in got


def test_reported_where_another_file_builds_it_unheld(tmp_path: Path) -> None:
    more = {"other.py": "from enc import Encoder\n\n\ndef make(n):\n    return Encoder(n)\n"}
    got = found(tmp_path, {**files(*SAME["trainer_cuda"]), **more})
    assert got == [("enc.py", 9)]
