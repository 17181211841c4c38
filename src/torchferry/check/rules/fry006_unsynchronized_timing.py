"""Wall-clock timing of accelerator work without a synchronize.

## What it does
Flags the second clock read of a wall-clock interval (`time.time()`,
`time.perf_counter()`, `time.monotonic()`, `timeit.default_timer()`) when accelerator work
happens between the two reads -- a model call, an operation on a tensor that may live on
an accelerator, or work hidden in a call that is handed such a tensor together with a model
(`vae.decode(z)`, `denoise(model, x, steps)`) -- and nothing waits for the device before the second read: no
`torch.cuda.synchronize()` (or `torch.mps` / `torch.accelerator` / `torch.xpu`), no
`event.synchronize()` / `.wait()`, and no implicit sync such as `.item()`, `.cpu()`,
`.tolist()`, `float(t)` / `int(t)` / `bool(t)` of a tensor, a printed message that formats
one (`print("loss %.4f" % (epoch, loss))`, `f"{acc:.2f}"`) or formats the result of a call
handed a model (`compute_accuracy(model, loader)`: it returns a device value or has read
one), `torch.save(model.state_dict(), ...)` (it copies the parameters to the host), or a
tensor used as a condition (`if (x > 0).any(): break`, `while loss > eps:`). A call of a
function of the run that waits for the device on every path before it returns counts as a
synchronize: the flow analysis follows the call graph of every file checked -- a function
of the file or one it imports (`from metrics import accuracy`, `metrics.accuracy(...)`), a
method of `self`, of the class of `self.model` (built by a class of the run, also through a
`staticmethod`/`classmethod` returning one) or of a value whose class is known
(`predictor = Predictor(...)`, then `predictor.predict_batch(batch)` reaching
`self.model.predict(...)` that ends in `scores.cpu()`). A helper that waits only on some
paths (`if verbose: print(loss.item())`) does not count, except that an arm of an `if`
asking which device runs needs no wait (`_sync(dev)` with `if dev.type == "cuda":
torch.cuda.synchronize()`), nor does a leading guard returning its input (`if x is None:
return None`); the body of a `for` loop is taken to run (`for p in params:
p.norm().item()`), that of a `while` loop is not. So does a call to a function whose name says it synchronizes
(`sync_all()`, `xm.sync()`, not `run_async()`).

The same holds for a timer of the run (a class, a generator or a decorator of any file
checked, recognised by what it does, never by its name): a class whose `__enter__` stores a
clock read on `self` (`self._t0 = time.time()`) that its `__exit__` subtracts from a clock
read (`time.time() - self._t0`) times the body of `with Timer("fwd"):` (also `with timer:`
for an instance, `with self.timer:`); the same pair in two other methods times the code
between `t.start()` and `t.stop()` (`tic()`/`toc()`) on the same object; a
`contextlib.contextmanager` generator reading the clock before its `yield` and subtracting
after it times its `with` body; and a decorator whose wrapper reads the clock around the
call of the function it wraps times that function (`@timed`, `@timed("step")`). The finding
is at the `with`, the stop call or the decorator, when the timed code queues device work
and does not wait; never in the timer itself (most timers wrap host work), and not when the
timer waits itself (`torch.cuda.synchronize()` in `__exit__`) or records `torch.cuda.Event`s.
Nor when the timed code may wait on some path (`torchferry.check.flow.maywait`): a wait in
a branch of a function of the run it calls, a boolean-mask index (`scores[scores > t]`,
`boxes[keep]` with `keep` bound to a comparison) or `.nonzero()`/`torch.where(mask)`, whose
result's size is read on the host, there or in the `forward` of a model of the run it
calls (a detector's `forward` that filters boxes by score in its test phase): the
interval then may well measure the work.

Work the analysis sees run on the CPU is no device work: a function of the run whose device
parameter the call points at the CPU (`flip(x, torch.device("cpu"))`, `"cpu"`, a name bound
to one where the call is, as in a notebook's CPU cell before its GPU cell, or a `device="cpu"`
default left out) moves and makes its tensors there; a module built by `torch.nn` or a class
of the run, never moved, given tensors that are on the CPU on every path (and literals,
`net(x, is_feat=True)`), runs there -- also one built through a `**kw` spread
(`ShuffleNet(cfg, **kwargs)`) whose `__init__` takes no `**` parameter and no device
parameter and neither moves anything nor passes a `device=` itself. A module's attribute
bound to one of Python's built-in functions (`self.log = print`, or a lambda on another
path) is no submodule: calling it queues nothing.

The two reads are paired by what is subtracted (`time.perf_counter() - t0`, `t1 - t0`),
never by source order. An interval that is only compared against a limit (`if time.time()
- t0 > time_limit: break`, or `elapsed = ...` used only in such tests) is a wall-clock
budget for control flow, not a measurement of the work, and is not flagged.
Nor is an interval bound to a local name that nothing in its function reads (`dt =
time.time() - t0` whose print is commented out): an unread number misleads no one.

## Why is this bad
"GPU work runs asynchronously -- Python queues the work and races ahead. Timing with
`time.time()` right after an operation measures the queueing, not the work. Call
`torch.cuda.synchronize()` before reading the clock." The number looks great and means
nothing; comparisons between CPU and GPU built on it are wrong.

## Example
```python
a = torch.randn(4000, 4000, device=device)
b = torch.randn(4000, 4000, device=device)
start = time.perf_counter()
c = a @ b
elapsed = time.perf_counter() - start
```

## Use instead
```python
a = torch.randn(4000, 4000, device=device)
b = torch.randn(4000, 4000, device=device)
start = time.perf_counter()
c = a @ b
if torch.cuda.is_available():
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
```

## Fix safety
Unsafe: the fix inserts `if torch.cuda.is_available(): torch.cuda.synchronize()` (as two
lines, with the statement's indentation) before the statement holding the second clock
read. That is right for CUDA; on Apple silicon use `torch.mps.synchronize()` instead. Only
offered when that statement starts its own line.

## Known limits
A printed message that formats the result of a call handed a model is taken to wait even
when the helper computes nothing on the device (`"%d" % count_parameters(model)`). Work
hidden inside helper functions is seen only when the call is handed a model and a
tensor that may be on the device (or is a model's own method given such a tensor). A
wait inside a helper is seen only when the call graph reaches it: a function of the run
named or imported, or a method of a class whose construction the analysis sees (not of a
parameter, of a library's return value or of an attribute whose class is unknown), up to
six calls deep; and only its direct waits (`.item()`, `.cpu()`, `.tolist()`, `.numpy()`,
`.synchronize()`, an event's `.wait()`, `float`/`int`/`bool` of a tensor, `print` of a
device tensor, a saved state dict) count there, not a formatted message nor a function's
name. So a library call that reads
results back on the host every step (a generation loop testing for the end token) can
still be reported. An `if` is taken to ask which device runs by the words of its test
(`cuda`, `mps`, `device`, `.type`, `is_available`), not by what it tests.
A timer's interval is judged by the code between its two ends in the function using it;
a timer started in one function and stopped in another is not seen, nor is a timer handed
in as a parameter or built by a library (its class must be a class of the run). A wait
the timed code may make on some path silences a timer's interval whichever path runs, so a
training step timed around a model whose `forward` filters by a mask only when
`self.phase == "test"` is not reported either. The two
explicit clock reads must be in the same function, and an interval is only seen
where they are subtracted (`time.time() - t0`, or `t1 - t0` with both names bound to
clock reads); reads compared with an attribute (`self.last`) are not paired. Work is
looked for between the two reads in source order: an interval that spans loop iterations
(`end = time.time()` at the bottom of a loop, read at the top of the next one) is judged
by the code between its first binding and the read, so a data-loading timer is not
flagged. An end read inside a loop is not flagged when its interval spans earlier
iterations that wait: the start was taken before the loop and the body waits somewhere
(`.item()` in the log line), or the start is taken again later in the body and a wait
follows it there (an ETA: `left = n * (time.time() - prev)`, `prev = time.time()`, then
`loss.item()`). A device a helper takes from its input (`dev = imgs.device`, then `conv.to(dev)`) is read
as a device it chose, so a helper timed on CPU input that moves a module it builds to its
input's device is still reported. A call of a parameter is a model call only on evidence that the parameter
is a module: its annotation, a use only a module has before the call (`model.eval()`), its
name (`model`, `net`, `criterion`) or every call of the file passing a module; a harness
timing a callable it is given (`fn(*args)`) is not flagged, even when what it is given
runs on the device.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchferry.check.api import Context, Edit, Finding, Fix
from torchferry.check.flow import FileFlow
from torchferry.check.flow.lattice import Kind, Op, Value, Where
from torchferry.check.flow.maywait import call_may_wait, is_mask, mask_names
from torchferry.check.flow.program import ClassInfo
from torchferry.check.flow.queries import (
    callee_value,
    calls_module,
    cpu_tensor,
    is_module,
    is_tensor,
    moves,
    on_device_tensor,
)
from torchferry.check.flow.timers import (
    CLOCKS,
    called_function,
    class_timer,
    constructed,
    generator_timer,
    timing_decorator,
)
from torchferry.check.flow.waits import call_waits
from torchferry.check.names import dotted, end_pos, header_parents, indent_of, pos
from torchferry.check.scopes import How, Scope, Site, Walker

CODE = "FRY006"
NAME = "unsynchronized-timing"
#: the wait the messages recommend: guarded, so that the program still runs without CUDA
#: (a bare ``torch.cuda.synchronize()`` raises there: FRY001)
SYNC = ("`torch.cuda.synchronize()` where CUDA is in use (`if torch.cuda.is_available():`; "
        "`torch.mps.synchronize()` on Apple silicon)")
FIX = "unsafe"

# module methods that queue no device work of their own
_MODULE_BOOKKEEPING = frozenset(
    "to cuda cpu xpu float half double bfloat16 type train eval requires_grad_ apply "
    "zero_grad parameters named_parameters buffers named_buffers modules named_modules "
    "children named_children state_dict load_state_dict register_buffer register_parameter "
    "register_forward_hook register_forward_pre_hook register_full_backward_hook "
    "add_module get_submodule share_memory to_empty".split()
)


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    by_scope: dict[int, list[Site]] = {}
    scopes: dict[int, Scope] = {}
    names = {"time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns",
             "monotonic_ns", "default_timer"}
    names.update(alias for alias, q in m.imports.items() if q in CLOCKS)
    for name in sorted(names):
        for site in m.calls_by_tail.get(name, ()):
            if m.qualname(site.node.func) in CLOCKS:
                by_scope.setdefault(id(site.ctx.scope), []).append(site)
                scopes[id(site.ctx.scope)] = site.ctx.scope
    helpers = _Helpers(m, ctx.flow)
    for key, reads in by_scope.items():
        scope = scopes[key]
        for first, second in _intervals(m, scope, reads):
            lo, hi = end_pos(first.node), second.pos
            if _synced(m, scope, lo, hi, helpers) or not _device_work(m, ctx.flow, scope, lo, hi):
                continue
            if _restarted_after_a_sync(m, scope, first, second, helpers):
                continue
            yield ctx.finding(
                CODE, second.node,
                f"`{ctx.text(second.node)}` is read while accelerator work may still be queued: "
                f"the interval measures the launch, not the work; call {SYNC} before reading the clock",
                _fix(ctx, m, second),
            )
    yield from _timers(ctx, m, helpers)


def _timers(ctx: Context, m: Walker, helpers: _Helpers) -> Iterable[Finding]:
    """The intervals of timers of the run (:mod:`torchferry.check.flow.timers`) that do not
    synchronize, around code of this file that queues device work and does not wait: the
    body of ``with Timer(...):``, the code between ``t.start()`` and ``t.stop()``, a
    function decorated ``@timed``.  Reported where this file uses the timer, never in the
    timer itself (most timers wrap host work)."""
    ff = ctx.flow
    for scope in [m.module_scope, *m.functions]:
        cls = ff.method_of.get(id(scope.node))
        for w in _withs(scope):
            for item in w.items:
                if _context_timer(m, ff, item.context_expr, scope, cls) is False and \
                        _unwaited_work(m, scope, end_pos(item.context_expr), end_pos(w), helpers):
                    yield ctx.finding(
                        CODE, item.context_expr,
                        f"`with {ctx.text(item.context_expr)}` reads the clock when its body ends "
                        "while accelerator work the body queued may still run: it measures the "
                        f"launch, not the work; call {SYNC} at the end of the body", None)
                    break
        for start, stop in _start_stop(m, ff, scope, cls):
            if _unwaited_work(m, scope, end_pos(start.node), stop.pos, helpers):
                yield ctx.finding(
                    CODE, stop.node,
                    f"`{ctx.text(stop.node)}` reads the clock while accelerator work queued since "
                    f"`{ctx.text(start.node)}` may still run: it measures the launch, not the work; "
                    f"call {SYNC} before it",
                    _fix(ctx, m, stop))
        fn = scope.function
        if fn is None:
            continue
        for d in fn.decorator_list:
            if timing_decorator(ff, d) is False and \
                    _unwaited_work(m, scope, pos(fn.body[0]), end_pos(fn), helpers):
                yield ctx.finding(
                    CODE, d,
                    f"`@{ctx.text(d)}` reads the clock when `{fn.name}` returns while accelerator "
                    "work it queued may still run: it measures the launch, not the work; call "
                    f"{SYNC} before it returns",
                    None)
                break


def _unwaited_work(m: Walker, scope: Scope, lo: int, hi: int, helpers: _Helpers) -> bool:
    """Does the code of ``scope`` between ``lo`` and ``hi`` queue device work and not wait?
    A copy to the device (``batch.to(device)``) is no such work here: a timer around data
    loading measures the copy, which returns when it is done unless ``non_blocking``."""
    return not _synced(m, scope, lo, hi, helpers) and \
        _device_work(m, helpers.ff, scope, lo, hi, copies=False) and \
        not _may_wait(helpers.ff, scope, lo, hi)


def _may_wait(ff: FileFlow, scope: Scope, lo: int, hi: int) -> bool:
    """May the code of ``scope`` between ``lo`` and ``hi`` wait for the device on some path
    (:func:`torchferry.check.flow.maywait.call_may_wait`): a wait in a branch, a boolean-mask
    index, a model of the run whose ``forward`` may wait?  A timer's interval is then not
    known to measure only the launch (a detector's ``forward`` filtering boxes by score
    waits for the scores), and the rule stays quiet."""
    cls = ff.method_of.get(id(scope.node))
    if any(call_may_wait(ff, s.node, cls) for s in scope.calls_between(lo, hi)):
        return True
    fn = scope.function
    masks = mask_names(fn) if fn is not None else set()
    return any(isinstance(n, ast.Subscript) and lo <= pos(n) <= hi and is_mask(n.slice, masks)
               for n in ast.walk(scope.node))


def _withs(scope: Scope) -> list[ast.With | ast.AsyncWith]:
    """The ``with`` statements of ``scope`` that hold a call or an operator, in source order."""
    found: dict[int, ast.With | ast.AsyncWith] = {}
    sites: list[Site] = [*scope.calls, *scope.ops]
    for s in sites:
        for w in s.ctx.withs:
            found.setdefault(id(w), w)
        if isinstance(s.stmt, (ast.With, ast.AsyncWith)):
            found.setdefault(id(s.stmt), s.stmt)
    return sorted(found.values(), key=pos)


def _context_timer(m: Walker, ff: FileFlow, e: ast.expr, scope: Scope, cls: ClassInfo | None
                   ) -> bool | None:
    """Is the context manager ``e`` (an item of a ``with`` of ``scope``) a timer of the run
    whose interval is the ``with`` body: None when not known to be one, else whether it
    synchronizes.  A class's instance (``Timer("fwd")``, ``timer``, ``self.timer``) or a
    ``contextmanager`` generator's call (``timing("fwd")``)."""
    if isinstance(e, ast.Call):
        built = constructed(ff, e)
        if built is not None:
            return class_timer(built, "__enter__", "__exit__")
        fn = called_function(ff, e, cls)
        return generator_timer(*fn) if fn is not None else None
    info = _instance(m, ff, e, scope, cls)
    return class_timer(info, "__enter__", "__exit__") if info is not None else None


