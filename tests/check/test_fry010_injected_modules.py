"""FRY010 and a module injected into a plain class: ``__init__`` stores its parameter
(``self.transformer = transformer``) and every construction of the class in the run gives
it a module with weights moved to the device (``HGN(transformer=nn.Linear(4, 3).to(device))``
in another file, or a module of a class outside the files moved there): a tensor made on
the CPU and handed to ``self.transformer(...)`` meets those weights.  Not where the module
given is left on the CPU, has no weights, is of unknown make, or where another method
stores the attribute too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

HGN = (
    "import torch\n"
    "\n"
    "\n"
    "class HGN:\n"
    "    def __init__(self, transformer, device):\n"
    "        self.transformer = transformer\n"
    "        self.device = device\n"
    "\n"
    "    def sample(self, n):\n"
    "        latent = torch.randn(n, 4)\n"
    "        return self.transformer(latent)\n"
)

LOADER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from nets import TransformerNet\n"
    "from hgn import HGN\n"
    "\n"
    "\n"
    "def build(device, given):\n"
    "    return HGN(transformer={MODULE}, device=device)\n"
)


def _run(finding_lines: Callable[..., list[int]], module: str, hgn: str = HGN) -> list[int]:
    return finding_lines({"hgn.py": hgn, "loader.py": LOADER.replace("{MODULE}", module)}, "FRY010")


@pytest.mark.parametrize("module", ["nn.Linear(4, 3).to(device)", "TransformerNet(4).to(device)"])
def test_a_moved_module_injected_by_every_construction_is_met(
    finding_lines: Callable[..., list[int]], module: str
) -> None:
    assert _run(finding_lines, module) == [10]


@pytest.mark.parametrize("module", ["nn.Linear(4, 3)", "nn.ReLU().to(device)", "given"])
def test_a_module_on_the_cpu_without_weights_or_unknown_is_quiet(
    finding_lines: Callable[..., list[int]], module: str
) -> None:
    assert _run(finding_lines, module) == []


def test_an_attribute_another_method_stores_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    hgn = HGN + (
        "\n"
        "    def load(self, path):\n"
        "        self.transformer = torch.load(path, map_location='cpu')\n"
    )
    assert _run(finding_lines, "nn.Linear(4, 3).to(device)", hgn) == []
