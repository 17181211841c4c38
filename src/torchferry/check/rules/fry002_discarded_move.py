"""Discarded tensor move.

## What it does
Flags a tensor's `.to(...)`, `.cuda()`, `.cpu()`, `.float()`, `.half()`, `.double()`,
`.bfloat16()` or `.type(...)` written as a bare statement, so that its result is thrown away.
The device-flow analysis must hold the receiver to be a tensor: made by a tensor factory,
returned by a model or a torch function (in this function or through a helper of the checked
files), an item of a DataLoader batch (also one a loop over the whole batch binds, `for
tensor in batch: tensor.to(device)`: a collated tuple's or list's tensors, a collated tensor's
rows; also of a loader that is an attribute of a record built with keywords (`for x, y in
data.train` of `data = EasyDict(train=loader)` or of a function of the run that returns one;
also `types.SimpleNamespace`, `argparse.Namespace`; not an attribute that a file the record
may reach writes, `data.train = ...`, nor any where one writes attributes by computed names,
`setattr(d, k, v)`)), a parameter annotated `Tensor` or an input of a
module's `forward`, a parameter its function uses as a tensor (`H1.size(0)`, `H1.t()`,
passed to `F.cross_entropy`) or one that a call in the same file gives a tensor (and none
anything known not to be one), a name later passed unchanged to a model or loss call
(`inputs.to(device)` ... `model(inputs)`), a name in the `else` of an `if`/`elif` chain
whose other branches make it a tensor (`if isinstance(eye, np.ndarray): eye =
torch.from_numpy(eye).to(device)` ... `else: eye.to(device)`), or an item of the tuple that
the file's one method of that name returns (`t, weights = sampler.sample(n)`). Modules
(`model.to(device)` is in place; so is `ts_model.eval().to(device)`: `eval`, `train` and
`apply` return the module, and a tensor has no such method), a tensor a shape factory makes on the spot
(`torch.zeros(1).cuda()`, a warm-up that opens a device context: nothing holds it, so no
tensor is left on the old device; `torch.tensor(x).cuda()` still counts, its data came
from a value) and objects whose `.to` works in place (a whole batch
object, `for batch in loader` or `batch = next(iter(loader))`: a tokenizer's
`BatchEncoding`, a PyG `Data`, unless the name now holds a tensor the run made, `data =
data[0]` of a loader over a `TensorDataset` of tensors made on the CPU; also a parameter that every call of the run, one at least,
hands such a whole batch by name: `for data in loader: self.step(model, data)`; a name
of unknown kind whose function reads an attribute of it that no tensor has, `data.y`,
and never rebinds it) are not flagged. Nor is a call naming a keyword that no torch move
accepts (`structure.to(filename="x.cif")`, a file writer: torch 2.13's `to` takes only
`device`, `dtype`, `non_blocking`, `copy`, `memory_format` and `tensor`, `cuda` and `xpu`
only `device`, `non_blocking` and `memory_format`, `cpu` only `memory_format`; any other
raises TypeError on every tensor and module). Neither is the last
expression of a notebook cell: IPython displays its value (`y_preds.cpu()` shows the CPU
copy), unless a trailing `;` silences it.

The finding's evidence says why the receiver is a tensor (where it was made, the call that
gives it, the model call it is passed to).

## Why is this bad
"`.to()` returns a new tensor on the target device; it does not move the original.
`x.to(device)` alone, without the `=`, is the most common single-line GPU bug in existence:
it computes a copy and throws it away." The tensor stays where it was and the next
operation fails with "Expected all tensors to be on the same device" -- or, for a dtype
cast, silently keeps the old dtype.

## Example
```python
for inputs, labels in loader:
    inputs.to(device)
    labels.to(device)
    loss = criterion(model(inputs), labels)
```

## Use instead
```python
for inputs, labels in loader:
    inputs = inputs.to(device)
    labels = labels.to(device)
    loss = criterion(model(inputs), labels)
```

## Fix safety
Unsafe. When the receiver is a plain name the fix assigns the result back
(`x = x.to(device)`), which is what the statement was meant to do -- but it changes what
the program computes: the tensor now lives on the device (or has the new dtype), so the
code after it runs there, and a model that was never moved either now fails on a GPU
(udacity's `problem_unittests.py`: `if train_on_gpu: x.cuda()` then `D(x)` with `D` on the
CPU), and a discarded `.half()` assigned back computes in float16. Review it.
Attribute and subscript receivers (`batch["x"].to(device)`) and chains of conversions
(`w.float().cuda()`, whose message says `w = w.float().cuda()`) are reported without a fix, and
so is the name a loop over a batch binds (`for tensor in batch:`): assigning it keeps nothing
in the batch; the message shows the batch rebuilt from the moved items instead.

## Known limits
A receiver the analysis cannot place (a parameter neither annotated, used as a tensor nor
given one by a call in the file, nor indexed as an array, `x[i, :]`, in a run where no
class defines its own `to`, which may move an object's tensors in place; an attribute of an
unknown object; an attribute assigned
earlier in the same function, whose new value is not followed -- unless an earlier
statement of the same block stores in it a tensor made there, `inputs[key] =
torch.tensor(ids)` then `inputs[key].to(device)`, with no call and no rebinding of a name
it reads in between) is not flagged; calls from
other files do not count. A notebook cell that ends with `x.to(device)`, meant as a move,
only displays the copy and is not flagged either: the displayed value counts as used.
`obj.sample(...)` on an object the analysis cannot place is taken for the file's own
`sample` method when exactly one class of the file (not a module) defines it; a library
object with a method of the same name returning tensors the same way would be read the
same.
"""