def _instance(m: Walker, ff: FileFlow, e: ast.expr, scope: Scope, cls: ClassInfo | None
              ) -> ClassInfo | None:
    """The class of the run whose instance ``e`` is, from bindings alone: a name bound to
    its construction (``timer = Timer()``), an attribute of ``self`` every store of the
    class binds to one (``self.clock = TicToc()``), an item of a dict display under a
    constant key (``_t = {'detect': Timer()}``, ``_t['detect']``).  None when not known."""
    made: ast.expr | None = None
    if isinstance(e, ast.Name):
        b = m.binding(e.id, scope, pos(e))
        made = b.value if b is not None and b.how is How.EXPR and isinstance(b.value, ast.expr) else None
    elif isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        return _attr_class(cls, e.attr) if cls is not None else None
    elif isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and isinstance(e.value, ast.Name):
        b = m.binding(e.value.id, scope, pos(e))
        table = b.value if b is not None and b.how is How.EXPR else None
        if isinstance(table, ast.Dict):
            made = next((v for k, v in zip(table.keys, table.values, strict=True)
                         if isinstance(k, ast.Constant) and k.value == e.slice.value), None)
    return constructed(ff, made) if isinstance(made, ast.Call) else None


def _attr_class(cls: ClassInfo, attr: str) -> ClassInfo | None:
    """The class of the run every ``self.<attr> = ...`` of ``cls``'s own methods constructs."""
    found: ClassInfo | None = None
    for fn in cls.methods.values():
        for st in ast.walk(fn):
            if not isinstance(st, ast.Assign) or not any(
                    isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                    and t.value.id == "self" and t.attr == attr for t in st.targets):
                continue
            info = constructed(cls.ff, st.value) if isinstance(st.value, ast.Call) else None
            if info is None or found is not None and info is not found:
                return None
            found = info
    return found


