"""FRY001 and a test of another accelerator's availability: ``if
torch.backends.mps.is_available(): ... else: x.cuda()`` runs the CUDA arm on a machine with
neither, so a test of mps, xpu, npu... guards no CUDA code in either arm. A test of CUDA
(``torch.cuda.is_available()``, a name bound to it) still guards the arm where it holds, and
the other accelerator's own device in its arm stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import torch\nfrom accelerate import is_xpu_available\n\n\n"

FLAGGED = {
    "else-of-mps": "def f(x):\n    if torch.backends.mps.is_available():\n        return x.to('mps')\n    else:\n        return x.cuda()\n",
    "else-of-xpu-helper": "def f(x):\n    if is_xpu_available():\n        return x.to('xpu')\n    else:\n        return x.to('cuda')\n",
    "chain-mps-xpu-cuda": (
        "def f(x):\n    if torch.backends.mps.is_available():\n        x = x.to('mps')\n"
        "    elif is_xpu_available():\n        x = x.to('xpu')\n    else:\n        x = x.cuda()\n    return x\n"
    ),
    "body-of-mps": "def f(x):\n    if torch.backends.mps.is_available():\n        torch.cuda.synchronize()\n",
    "not-npu": "def f(x):\n    if not torch.npu.is_available():\n        return x.cuda()\n    return x\n",
    "conditional-expression": "def f(x):\n    return x.to('mps') if torch.backends.mps.is_available() else x.cuda()\n",
    "name-bound-to-mps": "use_mps = torch.backends.mps.is_available()\n\n\ndef f(x):\n    if use_mps:\n        return x.to('mps')\n    else:\n        return x.cuda()\n",
}

QUIET = {
    "cuda-test": "def f(x):\n    if torch.cuda.is_available():\n        return x.cuda()\n    return x\n",
    "cuda-then-mps": (
        "def f(x):\n    if torch.cuda.is_available():\n        return x.cuda()\n"
        "    elif torch.backends.mps.is_available():\n        return x.to('mps')\n    return x\n"
    ),
    "mps-inside-cuda": (
        "def f(x):\n    if torch.cuda.is_available():\n        if torch.backends.mps.is_available():\n"
        "            return x\n        return x.cuda()\n    return x\n"
    ),
    "name-bound-to-cuda": "use_cuda = torch.cuda.is_available()\n\n\ndef f(x):\n    if use_cuda:\n        return x.cuda()\n    return x\n",
    "mps-or-cuda": "def f(x):\n    if torch.backends.mps.is_available() or torch.cuda.is_available():\n        return x.cuda()\n    return x\n",
    "count": "def f(x):\n    if torch.cuda.device_count() > 0:\n        return x.cuda()\n    return x\n",
}


def _fry001(src: str) -> list[int]:
    return [f.line for f in check_source(HEAD + src, select=["FRY001"])]


@pytest.mark.parametrize("src", FLAGGED.values(), ids=FLAGGED.keys())
def test_cuda_code_under_another_accelerators_test_is_flagged(src: str) -> None:
    assert _fry001(src)


@pytest.mark.parametrize("src", QUIET.values(), ids=QUIET.keys())
def test_a_cuda_test_still_guards(src: str) -> None:
    assert _fry001(src) == []


def test_the_other_accelerators_own_device_in_its_arm_is_quiet() -> None:
    src = "def f(x):\n    if torch.backends.mps.is_available():\n        return x.to('mps')\n    return x\n"
    assert _fry001(src) == []
