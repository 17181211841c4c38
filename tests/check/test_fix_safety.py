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
            return _described(ns["RESULT"])  # the device as the simulation reports it
    exec(compile(code, "<case>", "exec"), ns)
    return _described(ns["RESULT"])


def _described(result: object) -> object:
    if isinstance(result, torch.Tensor):
        return (str(result.device), result.dtype, result.cpu().tolist())
    return result


def fixed(code: str, select: str, unsafe: bool = False) -> str:
    res = fix_source(code, "<case>", select=[select], unsafe=unsafe)
    assert res.error is None
    ast.parse(res.source)
    return res.source


SAFE_CASES = {
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
        "def train():  # a checkpoint written elsewhere, from the device\n"
        "    src = torch.nn.Linear(2, 2).to(device)\n"
        "    torch.save(src.state_dict(), os.path.join(TMP, 'm.pt'))\n"
        "train()\n"
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


# a checkpoint written from the (simulated) GPU by another function, as a training run does
_FRY004_TRAIN = (
    "import os, torch\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "torch.manual_seed(0)\n"
    "def train():\n"
    "    net = torch.nn.Linear(2, 2).to(device)\n"
    "    torch.save({'model': net.state_dict(), 'emb': torch.ones(2, device=device)},\n"
    "               os.path.join(TMP, 'ckpt.pt'))\n"
    "    torch.save(net.state_dict(), os.path.join(TMP, 'sd.pt'))\n"
    "train()\n"
    "model = torch.nn.Linear(2, 2).to(device)\n"
    "x = torch.ones(1, 2, device=device)\n"
)

FRY004_SAFE_SHAPES = {
    "argument": "model.load_state_dict(torch.load(os.path.join(TMP, 'sd.pt')))\n",
    "subscripted": "model.load_state_dict(torch.load(os.path.join(TMP, 'ckpt.pt'))['model'])\n",
    "name-subscripted": (
        "ckpt = torch.load(os.path.join(TMP, 'ckpt.pt'))\n"
        "model.load_state_dict(ckpt['model'], strict=True)\n"
    ),
    "self-in-a-module": (
        "class Net(torch.nn.Linear):\n"
        "    def restore(self, path):\n"
        "        self.load_state_dict(torch.load(path))\n"
        "model = Net(2, 2).to(device)\n"
        "model.restore(os.path.join(TMP, 'sd.pt'))\n"
    ),
}


@pytest.mark.parametrize("shape", sorted(FRY004_SAFE_SHAPES))
@pytest.mark.parametrize("simulate", [False, True], ids=["cpu", "simulated-gpu"])
def test_fry004_safe_fix_keeps_the_result(shape, simulate, tmp_path) -> None:
    """Every shape FRY004 marks safe runs identically before and after ``--fix``."""
    before = _FRY004_TRAIN + FRY004_SAFE_SHAPES[shape] + "RESULT = model(x)\n"
    found = check_source(before, "<case>", select=["FRY004"])
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safe
    after = fixed(before, "FRY004")
    assert 'map_location="cpu"' in after
    assert run(after, tmp_path, simulate) == run(before, tmp_path, simulate)


FRY004_UNSAFE_SHAPES = {
    # the loaded tensor is used directly: on the GPU it came back there, after the fix it is
    # on the CPU and ``emb + x`` mixes devices
    "used-directly": (
        "emb = torch.load(os.path.join(TMP, 'ckpt.pt'))['emb']\n"
        "RESULT = emb + x\n"
    ),
    # ``assign=True`` makes the loaded tensors the parameters: after the fix they are on
    # the CPU while the input is on the GPU
    "assign": (
        "model.load_state_dict(torch.load(os.path.join(TMP, 'sd.pt')), assign=True)\n"
        "RESULT = (str(model.weight.device), model(x).tolist())\n"
    ),
    # the same checkpoint also feeds something else than a module's load_state_dict
    "name-also-used": (
        "ckpt = torch.load(os.path.join(TMP, 'ckpt.pt'))\n"
        "model.load_state_dict(ckpt['model'])\n"
        "RESULT = ckpt['emb'] + x\n"
    ),
}


def _outcome(code: str, tmp_path, simulate: bool) -> object:
    try:
        return run(code, tmp_path, simulate)
    except RuntimeError as exc:
        return f"RuntimeError: {str(exc).splitlines()[0]}"


@pytest.mark.parametrize("shape", sorted(FRY004_UNSAFE_SHAPES))
def test_fry004_unsafe_fix_is_not_applied_and_would_change_the_result(shape, tmp_path) -> None:
    """Where the loaded object is not only copied into a module, ``--fix`` leaves the code
    alone, and the unsafe fix indeed changes what runs on the (simulated) GPU -- while on
    the CPU it changes nothing, which is why a CPU-only test would not catch it."""
    code = _FRY004_TRAIN + FRY004_UNSAFE_SHAPES[shape]
    found = check_source(code, "<case>", select=["FRY004"])
    assert len(found) == 1 and found[0].fix is not None and not found[0].fix.safe
    assert fixed(code, "FRY004") == code
    unsafe = fixed(code, "FRY004", unsafe=True)
    assert 'map_location="cpu"' in unsafe
    assert run(unsafe, tmp_path) == run(code, tmp_path)
    assert _outcome(unsafe, tmp_path, True) != _outcome(code, tmp_path, True)


@pytest.mark.parametrize("receiver", ["optimizer", "scheduler", "scaler", "ema"])
def test_fry004_fix_into_other_load_state_dicts_is_unsafe(receiver) -> None:
    """Only an ``nn.Module``'s ``load_state_dict`` copies into tensors where they live; an
    optimizer keeps ``state["step"]`` as loaded, schedulers/scalers/EMA helpers keep what
    they get: unsure, so not safe."""
    code = (
        "import torch\n"
        f"{receiver}.load_state_dict(torch.load('state.pt'))\n"
    )
    found = check_source(code, "<case>", select=["FRY004"])
    assert len(found) == 1 and found[0].fix is not None and not found[0].fix.safe


def test_fry004_fix_is_unsafe_where_the_file_defines_its_own_loading() -> None:
    code = (
        "import torch\n"
        "class Shadow(torch.nn.Module):\n"
        "    def load_state_dict(self, sd, strict=True):\n"
        "        self.shadow = sd\n"
        "model = Shadow()\n"
        "model.load_state_dict(torch.load('state.pt'))\n"
    )
    found = check_source(code, "<case>", select=["FRY004"])
    assert len(found) == 1 and found[0].fix is not None and not found[0].fix.safe


# udacity deep-learning-v2-pytorch, project-face-generation/problem_unittests.py: the
# discarded ``x.cuda()`` is a real mistake, but assigning it changes what runs where
FRY002_CASE = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "D = torch.nn.Linear(3, 1)\n"
    "x = torch.ones(4, 3)\n"
    "train_on_gpu = torch.cuda.is_available()\n"
    "if train_on_gpu:\n"
    "    x.cuda()\n"
    "x.half()\n"
    "RESULT = D(x).detach()\n"
)