def _start_stop(m: Walker, ff: FileFlow, scope: Scope, cls: ClassInfo | None
                ) -> Iterable[tuple[Site[ast.Call], Site[ast.Call]]]:
    """(``t.start()``, ``t.stop()``) of ``scope``: calls of two methods of the same object (a
    dotted name) that are a timer's pair (:func:`class_timer`) and do not synchronize; the
    stop is the next call of another method of the object that pairs, unless the start is
    called again first."""
    by_owner: dict[str, list[tuple[str, ast.expr, Site[ast.Call]]]] = {}
    for s in scope.calls:
        func = s.node.func
        owner = _owner(func.value) if isinstance(func, ast.Attribute) else None
        if owner is not None and isinstance(func, ast.Attribute):
            by_owner.setdefault(owner, []).append((func.attr, func.value, s))
    for owner, sites in by_owner.items():
        if len({attr for attr, _, _ in sites}) < 2:
            continue
        info = cls if owner == "self" else _instance(m, ff, sites[0][1], scope, cls)
        if info is None:
            continue
        for i, (begin, _, a) in enumerate(sites):
            for end, _, b in sites[i + 1:]:
                if end == begin:
                    break  # started again: that start pairs
                timer = class_timer(info, begin, end)
                if timer is not None:
                    if not timer:
                        yield a, b
                    break


