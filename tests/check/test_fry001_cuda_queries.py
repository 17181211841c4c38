"""FRY001 and the ``torch.cuda`` functions that raise without CUDA: ``synchronize()``,
``current_device()``, ``get_device_name()``, ``get_device_properties()`` and
``get_device_capability()`` initialise CUDA first and raise on a machine without it (the
CPU wheel's "Torch not compiled with CUDA enabled"), as ``.cuda()`` does.  The rule's
guards apply unchanged; the functions that answer without CUDA (``device_count()``,
``is_available()``, the memory statistics) are not flagged."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

FALLBACK = (
    "import torch\n"
    "\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "x = torch.ones(3, device=device)\n"
)

FLAGGED = {
    "synchronize": "torch.cuda.synchronize()\n",
    "synchronize-of-a-device": "torch.cuda.synchronize(device)\n",
    "current-device": "i = torch.cuda.current_device()\n",
    "device-name": "print(torch.cuda.get_device_name(0))\n",
    "device-properties": "p = torch.cuda.get_device_properties(0)\n",
    "device-capability": "major, minor = torch.cuda.get_device_capability()\n",
    "imported-by-name": "from torch.cuda import synchronize\nsynchronize()\n",
    "in-a-function": "def step():\n    y = x * 2\n    torch.cuda.synchronize()\n    return y\n\n\nstep()\n",
    "except-runtime-error-alone": (
        "try:\n    torch.cuda.synchronize()\nexcept RuntimeError:\n    pass\n"
    ),
}

QUIET = {
    "device-type-test": "if device == 'cuda':\n    torch.cuda.synchronize()\n",
    "availability-test": "if torch.cuda.is_available():\n    print(torch.cuda.get_device_name(0))\n",
    "after-leaving-arm": "if not torch.cuda.is_available():\n    raise SystemExit\ntorch.cuda.synchronize()\n",
    "both-failures-caught": (
        "try:\n    torch.cuda.synchronize()\nexcept (AssertionError, RuntimeError):\n    pass\n"
    ),
    "answers-without-cuda": "n = torch.cuda.device_count()\nm = torch.cuda.memory_allocated()\n",
    "only-referenced": "sync = torch.cuda.synchronize if device == 'cuda' else (lambda: None)\n",
    "another-library's-synchronize": "import other\nother.synchronize()\n",
    "own-function-of-the-name": "def synchronize():\n    pass\n\n\nsynchronize()\n",
}


def _found(source: str, select: list[str] | None) -> list[int]:
    return [f.line for f in check_source(FALLBACK + source, "t.py", select=select) if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_cuda_query_without_a_guard_is_flagged(case: str) -> None:
    assert _found(FLAGGED[case], ["FRY001"]) != []


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_the_default_set_flags_it_in_a_program_with_a_cpu_fallback(case: str) -> None:
    assert _found(FLAGGED[case], None) != []


@pytest.mark.parametrize("case", sorted(QUIET))
def test_a_guarded_or_harmless_call_is_quiet(case: str) -> None:
    assert _found(QUIET[case], ["FRY001"]) == []


def test_the_default_set_needs_the_fallback() -> None:
    """Without a CPU fallback in the program the call may be CUDA-only on purpose."""
    source = "import torch\n\ntorch.cuda.synchronize()\n"
    assert [f.line for f in check_source(source, "t.py") if f.code == "FRY001"] == []
    assert [f.line for f in check_source(source, "t.py", select=["FRY001"]) if f.code == "FRY001"] == [3]


def test_memory_statistics_beside_it_make_the_function_cuda_only() -> None:
    """A function that reads CUDA memory statistics without testing for a GPU is written
    for one (the rule's by-design reading)."""
    source = (
        "def bench(f):\n"
        "    torch.cuda.synchronize()\n"
        "    f()\n"
        "    return torch.cuda.max_memory_allocated()\n"
    )
    assert _found(source, ["FRY001"]) == []
