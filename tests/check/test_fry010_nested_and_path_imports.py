"""Calls FRY010 follows that it did not: a function defined inside another (``def
create_model()`` nested in ``main()``), whose summary is read with the enclosing
function's names as they stand where it is defined (a closure, not the module's global of
the same name); and an import that resolves only through the script's own
``sys.path.insert``/``append`` of a directory above it (a module of a package, which the
import's name alone does not reach; unique among those directories)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

NET = '''
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc(x)
'''

NESTED_MODEL = NET + '''

def main():
    def create_model():
        return Net().cuda()

    model = create_model()
    x = torch.zeros(4, 10)
    return model(x)
'''

NESTED_MOVE = '''
import torch


def train(data):
    def to_gpu(t):
        return t.cuda()

    x = to_gpu(data)
    mask = torch.ones(4, 4)
    return x * mask
'''

NESTED_ASYNC_LAMBDA_FREE = '''
import torch


def train(data, device):
    def prepare(t, scale):
        return t.to(device) * scale

    x = prepare(data, 2.0)
    mask = torch.ones(4, 4)
    return x + mask
'''

NESTED_CPU = '''
import torch


def train(data):
    def back(t):
        return t.cpu()

    x = back(data.cuda())
    mask = torch.ones(4, 4)
    return x * mask
'''

CLOSURE = NET + '''

model = Net().cuda()


def evaluate():
    model = Net()

    def run(x):
        return model(x)

    return run(torch.zeros(2, 10))
'''


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(source), "t.py", select=["FRY010"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, s in enumerate(textwrap.dedent(source).splitlines(), 1) if text in s)


@pytest.mark.parametrize("source, text", [
    (NESTED_MODEL, "x = torch.zeros"), (NESTED_MOVE, "mask = torch.ones"),
    (NESTED_ASYNC_LAMBDA_FREE, "mask = torch.ones")])
def test_a_nested_function_is_followed_as_a_call_target(source: str, text: str) -> None:
    assert lines(source) == [line_of(source, text)]


def test_a_nested_function_that_moves_to_the_cpu_is_quiet() -> None:
    assert lines(NESTED_CPU) == []


def test_a_nested_function_reads_the_enclosing_local_not_the_global() -> None:
    assert lines(CLOSURE) == []


HELPERS = """\
import torch


def causal_mask(n):
    return torch.ones(n, n).tril()
"""
SCRIPT = """\
import os
import sys
from pathlib import Path
import torch
{insert}
from helpers import causal_mask


def step(scores):
    scores = scores.to("cuda")
    return scores * causal_mask(scores.shape[-1])
"""
INSERTS = [
    "sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..')))",
    "sys.path.append(str(Path(__file__).resolve().parents[1]))",
    "sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))",
]


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    paths = sorted(root.rglob("*.py"))
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    return [(Path(o.path).relative_to(root).as_posix(), d.line) for o in check_paths(paths, opts)
            for d in o.diagnostics]


@pytest.mark.parametrize("insert", INSERTS)
def test_an_import_through_the_scripts_own_sys_path(tmp_path: Path, insert: str) -> None:
    files = {"proj/__init__.py": "", "proj/helpers.py": HELPERS, "proj/tools/run.py": SCRIPT.format(insert=insert)}
    assert found(tmp_path, files) == [("proj/helpers.py", 5)]


def test_no_sys_path_change_no_import(tmp_path: Path) -> None:
    files = {"proj/__init__.py": "", "proj/helpers.py": HELPERS, "proj/tools/run.py": SCRIPT.format(insert="")}
    assert found(tmp_path, files) == []


def test_a_name_two_directories_above_hold_is_not_resolved(tmp_path: Path) -> None:
    files = {"proj/__init__.py": "", "proj/helpers.py": HELPERS, "proj/a/__init__.py": "",
             "proj/a/helpers.py": HELPERS, "proj/a/tools/run.py": SCRIPT.format(insert=INSERTS[0])}
    assert found(tmp_path, files) == []