def test_fry002_fix_is_unsafe_because_the_moved_or_cast_tensor_is_then_used(tmp_path) -> None:
    found = check_source(FRY002_CASE, "<case>", select=["FRY002"])
    assert len(found) == 2 and all(f.fix is not None and not f.fix.safe for f in found)
    assert fixed(FRY002_CASE, "FRY002") == FRY002_CASE  # plain --fix leaves it alone
    after = fixed(FRY002_CASE, "FRY002", unsafe=True)
    assert "    x = x.cuda()" in after and "x = x.half()" in after
    # before: the program runs, in float32, on the CPU and on the (simulated) GPU alike
    assert run(FRY002_CASE, tmp_path) == run(FRY002_CASE, tmp_path, simulate=True)
    # after: the cast now reaches the model (float16 input, float32 weights) on the CPU, and
    # on the GPU the input moves while the model D stays on the CPU
    with pytest.raises(RuntimeError):
        run(after, tmp_path)
    with pytest.raises(RuntimeError):
        run(after.replace("x = x.half()", "pass"), tmp_path, simulate=True)


@pytest.mark.parametrize("factory", ["torch.randn(4)", "torch.linspace(0, 1000, 777)"])
def test_fry009_random_and_float_step_factories_are_not_fixed_safely(factory, tmp_path) -> None:
    code = (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
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


def test_fry009_fix_with_requires_grad_is_unsafe_because_the_leaf_changes(tmp_path) -> None:
    code = (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "w = torch.zeros(3, requires_grad=True).to(device)\n"
        "(w * 2).sum().backward()\n"
        "RESULT = (w.is_leaf, None if w.grad is None else w.grad.tolist())\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY009"])
    assert found.fix is not None and not found.fix.safe
    assert fixed(code, "FRY009") == code
    after = fixed(code, "FRY009", unsafe=True)
    assert "torch.zeros(3, requires_grad=True, device=device)" in after
    assert run(after, tmp_path) == run(code, tmp_path) == (True, [2.0, 2.0, 2.0])
    # on the (simulated) GPU the original's w is a non-leaf copy without a gradient
    assert run(code, tmp_path, simulate=True) == (False, None)
    assert run(after, tmp_path, simulate=True) == (True, [2.0, 2.0, 2.0])