from __future__ import annotations

import ast
import bisect
import re
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

from torchferry.check.api import Context, Finding, Fix, walk
from torchferry.check.flow import (
    Basis,
    Callee,
    FileFlow,
    Kind,
    Op,
    Project,
    ScopeResult,
    Value,
    Where,
)
from torchferry.check.flow.batches import made_item
from torchferry.check.flow.converted import read_as_an_object
from torchferry.check.flow.evidence import at, first
from torchferry.check.flow.places import iterated_batch, whole_batch
from torchferry.check.flow.vocab import MODEL_NAME
from torchferry.check.names import BODY_FIELDS, DEVICE_FACTORIES, MOVE_KEYWORDS, MOVE_METHODS, short

CODE = "FRY002"
NAME = "discarded-move"
FIX = "unsafe"

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TENSORISH = frozenset((Kind.TENSOR, Kind.BATCH))


class Why(NamedTuple):
    """Why the receiver is a tensor: a sentence, and the node or line it points at."""

    text: str
    node: ast.AST | None = None
    #: the batch a loop iterates to bind the receiver: assigning the loop's name keeps
    #: nothing in it, so there is no one-line fix
    batch: ast.Name | None = None


def check(ctx: Context) -> Iterable[Finding]:
    ff: FileFlow = ctx.flow
    for _ in ff.results():  # every relevant scope interpreted: the file's call sites known
        pass
    last_in_cell = _last_in_cell(ctx)
    graph = any(q.startswith(("torch_geometric", "dgl")) for q in ff.imports.values())
    for scope, st in _discarded(ctx.tree):
        if id(st) in last_in_cell:
            continue  # a notebook cell's last expression is displayed: its value is used
        call = st.value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        if call.func.attr == "type" and not call.args and not call.keywords:
            continue  # ``x.type()`` returns the type name: pointless, but not a move
        if _foreign_keyword(call):
            continue  # ``structure.to(filename=...)``: no tensor's or module's move takes it
        if _throwaway(ff, call.func.value):
            continue  # a fresh tensor nothing holds: no tensor is left behind on the old device
        if _module_self(call.func.value):
            continue  # ``net.eval().to(device)``: a module, moved in place
        res = ff.module_result() if isinstance(scope, ast.Module) else ff.result(scope)
        why = _tensor(ff, res, st, call.func.value, graph)
        if why is not None:
            yield _finding(ctx, call, st, why)


