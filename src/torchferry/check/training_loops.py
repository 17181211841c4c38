"""Loops: which loops are training/evaluation loops, their counters, logging guards.

A loop is a training/evaluation loop when it iterates a DataLoader (also through
``enumerate``/``tqdm``/``iter``), a ``range`` whose bounds or variable mention
epochs/steps/iterations, or is a ``while``, and its own body (not a nested loop's) calls
a model, ``.backward()`` or ``optimizer.step()``.  A loop over anything else is one when
its own body calls both ``.backward()`` and ``optimizer.step()``.  An epoch loop wrapped
around a batch loop is not itself hot.

What a value is (a loader, a module) is the device-flow analysis's answer
(:mod:`torchferry.check.flow`); where a loop is and what it calls directly, the syntactic
model's (:class:`torchferry.check.scopes.Walker`).

>>> import ast
>>> from torchferry.check.flow import analyze
>>> from torchferry.check.scopes import Walker
>>> src = ("import torch\\nmodel = torch.nn.Linear(2, 2)\\nloader = torch.utils.data.DataLoader([])\\n"
...        "for x in loader:\\n    model(x).sum().backward()\\n")
>>> tree = ast.parse(src)
>>> lp = Loops(Walker(tree), analyze(tree, "<example>"))
>>> loop, ctx = lp.syntax.loops[0]
>>> lp.loop_iter_kind(loop, ctx), lp.is_training_loop(loop, ctx)
(<LoopKind.LOADER: 'loader'>, True)
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator

from torchferry.check.flow import FileFlow, Kind
from torchferry.check.flow.queries import calls_module_in
from torchferry.check.flow.vocab import LOADER_NAME
from torchferry.check.names import (
    EPOCHISH,
    GUARD_NAME,
    Step,
    dotted,
    end_pos,
    learning_step,
    pos,
    tail,
)
from torchferry.check.scopes import Ctx, Site, Walker

#: calls that hand on the iterable they are given (``enumerate(loader)``)
_PASS_ITERABLE = ("enumerate", "tqdm", "iter", "trange")
_Loop = ast.For | ast.AsyncFor | ast.While


class LoopKind(enum.Enum):
    """What a loop iterates, as far as it tells how often its body runs."""

    LOADER = "loader"  # a DataLoader: once per batch
    EPOCHS = "epochs"  # ``range(epochs)``-style, ``trange``, or a ``while``
    RANGE = "range"  # another ``range``


class Loops:
    """The loop queries of one file (see the module docstring)."""

    def __init__(self, syntax: Walker, flow: FileFlow) -> None:
        self.syntax = syntax
        self.flow = flow
        self._training: dict[int, bool] = {}
        self._kinds: dict[int, LoopKind | None] = {}

    def loop_iter_kind(self, loop: ast.AST, ctx: Ctx) -> LoopKind | None:
        """What ``loop`` iterates (None: something else, or not a loop); memoised."""
        key = id(loop)
        if key not in self._kinds:
            self._kinds[key] = self._iter_kind(loop)
        return self._kinds[key]

    def _iter_kind(self, loop: ast.AST) -> LoopKind | None:
        if isinstance(loop, ast.While):
            return LoopKind.EPOCHS
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return None
        it = loop.iter
        while isinstance(it, ast.Call) and tail(it.func) in _PASS_ITERABLE and it.args:
            if tail(it.func) == "trange":
                return LoopKind.EPOCHS
            it = it.args[0]
        if isinstance(it, ast.Call) and tail(it.func) == "range":
            text = " ".join(dotted(a) or "" for a in it.args) + " " + " ".join(
                x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name))
            return LoopKind.EPOCHS if EPOCHISH.search(text) else LoopKind.RANGE
        return LoopKind.LOADER if self._iterates_loader(it) else None

    def _iterates_loader(self, it: ast.expr) -> bool:
        """Is ``it`` a DataLoader as the flow analysis sees it (made by one, or of unknown
        kind and named as one: ``train_loader``, ``self.val_dl``)?"""
        res = self.flow.scope_of(it)
        v = res.value(it) if res is not None else None
        if v is None:
            return False
        kinds = res.kind_of(v) if res is not None else None
        if kinds is not None:
            return kinds == frozenset((Kind.LOADER,))
        return any(LOADER_NAME.search(n.id if isinstance(n, ast.Name) else n.attr)
                   for n in ast.walk(it) if isinstance(n, (ast.Name, ast.Attribute)))

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
            r = self._training[key] = self._hot(loop, ctx)
        return r

    def _hot(self, loop: ast.AST, ctx: Ctx) -> bool:
        calls = list(self.direct_calls(loop, ctx))
        seen = {learning_step(s.node) for s in calls}
        # Any iterable (a list of batches, a generator): a body that both back-propagates
        # and steps an optimizer is a training loop whatever it iterates.  Both are
        # required: either alone is not evidence enough here.  (Tested first: it needs no
        # answer from the flow analysis.)
        if isinstance(loop, (ast.For, ast.AsyncFor)) and Step.BACKWARD in seen and Step.STEP in seen:
            return True
        k = self.loop_iter_kind(loop, ctx)
        if k is None or k is not LoopKind.LOADER and self.has_inner_batch_loop(loop):
            return False  # an epoch loop around a batch loop: its own body runs once per epoch
        if seen - {None}:
            return True
        if k is LoopKind.RANGE or not calls:
            return False
        head = loop.test if isinstance(loop, ast.While) else loop.iter  # type: ignore[attr-defined]
        res = self.flow.scope_of(head)
        return res is not None and any(calls_module_in(res, s.node) for s in calls)

    def has_inner_batch_loop(self, loop: ast.AST) -> bool:
        """Does ``loop`` hold a loop over a DataLoader (it is an epoch loop)?"""
        lo, hi = pos(loop), end_pos(loop)
        for other, octx in self.syntax.loops:
            if other is not loop and lo < pos(other) <= hi and loop in octx.loops and \
                    self.loop_iter_kind(other, octx) is LoopKind.LOADER:
                return True
        return False


def loop_index_names(loop: ast.AST) -> set[str]:
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


def guarded(site_ctx: Ctx, loop: ast.AST) -> bool:
    """Is a node inside ``loop`` under an ``if`` that looks like a logging interval (``%``,
    the loop's counter, ``verbose``, ``log_...``, or a name the body itself rebinds:
    ``if nimg >= last + tick:`` with ``last = nimg`` in the body)?"""
    lo, hi = pos(loop), end_pos(loop)
    idx = loop_index_names(loop)
    for ifnode, in_body in site_ctx.ifs:
        if not (lo <= pos(ifnode) <= hi) or not in_body:
            continue
        if rebound_by_body(ifnode):
            return True
        for x in ast.walk(ifnode.test):
            if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Mod):
                return True
            if isinstance(x, ast.Name):
                if x.id in idx or GUARD_NAME.search(x.id):
                    return True
            elif isinstance(x, ast.Attribute) and GUARD_NAME.search(x.attr):
                return True
    return False


def rebound_by_body(ifnode: ast.If) -> bool:
    """Does a statement directly in the ``if``'s body rebind a name its test reads (the mark
    of the next interval: ``tick_start = cur`` under ``if cur >= tick_start + k:``)?"""
    tested = {x.id for x in ast.walk(ifnode.test) if isinstance(x, ast.Name)}
    return any(isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id in tested
                                                  for t in st.targets)
               for st in ifnode.body)