def test_fry009_type_as_fix_is_unsafe_and_keeps_eager_results(tmp_path) -> None:
    # gpytorch PR 467: ``torch.zeros(m, n).type_as(T)``; the unsafe fix creates it on T's
    # device in T's dtype.  Eager code computes the same; traced code would not (device=
    # becomes a constant of the trace), so plain --fix leaves it alone.  (CPU only: the
    # simulated GPU does not follow ``type_as``, a native call, as a move.)
    simulate = False
    code = (
        "import torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "T = torch.full((2, 3), 0.3, dtype=torch.float64, device=device)\n"
        "a = torch.zeros(2, 3).type_as(T)\n"
        "b = torch.full((2, 3), 0.1).type_as(T)\n"
        "c = torch.arange(3).type_as(T)\n"
        "RESULT = [(str(t.device), str(t.dtype), t.cpu().tolist()) for t in (a, b, c)]\n"
    )
    assert len(check_source(code, "<case>", select=["FRY009"])) == 3
    assert fixed(code, "FRY009") == code
    unsafe = fixed(code, "FRY009", unsafe=True)
    assert "torch.zeros(2, 3, device=T.device, dtype=T.dtype)" in unsafe
    assert "torch.full((2, 3), 0.1, device=T.device).to(T.dtype)" in unsafe
    assert run(unsafe, tmp_path, simulate) == run(code, tmp_path, simulate)


FRY003_FORMS = (
    "import numpy as np, torch\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "torch.manual_seed(0)\n"
    "model = torch.nn.Linear(3, 2).to(device)\n"
    "x = torch.ones(4, 3).to(device)\n"
    "out = model(x)\n"
    "a = out.detach().numpy()\n"  # a model output that needs no detach added
    "b = np.asarray(x + 1)\n"  # an expression: wrapped in parentheses
    "with torch.no_grad():\n"
    "    c = model(x).numpy()\n"
    "sd = model.state_dict()\n"
    "d = [sd[k].numpy().tolist() for k in sorted(sd)]\n"  # a state dict's values
    "RESULT = [a.tolist(), b.tolist(), c.tolist(), d]\n"
)


@pytest.mark.parametrize("simulate", [False, True], ids=["cpu", "simulated-gpu"])
def test_fry003_fixes_run_identically_before_and_after(simulate, tmp_path) -> None:
    found = check_source(FRY003_FORMS, "<case>", select=["FRY003"])
    assert len(found) == 4 and all(f.fix is not None and f.fix.safe for f in found)
    after = fixed(FRY003_FORMS, "FRY003")
    assert "model(x).cpu().numpy()" in after and "np.asarray((x + 1).cpu())" in after
    assert "sd[k].cpu().numpy()" in after
    if simulate:  # on the (simulated) GPU the original fails; the fix gives the CPU's values
        with pytest.raises(TypeError, match="numpy"):
            run(FRY003_FORMS, tmp_path, simulate=True)
        assert run(after, tmp_path, simulate=True) == run(FRY003_FORMS, tmp_path)
    else:
        assert run(after, tmp_path) == run(FRY003_FORMS, tmp_path)


def test_fry003_keyword_argument_of_scikit_learn_is_fixed_as_a_positional_one() -> None:
    # (scikit-learn is not installed here: the fix is checked as text)
    code = (
        "import torch\n"
        "from sklearn.metrics import accuracy_score\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "model = torch.nn.Linear(3, 2).to(device)\n"
        "labels = torch.zeros(4, dtype=torch.long).to(device)\n"
        "out = model(torch.ones(4, 3).to(device))\n"
        "RESULT = accuracy_score(y_true=labels, y_pred=out.argmax(1))\n"
    )
    found = {f.message.split("`")[3]: f for f in check_source(code, "<case>", select=["FRY003"])}
    assert sorted(found) == ["y_pred=out.argmax(1)", "y_true=labels"]
    made, output = found["y_true=labels"].fix, found["y_pred=out.argmax(1)"].fix
    assert made is not None and made.safe  # a tensor made here
    assert output is None  # a module's output handed to a function: maybe a tuple
    assert "accuracy_score(y_true=labels.cpu(), y_pred=out.argmax(1))" in fixed(code, "FRY003")