def _owner(e: ast.expr) -> str | None:
    """The object a method is called on, as a key: a dotted name (``timer``, ``self.clock``)
    or an item of one under a constant key (``_t['im_detect']``); else None."""
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant):
        inner = _owner(e.value)
        return None if inner is None else f"{inner}[{e.slice.value!r}]"
    return dotted(e)


def _restarted_after_a_sync(m: Walker, scope: Scope, first: Site[ast.Call],
                            second: Site[ast.Call], helpers: _Helpers) -> bool:
    """An end read inside a loop whose interval spans earlier iterations that wait: the start
    was taken before the loop and the loop body waits somewhere (PyTorch-GAN's stargan ETA,
    ``(time.time() - start_time) / (batches_done + 1)``), or the start is taken again after
    the end read, later in the same body, with a wait between that restart and the end of
    the body (PyTorch-GAN's ETA: ``time_left = ... (time.time() - prev_time)``, ``prev_time
    = time.time()``, then ``loss.item()`` in the log line).  From the second iteration on the
    interval holds the earlier batches' waits: it measures work, not a launch."""
    if not second.ctx.loops or not isinstance(first.stmt, ast.Assign):
        return False
    loop = second.ctx.loops[-1]
    if first.pos < pos(loop) and _synced(m, scope, pos(loop), end_pos(loop), helpers):
        return True  # started before the loop: it spans the earlier iterations and their waits
    names = {t.id for t in first.stmt.targets if isinstance(t, ast.Name)}
    for name in names:
        for _, b in scope.binds.get(name, ()):
            if b.how is not How.EXPR or not isinstance(b.value, ast.Call) or \
                    m.qualname(b.value.func) not in CLOCKS:
                continue
            at = end_pos(b.stmt)
            if second.pos < pos(b.stmt) and at <= end_pos(loop) and \
                    b.ctx.loops and b.ctx.loops[-1] is loop and \
                    _synced(m, scope, at, end_pos(loop), helpers):
                return True
    return False