def _foreign_keyword(call: ast.Call) -> bool:
    """Does ``call``, a ``.to``/``.cuda``/``.cpu``/``.xpu`` call, name a keyword that no torch
    move accepts?  Then it raises TypeError on every tensor and module: not a move.

    >>> _foreign_keyword(ast.parse('s.to(filename="x.cif")', mode="eval").body)
    True
    >>> _foreign_keyword(ast.parse("x.to(device=d, non_blocking=True)", mode="eval").body)
    False
    """
    assert isinstance(call.func, ast.Attribute)
    accepted = MOVE_KEYWORDS.get(call.func.attr)
    return accepted is not None and any(k.arg is not None and k.arg not in accepted
                                        for k in call.keywords)


#: methods of ``nn.Module`` that return the module itself and that a tensor does not have
#: (``Tensor`` has ``apply_`` and ``share_memory_``, not these): their result is a module
_MODULE_ONLY_SELF = frozenset({"eval", "train", "apply", "zero_grad", "share_memory"})


def _module_self(recv: ast.expr) -> bool:
    """Is ``recv`` what a module-only method returns (``ts_model.eval()``), the module
    itself, whose ``.to(device)`` moves it in place?

    >>> _module_self(ast.parse("m.eval()", mode="eval").body), _module_self(ast.parse("x.float()", mode="eval").body)
    (True, False)
    """
    return isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute) \
        and recv.func.attr in _MODULE_ONLY_SELF


def _throwaway(ff: FileFlow, recv: ast.expr) -> bool:
    """Is ``recv`` a tensor that a shape factory makes on the spot (``torch.zeros(1)``)?
    Nothing holds it and it is made from no value of the program, so moving it and
    discarding the copy leaves no tensor on the old device (a warm-up that opens a device
    context, ``torch.zeros(1).cuda()``). A data factory (``torch.tensor(x)``) is not one:
    its data came from a value the move may have been meant for.

    >>> from torchferry.check.flow import analyze
    >>> ff = analyze(ast.parse("import torch"), "a.py")
    >>> _throwaway(ff, ast.parse("torch.zeros(1)", mode="eval").body)
    True
    >>> _throwaway(ff, ast.parse("torch.tensor(x)", mode="eval").body)
    False
    """
    if not isinstance(recv, ast.Call):
        return False
    q = ff.qualname(recv.func)
    return q is not None and q.startswith("torch.") and q.count(".") == 1 \
        and q.rsplit(".", 1)[1] in DEVICE_FACTORIES


def _last_in_cell(ctx: Context) -> set[int]:
    """For a notebook, the ``id`` of each cell's last statement when it is an expression
    that IPython displays (``ast_node_interactivity="last_expr"``): the cell's last
    top-level statement, not followed by a ``;``, which silences the display."""
    starts = ctx.cell_starts
    if not starts:
        return set()
    out: set[int] = set()
    body = ctx.tree.body
    for i, stmt in enumerate(body):
        if not isinstance(stmt, ast.Expr):
            continue
        end = stmt.end_lineno or stmt.lineno
        k = bisect.bisect_right(starts, end)  # the cells starting after this line
        next_cell = starts[k] if k < len(starts) else 1 << 62
        if i + 1 < len(body) and body[i + 1].lineno < next_cell:
            continue  # more code follows in the same cell
        line = ctx.lines[end - 1] if 0 < end <= len(ctx.lines) else ""
        _, _, _, end_col = ctx.span(stmt)
        if line[end_col:].lstrip().startswith(";"):
            continue  # ``x.cpu();``: computed, not displayed
        out.add(id(stmt))
    return out


