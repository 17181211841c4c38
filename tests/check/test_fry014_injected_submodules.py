"""FRY014 and a module class of the run whose weights are given to it: a wrapper whose
``__init__`` keeps the modules it is constructed with (``self.encoder = encoder``) owns
weights when a construction hands it a module with weights, built right there or bound to
a name the calling scope made it with; left on the CPU and called on an input moved to the
device, it fails as any model does."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from torchferry.check.flow.program import FileFlow, builds_weights

Lines = Callable[[dict[str, str], str], list[int]]

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


def _lines(finding_lines: Lines, build: str) -> list[int]:
    return finding_lines({"run.py": SOURCE.replace("{build}", build)}, "FRY014")


@pytest.mark.parametrize("build", [
    "Pair(Encoder(), Flip())",
    "Pair(enc, Flip())",
    "Pair(decoder=Encoder(), encoder=Flip())",
])
def test_a_wrapper_given_weights_and_left_on_the_cpu_is_reported(finding_lines: Lines, build: str) -> None:
    assert _lines(finding_lines, build) == [CALL_LINE]


@pytest.mark.parametrize("build", [
    "Pair(Flip(), Flip())",  # no weights given: nothing to mismatch
    "Pair(enc.cuda(), Flip())",  # the weights given are on the device
    "Pair(Encoder(), Flip()).cuda()",  # the wrapper moved, its submodules with it
    "Pair(*[Encoder(), Flip()])",  # the arguments not written out
])
def test_quiet_when_no_weights_are_given_or_they_are_moved(finding_lines: Lines, build: str) -> None:
    assert _lines(finding_lines, build) == []


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


#: an input of unknown kind (``src, n = batch.src``) moved to the device, given to a
#: wrapper left on the CPU whose ``forward`` reads the input's shape and hands it to the
#: encoder it was given; ``{first}`` is the encoder's first use of it
UNKNOWN_KIND = (
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.embed = nn.Embedding(9, 4)\n"
    "        self.rnn = nn.GRU(4, 4)\n"
    "\n"
    "    def forward(self, src):\n"
    "        {first}\n"
    "        return self.rnn(x)\n"
    "\n"
    "\n"
    "class Seq2Seq(nn.Module):\n"
    "    def __init__(self, encoder):\n"
    "        super().__init__()\n"
    "        self.encoder = encoder\n"
    "\n"
    "    def forward(self, src):\n"
    "        {wrapper}\n"
    "        return self.encoder(src)\n"
    "\n"
    "\n"
    "def train(model, batches):\n"
    "    for batch in batches:\n"
    "        src, n = batch.src\n"
    "        src = src.cuda()\n"
    "        model(src)\n"
    "\n"
    "\n"
    "def main(batches):\n"
    "    enc = Encoder()\n"
    "    train(Seq2Seq(enc), batches)\n"
)
UNKNOWN_CALL = UNKNOWN_KIND.splitlines().index("        model(src)") + 1


def _unknown(finding_lines: Lines, first: str, wrapper: str) -> list[int]:
    return finding_lines({"s2s.py": UNKNOWN_KIND.replace("{first}", first).replace("{wrapper}", wrapper)}, "FRY014")


@pytest.mark.parametrize("wrapper", ["n = src.size(1)", "b = src.shape[0]", "pass"])
def test_an_input_the_given_encoder_embeds_is_a_tensor(finding_lines: Lines, wrapper: str) -> None:
    assert _unknown(finding_lines, "x = self.embed(src)", wrapper) == [UNKNOWN_CALL]


@pytest.mark.parametrize(("first", "wrapper"), [
    ("x = self.rnn(src)", "n = src.size(1)"),  # a recurrent layer takes packed sequences too
    ("x = self.embed(src)", "src = src.data"),  # rebound before the encoder sees it
    ("x = self.embed(src)", "n = len(src)"),  # a use that is not a shape's read
])
def test_quiet_when_the_input_may_be_something_else(finding_lines: Lines, first: str, wrapper: str) -> None:
    assert _unknown(finding_lines, first, wrapper) == []
