"""FRY001 on by default in part: where only the default rule set runs it, a hard-coded
accelerator is reported in a program whose own code picks its device with a CPU fallback
(``"cuda" if torch.cuda.is_available() else "cpu"``), in the file itself, a file it
imports or a file that imports it; the evidence names the fallback.  A selector naming the
rule reports every hard-coded accelerator, and a flag or a name alone is no fallback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.api import Selected
from torchferry.check.engine import check_source
from torchferry.check.rules import fry001_hardcoded_accelerator as fry001
from torchferry.check.rules.fry001_hardcoded_accelerator import Certainty
from torchferry.check.runner import Options, check_paths

PICKED = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)


def step(batch):
    return model(batch.cuda())
"""

ELSE_ARM = """\
import torch

if torch.cuda.is_available():
    device = "cuda"
else:
    device = torch.device("cpu")
x = torch.ones(3, device="cuda")
"""

NO_FALLBACK = """\
import torch

model = torch.nn.Linear(4, 2).cuda()
"""

FLAG_ONLY = """\
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
use_cuda = not args.no_cuda
device = "cuda" if use_cuda else "cpu"
model = torch.nn.Linear(4, 2).cuda()
"""


def lines(source: str, **kw) -> list[int]:
    return [f.line for f in check_source(source, "t.py", **kw) if f.code == "FRY001"]


def test_the_default_set_reports_a_literal_where_the_file_falls_back_to_the_cpu() -> None:
    found = [f for f in check_source(PICKED, "t.py") if f.code == "FRY001"]
    assert [f.line for f in found] == [8]
    assert [(e.line, e.column) for e in found[0].evidence] == [(3, 22)]
    assert "falls back to the CPU" in found[0].evidence[0].message


def test_an_if_on_availability_whose_arm_assigns_the_cpu_is_a_fallback() -> None:
    assert lines(ELSE_ARM) == [7]


@pytest.mark.parametrize(("source", "line"), [(NO_FALLBACK, 3), (FLAG_ONLY, 9)])
def test_the_default_set_is_quiet_without_a_fallback_the_code_makes(source: str, line: int) -> None:
    assert lines(source) == []
    assert lines(source, select=["FRY001"]) == [line]


def test_a_selector_naming_the_rule_reports_every_finding() -> None:
    assert lines(PICKED, select=["ALL"]) == [8]
    assert fry001.REPORTED[Selected.NAMED] is Certainty.MAY
    assert fry001.REPORTED[Selected.BY_DEFAULT] is Certainty.CPU_PATH


HELPER = """\
import torch


def pick_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""

SCRIPT = """\
import torch
from helper import pick_device

device = pick_device()
model = torch.nn.Linear(4, 2).to(device)
for batch in [torch.ones(2, 4)]:
    model(batch.cuda())
"""

LIBRARY = """\
import torch


def embed(x):
    return x.cuda() * 2
"""

TRAIN = """\
import torch
from library import embed

device = "cuda" if torch.cuda.is_available() else "cpu"
print(embed(torch.ones(2, device=device)))
"""

ALONE = """\
import torch


def embed(x):
    return x.cuda() * 2
"""


def run(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str | None]]:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    opts = Options(root=tmp_path, select=None, target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts, cache=None, jobs=1)
    return sorted((Path(o.path).name, d.line,
                   Path(d.evidence[0].path).name if d.evidence and d.evidence[0].path else None)
                  for o in outcomes for d in o.diagnostics if d.code == "FRY001")


def test_a_fallback_in_a_file_the_script_imports_counts(tmp_path: Path) -> None:
    assert run(tmp_path, {"helper.py": HELPER, "script.py": SCRIPT}) == [
        ("script.py", 7, "helper.py")]


def test_a_fallback_in_a_file_that_imports_the_library_counts(tmp_path: Path) -> None:
    assert run(tmp_path, {"library.py": LIBRARY, "train.py": TRAIN, "alone.py": ALONE}) == [
        ("library.py", 5, "train.py")]
