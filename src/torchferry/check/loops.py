"""Loops: which loops are training/evaluation loops, their counters, logging guards.

A loop is a training/evaluation loop when it iterates a DataLoader (also through
``enumerate``/``tqdm``/``iter``), a ``range`` whose bounds or variable mention
epochs/steps/iterations, or is a ``while``, and its own body (not a nested loop's) calls
a model, ``.backward()`` or ``optimizer.step()``.  A loop over anything else is one when
its own body calls both ``.backward()`` and ``optimizer.step()``.  An epoch loop wrapped
around a batch loop is not itself hot.

>>> import ast
>>> src = ("import torch\\nmodel = torch.nn.Linear(2, 2)\\nloader = torch.utils.data.DataLoader([])\\n"
...        "for x in loader:\\n    model(x).sum().backward()\\n")
>>> lp = Loops(ast.parse(src))
>>> loop, ctx = lp.loops[0]
>>> lp.loop_iter_kind(loop, ctx), lp.is_training_loop(loop, ctx)
('loader', True)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchferry.check.facts import Facts
from torchferry.check.names import (
    EPOCHISH,
    GUARD_NAME,
    LOADER,
    MODULE,
    dotted,
    end_pos,
    learning_step,
    pos,
    tail,
)
from torchferry.check.scopes import Ctx, Site


class Loops(Facts):
    """Facts plus the loop queries (see the module docstring)."""

    def __init__(self, tree: ast.Module, module_classes: frozenset[str] = frozenset()) -> None:
        self._training: dict[int, bool] = {}
        super().__init__(tree, module_classes)

    def loop_iter_kind(self, loop: ast.AST, ctx: Ctx) -> str | None:
        """``"loader"`` for loops over a DataLoader (possibly through enumerate/tqdm),
        ``"range"`` for ``range(epochs)``-style or ``while`` loops, ``"range?"`` for other
        ranges, else None."""
        if isinstance(loop, ast.While):
            return "range"
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return None
        it = loop.iter
        while isinstance(it, ast.Call) and tail(it.func) in ("enumerate", "tqdm", "iter", "trange") \
                and it.args:
            if tail(it.func) == "trange":
                return "range"
            it = it.args[0]
        if isinstance(it, ast.Call) and tail(it.func) == "range":
            text = " ".join(dotted(a) or "" for a in it.args) + " " + " ".join(
                x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name))
            return "range" if EPOCHISH.search(text) else "range?"
        f = self.fact(it, ctx)
        if f is not None and f.kind == LOADER:
            return "loader"
        return None

    def loop_index_names(self, loop: ast.AST) -> set[str]:
        """Counter names of a loop: enumerate's index, range's variable."""
        names: set[str] = set()
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            it = loop.iter
            tg = loop.target
            if isinstance(it, ast.Call) and tail(it.func) == "enumerate":
                if isinstance(tg, ast.Tuple) and tg.elts and isinstance(tg.elts[0], ast.Name):
                    names.add(tg.elts[0].id)
            elif isinstance(it, ast.Call) and tail(it.func) in ("range", "trange") and \
                    isinstance(tg, ast.Name):
                names.add(tg.id)
        return names

    def direct_calls(self, loop: ast.AST, ctx: Ctx) -> Iterator[Site[ast.Call]]:
        """Calls directly in a loop's body (not inside a nested loop)."""
        for s in ctx.scope.calls_between(pos(loop), end_pos(loop)):
            if s.ctx.loops and s.ctx.loops[-1] is loop:
                yield s

    def is_training_loop(self, loop: ast.AST, ctx: Ctx) -> bool:
        """Is ``loop`` (recorded with context ``ctx``) a hot training/evaluation loop?"""
        key = id(loop)
        r = self._training.get(key)
        if r is None:
            r = False
            k = self.loop_iter_kind(loop, ctx)
            if k is not None and k != "loader" and self._has_inner_batch_loop(loop):
                k = None  # an epoch loop around a batch loop: its own body runs once per epoch
            if k is None and isinstance(loop, (ast.For, ast.AsyncFor)):
                # Any other iterable (a list of batches, a generator): a body that both
                # back-propagates and steps an optimizer is a training loop whatever it
                # iterates.  Both are required: either alone is not evidence enough here.
                seen = {learning_step(s.node) for s in self.direct_calls(loop, ctx)}
                r = "backward" in seen and "step" in seen
            if k is not None:
                for s in self.direct_calls(loop, ctx):
                    call = s.node
                    if learning_step(call) is not None:
                        r = True
                    elif k in ("loader", "range"):  # a model called on the batch
                        f = self.fact(call.func, s.ctx)
                        r = f is not None and f.kind == MODULE
                    if r:
                        break
            self._training[key] = r
        return r

    def has_inner_batch_loop(self, loop: ast.AST) -> bool:
        """Does ``loop`` hold a loop over a DataLoader (it is an epoch loop)?"""
        return self._has_inner_batch_loop(loop)

    def _has_inner_batch_loop(self, loop: ast.AST) -> bool:
        lo, hi = pos(loop), end_pos(loop)
        for other, octx in self.loops:
            if other is not loop and lo < pos(other) <= hi and loop in octx.loops and \
                    self.loop_iter_kind(other, octx) == "loader":
                return True
        return False

    def guarded(self, site_ctx: Ctx, loop: ast.AST) -> bool:
        """Is a node inside ``loop`` under an ``if`` that looks like a logging interval?"""
        lo, hi = pos(loop), end_pos(loop)
        idx = self.loop_index_names(loop)
        for ifnode, in_body in site_ctx.ifs:
            if not (lo <= pos(ifnode) <= hi) or not in_body:
                continue
            for x in ast.walk(ifnode.test):
                if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Mod):
                    return True
                if isinstance(x, ast.Name):
                    if x.id in idx or GUARD_NAME.search(x.id):
                        return True
                elif isinstance(x, ast.Attribute) and GUARD_NAME.search(x.attr):
                    return True
        return False