def _discarded(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.Expr]]:
    """Each ``x.to(...)``-like call written as a statement, with its enclosing scope."""
    todo: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while todo:
        scope, node = todo.pop()
        for child in _statements(node):
            if isinstance(child, _FUNCS):
                todo.append((child, child))
            elif isinstance(child, ast.Expr):
                v = child.value
                if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) \
                        and v.func.attr in MOVE_METHODS:
                    yield scope, child
            elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                todo.append((scope, child))


#: node type -> its fields that hold statements (handlers, match cases), in ``_fields`` order
_BODIES: dict[type, tuple[str, ...]] = {}


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements, handlers and match cases directly in ``node``, in the order
    ``ast.iter_child_nodes`` gives them (its expressions are not visited: a statement
    is never inside one)."""
    t = type(node)
    names = _BODIES.get(t)
    if names is None:
        names = _BODIES[t] = tuple(f for f in t._fields if f in BODY_FIELDS)
    for name in names:
        yield from getattr(node, name, ())


def _tensor(ff: FileFlow, res: ScopeResult, st: ast.Expr, recv: ast.expr,
            graph: bool) -> Why | None:
    """Why the analysis holds ``recv`` (the receiver of the discarded call) to be a tensor,
    or None when it does not (a module, whose move is in place, or unknown)."""
    v = res.value(recv)
    if v is None or (v.kinds is not None and Kind.MODULE in v.kinds):
        return None
    stored = _stored_just_before(res, st, recv)
    if stored is not None:
        return stored
    if _reassigned(res.node, st, recv):
        return None
    if v.is_(Kind.TENSOR):
        return _made(v, recv)
    if v.is_(Kind.BATCH):
        if whole_batch(res.node, recv) and made_item(v) is None or graph and isinstance(recv, ast.Name):
            return None  # a batch object (BatchEncoding, PyG's Data) moves in place
        loop = first(v, Op.BATCH)
        batch = iterated_batch(res.node, recv)
        if batch is not None:
            return Why(f"an item of the batch `{batch.id}`, which the loop iterates", batch, batch)
        return Why("an item of what the data loader here yields", loop.node if loop else None)
    if v.kinds is not None or not isinstance(recv, ast.Name) or MODEL_NAME.match(recv.id):
        return None
    if _given_whole_batches(ff, res, v):
        return None  # (every call hands it a loop's whole batch: a batch object, moved in place)
    if read_as_an_object(res.node, recv.id) is not None:
        return None  # (``data.y``: an object of attributes, whose ``to`` may move them in place)
    return (_parameter(ff, res, v) or _fed_to_a_model(res, st, recv, v) or _indexed_as_array(ff, res, st, recv, v)
            or _tensor_in_the_other_branches(res, st, recv) or _unique_method_item(ff, res, st, recv, v))


def _made(v: Value, recv: ast.expr) -> Why:
    o = first(v, Op.MADE, Op.OUTPUT, Op.BATCH, Op.MOVED)
    if o is not None and o.path is None and o.node is not None and v.basis is not Basis.HINT:
        what = {Op.MADE: "made", Op.OUTPUT: "the output of a module call", Op.BATCH: "taken from a batch",
                Op.MOVED: "moved"}[o.op]
        return Why(f"a tensor, {what} here", o.node)
    o = first(v, Op.PARAM)
    if o is not None:
        return Why("a tensor parameter (annotated so, or an input of a module's `forward`)")
    return Why("a tensor (computed from tensors)")


def _reassigned(fn: ast.AST, st: ast.stmt, recv: ast.expr) -> bool:
    """Is the attribute ``recv`` (``self.linear.weight``) assigned in ``fn`` before ``st``?
    The analysis does not follow such stores, so what it holds there is not known."""
    if not isinstance(recv, ast.Attribute):
        return False
    key = _shape(recv)
    for node in walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.lineno < st.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if _shape(t) == key:
                    return True
    return False


def _stored_just_before(res: ScopeResult, st: ast.Expr, recv: ast.expr) -> Why | None:
    """An attribute or item (``self.x``, ``inputs[key]``) that an earlier statement of the
    same block assigned a tensor made there (``inputs[key] = torch.tensor(ids)``), with
    nothing in between that calls anything or rebinds a name the receiver reads: it holds
    that tensor here."""
    if not isinstance(recv, (ast.Attribute, ast.Subscript)):
        return None
    block = _block_of(res.node, st)
    if block is None:
        return None
    key, names = _shape(recv), {n.id for n in ast.walk(recv) if isinstance(n, ast.Name)}
    for prev in reversed(block[:next(i for i, s in enumerate(block) if s is st)]):
        if isinstance(prev, ast.Assign) and len(prev.targets) == 1 and _shape(prev.targets[0]) == key:
            w = res.value(prev.value)
            if w is not None and w.is_(Kind.TENSOR) and w.basis is Basis.CONSTRUCTED:
                return Why("a tensor made and stored here", prev.value)
            return None
        if any(isinstance(n, ast.Call) for n in ast.walk(prev)) or any(
                isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
                for n in ast.walk(prev)):
            return None
    return None


def _block_of(fn: ast.AST, st: ast.stmt) -> list[ast.stmt] | None:
    """The statement list of ``fn`` that holds ``st``."""
    for node in ast.walk(fn):
        for name in BODY_FIELDS:
            body = getattr(node, name, None)
            if isinstance(body, list) and any(s is st for s in body):
                return body
    return None


def _shape(node: ast.AST) -> str:
    return ast.dump(node).replace("ctx=Load()", "").replace("ctx=Store()", "")


def _given_whole_batches(ff: FileFlow, res: ScopeResult, v: Value) -> bool:
    """Is ``v`` a parameter of ``res`` that every call of the run hands the whole batch of
    a loop over a loader (:func:`~torchferry.check.flow.untaken.given_whole_batches`)?"""
    from torchferry.check.flow.untaken import given_whole_batches

    if not v.places or len(v.places) != 1:
        return False
    p = next(iter(v.places))
    return p.where is Where.PARAM and given_whole_batches(ff, res.node, int(p.ref))


def _parameter(ff: FileFlow, res: ScopeResult, v: Value) -> Why | None:
    """A parameter used as a tensor in its function (``x.size(0)``, passed to
    ``F.cross_entropy``), or given a tensor by a call in this file (and never anything
    known not to be one)."""
    if not v.places or len(v.places) != 1:
        return None
    p = next(iter(v.places))
    if p.where is not Where.PARAM:
        return None
    k = int(p.ref)
    if res.param_uses.get(k) is Kind.TENSOR:
        return Why("a parameter its function uses as a tensor")
    args = ff.arguments(res.node, k)
    if not args:
        return None
    values = [a for _, a in args]
    tensors = [a for a in values if a.is_(Kind.TENSOR) and a.basis is not Basis.HINT]
    if not tensors or any(a.kinds is not None and not a.kinds & _TENSORISH for a in values):
        return None
    o = first(tensors[0], Op.MADE, Op.OUTPUT, Op.MOVED)
    if o is None or o.path is not None or o.node is None:
        return Why("a parameter the calls in this file give tensors")
    return Why("a parameter the call here gives a tensor (made here)", o.node)


def _fed_to_a_model(res: ScopeResult, st: ast.Expr, recv: ast.Name, v: Value) -> Why | None:
    """A name of unknown kind later passed, unchanged, to a model or loss call of the same
    scope is data, not a module (``inputs.to(device)`` ... ``model(inputs)``).  (The
    analysis takes the statement for a module's move in place, so the name may hold the
    call's result afterwards.)"""
    end = (st.end_lineno or st.lineno, st.end_col_offset or 0)
    after = res.value(st.value)
    for c in res.calls.values():
        if c.callee is not Callee.MODULE or (c.node.lineno, c.node.col_offset) < end:
            continue
        func = c.node.func
        if not c.func.is_(Kind.MODULE) and not (isinstance(func, ast.Name) and MODEL_NAME.match(func.id)):
            continue  # a callable parameter (``to_numpy(x)``) need not be a model
        for a, av in zip(c.node.args, c.args, strict=False):
            if isinstance(a, ast.Name) and a.id == recv.id and (av == v or av == after):
                return Why("passed unchanged to this model or loss call, as data", c.node)
    return None


def _indexed_as_array(ff: FileFlow, res: ScopeResult, st: ast.Expr, recv: ast.Name,
                      v: Value) -> Why | None:
    """A name the scope indexes with a slice among several indices (``x[idx, :]``,
    ``x[..., 0]``): an array, and one with a ``.to`` method is a tensor (a module, a
    batch object or a list takes no such index) -- unless a class of the run defines its
    own ``to`` (an episode batch whose ``__getitem__`` takes slices and whose ``to``
    moves its tensors in place)."""
    if _run_defines_to(ff):
        return None
    after = res.value(st.value)
    for node in ast.walk(res.node):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id == recv.id and isinstance(node.slice, ast.Tuple)):
            continue
        if not any(isinstance(e, ast.Slice) or isinstance(e, ast.Constant) and e.value is Ellipsis
                   for e in node.slice.elts):
            continue
        w = res.value(node.value)
        if w is not None and (w == v or w == after):
            return Why("indexed as an array here (`x[i, :]`), and it has `.to`: a tensor", node)
    return None


