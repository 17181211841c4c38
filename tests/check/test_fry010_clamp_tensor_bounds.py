"""FRY010 and a 0-dimensional factory given as a bound of a clamp whose every bound is a
tensor (``torch.clamp(x, min=lo)``, ``torch.clamp(x, lo, hi)``, ``x.clamp_min(lo)``,
``x.clip(min=lo)``): that is the clamp's Tensor overload, which takes no 0-dimensional CPU
tensor beside one on an accelerator.  A bound written as a number (``torch.clamp(x, lo,
1.0)``) picks the Scalar overload, which reads the tensor as its number, as ``x * lo``
does; so does a bound of unknown kind (a parameter that may be a number)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

CODE = (
    "import torch\n"
    "\n"
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    "\n"
    "\n"
    "def f(n, hi):\n"
    "    x = torch.randn(n, device=device)\n"
    "    lo = torch.tensor(0.0)\n"
    "    return {USE}\n"
)


@pytest.mark.parametrize(("use", "lines"), [
    ("torch.clamp(x, min=lo)", [8]),
    ("torch.clamp(x, lo, torch.ones(()))", [8, 9]),
    ("x.clamp_min(lo)", [8]),
    ("x.clip(min=lo)", [8]),
    ("torch.clamp_max(x, lo)", [8]),
])
def test_a_tensor_bound_on_the_cpu_is_reported(use: str, lines: list[int],
                                               finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines({"f.py": CODE.replace("{USE}", use)}, "FRY010") == lines


@pytest.mark.parametrize("use", [
    "torch.clamp(x, lo, 1.0)",
    "torch.clamp(x, min=lo, max=1.0)",
    "x.clamp(lo, hi)",
    "x * lo",
])
def test_the_scalar_overload_is_quiet(use: str, finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines({"f.py": CODE.replace("{USE}", use)}, "FRY010") == []
