"""FRY001 and the ``torch.cuda`` functions that raise without CUDA: ``synchronize()``,
``current_device()``, ``get_device_name()``, ``get_device_properties()``,
``get_device_capability()``, ``mem_get_info()``... initialise CUDA first and raise on a
machine without it (the CPU wheel's "Torch not compiled with CUDA enabled"), as ``.cuda()``
does.  A call is quiet where the code establishes that CUDA is in use: the rule's guards,
a test of a device's type or name (``dev.type == "cuda"``, ``"cuda" in str(dev)``), an
earlier arm that leaves without it, a function called only under such a test, a device
parameter given a CUDA device at every call.  The functions that answer without CUDA
(``device_count()``, ``is_available()``, ``empty_cache()``, ``manual_seed()``, the memory
statistics) are not flagged."""

from __future__ import annotations

import pytest

from torchferry.check.engine import apply_fixes, check_source

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
    "memory-info": "free, total = torch.cuda.mem_get_info()\n",
    "peer-access": "ok = torch.cuda.can_device_access_peer(0, 1)\n",
    "under-a-cpu-test": "def f(dev):\n    if dev.type == 'cpu':\n        torch.cuda.synchronize()\n",
    "else-of-a-cuda-test": (
        "def f(dev):\n    if dev.type == 'cuda':\n        pass\n    else:\n        torch.cuda.synchronize()\n"
    ),
    "leaving-on-cuda": "def f(dev):\n    if dev.type == 'cuda':\n        return\n    torch.cuda.synchronize()\n",
    "one-caller-unguarded": (
        "def sync():\n    torch.cuda.synchronize()\n\n\nif device == 'cuda':\n    sync()\nsync()\n"
    ),
    "handed-as-a-value": (
        "def sync():\n    torch.cuda.synchronize()\n\n\nif device == 'cuda':\n    sync()\nhooks = [sync]\n"
    ),
    "parameter-given-a-cpu-device": (
        "def bench(d):\n    torch.cuda.synchronize(d)\n\n\nbench(torch.device('cuda'))\nbench(torch.device('cpu'))\n"
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
    "own-function-named-init": "def init():\n    pass\n\n\ninit()\n",
    "explicit-init": "torch.cuda.init()\n",
    "safe-without-cuda": (
        "torch.cuda.empty_cache()\ntorch.cuda.manual_seed(0)\ntorch.cuda.manual_seed_all(0)\n"
        "n = torch.cuda.device_count()\nok = torch.cuda.is_initialized()\n"
    ),
    "device-type-of-a-parameter": "def f(dev):\n    if dev.type == 'cuda':\n        torch.cuda.synchronize(dev)\n",
    "not-the-cpu": "def f(x):\n    if x.device.type != 'cpu':\n        torch.cuda.synchronize()\n",
    "is-cuda": "def f(x):\n    if x.is_cuda:\n        torch.cuda.synchronize()\n",
    "type-among-accelerators": "def f(dev):\n    if dev.type in ('cuda', 'mps'):\n        torch.cuda.synchronize()\n",
    "name-holds-cuda": "def f(dev):\n    if 'cuda' in str(dev):\n        torch.cuda.synchronize()\n",
    "name-starts-with-cuda": "def f(dev):\n    if str(dev).startswith('cuda'):\n        torch.cuda.synchronize()\n",
    "equal-to-a-cuda-device": "def f(dev):\n    if dev == torch.device('cuda'):\n        torch.cuda.synchronize()\n",
    "and-of-a-test": "def f(dev, timing):\n    if timing and dev.type == 'cuda':\n        torch.cuda.synchronize()\n",
    "else-of-a-cpu-test": (
        "def f(dev):\n    if dev.type == 'cpu':\n        pass\n    else:\n        torch.cuda.synchronize()\n"
    ),
    "conditional-expression": "def f(dev):\n    return torch.cuda.current_device() if dev.type == 'cuda' else -1\n",
    "name-bound-to-a-test": "def f(dev):\n    on = dev.type == 'cuda'\n    if on:\n        torch.cuda.synchronize()\n",
    "name-bound-to-availability": "ok = torch.cuda.is_available()\nif ok:\n    torch.cuda.synchronize()\n",
    "leaving-without-cuda": "def f(dev):\n    if dev.type != 'cuda':\n        return\n    torch.cuda.synchronize()\n",
    "leaving-in-an-enclosing-block": (
        "def f(dev, xs):\n    if dev.type != 'cuda':\n        raise SystemExit\n    for x in xs:\n"
        "        torch.cuda.synchronize()\n"
    ),
    "asserted": "def f(dev):\n    assert dev.type == 'cuda'\n    torch.cuda.synchronize()\n",
    "called-only-under-a-test": (
        "def sync():\n    torch.cuda.synchronize()\n\n\ndef step(dev):\n    if dev.type == 'cuda':\n"
        "        sync()\n\n\nstep(torch.device('cpu'))\n"
    ),
    "called-two-deep-under-a-test": (
        "def sync():\n    torch.cuda.synchronize()\n\n\ndef wait():\n    sync()\n\n\n"
        "if torch.cuda.is_available():\n    wait()\n"
    ),
    "parameter-given-a-cuda-device": (
        "def bench(d):\n    torch.cuda.synchronize(d)\n\n\nbench(torch.device('cuda'))\n"
    ),
    "parameter-left-to-a-cuda-default": (
        "def bench(n, d='cuda'):\n    torch.cuda.synchronize(d)\n\n\nbench(3)\n"
    ),
    "a-cuda-device-the-analysis-knows": "gpu = torch.device('cuda')\ntorch.cuda.synchronize(gpu)\n",
}


