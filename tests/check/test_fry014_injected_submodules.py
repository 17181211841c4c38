"""FRY014 and a module class of the run whose weights are given to it: a wrapper whose
``__init__`` keeps the modules it is constructed with (``self.encoder = encoder``) owns
weights when a construction hands it a module with weights, built right there or bound to
a name the calling scope made it with; left on the CPU and called on an input moved to the
device, it fails as any model does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from torchferry.check.flow.program import FileFlow, builds_weights
from torchferry.check.runner import Options, check_paths

SOURCE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
    "\n"
    "class Flip(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x.flip(-1)\n"
    "\n"
    "\n"
    "class Pair(nn.Module):\n"
    "    def __init__(self, encoder, decoder):\n"
    "        super().__init__()\n"
    "        self.encoder = encoder\n"
    "        self.decoder = decoder\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.decoder(self.encoder(x))\n"
    "\n"
    "\n"
    "def train(model, xs):\n"
    "    for x in xs:\n"
    "        x = torch.as_tensor(x).cuda()\n"
    "        model(x)\n"
    "\n"
    "\n"
    "def main(xs):\n"
    "    enc = Encoder()\n"
    "    model = {build}\n"
    "    train(model, xs)\n"
)
CALL_LINE = SOURCE.splitlines().index("        model(x)") + 1


def _lines(tmp_path: Path, build: str) -> list[int]:
    (tmp_path / "run.py").write_text(SOURCE.replace("{build}", build))
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([tmp_path / "run.py"], opts, jobs=1)
    return [d.line for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("build", [
    "Pair(Encoder(), Flip())",
    "Pair(enc, Flip())",
    "Pair(decoder=Encoder(), encoder=Flip())",
])
def test_a_wrapper_given_weights_and_left_on_the_cpu_is_reported(tmp_path: Path, build: str) -> None:
    assert _lines(tmp_path, build) == [CALL_LINE]


@pytest.mark.parametrize("build", [
    "Pair(Flip(), Flip())",  # no weights given: nothing to mismatch
    "Pair(enc.cuda(), Flip())",  # the weights given are on the device
    "Pair(Encoder(), Flip()).cuda()",  # the wrapper moved, its submodules with it
    "Pair(*[Encoder(), Flip()])",  # the arguments not written out
])
def test_quiet_when_no_weights_are_given_or_they_are_moved(tmp_path: Path, build: str) -> None:
    assert _lines(tmp_path, build) == []


def _weights(build: str, stores: str = "") -> bool | None:
    src = SOURCE.replace("{build}", build) + stores
    ff = FileFlow(ast.parse(src), "<example>")
    call = next(n for n in ast.walk(ff.tree) if isinstance(n, ast.Assign) and
                isinstance(n.targets[0], ast.Name) and n.targets[0].id == "model")
    assert isinstance(call.value, ast.Call)
    return builds_weights(ff, call.value)


def test_builds_weights_follows_the_kept_arguments() -> None:
    assert _weights("Pair(Encoder(), Flip())") is True
    assert _weights("Pair(enc, Flip())") is True
    assert _weights("Pair(Flip(), Flip())") is not True


def test_an_attribute_another_method_stores_is_not_the_argument() -> None:
    rebinds = (
        "\n"
        "\n"
        "class Swapped(Pair):\n"
        "    def reset(self):\n"
        "        self.encoder = Flip()\n"
    )
    assert _weights("Swapped(Encoder(), Flip())", rebinds) is not True
