"""The syntactic model (``torchferry.check.scopes.Walker``, ``ctx.syntax``): names, classes,
bindings; the loop queries (``ctx.loops``); what rules ask the flow analysis
(``torchferry.check.flow.queries``)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from torchferry.check.api import Context
from torchferry.check.flow.queries import is_module, on_device_tensor
from torchferry.check.names import pos
from torchferry.check.scopes import How, Walker
from torchferry.check.training_loops import LoopKind


def model_of(src: str) -> Walker:
    return Context("<test>", src, ast.parse(src)).syntax


def _load(ctx: Context, name: str, line: int) -> ast.Name:
    """The load of ``name`` on ``line``."""
    return next(n for n in ast.walk(ctx.tree) if type(n) is ast.Name and n.id == name
                and n.lineno == line and type(n.ctx) is ast.Load)


def test_import_aliases_and_qualified_names() -> None:
    m = model_of(
        "import torch as T\n"
        "from torch import nn\n"
        "from torch.nn import Linear as L\n"
        "import numpy as np, matplotlib.pyplot as plt\n"
        "import torch.nn.functional as F\n"
        "from sklearn.metrics import accuracy_score\n"
        "from time import perf_counter\n"
        "import os.path\n"
    )
    q = m.qualname
    expr = lambda s: ast.parse(s, mode="eval").body  # noqa: E731
    assert q(expr("T.zeros")) == "torch.zeros"
    assert q(expr("nn.Linear")) == "torch.nn.Linear"
    assert q(expr("L")) == "torch.nn.Linear"
    assert q(expr("np.asarray")) == "numpy.asarray"
    assert q(expr("plt.plot")) == "matplotlib.pyplot.plot"
    assert q(expr("F.relu")) == "torch.nn.functional.relu"
    assert q(expr("accuracy_score")) == "sklearn.metrics.accuracy_score"
    assert q(expr("perf_counter")) == "time.perf_counter"
    assert q(expr("os.path.join")) == "os.path.join"
    assert q(expr("unknown.thing")) is None
    assert m.alias_of("torch") == "T"


@pytest.mark.slow  # starts processes
def test_try_except_fallback_resolves_to_the_first_import_whatever_the_hash_seed() -> None:
    src = (
        "try:\n    from torch import vmap\nexcept ImportError:\n    from functorch import vmap\n"
    )
    code = (
        "import ast\nfrom torchferry.check.api import Context\n"
        f"src = {src!r}\n"
        "m = Context('<t>', src, ast.parse(src)).syntax\n"
        "print(m.qualname(ast.parse('vmap', mode='eval').body))\n"
    )
    seen = set()
    for seed in ("0", "1", "2", "3"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        seen.add(out.stdout.strip())
    assert seen == {"torch.vmap"}


def test_module_subclasses_are_found_transitively() -> None:
    m = model_of(
        "import torch.nn as nn\n"
        "from torch.nn import Module\n"
        "class C(B): pass\n"  # defined before its base: order must not matter
        "class A(nn.Module): pass\n"
        "class B(A): pass\n"
        "class S(nn.Sequential): pass\n"
        "class R(Module): pass\n"
        "class Plain: pass\n"
        "class D(dict): pass\n"
    )
    assert {n for n, c in m.classes.items() if c.is_module} == {"A", "B", "C", "S", "R"}


_TRAIN = (
    "import torch\n"                                                  # 1
    "import torch.nn as nn\n"                                         # 2
    "from torch.utils.data import DataLoader\n"                       # 3
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"       # 4
    "def train(loader: DataLoader):\n"                                # 5
    "    net = nn.Sequential(nn.Linear(2, 2)).to(device)\n"           # 6
    "    for x, y in loader:\n"                                       # 7
    "        x = x.to(device)\n"                                      # 8
    "        out = net(x)\n"                                          # 9
    "        print(out, y, x, net)\n"                                 # 10
    "        with torch.no_grad():\n"                                 # 11
    "            ev = net(x)\n"                                       # 12
    "            print(ev)\n"                                         # 13
    "    cpu = torch.zeros(3)\n"                                      # 14
    "    print(cpu.sum(), torch.ones(2, device=device), device)\n"    # 15
)


def test_loops_over_a_loader_that_call_a_model_are_training_loops() -> None:
    ctx = Context("<test>", _TRAIN, ast.parse(_TRAIN))
    loop, loop_ctx = ctx.syntax.loops[0]
    assert ctx.loops.loop_iter_kind(loop, loop_ctx) is LoopKind.LOADER
    assert ctx.loops.is_training_loop(loop, loop_ctx)


def test_an_epoch_loop_around_a_batch_loop_is_not_hot_and_a_bare_range_needs_a_step() -> None:
    src = (
        "def fit(model, loader, epochs, xs):\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            model(x)\n"
        "    for i in range(len(xs)):\n"
        "        model(xs[i])\n"
    )
    ctx = Context("<test>", src, ast.parse(src))
    (epochs, ectx), (batches, bctx), (plain, pctx) = ctx.syntax.loops
    assert ctx.loops.loop_iter_kind(epochs, ectx) is LoopKind.EPOCHS
    assert ctx.loops.has_inner_batch_loop(epochs) and not ctx.loops.is_training_loop(epochs, ectx)
    assert ctx.loops.is_training_loop(batches, bctx)
    assert ctx.loops.loop_iter_kind(plain, pctx) is LoopKind.RANGE
    assert not ctx.loops.is_training_loop(plain, pctx)


def test_unknown_stays_unknown() -> None:
    src = (
        "import torch\n"
        "def f(thing, data):\n"
        "    a = thing.compute(data)\n"
        "    print(a, thing)\n"
    )
    ctx = Context("<test>", src, ast.parse(src))
    for name in ("a", "thing"):
        node = _load(ctx, name, 4)
        assert not is_module(ctx.flow, node) and not on_device_tensor(ctx.flow, node)


def test_a_loop_over_a_loader_named_so_through_tqdm() -> None:
    src = (
        "from tqdm import tqdm\n"
        "def f(train_loader, model):\n"
        "    for batch in tqdm(train_loader):\n"
        "        model(batch)\n"
    )
    ctx = Context("<test>", src, ast.parse(src))
    loop, loop_ctx = ctx.syntax.loops[0]
    assert ctx.loops.loop_iter_kind(loop, loop_ctx) is LoopKind.LOADER
    assert ctx.loops.is_training_loop(loop, loop_ctx)


def test_a_model_given_cpu_inputs_returns_cpu_outputs() -> None:
    src = (
        "import torch\nimport torch.nn as nn\n"
        "net = nn.Linear(2, 2)\n"
        "out = net(torch.ones(2))\n"
        "print(out, net)\n"
    )
    ctx = Context("<test>", src, ast.parse(src))
    assert not on_device_tensor(ctx.flow, _load(ctx, "out", 5))
    assert is_module(ctx.flow, _load(ctx, "net", 5))


def test_a_with_target_is_bound_inside_its_block() -> None:
    src = (
        "import torch\n"
        "x = torch.zeros(2)\n"
        "with torch.device('cuda') as x:\n"
        "    print(x)\n"
        "with open('a') as (f, g):\n"
        "    print(f, g)\n"
    )
    m = model_of(src)
    scope = m.module_scope
    tree = ast.parse(src)
    b = m.binding("x", scope, pos(tree.body[2].body[0]))
    assert b is not None and b.how is How.WITH and b.stmt.lineno == 3
    before = m.binding("x", scope, pos(tree.body[2]))
    assert before is not None and before.how is How.EXPR
    f = m.binding("f", scope, pos(tree.body[3].body[0]))
    assert f is not None and f.how is How.WITH and f.path == (0,)


def test_a_binding_in_an_if_body_does_not_reach_its_else() -> None:
    src = (
        "import torch\n"
        "def f(d, device):\n"
        "    if d is None:\n"
        "        d = torch.zeros(3).to(device)\n"
        "    elif len(d) > 3:\n"
        "        print(d)\n"
        "    else:\n"
        "        print(d)\n"
        "    print(d)\n"
    )
    m = model_of(src)
    fn = ast.parse(src).body[1]
    scope = next(s for s in m.functions if s.name == "f")
    elif_read = fn.body[0].orelse[0].body[0]
    else_read = fn.body[0].orelse[0].orelse[0]
    after = fn.body[1]
    for stmt in (elif_read, else_read):
        b = m.binding("d", scope, pos(stmt))
        assert b is not None and b.how is How.PARAM, stmt.lineno
    b = m.binding("d", scope, pos(after))
    assert b is not None and b.how is How.EXPR and b.stmt.lineno == 4


def test_fry003_is_quiet_in_the_else_of_the_branch_that_made_a_tensor() -> None:
    from torchferry.check.engine import check_source

    src = (
        "import numpy as np\n"
        "import torch\n"
        "def f(d, device):\n"
        "    if d is None:\n"
        "        d = torch.zeros(3).to(device)\n"
        "    else:\n"
        "        return np.array(d)\n"  # d is the caller's list here: .cpu() would break it
        "    return np.array(d)\n"
    )
    assert [(f.line, f.code) for f in check_source(src, "t.py", select=["FRY003"])] == [
        (8, "FRY003")
    ]
