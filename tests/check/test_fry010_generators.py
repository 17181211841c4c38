"""FRY010 and a random factory's ``generator=``: the generator must be on the device the
factory builds on, so ``torch.rand(n, generator=g)`` without ``device=`` fails as it is built
when ``g`` is a CUDA generator, whatever its size. Reported where the code builds the
generator on an accelerator (with every selection); where only an annotation says it is a
``torch.Generator``, which its callers may build there, only where the rule is selected by
name (its hint level); quiet otherwise."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source


def found(src: str, select: str = "FRY010") -> list[tuple[int, str | None]]:
    return [(f.line, f.fix.message if f.fix else None)
            for f in check_source(src, "<case>", select=[select])]


def default(src: str) -> list[int]:
    return [f.line for f in check_source(src, "<case>") if f.code == "FRY010"]


SURE = {
    "literal-device": (
        "import torch\n"
        "def sample(n):\n"
        "    g = torch.Generator(device='cuda')\n"
        "    return torch.rand((), generator=g).item()\n"
    ),
    "chosen-device": (
        "import torch\n"
        "dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "gen = torch.Generator(dev)\n"
        "def sample(n):\n"
        "    return torch.randn(n, generator=gen)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(SURE))
def test_a_generator_built_on_an_accelerator_is_reported_by_default(name: str) -> None:
    src = SURE[name]
    (line, fix), = found(src)
    assert fix is not None and fix.startswith("Pass `device=g") and fix.endswith(".device`")
    assert default(src) == [line]


def test_an_annotated_parameter_is_a_hint() -> None:
    src = (
        "import torch\n"
        "def sample(n, *, generator: torch.Generator | None = None):\n"
        "    return torch.rand((), generator=generator).item()\n"
    )
    assert found(src) == [(3, None)]  # (no fix: the parameter may be None)
    assert found(src, "ALL") == [(3, None)]
    assert default(src) == []


QUIET = {
    "cpu-generator": (
        "import torch\n"
        "def sample(n):\n"
        "    g = torch.Generator()\n"
        "    return torch.rand(n, generator=g)\n"
    ),
    "cpu-literal": (
        "import torch\n"
        "def sample(n):\n"
        "    return torch.rand(n, generator=torch.Generator(device='cpu'))\n"
    ),
    "device-given": (
        "import torch\n"
        "def sample(n):\n"
        "    g = torch.Generator(device='cuda')\n"
        "    return torch.rand(n, generator=g, device='cuda')\n"
    ),
    "rebound": (
        "import torch\n"
        "def sample(n, flag):\n"
        "    g = torch.Generator(device='cuda')\n"
        "    if flag:\n"
        "        g = torch.Generator()\n"
        "    return torch.rand(n, generator=g)\n"
    ),
    "unannotated-parameter": (
        "import torch\n"
        "def sample(n, generator=None):\n"
        "    return torch.rand(n, generator=generator)\n"
    ),
    # (the default says where the author expects it)
    "annotated-with-a-cpu-default": (
        "import torch\n"
        "from typing import Optional\n"
        "def sample(n, generator: Optional[torch.Generator] = torch.Generator()):\n"
        "    return torch.rand(n, generator=generator)\n"
    ),
    "annotated-but-given-by-a-call": (
        "import torch\n"
        "def sample(n, generator: torch.Generator):\n"
        "    return torch.rand(n, generator=generator)\n"
        "def main():\n"
        "    return sample(3, torch.Generator())\n"
    ),
    "default-device-set": (
        "import torch\n"
        "torch.set_default_device('cuda')\n"
        "def sample(n):\n"
        "    g = torch.Generator(device='cuda')\n"
        "    return torch.rand(n, generator=g)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert found(QUIET[name]) == []