def _found(source: str, select: list[str] | None) -> list[int]:
    return [f.line for f in check_source(FALLBACK + source, "t.py", select=select) if f.code == "FRY001"]


def _queries(source: str) -> list[int]:
    """The lines of the findings on ``torch.cuda`` functions (not on a literal beside them)."""
    return [f.line for f in check_source(FALLBACK + source, "t.py", select=["FRY001"])
            if f.code == "FRY001" and "initialises CUDA" in f.message]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_cuda_query_without_a_guard_is_flagged(case: str) -> None:
    assert _found(FLAGGED[case], ["FRY001"]) != []


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_the_default_set_flags_it_in_a_program_with_a_cpu_fallback(case: str) -> None:
    assert _found(FLAGGED[case], None) != []


@pytest.mark.parametrize("case", sorted(QUIET))
def test_a_guarded_or_harmless_call_is_quiet(case: str) -> None:
    assert _queries(QUIET[case]) == []


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


def test_the_device_type_test_guards_a_move_too() -> None:
    """The tests of a device's type are the rule's guards for every site, ``.cuda()`` too."""
    source = "def f(dev, x):\n    if dev.type == 'cuda':\n        return x.cuda()\n    return x\n"
    assert _found(source, ["FRY001"]) == []


def test_the_flagged_query_offers_no_fix() -> None:
    """Guarding the call changes what runs on some machines: no fix, not even an unsafe one."""
    findings = [f for f in check_source(FALLBACK + "torch.cuda.synchronize()\n", "t.py", select=["FRY001"])
                if f.code == "FRY001"]
    assert findings and all(f.fix is None for f in findings)


def test_fry006_recommends_a_guarded_wait_that_fry001_leaves_alone() -> None:
    """FRY006's message names the guarded form, and its fix, applied, gives FRY001 nothing."""
    source = (
        FALLBACK
        + "import time\n\n"
        "a = torch.randn(400, 400, device=device)\n"
        "start = time.perf_counter()\n"
        "c = a @ a\n"
        "elapsed = time.perf_counter() - start\n"
    )
    timing = [f for f in check_source(source, "t.py", select=["FRY006"]) if f.code == "FRY006"]
    assert timing and "if torch.cuda.is_available():" in timing[0].message
    fixed = apply_fixes(source, timing, unsafe=True)
    assert "torch.cuda.synchronize()" in fixed
    assert [f for f in check_source(fixed, "t.py", select=["FRY001", "FRY006"])] == []
