"""FRY014 and a module class of the run built around a module that was already moved: a
wrapper whose ``__init__`` keeps the module it is given (``self.base = base``) holds that
module's weights where the module is, so the wrapper is not built on the CPU, and calling it
on a moved input is no mismatch.  A wrapper around a module left on the CPU still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

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


def _lines(tmp_path: Path, net: str, build: str) -> list[int]:
    (tmp_path / "main.py").write_text(SOURCE.replace("{net}", net).replace("{build}", build))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "main.py"], opts, jobs=1)
    return [d.line for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("build", [
    "Wrap(args, net)",
    "Wrap(base=net, args=args)",
    "Mixed(net)",
])
def test_a_wrapper_of_a_moved_module_is_not_built_on_the_cpu(tmp_path: Path, build: str) -> None:
    assert _lines(tmp_path, "nn.Linear(3, 3).to(args.device)", build) == []


def test_a_wrapper_of_a_wrapper_of_a_moved_module(tmp_path: Path) -> None:
    """``Mixed(Wrap(args, net))``: the outer wrapper is built around one that holds ``net``."""
    source = SOURCE.replace("    model = {build}\n", "    inner = Wrap(args, net)\n    model = Mixed(inner)\n")
    (tmp_path / "main.py").write_text(source.replace("{net}", "nn.Linear(3, 3).to(args.device)"))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "main.py"], opts, jobs=1)
    assert [d.line for o in outcomes for d in o.diagnostics] == []


@pytest.mark.parametrize("build", ["Wrap(args, net)", "Mixed(net)"])
def test_a_wrapper_of_an_unmoved_module_is_still_reported(tmp_path: Path, build: str) -> None:
    assert _lines(tmp_path, "nn.Linear(3, 3)", build) == [CALL_LINE]