def test_fry003_list_of_tensors_is_reported_without_a_fix(tmp_path) -> None:
    # ``.cpu()`` on a list would raise AttributeError: no fix is offered (DHCN issue 14)
    code = (
        "import numpy as np, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "final = [torch.ones(2).to(device)]\n"
        "final.append(torch.zeros(2).to(device))\n"
        "RESULT = np.sum(final, 0).tolist()\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY003"])
    assert found.fix is None and "torch.stack(final)" in found.message
    assert run(code, tmp_path) == [1.0, 1.0]
    with pytest.raises(TypeError, match="numpy"):
        run(code, tmp_path, simulate=True)


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


def test_fry003_moved_parameter_is_reported_without_a_safe_fix() -> None:
    # moved here, so it may be on the device; but that it is a tensor rests on the
    # annotation and the ``.to`` call alone: no safe fix
    code = (
        "import numpy as np, torch\n"
        "def show(x: torch.Tensor, device):\n"
        "    y = x.to(device)\n"
        "    return np.asarray(y), y.numpy()\n"
    )
    found = check_source(code, "<case>", select=["FRY003"])
    assert len(found) == 2 and all(f.fix is None or not f.fix.safe for f in found)
    assert fixed(code, "FRY003") == code
    assert found[0].evidence and found[0].evidence[0].line == 3


@pytest.mark.parametrize("simulate", [False, True], ids=["cpu", "simulated-gpu"])
def test_fry003_fix_on_a_tensor_made_in_the_same_scope(simulate, tmp_path) -> None:
    code = (
        "import numpy as np, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "def stats(n):\n"
        "    t = torch.arange(n).to(device) * 2\n"
        "    return np.asarray(t).tolist(), (t + 1).numpy().tolist()\n"
        "RESULT = stats(3)\n"
    )
    found = check_source(code, "<case>", select=["FRY003"])
    assert len(found) == 2 and all(f.fix is not None and f.fix.safe for f in found)
    after = fixed(code, "FRY003")
    # the receiver's own parentheses hold the inserted call: no second pair
    assert "np.asarray(t.cpu())" in after and " (t + 1).cpu().numpy()" in after
    if simulate:
        with pytest.raises(TypeError, match="numpy"):
            run(code, tmp_path, simulate=True)
        assert run(after, tmp_path, simulate=True) == run(code, tmp_path)
    else:
        assert run(after, tmp_path) == run(code, tmp_path)


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


EXPORT_A_MODEL = """
import torch

def export(model: torch.nn.Module, batch_size: int = 2):
    model.eval()
    example = torch.randn(batch_size, 3)
    with torch.inference_mode():
        return model(example)

torch.manual_seed(0)
net = torch.nn.Linear(3, 2)
RESULT = export(net.to("cuda")).shape[0] if torch.cuda.is_available() else export(net).shape[0]
"""


def test_fry010_fix_for_a_model_names_its_parameters_device(tmp_path):
    """A module has no ``.device``: the fix reads its parameters' device, and runs."""
    (finding,) = [f for f in check_source(EXPORT_A_MODEL, select=["FRY010"])]
    assert "device=next(model.parameters()).device" in finding.message
    new = fixed(EXPORT_A_MODEL, "FRY010", unsafe=True)
    assert "torch.randn(batch_size, 3, device=next(model.parameters()).device)" in new
    assert run(new, tmp_path, simulate=True) == run(EXPORT_A_MODEL, tmp_path) == 2
    with pytest.raises(RuntimeError, match="same device|Expected all tensors"):
        run(EXPORT_A_MODEL, tmp_path, simulate=True)  # why the finding is real