_DEF_TO = re.compile(rb"^[ \t]+def to\(\s*self\b", re.M)
#: per project: whether one of its files defines a method ``to`` (read once per run)
_PROJECT_DEFINES_TO: weakref.WeakKeyDictionary[Project, bool] = weakref.WeakKeyDictionary()


def _run_defines_to(ff: FileFlow) -> bool:
    """Whether a file of the run (this one, or another of the project) defines a method
    ``to`` of its own, which may move an object's tensors in place.

    >>> import ast
    >>> from torchferry.check.flow import analyze
    >>> _run_defines_to(analyze(ast.parse("class B:\\n    def to(self, d):\\n        pass\\n"), "b.py"))
    True
    >>> _run_defines_to(analyze(ast.parse("x = 1\\n"), "a.py"))
    False
    """
    if any(isinstance(n, ast.FunctionDef) and n.name == "to" for c in ast.walk(ff.tree)
           if isinstance(c, ast.ClassDef) for n in c.body):
        return True
    project = ff.project
    if project is None:
        return False
    found = _PROJECT_DEFINES_TO.get(project)
    if found is None:
        found = _PROJECT_DEFINES_TO[project] = any(_DEF_TO.search(b) for b in project.files.values())
    return found


def _tensor_in_the_other_branches(res: ScopeResult, st: ast.Expr, recv: ast.Name) -> Why | None:
    """In the ``else`` of an ``if``/``elif`` chain whose other branches each bind the same
    name to a tensor made there (``if isinstance(eye, np.ndarray): eye =
    torch.from_numpy(eye).to(device)`` ... ``else: eye.to(device)``): the chain normalises
    the value into a tensor, and this branch is the one where it already is one."""
    ifs = [n for n in ast.walk(res.node) if isinstance(n, ast.If)]
    outer = {id(n.orelse[0]): n for n in ifs if len(n.orelse) == 1 and isinstance(n.orelse[0], ast.If)}
    for node in ifs:
        if not any(s is st for s in node.orelse):
            continue
        arms = [node.body]
        up = outer.get(id(node))
        while up is not None:
            arms.append(up.body)
            up = outer.get(id(up))
        for body in arms:
            for s in body:
                if isinstance(s, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == recv.id for t in s.targets):
                    w = res.value(s.value)
                    if w is not None and w.is_(Kind.TENSOR) and w.basis is Basis.CONSTRUCTED:
                        return Why("the other branches of this `if` make it a tensor (here)", s.value)
    return None


