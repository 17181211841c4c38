"""Fix safety as a contract: a safe fix never changes what the program computes.

Each case is a small program that sets ``RESULT``.  It is run before and after
``fix_source`` (safe fixes only, as plain ``--fix`` applies them) -- on the CPU, and in
the simulated GPU (``torchferry.simulate("cuda")``) where the device matters -- and the
results must be identical.  Cases whose fix is not safe check that ``--fix`` leaves the
code alone, and that the unsafe fix would indeed change the result (why it is unsafe).
"""

from __future__ import annotations

import ast

import pytest

torch = pytest.importorskip("torch")

import torchferry as tf  # noqa: E402
from torchferry.check.engine import check_source, fix_source  # noqa: E402


def run(code: str, tmp_path, simulate: bool = False) -> object:
    ns: dict[str, object] = {"__name__": "__fix_safety__", "TMP": str(tmp_path)}
    if simulate:
        with tf.simulate("cuda"):
            exec(compile(code, "<case>", "exec"), ns)
    else:
        exec(compile(code, "<case>", "exec"), ns)
    result = ns["RESULT"]
    if isinstance(result, torch.Tensor):
        return (str(result.device), result.dtype, result.cpu().tolist())
    return result


def fixed(code: str, select: str, unsafe: bool = False) -> str:
    res = fix_source(code, "<case>", select=[select], unsafe=unsafe)
    assert res.error is None
    ast.parse(res.source)
    return res.source


SAFE_CASES = {
    "FRY002": (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "x = torch.arange(6.0).reshape(2, 3)\n"
        "x.to(device)\n"
        "RESULT = x * 2\n"
    ),
    "FRY003": (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "torch.manual_seed(0)\n"
        "model = torch.nn.Linear(3, 2).to(device)\n"
        "with torch.no_grad():\n"
        "    torch.nn.init.constant_(model.weight, 0.5)\n"
        "    out = model(torch.ones(4, 3).to(device))\n"
        "RESULT = out.argmax(dim=1).numpy().tolist()\n"
    ),
    "FRY004": (
        "import os, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "torch.manual_seed(0)\n"
        "src = torch.nn.Linear(2, 2).to(device)\n"
        "torch.save(src.state_dict(), os.path.join(TMP, 'm.pt'))\n"
        "dst = torch.nn.Linear(2, 2).to(device)\n"
        "state = torch.load(os.path.join(TMP, 'm.pt'))\n"
        "dst.load_state_dict(state)\n"
        "RESULT = dst(torch.ones(1, 2, device=device))\n"
    ),
    "FRY009": (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "h = torch.ones(5, 2)\n"
        "a = torch.zeros((h.shape[0])).to(h.device, dtype=torch.bfloat16)\n"
        "b = torch.full((3,), 0.1).to(device, torch.bfloat16)\n"
        "c = torch.eye(3).to(device=device)\n"
        "RESULT = [t.cpu().tolist() for t in (a, b, c)] + [str(b.dtype), str(c.device)]\n"
    ),
}


@pytest.mark.parametrize("code", sorted(SAFE_CASES))
@pytest.mark.parametrize("simulate", [False, True], ids=["cpu", "simulated-gpu"])
def test_safe_fix_keeps_the_result(code, simulate, tmp_path) -> None:
    before = SAFE_CASES[code]
    found = check_source(before, "<case>", select=[code])
    assert any(f.fix is not None and f.fix.safe for f in found), "nothing safe to fix"
    after = fixed(before, code)
    assert after != before
    try:
        expected = run(before, tmp_path, simulate)
    except (TypeError, RuntimeError):  # the device mistake itself, on the (simulated) GPU
        assert simulate
        expected = run(before, tmp_path, simulate=False)
    assert run(after, tmp_path, simulate) == expected


def test_fry004_load_used_directly_is_not_fixed_safely(tmp_path) -> None:
    code = (
        "import os, torch\n"
        "torch.save(torch.ones(2).to('cuda'), os.path.join(TMP, 'e.pt'))\n"
        "emb = torch.load(os.path.join(TMP, 'e.pt'))\n"
        "RESULT = emb\n"
    )
    assert fixed(code, "FRY004") == code
    unsafe = fixed(code, "FRY004", unsafe=True)
    assert 'map_location="cpu"' in unsafe  # on a real GPU ``emb`` would come back on the CPU


@pytest.mark.parametrize("factory", ["torch.randn(4)", "torch.linspace(0, 1000, 777)"])
def test_fry009_random_and_float_step_factories_are_not_fixed_safely(factory, tmp_path) -> None:
    code = (
        "import torch\n"
        "device = 'cpu'\n"
        "torch.manual_seed(0)\n"
        f"RESULT = {factory}.to(device, torch.bfloat16)\n"
    )
    assert check_source(code, "<case>", select=["FRY009"])
    assert fixed(code, "FRY009") == code
    # the dtype is never folded: even the unsafe fix keeps ``.to(torch.bfloat16)``, so on
    # the CPU the values are the same
    unsafe = fixed(code, "FRY009", unsafe=True)
    assert ".to(torch.bfloat16)" in unsafe
    assert run(unsafe, tmp_path) == run(code, tmp_path)


