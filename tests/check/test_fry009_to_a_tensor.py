"""FRY009 and ``torch.<factory>(...).to(t)`` of a tensor ``t``: ``Tensor.to(other)`` copies
to ``other``'s device and casts to its dtype, as ``type_as`` does. Reported only where the
code itself establishes that ``t`` is a tensor; the fix keeps both the device and the dtype
and is never safe (traced code records ``t.device`` as a constant)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source


def found(src: str) -> list[tuple[int, str | None, bool | None]]:
    out = []
    for f in check_source(src, "<case>", select=["FRY009"]):
        out.append((f.line, f.fix.message if f.fix else None, f.fix.safe if f.fix else None))
    return out


FLAGGED = {
    # a parameter its function uses as a tensor
    "used-as-a-tensor": (
        "import torch\n"
        "def sqrtm(matrix, n):\n"
        "    dim = matrix.size(0)\n"
        "    eye = torch.eye(dim, dim).to(matrix)\n"
        "    return matrix.mm(eye)\n",
        (4, "Pass `device=matrix.device, dtype=matrix.dtype` to the factory", False),
    ),
    # computed by a torch function
    "computed": (
        "import torch\n"
        "def f(x):\n"
        "    m = torch.mean(x, dim=0)\n"
        "    return torch.zeros(3).to(m) + m\n",
        (4, "Pass `device=m.device, dtype=m.dtype` to the factory", False),
    ),
    # a dtype that is not exact in every dtype stays a cast on the device
    "full-keeps-the-cast": (
        "import torch\n"
        "def f(x):\n"
        "    m = torch.mean(x, dim=0)\n"
        "    return torch.full((3,), 0.1).to(m) + m\n",
        (4, "Pass `device=m.device` to the factory, keep `.to(m.dtype)`", False),
    ),
    # an annotated parameter that every call of the file gives a computed tensor
    "given-by-every-call": (
        "import torch\n"
        "def offset(mu: torch.Tensor, n):\n"
        "    return torch.eye(n).to(mu) * 1e-6\n"
        "def main(x):\n"
        "    return offset(torch.mean(x, dim=0), 3)\n",
        (3, "Pass `device=mu.device, dtype=mu.dtype` to the factory", False),
    ),
}


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged(name: str) -> None:
    src, expected = FLAGGED[name]
    assert found(src) == [expected]


QUIET = {
    # an annotation alone does not establish a tensor: it may be a device at run time
    "annotation-only": (
        "import torch\n"
        "def offset(mu: torch.Tensor, n):\n"
        "    return torch.eye(n).to(mu)\n"
    ),
    # a parameter of unknown kind: a device, a dtype or a tensor
    "unknown-parameter": (
        "import torch\n"
        "def f(target, n):\n"
        "    return torch.eye(n).to(target)\n"
    ),
    # both on the CPU: nothing is copied
    "cpu-tensor": (
        "import torch\n"
        "def f(n):\n"
        "    base = torch.ones(n)\n"
        "    return torch.zeros(n).to(base) + base\n"
    ),
    # a generator fixes the device the numbers are drawn on
    "generator": (
        "import torch\n"
        "def f(x, g):\n"
        "    m = torch.mean(x, dim=0)\n"
        "    return torch.rand(3, generator=g).to(m)\n"
    ),
    # a data factory converts on the host whatever its device: no work is saved
    "data-factory": (
        "import torch\n"
        "def f(x):\n"
        "    m = torch.mean(x, dim=0)\n"
        "    return torch.tensor([0.0]).to(m)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert found(QUIET[name]) == []


def test_requires_grad_gets_no_fix() -> None:
    src = (
        "import torch\n"
        "def f(matrix):\n"
        "    eye = torch.eye(matrix.size(0), requires_grad=False).to(matrix)\n"
        "    return matrix.mm(eye)\n"
    )
    assert found(src) == [(3, None, None)]