def _intervals(m: Walker, scope: Scope, reads: list[Site[ast.Call]]
               ) -> list[tuple[Site[ast.Call], Site[ast.Call]]]:
    """(start read, end read) of each interval, paired by what is subtracted:
    ``time() - t0`` or ``t1 - t0`` with ``t0``/``t1`` bound to clock reads.  Reads that are
    never subtracted from one another (a rate limit against ``self.last``) pair nothing."""
    by_node = {id(s.node): s for s in reads}

    def read_of(e: ast.AST) -> Site[ast.Call] | None:
        if isinstance(e, ast.Call):
            return by_node.get(id(e))
        if isinstance(e, ast.Name):
            b = m.binding(e.id, scope, pos(e))
            if b is not None and b.how is How.EXPR and b.value is not None:
                return by_node.get(id(b.value))
        return None

    pairs: dict[int, tuple[Site[ast.Call], Site[ast.Call]]] = {}
    for op in scope.ops:
        n = op.node
        if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)):
            continue
        end, start = read_of(n.left), read_of(n.right)
        if end is None or start is None or start.pos >= end.pos:
            continue
        if _budget_check(m, scope, op) or _never_read(scope, op):
            continue
        pairs.setdefault(id(end.node), (start, end))
    return sorted(pairs.values(), key=lambda p: p[1].pos)


