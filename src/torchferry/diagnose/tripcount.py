"""Count the ferry rides: host/device copies, host syncs and module moves, per line of your code.

The lessons' performance advice -- move the model once, don't bounce results
back every step, bring one number back per epoch -- is invisible at run time.
:class:`trips` makes it visible::

    with torchferry.trips() as t:
        train()
    t.report()          # table sorted by cost; t.rows for the data

Inside ``torchferry.simulate`` it listens to the simulation's transfer and sync
events (counting what a GPU run would do; nothing is timed).  On a real
accelerator it wraps, for the duration of the block, only the few calls that
copy or synchronise (``Tensor.to``/``.cuda``/``.cpu``/``copy_``, ``.item``,
``.tolist``, ``bool()``/``float()``/``int()``, ``nonzero``, ``masked_select``,
``__getitem__`` for masked indexing, ``__repr__``/``__format__`` for printing,
``torch.tensor``/``as_tensor`` with ``device=``) and measures the time spent
blocked in each sync with ``time.perf_counter``; every other op runs untouched
(no function mode: a mode would add its dispatch cost to every op).  Module
moves (``model.to`` / ``.cuda()``) are counted in both cases.  Enter the
simulation first when combining the two (``with simulate(): with trips():``).

Rows: ``{"path", "line", "source", "kind", "op", "count", "bytes", "rule"}`` with
``kind`` one of ``h2d``, ``d2h``, ``d2d``, ``sync``, ``module_move``, plus
``blocked_s`` (seconds blocked, measured on a real accelerator; null otherwise)
and ``loop`` (the line of the enclosing loop, or null).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import itertools
import linecache
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal, TextIO

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry._internal.patcher import Patch
from torchferry.diagnose._rules import rule_hint, rule_name

__all__ = ["trips", "KINDS"]

KINDS = ("h2d", "d2h", "d2d", "sync", "module_move")

# a line that rides this many times inside a loop is flagged
LOOP_MIN = 3



@functools.cache
def _profile() -> Any:
    """The GPU whose copy costs rank the rows: ``ferry bench``'s default (a free Colab T4)."""
    from torchferry.bench.profiles import DEFAULT_PROFILE, PROFILES

    return PROFILES[DEFAULT_PROFILE]


def _ride_cost(count: int, nbytes: int) -> float:
    """Seconds for ``count`` rides moving ``nbytes`` in all, by ``ferry bench``'s copy model.

    Each ride is one blocking host<->device copy from pageable memory
    (:func:`torchferry.bench.model.predict_copy`: the fixed cost of a blocking copy
    plus the bytes at the link's pageable rate); a sync is such a copy of a few bytes.
    """
    from torchferry.bench.model import predict_copy

    if count <= 0:
        return 0.0
    return count * predict_copy(nbytes / count, _profile())

@dataclass
class _Row:
    path: str
    line: int
    kind: str
    op: str
    count: int = 0
    nbytes: int = 0
    blocked: float = 0.0
    timed: bool = False
    loop: int | None = None
    guarded: bool = False
    per_epoch: bool = False  # the loop holds another loop: one ride per epoch is fine
    sites: set[object] | None = None  # call sites (source spans) in the loop's frame: rides per iteration

    def per_iteration(self) -> int:
        return max(1, len(self.sites or ()))

    def cost(self) -> float:
        if self.timed:  # measured on a real device: the time blocked, plus the bytes' transfer
            return self.blocked + _ride_cost(self.count, self.nbytes) - _ride_cost(self.count, 0)
        return _ride_cost(self.count, self.nbytes)


# ---------------------------------------------------------------- loops
_TREES: dict[str, ast.Module | None] = {}
_LOOPS: dict[tuple[str, int], tuple[int, bool, bool] | None] = {}


def _tree(path: str) -> ast.Module | None:
    if path not in _TREES:
        try:
            _TREES[path] = ast.parse("".join(linecache.getlines(path)))
        except (SyntaxError, ValueError):
            _TREES[path] = None
    return _TREES[path]