def test_fry003_fix_only_on_a_known_tensor() -> None:
    code = (
        "import numpy as np, torch\n"
        "def helper():\n"
        "    return [1, 2]\n"
        "model = torch.nn.Linear(2, 2).cuda()\n"
        "out = model(helper())\n"
        "np.asarray(out)\n"
    )
    found = check_source(code, "<case>", select=["FRY003"])
    assert all(f.fix is None for f in found)


def test_fry010_fix_names_only_a_tensor_bound_there() -> None:
    code = (
        "import torch\n"
        "from torch import Tensor\n"
        "def run(cell, xs: Tensor):\n"
        "    h = torch.zeros(3)\n"
        "    for input_t in xs:\n"
        "        h = input_t + h\n"
        "    return h\n"
    )
    found = check_source(code, "<case>", select=["FRY010"])
    assert found and all(f.fix is not None for f in found)
    for f in found:
        assert f.fix is not None
        assert "input_t" not in f.fix.edits[0].content
        assert "xs.device" in f.fix.edits[0].content


FRY011_CASE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.scale = torch.tensor([0.1, 0.25, 3.0])\n"
    "    def forward(self, x):\n"
    "        return x * self.scale\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "model = Net().to(device)\n"
    "RESULT = model(torch.ones(2, 3, device=device))\n"
)


def test_fry011_fix_is_offered_only_as_unsafe_and_fixes_the_device_mistake(tmp_path) -> None:
    found = check_source(FRY011_CASE, "<case>", select=["FRY011"])
    assert len(found) == 1 and found[0].fix is not None and not found[0].fix.safe
    assert fixed(FRY011_CASE, "FRY011") == FRY011_CASE  # plain --fix leaves it alone
    after = fixed(FRY011_CASE, "FRY011", unsafe=True)
    assert 'register_buffer("scale"' in after
    # on the CPU the fixed program computes exactly what it did
    assert run(after, tmp_path) == run(FRY011_CASE, tmp_path)
    # on the (simulated) GPU the original fails -- the attribute stayed behind -- and the
    # fixed one runs there and gives the CPU's values
    with pytest.raises(RuntimeError, match="device"):
        run(FRY011_CASE, tmp_path, simulate=True)
    assert run(after, tmp_path, simulate=True)[1:] == run(FRY011_CASE, tmp_path)[1:]


def test_fry011_fix_is_unsafe_because_a_cast_now_reaches_the_attribute(tmp_path) -> None:
    # why the fix is not safe: ``model.half()`` casts buffers, not plain attributes, so the
    # product is computed in float16 after the fix and in float32 before
    code = FRY011_CASE.replace("model = Net().to(device)", "model = Net().half()").replace(
        "torch.ones(2, 3, device=device)", "torch.ones(2, 3, dtype=torch.float16)")
    after = fixed(code, "FRY011", unsafe=True)
    before_result, after_result = run(code, tmp_path), run(after, tmp_path)
    assert before_result[1] == torch.float32 and after_result[1] == torch.float16
    assert before_result != after_result


FRY006_CASE = (
    "import time\n"
    "import torch\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "model = torch.nn.Linear(3, 2).to(device)\n"
    "with torch.no_grad():\n"
    "    torch.nn.init.constant_(model.weight, 0.5)\n"
    "    torch.nn.init.zeros_(model.bias)\n"
    "def timed(x):\n"
    "    t0 = time.perf_counter()\n"
    "    y = model(x)\n"
    "    t1 = time.perf_counter()\n"
    "    return y, t1 - t0\n"
    "out, elapsed = timed(torch.ones(4, 3, device=device))\n"
    "RESULT = out\n"
)


@pytest.mark.parametrize("simulate", [False, True], ids=["cpu", "simulated-gpu"])
def test_fry006_fix_keeps_the_result_and_is_unsafe(simulate, tmp_path) -> None:
    found = check_source(FRY006_CASE, "<case>", select=["FRY006"])
    assert len(found) == 1 and found[0].fix is not None and not found[0].fix.safe
    assert fixed(FRY006_CASE, "FRY006") == FRY006_CASE  # plain --fix leaves it alone
    after = fixed(FRY006_CASE, "FRY006", unsafe=True)
    assert "torch.cuda.synchronize()" in after
    # the synchronize changes the time measured (the point), never the values computed;
    # it is unsafe because it names CUDA only (on Apple silicon the wait is torch.mps's)
    assert run(after, tmp_path, simulate) == run(FRY006_CASE, tmp_path, simulate)