def _budget_check(m: Walker, scope: Scope, op: Site) -> bool:
    """Is the interval ``op`` (a subtraction) only compared against a limit -- a wall-clock
    budget for control flow (``if time.time() - t0 > time_limit: break``), where the
    host's own time is what counts and a synchronize would only slow the loop down?
    True when the subtraction is an operand of a comparison, or is the whole value bound
    to a name whose every later use in the function is one."""
    n = op.node
    parent = header_parents(op.stmt).get(id(n))
    if isinstance(parent, ast.Compare):
        return True
    st = op.stmt
    name = _bound_name(op)
    if name is None:
        return False
    uses = [u for u in _name_loads(scope, name) if pos(u[0]) > end_pos(st)]
    return bool(uses) and all(isinstance(p, ast.Compare) for _, p in uses)


def _bound_name(op: Site) -> str | None:
    """The name ``op`` is the whole value of, in ``name = op``; else None."""
    st = op.stmt
    if (isinstance(st, ast.Assign) and st.value is op.node and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)):
        return st.targets[0].id
    return None


def _never_read(scope: Scope, op: Site) -> bool:
    """Is the interval ``op`` (a subtraction) the whole value of an assignment to a name
    that nothing in the function reads (``dt = time.time() - t0`` with its print commented
    out)?  An unread number misleads no one.  Not when the name may be read from elsewhere:
    declared ``global``/``nonlocal``, or the function calls ``locals()``, ``vars()`` or
    ``eval``/``exec``.
    Only in a function: a module's names can be imported, and a notebook's later cells
    read them."""
    name = _bound_name(op)
    if name is None or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for node in ast.walk(scope.node):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and (node.func.id in ("locals", "eval", "exec")
                     or node.func.id == "vars" and not node.args)):
            return False
    return not _name_loads(scope, name)


def _name_loads(scope: Scope, name: str) -> list[tuple[ast.Name, ast.AST]]:
    """Each load of ``name`` in the function ``scope`` (nested functions included), with its
    parent node."""
    out: list[tuple[ast.Name, ast.AST]] = []
    for parent in ast.walk(scope.node):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
                out.append((child, parent))
    return out