def _unique_method_item(ff: FileFlow, res: ScopeResult, st: ast.Expr, recv: ast.Name,
                        v: Value) -> Why | None:
    """``t, w = sampler.sample(n)`` on an object the analysis cannot place, where exactly
    one class of this file defines ``sample`` and its summary returns tensors it made."""
    bind = _binding(res.node, st, recv.id)
    if bind is None:
        return None
    target, value = bind
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    got = res.value(value)
    if got is None or got.kinds is not None:
        return None  # (a method of an object of unknown kind)
    methods = [info.methods[value.func.attr] for info in ff.classes.values()
               if value.func.attr in info.methods and not info.is_module]
    if len(methods) != 1:
        return None
    out = ff.result(methods[0]).returns
    if isinstance(target, ast.Tuple) and out.elts is not None and len(out.elts) == len(target.elts):
        index = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == recv.id)
        out = out.elts[index]
    elif isinstance(target, ast.Tuple) or out.elts is not None:
        return None
    if out.is_(Kind.TENSOR) and out.basis is Basis.CONSTRUCTED:
        return Why(f"the tensor the file's one `{value.func.attr}` method makes and returns",
                   methods[0])
    return None


def _binding(fn: ast.AST, st: ast.stmt, name: str) -> tuple[ast.expr, ast.expr] | None:
    """The last assignment of ``name`` (as a name or an item of a tuple target) before
    ``st`` in ``fn``, as (target, value)."""
    best: ast.Assign | None = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and node.lineno < st.lineno:
            t = node.targets[0]
            names = t.elts if isinstance(t, ast.Tuple) else [t]
            if any(isinstance(e, ast.Name) and e.id == name for e in names) \
                    and (best is None or node.lineno > best.lineno):
                best = node
    return None if best is None else (best.targets[0], best.value)


