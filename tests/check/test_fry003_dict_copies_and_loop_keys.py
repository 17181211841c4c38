"""The values of a dict follow it through a copy (``d.copy()``, ``dict(d)``), through a
dict comprehension handed to a function (``show({k: v.to(dev) for ...})``, then
``theta["a"]`` there), and to ``d[k]`` of a dict parameter under a loop over its own keys
(``for k in d.keys()``, ``for k, v in d.items()``): a value there that may be on the
accelerator, handed to NumPy, is reported."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch


def load(sd, device):
    return {k: v.to(device) for k, v in sd.items()}

"""

COPIED = HEAD + """
def main(sd):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    theta = COPY
    for key in theta.keys():
        print(theta[key].numpy())
"""

PASSED = HEAD + """
def show(theta):
    READ


def main(sd):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    show(PASSED)
"""


def lines(src: str) -> list[int]:
    src = textwrap.dedent(src)
    return [f.line for f in check_source(src, "t.py", select=["FRY003"])]


def numpy_line(src: str) -> int:
    return next(i for i, ln in enumerate(textwrap.dedent(src).splitlines(), 1) if ".numpy()" in ln)


@pytest.mark.parametrize("copy", ["load(sd, device).copy()", "dict(load(sd, device))",
                                  "dict(load(sd, device).copy())",
                                  "dict(zip(sd.keys(), [v.to(device) for v in sd.values()]))"])
def test_a_copy_holds_the_values(copy: str) -> None:
    src = COPIED.replace("COPY", copy)
    assert lines(src) == [numpy_line(src)]


@pytest.mark.parametrize("read", [
    'print(theta["a"].numpy())',
    "for key in theta.keys():\n        print(theta[key].numpy())",
    "for key, _ in theta.items():\n        print(theta[key].numpy())",
    "for key in tqdm(theta.keys()):\n        print(theta[key].numpy())",
])
@pytest.mark.parametrize("passed", ["{k: v.to(device) for k, v in sd.items()}", "load(sd, device)"])
def test_the_values_of_a_dict_handed_to_a_function(read: str, passed: str) -> None:
    src = PASSED.replace("READ", read).replace("PASSED", passed).replace("import torch", "import torch\nfrom tqdm import tqdm")
    assert lines(src) == [numpy_line(src)]


@pytest.mark.parametrize("read", [
    # the key is bound again in the loop: any name
    "for key in theta.keys():\n        key = key + '.w'\n        print(theta[key].numpy())",
    # a loop over something else's keys
    "for key in other.keys():\n        print(theta[key].numpy())",
])
def test_a_key_that_is_not_the_loop_key_over_the_dict(read: str) -> None:
    src = PASSED.replace("READ", read).replace("def show(theta)", "def show(theta, other={})")
    src = src.replace("PASSED", "{k: v.to(device) for k, v in sd.items()}")
    assert lines(src) == []


def test_a_literal_key_of_a_comprehension_whose_values_come_from_two_places() -> None:
    passed = "{k: (v.to(device) if k.startswith('w') else v.cpu()) for k, v in sd.items()}"
    src = PASSED.replace("READ", 'print(theta["a"].numpy())').replace("PASSED", passed)
    assert lines(src) == []


def test_values_brought_to_the_cpu_are_not_reported() -> None:
    src = COPIED.replace("COPY", "dict({k: v.to(device).cpu() for k, v in sd.items()})")
    assert lines(src) == []