def _loop_of(path: str, line: int) -> tuple[int, bool, bool] | None:
    """(line of the innermost loop around ``line`` in its function, guarded by an ``if``?,
    an outer (epoch) loop, i.e. one whose body holds another loop?)."""
    key = (path, line)
    if key in _LOOPS:
        return _LOOPS[key]
    result: tuple[int, bool, bool] | None = None
    tree = _tree(path)
    if tree is not None:
        result = _find_loop(tree, line)
    _LOOPS[key] = result
    return result


def _find_loop(tree: ast.AST, line: int) -> tuple[int, bool, bool] | None:
    chain: list[ast.AST] = []

    def visit(node: ast.AST) -> bool:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt):
                continue
            if child.lineno <= line <= (child.end_lineno or child.lineno):
                chain.append(child)
                visit(child)
                return True
        return False

    visit(tree)
    loop: ast.For | ast.AsyncFor | ast.While | None = None
    guarded = False
    for node in chain:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            loop, guarded = None, False  # loops outside the function don't count here
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loop, guarded = node, False
        elif isinstance(node, ast.If) and loop is not None and node.lineno != line:
            guarded = True
    if loop is None:
        return None
    # A loop around another loop is an epoch loop: reading one number per epoch there is
    # the lesson's advice, not a sync in the hot loop.
    _loops = (ast.For, ast.AsyncFor, ast.While)
    outer = any(
        isinstance(n, _loops) for stmt in loop.body for n in ast.walk(stmt)
    )
    return loop.lineno, guarded, outer


# ---------------------------------------------------------------- counting
_ACTIVE: list[trips] = []
_LOCK = threading.Lock()
_MOVE_STATE = threading.local()


def _record(kind: str, op: str, nbytes: int, blocked: float | None, depth: int = 2) -> None:
    """Count one ride at the innermost user line (called from the hooks below)."""
    if not _ACTIVE:
        return
    state = _MOVE_STATE.__dict__
    if state.get("moving") and kind in ("h2d", "d2h", "d2d"):
        state["bytes"] = state.get("bytes", 0) + nbytes
        return
    f = _frames.user_frame(depth)
    if f is None:
        return
    path, line = f.f_code.co_filename, f.f_lineno
    loop = _loop_context(f)
    for t in list(_ACTIVE):
        t._add(path, line, kind, op, nbytes, blocked, loop)