def _assignable_root(recv: ast.expr) -> ast.expr | None:
    """The name, attribute or subscript at the root of a chain of method calls
    (``w`` of ``w.float()``), the place the moved value belongs; None for anything else.

    >>> ast.unparse(_assignable_root(ast.parse("w.float().half()", mode="eval").body))
    'w'
    """
    while isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute):
        recv = recv.func.value
    return recv if isinstance(recv, (ast.Name, ast.Attribute, ast.Subscript)) else None


def _finding(ctx: Context, call: ast.Call, st: ast.Expr, why: Why) -> Finding:
    func = call.func
    assert isinstance(func, ast.Attribute)
    text = short(ctx.text(call))
    recv = func.value
    fix = None
    if why.batch is not None:
        b, item = why.batch.id, short(ctx.text(recv))
        hint = f"rebuild the batch from the moved items: `{b} = [{text} for {item} in {b}]`"
    elif isinstance(recv, ast.Name):
        fix = Fix((ctx.insert_before(st, f"{recv.id} = "),), False,
                  f"Assign the result: `{recv.id} = {text}`")
        hint = f"assign it: `{recv.id} = {text}`"
    else:
        target = _assignable_root(recv)
        hint = (f"assign it: `{short(ctx.text(target))} = {text}`" if target is not None
                else f"keep it: `result = {text}`")
    what = "copied, not moved" if func.attr in ("to", "cuda", "cpu") else "converted into a new tensor"
    f = ctx.finding(CODE, call, f"`{text}` result is discarded: tensors are {what}; {hint}", fix)
    name = short(ctx.text(recv))
    where = why.node if why.node is not None and getattr(why.node, "lineno", None) else recv
    steps = (at(ctx, where, f"`{name}`: {why.text}"),
             at(ctx, call, "the new tensor is not kept here"))
    return replace(f, evidence=steps)