# a released library's decoder: the parameters are annotated ``torch.Tensor``, every caller
# passes NumPy arrays; ``np.asarray(boxes[keep].cpu())`` raises AttributeError on every device
FRY003_ANNOTATED_DECODER = (
    "import numpy as np\n"
    "import torch\n"
    "class BoxDecoder:\n"
    "    def decode(self, boxes: torch.Tensor, scores: torch.Tensor, thresh: float = 0.5):\n"
    "        keep = scores > thresh\n"
    "        return np.asarray(boxes[keep]), np.array(scores[keep])\n"
    "    def labels(self, logits: torch.Tensor):\n"
    "        return logits.to(torch.float64).numpy().argmax(-1)\n"
    "dec = BoxDecoder()\n"
    "b, s = dec.decode(np.ones((3, 4)), np.array([0.2, 0.7, 0.9]))\n"
    "RESULT = (b.tolist(), s.tolist())\n"
)


def test_fry003_fix_on_an_annotated_parameter_is_not_safe(tmp_path) -> None:
    """An annotation is no proof: no safe fix, plain ``--fix`` leaves the decoder alone
    (the ``.cpu()`` the old safe fix inserted breaks it on the CPU already)."""
    found = check_source(FRY003_ANNOTATED_DECODER, "<case>", select=["FRY003"])
    assert not any(f.fix is not None and f.fix.safe for f in found)
    assert fixed(FRY003_ANNOTATED_DECODER, "FRY003") == FRY003_ANNOTATED_DECODER
    assert run(FRY003_ANNOTATED_DECODER, tmp_path) == ([[1.0] * 4] * 2, [0.7, 0.9])
    # what the old safe fix wrote
    broken = FRY003_ANNOTATED_DECODER.replace("np.asarray(boxes[keep])", "np.asarray(boxes[keep].cpu())")
    with pytest.raises(AttributeError, match="cpu"):
        run(broken, tmp_path)


@pytest.mark.parametrize("made", [
    "t = x.to(device)",  # a parameter moved: still only what the caller passed
    "t = GLOBAL + 1",  # a global, rebound anywhere
    "t = helper()",  # a callee's return
    "t = x.chunk(2)",  # a method that returns a tuple
])
def test_fry003_fix_is_safe_only_on_a_tensor_made_in_the_same_scope(made) -> None:
    code = (
        "import numpy as np, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "GLOBAL = torch.ones(2).to(device)\n"
        "def helper():\n"
        "    return torch.ones(2).to(device)\n"
        "def f(x: torch.Tensor):\n"
        f"    {made}\n"
        "    return np.asarray(t)\n"
    )
    for f in check_source(code, "<case>", select=["FRY003"]):
        assert f.fix is None or not f.fix.safe


@pytest.mark.parametrize("made", [
    "t, _ = pair()",  # an item of a callee's tuple, unpacked
    "t = pair()[0]",  # an item of a callee's tuple, by subscript
    "t = table()['a']",  # a value of a callee's dict
])
def test_fry003_fix_is_not_safe_on_a_part_of_a_callees_return(made) -> None:
    """The tensor is made in the callee, not in the scope the fix edits: reported, and
    the fix is offered as unsafe only."""
    code = (
        "import numpy as np, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "def pair():\n"
        "    return torch.ones(2).to(device), 1\n"
        "def table():\n"
        "    return {'a': torch.ones(2).to(device)}\n"
        "def f():\n"
        f"    {made}\n"
        "    return np.asarray(t)\n"
    )
    found = check_source(code, "<case>", select=["FRY003"])
    assert [f.line for f in found] == [9]
    assert found[0].fix is not None and not found[0].fix.safe


def test_fry003_fix_stays_safe_on_a_tensor_made_and_computed_in_the_same_scope() -> None:
    code = (
        "import numpy as np, torch\n"
        "def f(device):\n"
        "    t = torch.zeros(2, 3).to(device)\n"
        "    return np.asarray((t * 2 + 1)[0].T)\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY003"])
    assert found.fix is not None and found.fix.safe


# ``device`` is a device only by its name: here a tensor, whose ``.to(t)`` also casts
FRY009_NAMED_DEVICE = (
    "import torch\n"
    "def make(device):\n"
    "    return torch.zeros(3).to(device)\n"
    "RESULT = make(torch.ones(1, dtype=torch.float64))\n"
)


def test_fry009_fix_on_a_device_known_only_by_its_name_is_not_safe(tmp_path) -> None:
    (found,) = check_source(FRY009_NAMED_DEVICE, "<case>", select=["FRY009"])
    assert found.fix is not None and not found.fix.safe
    assert fixed(FRY009_NAMED_DEVICE, "FRY009") == FRY009_NAMED_DEVICE
    unsafe = fixed(FRY009_NAMED_DEVICE, "FRY009", unsafe=True)
    assert "torch.zeros(3, device=device)" in unsafe
    assert run(FRY009_NAMED_DEVICE, tmp_path) == ("cpu", torch.float64, [0.0, 0.0, 0.0])
    with pytest.raises(TypeError):
        run(unsafe, tmp_path)


