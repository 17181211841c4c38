"""A loader's batch handed, by keyword or by position, to a function of the run -- of the
same file or defined at module level in another file -- that runs the model on one item
and meets another with its output: the unmoved item is reported at the call (FRY014 for
the model's input, FRY013 for the item that meets the output), with evidence naming the
call, the keyword and the callee's file.  A call whose binding is not known (``**kw``,
``*args``, a keyword no parameter has) stays quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

LOSS = """\
import torch.nn.functional as F


def robust_loss(model, x, y, *, beta=1.0):
    model.train()
    logits = model(x)
    return F.cross_entropy(logits, y) * beta
"""
TRAIN = """\
import torch
import torch.nn as nn
from losses import robust_loss


def train(model, device, loader):
    for data, target in loader:
        data, target = {data}, {target}
        loss = {call}
        loss.backward()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 2).to(device)
    loader = torch.utils.data.DataLoader(list(range(8)))
    train(model, device, loader)


main()
"""
MOVED_DATA = {"data": "data.to(device)", "target": "target"}
MOVED_TARGET = {"data": "data", "target": "target.to(device)"}


def found(tmp_path: Path, call: str, moved: dict[str, str], one_file: bool = False
          ) -> list[tuple[str, int, str, tuple[str, ...]]]:
    train = TRAIN.format(call=call, **moved)
    if one_file:
        files = {"train.py": train.replace("from losses import robust_loss\n", "\n") + LOSS}
    else:
        files = {"losses.py": LOSS, "train.py": train}
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    opts = Options(root=tmp_path, select=("FRY013", "FRY014"), target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts, jobs=1)
    return [(Path(o.path).name, d.line, d.code, tuple(e.message for e in d.evidence))
            for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("one_file", [False, True])
@pytest.mark.parametrize(
    "call",
    ["robust_loss(model=model, x=data, y=target)", "robust_loss(model, y=target, x=data, beta=2.0)"],
)
def test_an_unmoved_input_passed_by_keyword_is_reported(tmp_path: Path, call: str, one_file: bool) -> None:
    out = found(tmp_path, call, MOVED_TARGET, one_file)
    assert [(f, line, code) for f, line, code, _ in out] == [("train.py", 9, "FRY014")]
    assert "it is handed here to `robust_loss` as keyword `x=`" in out[0][3]


def test_an_unmoved_target_passed_by_keyword_meets_the_output_in_the_other_file(tmp_path: Path) -> None:
    out = found(tmp_path, "robust_loss(model=model, x=data, y=target)", MOVED_DATA)
    assert [(f, line, code) for f, line, code, _ in out] == [("train.py", 9, "FRY013")]
    assert "it is handed here to `robust_loss` as keyword `y=`" in out[0][3]


def test_positional_arguments_across_files_are_reported(tmp_path: Path) -> None:
    out = found(tmp_path, "robust_loss(model, data, target)", MOVED_DATA)
    assert [(f, line, code) for f, line, code, _ in out] == [("train.py", 9, "FRY013")]


@pytest.mark.parametrize(
    "call",
    [
        "robust_loss(model, **{'x': data, 'y': target})",  # what the mapping holds is unknown
        "robust_loss(*(model, data, target))",
        "robust_loss(model, x=data, y=target, gamma=1)",  # no such parameter: a TypeError
        "robust_loss(model, data, x=data, y=target)",  # bound twice: a TypeError
        "robust_loss(model, data, target, 2.0)",  # beta is keyword-only: a TypeError
    ],
)
def test_a_call_whose_binding_is_not_known_stays_quiet(tmp_path: Path, call: str) -> None:
    assert found(tmp_path, call, MOVED_TARGET) == []
    assert found(tmp_path, call, MOVED_DATA) == []


def test_moved_items_are_not_reported(tmp_path: Path) -> None:
    moved = {"data": "data.to(device)", "target": "target.to(device)"}
    assert found(tmp_path, "robust_loss(model=model, x=data, y=target)", moved) == []
