"""An integer device ordinal given to torch as a device -- ``torch.device(0)``, ``device=0``
of a torch function or layer, ``.to(0)`` and ``.to(device=0)`` of a tensor or a module --
is device 0 of the accelerator (torch raises "Cannot access accelerator device when none
is available" without one): FRY001 reports it as the hard-coded accelerator it is, where
nothing checks for one.  An int handed to anything else is not read as a device."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
from transformers import pipeline


def main(x, device):
    model = torch.nn.Linear(3, 3)
    t = torch.ones(3)
    LINE
    return model, t
"""


def found(line: str, source: str = SOURCE) -> list[tuple[int, str]]:
    src = textwrap.dedent(source.replace("LINE", line))
    return [(f.line, f.message.split("`")[1]) for f in check_source(src, "t.py", select=["FRY001"])]


@pytest.mark.parametrize(("line", "shown"), [
    ("t = torch.zeros(3, device=0)", "device=0"),
    ("model = torch.nn.Linear(3, 3, device=1)", "device=1"),
    ("model = model.to(0)", ".to(0)"),
    ("t = t.to(device=0)", ".to(device=0)"),
    ("d = torch.device(0)", "torch.device(0)"),
])
def test_an_ordinal_given_to_torch_as_a_device(line: str, shown: str) -> None:
    assert found(line) == [(9, shown)]


@pytest.mark.parametrize("line", [
    "p = pipeline('text-generation', model='gpt2', device=0)",  # another library's meaning
    "x = x.to(0)",  # ``x``: not known as a tensor or a module
    "t = t.to(torch.float32)",
    "t = t.to(True)",
    "ok = t.device == torch.device(0)",
    "n = torch.cuda.memory_allocated(device=0)",
    "t = t.to(0) if torch.cuda.is_available() else t",
])
def test_an_int_that_is_not_a_device_of_torch_or_is_guarded(line: str) -> None:
    assert found(line) == []


def test_the_fix_uses_the_device_variable() -> None:
    src = textwrap.dedent(SOURCE.replace("LINE", "model = model.to(0)"))
    fixes = [f.fix for f in check_source(src, "t.py", select=["FRY001"])]
    assert len(fixes) == 1 and fixes[0] is not None
    assert [e.content for e in fixes[0].edits] == ["device"]


def test_two_numbered_devices_are_model_parallelism() -> None:
    two = "model = model.to(0)\n    t = t.to(1)"
    assert found(two) == []


def test_two_numbered_cuda_devices_are_model_parallelism() -> None:
    two = 'devices = (torch.device("cuda", 0), torch.device("cuda", index=1))'
    assert found(two) == []


def test_one_numbered_cuda_device_is_reported() -> None:
    one = 'devices = (torch.device("cuda", 0), torch.device("cuda", 0))'
    assert [name for _, name in found(one)] == ['torch.device("cuda", 0)'] * 2
