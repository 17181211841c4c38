"""FRY014 and a module class of the run built around a module that was already moved: a
wrapper whose ``__init__`` keeps the module it is given (``self.base = base``) holds that
module's weights where the module is, so the wrapper is not built on the CPU, and calling it
on a moved input is no mismatch.  A wrapper around a module left on the CPU still is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lines = Callable[[dict[str, str], str], list[int]]

SOURCE = (
    "import argparse\n"
    "\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Wrap(nn.Module):\n"
    "    def __init__(self, args, base):\n"
    "        super().__init__()\n"
    "        self.args = args\n"
    "        self.base = base\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.base(x)\n"
    "\n"
    "\n"
    "class Mixed(nn.Module):\n"
    "    def __init__(self, base):\n"
    "        super().__init__()\n"
    "        self.base = base\n"
    "        self.head = nn.Linear(3, 3)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.head(self.base(x))\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--device', default='cpu')\n"
    "    args = parser.parse_args()\n"
    "    net = {net}\n"
    "    model = {build}\n"
    "    x = torch.randn(2, 3).to(args.device)\n"
    "    print(model(x))\n"
)
CALL_LINE = SOURCE.splitlines().index("    print(model(x))") + 1


def _lines(finding_lines: Lines, net: str, build: str) -> list[int]:
    return finding_lines({"main.py": SOURCE.replace("{net}", net).replace("{build}", build)}, "FRY014")


@pytest.mark.parametrize("build", [
    "Wrap(args, net)",
    "Wrap(base=net, args=args)",
    "Mixed(net)",
])
def test_a_wrapper_of_a_moved_module_is_not_built_on_the_cpu(finding_lines: Lines, build: str) -> None:
    assert _lines(finding_lines, "nn.Linear(3, 3).to(args.device)", build) == []


def test_a_wrapper_of_a_wrapper_of_a_moved_module(finding_lines: Lines) -> None:
    """``Mixed(Wrap(args, net))``: the outer wrapper is built around one that holds ``net``."""
    source = SOURCE.replace("    model = {build}\n", "    inner = Wrap(args, net)\n    model = Mixed(inner)\n")
    assert finding_lines({"main.py": source.replace("{net}", "nn.Linear(3, 3).to(args.device)")}, "FRY014") == []


@pytest.mark.parametrize("build", ["Wrap(args, net)", "Mixed(net)"])
def test_a_wrapper_of_an_unmoved_module_is_still_reported(finding_lines: Lines, build: str) -> None:
    assert _lines(finding_lines, "nn.Linear(3, 3)", build) == [CALL_LINE]