class _Helpers:
    """The file being checked and its device-flow analysis, which knows whether a call waits
    for the device (:func:`torchferry.check.flow.waits.call_waits`)."""

    def __init__(self, m: Walker, ff: FileFlow) -> None:
        self.m = m
        self.ff = ff  # the device-flow analysis of the file, for what a call's values are

    def waits(self, s: Site[ast.Call]) -> bool:
        """Does the call wait: a wait of its own, a function of the run that waits on every
        path, a function named as one that synchronizes?"""
        fn = s.ctx.scope.node
        cls = self.ff.method_of.get(id(fn)) if fn is not None else None
        return call_waits(self.ff, s.node, cls)


def _syncs(m: Walker, s: Site, helpers: _Helpers) -> bool:
    """Does this call wait for the device: :func:`call_waits`, or a printed message that
    formats a value the device computed (read here, where the rule has the bindings)?"""
    if helpers.waits(s):
        return True
    func = s.node.func
    return isinstance(func, ast.Name) and func.id == "print" and \
        any(_read_when_formatted(m, helpers.ff, v, s) for a in s.node.args for v in _formatted(a))


def _synced(m: Walker, scope: Scope, lo: int, hi: int, helpers: _Helpers) -> bool:
    return any(_syncs(m, s, helpers) for s in scope.calls_between(lo, hi)) or \
        _tested(helpers.ff, scope, lo, hi)


def _tested(ff: FileFlow, scope: Scope, lo: int, hi: int) -> bool:
    """Is a tensor used as a condition between the reads (``if (x > 0).any(): break``,
    ``while loss > eps:``, ``assert torch.isfinite(loss)``)?  Python then calls
    ``Tensor.__bool__``, which reads the value on the host and so waits for the work."""
    seen: set[int] = set()
    sites: list[Site] = [*scope.calls_between(lo, hi), *scope.ops_between(lo, hi)]
    for s in sites:
        st = s.stmt
        if not isinstance(st, (ast.If, ast.While, ast.Assert)) or id(st) in seen:
            continue
        seen.add(id(st))
        for cond in _conditions(st.test):
            if lo <= pos(cond) <= hi and is_tensor(ff, cond):
                return True
    return False


def _conditions(e: ast.expr) -> Iterable[ast.expr]:
    """The operands Python turns into ``bool``: the test itself, through ``and``/``or``/``not``."""
    if isinstance(e, ast.BoolOp):
        for v in e.values:
            yield from _conditions(v)
    elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        yield from _conditions(e.operand)
    else:
        yield e


