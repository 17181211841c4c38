"""FRY001 and parameter defaults: ``def f(x, device="cuda")`` is flagged where a call of the
run leaves ``device`` to its default (positional and keyword arguments bound as Python
binds them), at the default, with that call as evidence; quiet where every call passes the
device, where no call of the run is seen, and where some use of the function is not a call
the analysis can bind (handed on as a value, ``**kw``, a call under a test on availability).
In the default set, only in a program with a CPU fallback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

HEAD = "import torch\nimport torch.nn as nn\n\n\n"

RELIED = {
    "positional-call": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
        "y = helper(torch.ones(2))\n"
    ),
    "keyword-only": (
        "def helper(x, *, device=torch.device('cuda')):\n"
        "    return x.to(device)\n"
        "y = helper(x=torch.ones(2))\n"
    ),
    "one-constructor-of-two": (
        "class FF(nn.Module):\n"
        "    def __init__(self, dim, device: torch.device = 'cuda'):\n"
        "        super().__init__()\n"
        "        self.device = device\n"
        "        self.lin = nn.Linear(dim, dim)\n"
        "    def forward(self, x):\n"
        "        return self.lin(x.to(self.device))\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, dim, device):\n"
        "        super().__init__()\n"
        "        self.a = FF(dim, device=device)\n"
        "        self.b = FF(dim)\n"
    ),
}

PASSED = {
    "every-call-passes-it": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
        "a = helper(torch.ones(2), 'cpu')\n"
        "b = helper(torch.ones(2), device='cpu')\n"
    ),
    "no-call-in-the-run": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
    ),
    "handed-on-as-a-value": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
        "ys = list(map(helper, [torch.ones(2)]))\n"
        "z = helper(torch.ones(2), 'cpu')\n"
        "w = helper(torch.ones(2))\n"
    ),
    "spread-keywords": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
        "def run(**kw):\n"
        "    return helper(torch.ones(2), **kw)\n"
    ),
    "call-under-availability": (
        "def helper(x, device='cuda'):\n"
        "    return x.to(device)\n"
        "if torch.cuda.is_available():\n"
        "    y = helper(torch.ones(2))\n"
    ),
    "a-device-only-compared": (
        "def train(data, device: str = 'cuda'):\n"
        "    device_type = 'cuda' if 'cuda' in device else 'cpu'\n"
        "    with torch.autocast(device_type=device_type):\n"
        "        return data * 2\n"
        "y = train(torch.ones(2))\n"
    ),
    "not-a-device-parameter": (
        "def helper(x, backend='cuda'):\n"
        "    return backend == 'cuda'\n"
        "y = helper(torch.ones(2))\n"
    ),
    "a-method-called-on-an-object": (
        "class Tool:\n"
        "    def run(self, x, device='cuda'):\n"
        "        return x.to(device)\n"
        "y = Tool().run(torch.ones(2))\n"
    ),
}


def _found(source: str, select: list[str] | None = None) -> list[tuple[int, list[int]]]:
    return [(f.line, [e.line for e in f.evidence])
            for f in check_source(HEAD + source, "t.py", select=select or ["FRY001"]) if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(RELIED))
def test_a_default_a_call_relies_on_is_flagged_with_that_call(case: str) -> None:
    source = HEAD + RELIED[case]
    lines = source.splitlines()
    default = next(i for i, t in enumerate(lines, 1) if "'cuda'" in t)
    relying = max(i for i, t in enumerate(lines, 1) if ("helper(" in t or "FF(dim)" in t) and "def " not in t)
    assert _found(RELIED[case]) == [(default, [relying])]


@pytest.mark.parametrize("case", sorted(PASSED))
def test_a_default_no_known_call_relies_on_is_quiet(case: str) -> None:
    assert _found(PASSED[case]) == []


def test_the_default_set_reports_it_only_with_a_cpu_fallback() -> None:
    source = RELIED["positional-call"]
    assert [f.code for f in check_source(HEAD + source, "t.py")] == []
    fallback = "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    found = [f for f in check_source(HEAD + fallback + source, "t.py") if f.code == "FRY001"]
    assert [f.line for f in found] == [6]
    assert [e.line for e in found[0].evidence] == [8, 5]


MODULE = """\
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, dim, device='cuda'):
        super().__init__()
        self.device = device
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.lin(x.to(self.device))
"""

ENCODER = """\
import torch.nn as nn
from module import FeedForward


class Encoder(nn.Module):
    def __init__(self, dim, device):
        super().__init__()
        self.a = FeedForward(dim, device=device)
        self.b = FeedForward(dim{rest})
"""


def _run(tmp_path: Path, rest: str) -> list[tuple[str, int, list[tuple[str | None, int]]]]:
    files = {"module.py": MODULE, "encoder.py": ENCODER.format(rest=rest)}
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    opts = Options(root=tmp_path, select=["FRY001"], target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts, cache=None, jobs=1)
    return sorted((Path(o.path).name, d.line,
                   [(Path(e.path).name if e.path else None, e.line) for e in d.evidence])
                  for o in outcomes for d in o.diagnostics if d.code == "FRY001")


def test_a_construction_in_another_file_of_the_run_relies_on_the_default(tmp_path: Path) -> None:
    assert _run(tmp_path, "") == [("module.py", 6, [("encoder.py", 9)])]


def test_every_construction_of_the_run_passing_the_device_is_quiet(tmp_path: Path) -> None:
    assert _run(tmp_path, ", device=device") == []