def _site(f: FrameType) -> object:
    """The call a frame is at, as its source span: one site per call written in the loop.

    Not ``f_lasti`` alone: the interpreter rewrites a call site after a few runs
    (CPython 3.11 makes ``print(x)`` end at another instruction from its ninth call
    on), so one ``print`` in a loop would count as two sites.
    """
    try:
        span = next(itertools.islice(f.f_code.co_positions(), f.f_lasti // 2, None))
    except (AttributeError, StopIteration, ValueError):  # pragma: no cover - no positions
        return f.f_lasti
    return span if span[2] is not None else f.f_lasti  # (python -X no_debug_ranges)


def _loop_context(f: FrameType | None) -> tuple[int, bool, object, bool] | None:
    """The loop the ride repeats in: its own line's loop, else a calling line's (user frames)."""
    hops = 0
    while f is not None and hops < 8:
        code = f.f_code
        if _frames.is_user_code(code):
            lp = _loop_of(code.co_filename, f.f_lineno)
            if lp is not None:
                return lp[0], lp[1], _site(f), lp[2]
            hops += 1
        f = f.f_back
    return None


# ---------------------------------------------------------------- real devices
def _dev(t: Any) -> Any:
    return sim.device_of(t)  # (imported on first use: importing this module imports no torch)


def _nbytes(t: Any) -> int:
    try:
        return t.numel() * t.element_size()
    except Exception:
        return 0


def _accel(d: Any) -> bool:
    return d.type != "cpu"  # any device but host memory (meta included: a real second device)


def _direction(src: Any, dst: Any) -> str | None:
    if src == dst:
        return None
    a, b = _accel(src), _accel(dst)
    if a and b:
        return "d2d"
    if b:
        return "h2d"
    if a:
        return "d2h"
    return None


def _build_plan() -> list[tuple[Any, str, Any]]:
    import torch

    T = torch.Tensor
    perf = time.perf_counter

    def h_move(op: str):
        def h(func, args, kwargs):
            t = args[0]
            src = _dev(t) if isinstance(t, T) else None
            t0 = perf()
            out = func(*args, **kwargs)
            dt = perf() - t0
            if src is not None and isinstance(out, T) and out is not t:
                d = _direction(src, _dev(out))
                if d is not None:
                    nb = kwargs.get("non_blocking") or (len(args) > 2 and args[2] is True)
                    _record(d, op, _nbytes(out), dt if d == "d2h" and not nb else None, 3)
            return out

        return h

    def h_copy(func, args, kwargs):
        dst, src = args[0], args[1]
        d = _direction(_dev(src), _dev(dst)) if isinstance(src, T) else None
        t0 = perf()
        out = func(*args, **kwargs)
        if d is not None:
            _record(d, "copy_", _nbytes(src), perf() - t0 if d == "d2h" else None, 3)
        return out

    def h_sync(op: str, only_0d: bool = False):
        def h(func, args, kwargs):
            t = args[0]
            if not isinstance(t, T) or not _accel(_dev(t)) or (only_0d and t.dim() != 0):
                return func(*args, **kwargs)
            t0 = perf()
            out = func(*args, **kwargs)
            _record("sync", op, 0, perf() - t0, 3)
            return out

        return h

    def h_getitem(func, args, kwargs):
        t = args[0]
        idx = args[1] if len(args) > 1 else None
        masked = isinstance(idx, T) and idx.dtype is torch.bool or isinstance(idx, tuple) and any(
            isinstance(i, T) and i.dtype is torch.bool for i in idx
        )
        if not masked or not isinstance(t, T) or not _accel(_dev(t)):
            return func(*args, **kwargs)
        t0 = perf()
        out = func(*args, **kwargs)
        _record("sync", "masked_index", 0, perf() - t0, 3)
        return out

    def h_factory(op: str):
        def h(func, args, kwargs):
            out = func(*args, **kwargs)
            dev = kwargs.get("device")
            if dev is not None and isinstance(out, T) and _accel(_dev(out)):
                data = args[0] if args else kwargs.get("data")
                if not isinstance(data, T) or not _accel(_dev(data)):
                    _record("h2d", op, _nbytes(out), None, 3)
            return out

        return h

    # (owner, attribute, handler): only these calls are wrapped; every other op is untouched
    plan: list[tuple[Any, str, Any]] = [
        (T, "to", h_move("to")),
        (T, "cuda", h_move("cuda")),
        (T, "cpu", h_move("cpu")),
        # ATen's type_as is self.to(other.options()) and .type("torch.cuda.FloatTensor") moves
        # too: both copy in C++ without calling Tensor.to, so each is wrapped itself
        (T, "type_as", h_move("type_as")),
        (T, "type", h_move("type")),
        (T, "copy_", h_copy),
        (T, "item", h_sync("item")),
        (T, "tolist", h_sync("tolist")),
        (T, "__bool__", h_sync("bool")),
        (T, "__float__", h_sync("float")),
        (T, "__int__", h_sync("int")),
        (T, "__index__", h_sync("index")),
        (T, "__complex__", h_sync("complex")),
        (T, "nonzero", h_sync("nonzero")),
        (torch, "nonzero", h_sync("nonzero")),
        (T, "masked_select", h_sync("masked_select")),
        (torch, "masked_select", h_sync("masked_select")),
        (T, "__repr__", h_sync("print")),
        (T, "__format__", h_sync("item", only_0d=True)),
        (T, "__getitem__", h_getitem),
        (torch, "tensor", h_factory("tensor")),
        (torch, "as_tensor", h_factory("as_tensor")),
    ]
    for name in ("xpu", "mps"):
        if hasattr(T, name):
            plan.append((T, name, h_move(name)))
    return plan


_ORDER = (
    "torchferry.trips() was entered before torchferry.simulate(): enter the simulation first "
    "(with tf.simulate(...): with tf.trips(): ...), so that trips counts the simulation's events"
)
_BUSY = threading.local()
def _wrapper(orig: Any, handler: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _ACTIVE or getattr(_BUSY, "on", False):
            return orig(*args, **kwargs)
        if _sim_active():
            raise RuntimeError(_ORDER)
        _BUSY.on = True
        try:
            return handler(orig, args, kwargs)
        finally:
            _BUSY.on = False

    for attr in ("__name__", "__qualname__", "__doc__"):
        with contextlib.suppress(AttributeError, TypeError):
            setattr(wrapper, attr, getattr(orig, attr))
    wrapper.__wrapped__ = orig  # type: ignore[attr-defined]
    return wrapper


def _call_plan() -> list[tuple[Any, str, Any]]:
    return [(owner, name, _wrapper(getattr(owner, name), handler))
            for owner, name, handler in _build_plan()]


# the calls that copy or sync, wrapped while a trips block runs outside a simulation
_CALL_PATCH = Patch("trips", _call_plan)


# ---------------------------------------------------------------- simulation
_SYNC_OF_COPY = frozenset({"to", "cpu", "cuda", "xpu", "mps", "copy_"})


def _sim_listener(event: Any) -> None:
    if event.kind == "transfer":
        _record(event.direction or "h2d", event.op, int(event.nbytes), None, 4)
    elif event.op not in _SYNC_OF_COPY:  # a blocking copy: counted as its d2h transfer
        _record("sync", event.op, 0, None, 4)


_sim_active = sim.is_active


# ---------------------------------------------------------------- module moves
def _module_plan() -> list[tuple[Any, str, Any]]:
    import torch

    M = torch.nn.Module
    return [(M, name, _module_wrapper(name, M.__dict__[name]))
            for name in ("to", "cuda", "cpu", "xpu") if name in M.__dict__]


# nn.Module's moves, wrapped while any trips block runs (simulated or not)
_MODULE_PATCH = Patch("trips", _module_plan)


def _module_wrapper(name: str, orig: Any) -> Any:
    @functools.wraps(orig)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        state = _MOVE_STATE.__dict__
        if not _ACTIVE or state.get("moving"):
            return orig(self, *args, **kwargs)
        state["moving"], state["bytes"] = True, 0
        try:
            return orig(self, *args, **kwargs)
        finally:
            nbytes = state.get("bytes", 0)
            state["moving"], state["bytes"] = False, 0
            _record("module_move", f"Module.{name}", nbytes, None, 2)

    return wrapper


# ---------------------------------------------------------------- the public API
class trips(contextlib.ContextDecorator):
    """Count host<->device copies, host syncs and module moves per line of user code.

    ``with torchferry.trips() as t: ...`` then ``t.report()`` prints a table
    sorted by cost (``t.format()`` returns it; ``t.rows`` holds the rows as
    dicts).  ``file=sys.stderr`` prints the table when the block ends.
    ``loop_min``: a line inside a loop that rode at least this many times gets
    the loop note, the ``ferry check`` rule (FRY007 sync in loop, FRY008 module
    move in loop) and the fix.

    >>> import torch, torchferry as tf
    >>> with tf.simulate("cuda"):
    ...     with tf.trips() as t:
    ...         x = torch.ones(4).to("cuda")
    ...         for _ in range(5):
    ...             v = (x * 2).sum().item()
    >>> [(r["kind"], r["op"], r["count"], r["rule"]) for r in t.rows]
    [('sync', 'item', 5, 'FRY007'), ('h2d', 'to', 1, None)]
    """

    def __init__(self, *, file: TextIO | None = None, loop_min: int = LOOP_MIN) -> None:
        self.file = file
        self.loop_min = loop_min
        self._rows: dict[tuple[str, int, str, str], _Row] = {}
        self._patched = False
        self._unsubscribe: Any = None
        self.simulated = False
        self._active = False

    # counting
    def _add(self, path: str, line: int, kind: str, op: str, nbytes: int,
             blocked: float | None, loop: tuple[int, bool, object, bool] | None) -> None:
        key = (path, line, kind, op)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = _Row(path, line, kind, op)
            if loop is not None:
                row.loop, row.guarded, row.sites = loop[0], loop[1], set()
                row.per_epoch = loop[3]
        if loop is not None and row.sites is not None and len(row.sites) < 16:
            row.sites.add(loop[2])
        row.count += 1
        row.nbytes += nbytes
        if blocked is not None:
            row.blocked += blocked
            row.timed = True

    def __enter__(self) -> trips:
        self._rows.clear()
        with _LOCK:
            _ACTIVE.append(self)
        self._active = True
        _MODULE_PATCH.acquire()
        if _sim_active():
            self.simulated = True
            self._unsubscribe = sim.subscribe(_sim_listener)
        else:
            _CALL_PATCH.acquire()
            self._patched = True
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        if not self._active:
            return False
        self._active = False
        try:
            if self._patched:
                _CALL_PATCH.release()
                self._patched = False
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
        finally:
            with _LOCK:
                if self in _ACTIVE:
                    _ACTIVE.remove(self)
            _MODULE_PATCH.release()
        if self.file is not None:
            print(self.format(), file=self.file)
        return False

    # results
    def _rule(self, row: _Row) -> str | None:
        if row.loop is None or row.guarded or row.count // row.per_iteration() < self.loop_min:
            return None
        if row.kind in ("sync", "d2h"):
            return None if row.per_epoch else "FRY007"
        if row.kind == "module_move":
            return "FRY008"
        return None

    def _sorted(self) -> list[_Row]:
        return sorted(self._rows.values(), key=lambda r: (-r.cost(), -r.count, r.path, r.line))

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The rows, most costly first (see the module docstring for the keys)."""
        out = []
        for r in self._sorted():
            out.append(
                {
                    "path": r.path,
                    "line": r.line,
                    "source": _frames.source_line(r.path, r.line),
                    "kind": r.kind,
                    "op": r.op,
                    "count": r.count,
                    "bytes": r.nbytes,
                    "rule": self._rule(r),
                    "blocked_s": round(r.blocked, 6) if r.timed else None,
                    "loop": r.loop,
                }
            )
        return out

    def format(self) -> str:
        """The table as text: line, source, kind, count, bytes, notes with rule and fix."""
        rows = self._sorted()
        where = "simulated accelerator: counts what a GPU run would do" if self.simulated else (
            "real devices: syncs timed with perf_counter")
        if not rows:
            return f"torchferry trips: no host<->device copies, syncs or module moves ({where})"
        timed = any(r.timed for r in rows)
        head = ["line", "source", "kind", "op", "count", "bytes"] + (["blocked"] if timed else [])
        table = []
        notes: list[str] = []
        for r in rows:
            src = _frames.source_line(r.path, r.line)
            if len(src) > 48:
                src = src[:45] + "..."
            cells = [f"{_frames.display_path(r.path)}:{r.line}", src, r.kind, r.op, str(r.count), _human(r.nbytes)]
            if timed:
                cells.append(f"{r.blocked * 1e3:.2f} ms" if r.timed else "")
            table.append(cells)
            rule = self._rule(r)
            if rule is not None:
                loop_src = _frames.source_line(r.path, r.loop or 0)
                k = r.per_iteration()
                per = "once" if k == 1 else f"{k} times"
                what = {"sync": "a host sync", "d2h": "a device-to-host copy",
                        "module_move": "a module move"}.get(r.kind, r.kind)
                notes.append(
                    f"  {_frames.display_path(r.path)}:{r.line}: {what} ({r.op}) {per} per iteration of "
                    f"the loop at line {r.loop} ({loop_src}), {r.count // k} iterations.\n"
                    f"    {rule} {rule_name(rule)}; fix: {rule_hint(rule)}"
                )
        widths = [max(len(head[i]), *(len(c[i]) for c in table)) for i in range(len(head))]
        lines = [f"torchferry trips ({where}), most costly first:"]
        lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip())
        for c in table:
            lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(c, widths, strict=True)).rstrip())
        if notes:
            lines.append("rides repeated on every iteration of a loop:")
            lines.extend(notes)
        return "\n".join(lines)

    def report(self, file: TextIO | None = None) -> None:
        """Print the table (to stdout unless ``file`` is given)."""
        print(self.format(), file=file or sys.stdout)


def _human(n: int) -> str:
    if n == 0:
        return "0"
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