def _formatted(e: ast.expr) -> list[ast.expr]:
    """The values a message expression formats: ``"..." % (a, b)``, f-string fields,
    ``"...".format(a, b)``."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod) and isinstance(e.left, ast.Constant) \
            and isinstance(e.left.value, str):
        return list(e.right.elts) if isinstance(e.right, ast.Tuple) else [e.right]
    if isinstance(e, ast.JoinedStr):
        return [v.value for v in e.values if isinstance(v, ast.FormattedValue)]
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "format" \
            and isinstance(e.func.value, ast.Constant) and isinstance(e.func.value.value, str):
        return [*e.args, *(k.value for k in e.keywords)]
    return []


def _read_when_formatted(m: Walker, ff: FileFlow, v: ast.expr, s: Site) -> bool:
    """Does formatting ``v`` read a value the device computed?  A tensor that may be on the
    device, or the result of a call handed a model (rasbt's ``compute_accuracy(model,
    train_loader, device=DEVICE)``), also through a name bound to one in this scope."""
    if is_tensor(ff, v) and on_device_tensor(ff, v):
        return True
    made: ast.AST | None = v
    if isinstance(v, ast.Name):
        b = m.binding(v.id, s.ctx.scope, s.pos)
        made = b.value if b is not None and b.how is How.EXPR else None
    if not isinstance(made, ast.Call):
        return False
    args = [*made.args, *(k.value for k in made.keywords)]
    return any(is_module(ff, a) for a in args)


def _device_work(m: Walker, ff: FileFlow, scope: Scope, lo: int, hi: int,
                 copies: bool = True) -> bool:
    """Does the code between ``lo`` and ``hi`` queue work on the device: a module called,
    a tensor that may be on the device computed (or only copied there, unless ``copies``
    is false), work hidden in a call?"""
    for s in scope.calls_between(lo, hi):
        if not copies and moves(ff, s.node):
            continue
        if _forward_pass(ff, s.node) or _device_tensor(ff, s.node) or _hidden_work(m, ff, s):
            return True
    return any(isinstance(op.node, ast.BinOp) and _device_tensor(ff, op.node)
               for op in scope.ops_between(lo, hi))


def _forward_pass(ff: FileFlow, call: ast.Call) -> bool:
    """A call of a module (a wrapper such as ultralytics' ``YOLO`` may run on the device
    whatever its own place), but not ``x.forward(...)`` of a value of unknown kind (an ONNX
    Runtime backend's ``forward`` returns host arrays)."""
    if not calls_module(ff, call):
        return False
    module = callee_value(ff, call)
    if module is not None and _host_module_call(ff, module, call):
        return False
    return module is None or module.kinds is not None or \
        not (isinstance(call.func, ast.Attribute) and call.func.attr == "forward")


def _host_module_call(ff: FileFlow, module: Value, call: ast.Call) -> bool:
    """A module call that runs on the CPU on every path the analysis sees: the module was
    built by ``torch.nn`` or a class of the run and never moved off the CPU, it is given
    tensors that are on the CPU on every path (and literals), and its output is one (``net =
    nn.Sequential(Jitter())`` timed on ``torch.ones(8, 4).to(torch.device("cpu"))``)."""
    if not (module.is_(Kind.MODULE) and module.only(Where.CPU)):
        return False
    made = next((o for o in reversed(module.origins) if o.op is Op.MADE), None)
    if made is None or not isinstance(made.node, ast.Call) or \
            any(o.op not in (Op.MADE, Op.MOVED) for o in module.origins):
        return False
    q = ff.qualname(made.node.func) or ""
    if not q.startswith("torch.nn.") and ff.class_of(module) is None:
        return False
    # (a literal, ``net(x, is_feat=True)``, is no tensor: it is on no device)
    args = [a for a in (*call.args, *(k.value for k in call.keywords)) if not isinstance(a, ast.Constant)]
    return bool(args) and all(cpu_tensor(ff, a) for a in args) and cpu_tensor(ff, call)


def _device_tensor(ff: FileFlow, e: ast.AST) -> bool:
    """A tensor that may live on the device."""
    return is_tensor(ff, e) and on_device_tensor(ff, e)


def _hidden_work(m: Walker, ff: FileFlow, s: Site[ast.Call]) -> bool:
    """Work hidden in a call the analysis cannot enter: a module's own method given a
    tensor that may be on the device (``vae.decode(z)``, ``model.generate(ids)``), or a
    function given both a module and such a tensor (``denoise(model, x, steps)``)."""
    call = s.node
    func = call.func
    args = [*call.args, *(k.value for k in call.keywords)]
    if not any(_device_tensor(ff, a) for a in args):
        return False
    if isinstance(func, ast.Attribute) and is_module(ff, func.value):
        return func.attr not in _MODULE_BOOKKEEPING
    if m.qualname(func) is not None:
        return False  # a library function: known ones are facts already
    return any(is_module(ff, a) for a in args)


def _fix(ctx: Context, m: Walker, site: Site) -> Fix | None:
    st = site.stmt
    if isinstance(st, (ast.If, ast.While, ast.For, ast.With, ast.Try)):
        return None
    torch = m.alias_of("torch")
    if torch is None:
        return None
    line = ctx.lines[st.lineno - 1]
    ind = indent_of(line)
    if ctx.char_col(st.lineno, st.col_offset) != len(ind):
        return None  # not at the start of its line (``x; t1 = time.time()``)
    step = "\t" if ind.startswith("\t") else "    "
    text = (f"{ind}if {torch}.cuda.is_available():\n"
            f"{ind}{step}{torch}.cuda.synchronize()\n")
    return Fix((Edit(st.lineno, 0, st.lineno, 0, text),), False,
               "Insert `torch.cuda.synchronize()` before the clock read")


__all__ = ["check", "pos"]