@pytest.mark.parametrize("device", ["'cuda'", "torch.device('cuda')", "dev",
                                    "h.device"])
def test_fry009_fix_on_a_device_made_in_the_same_scope_is_safe(device) -> None:
    code = (
        "import torch\n"
        "def make():\n"
        "    dev = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "    h = torch.ones(2, device=dev)\n"
        f"    return torch.zeros(3).to({device})\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY009"])
    assert found.fix is not None and found.fix.safe


def test_fry004_fix_into_a_receiver_named_like_a_model_is_not_safe(tmp_path) -> None:
    """``model`` is a module only by its name: here an object whose ``load_state_dict``
    keeps what it is given, so ``map_location="cpu"`` changes where the tensors are."""
    code = _FRY004_TRAIN.replace("model = torch.nn.Linear(2, 2).to(device)\n", "") + (
        "import types\n"
        "kept = {}\n"
        "model = types.SimpleNamespace(load_state_dict=kept.update)\n"
        "model.load_state_dict(torch.load(os.path.join(TMP, 'ckpt.pt')))\n"
        "RESULT = kept['emb'] + x\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY004"])
    assert found.fix is not None and not found.fix.safe
    assert fixed(code, "FRY004") == code
    unsafe = fixed(code, "FRY004", unsafe=True)
    assert _outcome(unsafe, tmp_path, True) != _outcome(code, tmp_path, True)


def test_fry003_result_of_an_unseen_callable_gets_no_safe_fix() -> None:
    # that ``decode(x)`` returns a tensor on the device is inferred from what it is given,
    # not made so here: it may return a NumPy array, on which ``.cpu()`` raises
    code = (
        "import numpy as np, torch\n"
        "from helpers import decode\n"
        "x = torch.ones(2, device='cuda')\n"
        "a = decode(x).numpy()\n"
        "b = torch.clamp(decode(x), 0, 1)\n"
        "c = np.asarray(b)\n"
    )
    found = check_source(code, "<case>", select=["FRY003"])
    assert [f.line for f in found] == [4, 6]
    assert found[0].fix is None  # not known to be a tensor
    assert found[1].fix is not None and not found[1].fix.safe
    assert fixed(code, "FRY003") == code


@pytest.mark.parametrize("argument", ["pin_memory=True", "out=buf"])
def test_fry009_no_fix_where_the_factory_takes_a_cpu_only_argument(argument, tmp_path) -> None:
    """``torch.zeros(3, pin_memory=True).to("cuda")`` runs on a GPU machine; with
    ``device="cuda"`` passed to the factory it fails: pinned memory is host memory, and an
    ``out=`` tensor on the CPU cannot receive a tensor made on the GPU."""
    code = (
        "import torch\n"
        "def make(buf):\n"
        f"    return torch.zeros(3, {argument}).to('cuda')\n"
    )
    (found,) = check_source(code, "<case>", select=["FRY009"])
    assert found.fix is None
    assert fixed(code, "FRY009") == code
    assert fixed(code, "FRY009", unsafe=True) == code


def test_fry009_pinned_factory_made_on_the_gpu_fails_where_the_move_runs(tmp_path) -> None:
    """What the safe fix used to write: the original runs on the (simulated) GPU, the
    factory given ``device="cuda"`` raises (a real GPU's text: "Only dense CPU tensors can
    be pinned"; the simulation on torch's CPU build says no pinned allocator exists)."""
    before = "import torch\nRESULT = torch.zeros(3, pin_memory=True).to('cuda')\n"
    after = "import torch\nRESULT = torch.zeros(3, pin_memory=True, device='cuda')\n"
    assert run(before, tmp_path, simulate=True) == ("cuda:0", torch.float32, [0.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="pin_memory=True"):
        run(after, tmp_path, simulate=True)


def test_fry009_pin_memory_false_keeps_the_safe_fix() -> None:
    code = "import torch\nt = torch.zeros(3, pin_memory=False).to('cuda')\n"
    (found,) = check_source(code, "<case>", select=["FRY009"])
    assert found.fix is not None and found.fix.safe
    assert "torch.zeros(3, pin_memory=False, device='cuda')" in fixed(code, "FRY009")
