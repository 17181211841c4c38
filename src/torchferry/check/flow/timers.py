"""Timers of the run: code that reads the clock around work it does not hold.

A *timer* is recognised by what it does, never by its name:

- a class whose ``__enter__`` (or a method of the class it calls) stores a clock read on
  ``self`` (``self._t0 = time.time()``) that a subtraction takes from a clock read of its
  ``__exit__`` (``time.time() - self._t0``, or ``self.end - self.start`` with ``self.end``
  read in ``__exit__``): the interval is the body of ``with Timer(...):``;
- the same pair in two other methods (``start``/``stop``, ``tic``/``toc``): the interval lies
  between ``t.start()`` and ``t.stop()`` on the same object;
- a ``contextlib.contextmanager`` generator with a clock read bound to a name before its
  ``yield`` and subtracted after it;
- a decorator whose wrapper reads the clock, calls the function it wraps, and subtracts
  (``t0 = time.perf_counter(); r = fn(*a, **k); dt = time.perf_counter() - t0``).

Timers are found from names and bindings alone (no value of the flow analysis is asked for
until one is found), so that looking for them changes nothing the analysis computes.

A timer *synchronizes* when the code around the interval waits for the device
(:func:`torchferry.check.flow.waits.call_waits`: ``torch.cuda.synchronize()`` in ``__exit__``)
or it records device events (``torch.cuda.Event``): its interval then measures the work.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("import time\\nclass T:\\n    def __enter__(self):\\n        self.t0 = time.time()\\n"
...        "    def __exit__(self, *e):\\n        print(time.time() - self.t0)\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> info = ff.class_info(ff.defs["T"])
>>> class_timer(info, "__enter__", "__exit__")
False
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchferry.check.flow.program import ClassInfo, FileFlow
from torchferry.check.flow.waits import Fn, call_waits, named
from torchferry.check.names import self_attr

#: the functions that read the wall clock
CLOCKS = frozenset({
    "time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.perf_counter_ns",
    "time.monotonic_ns", "timeit.default_timer",
})
#: how many calls of ``self``'s methods are followed from ``__enter__``/``__exit__``
_DEPTH = 2


def is_clock(ff: FileFlow, e: ast.AST) -> bool:
    """A call of a wall clock (``time.perf_counter()``, ``from time import time``...)."""
    return isinstance(e, ast.Call) and ff.qualname(e.func) in CLOCKS


def class_timer(info: ClassInfo, start: str, stop: str) -> bool | None:
    """Is ``start`` .. ``stop`` an interval of ``info``'s timer: None when the methods are not
    a timer's pair, else whether the timer synchronizes (or records device events)."""
    key = (start, stop)
    if key not in info.timers:
        info.timers[key] = _class_timer(info, start, stop)
    return info.timers[key]


def _class_timer(info: ClassInfo, start: str, stop: str) -> bool | None:
    begin, end = info.method(start), info.method(stop)
    if begin is None or end is None or begin[1] is end[1]:
        return None
    first = list(_reach(info, begin[1], 0))
    second = list(_reach(info, end[1], 0))
    stored = _clock_attrs(first)
    if not stored or not _subtracted(info, second, stored):
        return None
    return _synchronizes([*first, *second], info)


def _reach(info: ClassInfo, fn: Fn, depth: int) -> Iterator[tuple[ClassInfo, Fn]]:
    """``fn`` and the methods of ``self`` it calls, ``_DEPTH`` calls deep."""
    yield info, fn
    if depth >= _DEPTH:
        return
    for c in ast.walk(fn):
        if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"):
            found = info.method(c.func.attr)
            if found is not None and found[1] is not fn:
                yield from _reach(found[0], found[1], depth + 1)


def _clock_attrs(fns: list[tuple[ClassInfo, Fn]]) -> set[str]:
    """The attributes of ``self`` the functions store a clock read in."""
    out: set[str] = set()
    for info, fn in fns:
        for st in ast.walk(fn):
            if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None \
                    and is_clock(info.ff, st.value):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                out.update(a for a in map(self_attr, targets) if a is not None)
    return out


def _clock_names(ff: FileFlow, fn: ast.AST) -> set[str]:
    """The local names ``fn`` binds to a clock read."""
    return {t.id for st in ast.walk(fn) if isinstance(st, ast.Assign) and is_clock(ff, st.value)
            for t in st.targets if isinstance(t, ast.Name)}


def _subtracted(info: ClassInfo, second: list[tuple[ClassInfo, Fn]], stored: set[str]) -> bool:
    """Does a subtraction of the class take one of the ``stored`` attributes from a clock read
    of the stop methods ``second`` (a clock call or a name bound to one there, or an
    attribute of ``self`` they store a clock read in)?"""
    for owner, fn in second:
        names = _clock_names(owner.ff, fn)
        for n in ast.walk(fn):
            left = _taken_from(n, stored)
            if left is not None and (is_clock(owner.ff, left)
                                     or isinstance(left, ast.Name) and left.id in names):
                return True
    later = _clock_attrs(second)
    return bool(later) and any(self_attr(_taken_from(n, stored)) in later
                               for fn in info.methods.values() for n in ast.walk(fn))


def _taken_from(n: ast.AST, stored: set[str]) -> ast.expr | None:
    """``left`` of ``left - self.<one of stored>``, else None."""
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and self_attr(n.right) in stored:
        return n.left
    return None


def _synchronizes(fns: list[tuple[ClassInfo, Fn]], info: ClassInfo) -> bool:
    """Does a function of the pair wait for the device, or the class record device events?"""
    for owner, fn in fns:
        if any(isinstance(c, ast.Call) and call_waits(owner.ff, c, owner) for c in ast.walk(fn)):
            return True
    return any(isinstance(c, ast.Call) and _device_event(info.ff.qualname(c.func))
               for fn in info.methods.values() for c in ast.walk(fn))


def _device_event(q: str | None) -> bool:
    """``torch.cuda.Event``, ``torch.Event``, ``torch.xpu.Event``..."""
    return q is not None and q.startswith("torch.") and q.endswith(".Event")


def generator_timer(ff: FileFlow, fn: Fn) -> bool | None:
    """Is ``fn`` a ``contextmanager`` generator that reads the clock before its ``yield`` and
    subtracts that read after it: None when not, else whether it synchronizes."""
    if not any((d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", None)) == "contextmanager"
               for d in fn.decorator_list):
        return None
    yields = [n for n in ast.walk(fn) if isinstance(n, (ast.Yield, ast.YieldFrom))]
    if len(yields) != 1:
        return None
    at = (yields[0].lineno, yields[0].col_offset)
    before = {t.id for st in ast.walk(fn) if isinstance(st, ast.Assign) and is_clock(ff, st.value)
              and (st.lineno, st.col_offset) < at for t in st.targets if isinstance(t, ast.Name)}
    if not any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and (n.lineno, n.col_offset) > at
               and isinstance(n.right, ast.Name) and n.right.id in before for n in ast.walk(fn)):
        return None
    return any(isinstance(c, ast.Call) and call_waits(ff, c, None) for c in ast.walk(fn))


def constructed(ff: FileFlow, call: ast.Call) -> ClassInfo | None:
    """The class of the run ``call`` (in ``ff``) constructs by name (``Timer("fwd")``,
    ``utils.Timer()``), or None."""
    found = named(ff, call.func)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    return found[0].class_info(found[1])


def called_function(ff: FileFlow, call: ast.Call, cls: ClassInfo | None
                    ) -> tuple[FileFlow, Fn] | None:
    """The function of the run ``call`` names (``timing("fwd")``, ``utils.timing()``, or
    ``self.timing()`` in a method of ``cls``), found from the names alone, or None."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self" and cls is not None:
        found = cls.method(func.attr)
        return (found[0].ff, found[1]) if found is not None else None
    got = named(ff, func)
    if got is not None and isinstance(got[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return got[0], got[1]
    return None


def timing_decorator(ff: FileFlow, d: ast.expr) -> bool | None:
    """Is the decorator ``d`` (``@timed`` or ``@timed("name")``) a function of the run whose
    wrapper reads the clock around a call of the function it wraps: None when not, else
    whether the wrapper synchronizes."""
    found = named(ff, d.func if isinstance(d, ast.Call) else d)
    if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    where, outer = found[0], found[1]
    memo = where.wrappers_memo
    if id(outer) not in memo:
        memo[id(outer)] = timing_wrapper(where, outer)
    got = memo[id(outer)]
    if got is None:
        return None
    w, calls = got
    return any(isinstance(c, ast.Call) and c not in calls and call_waits(where, c, None)
               for c in ast.walk(w))


def timing_wrapper(ff: FileFlow, outer: Fn) -> tuple[Fn, list[ast.Call]] | None:
    """The first function defined in ``outer`` (a decorator of ``ff``) that reads the clock
    around a call of a function ``outer`` is given, with its calls of the given functions
    (``wrapper`` of ``def timed(fn): def wrapper(*a): t0 = time.time(); fn(*a); ...``), or
    None.  Found from names and bindings alone, so the answer is kept per decorator.

    >>> src = ("import time\\ndef timed(fn):\\n    def wrapper(*a):\\n"
    ...        "        t0 = time.time()\\n        r = fn(*a)\\n        print(time.time() - t0)\\n"
    ...        "        return r\\n    return wrapper\\n")
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> w, calls = timing_wrapper(ff, ff.defs["timed"])
    >>> w.name, [c.func.id for c in calls]
    ('wrapper', ['fn'])
    """
    given = {a.arg for f in ast.walk(outer) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for a in (*f.args.posonlyargs, *f.args.args)}
    for w in ast.walk(outer):
        if w is outer or not isinstance(w, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = {a.arg for a in (*w.args.posonlyargs, *w.args.args, *w.args.kwonlyargs)}
        calls = [c for c in ast.walk(w) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id in given - own]
        if calls and _around(ff, w, calls[0]):
            return w, calls
    return None


def _around(ff: FileFlow, w: Fn, call: ast.Call) -> bool:
    """Does ``w`` bind a clock read to a name before ``call`` and subtract it after?"""
    at = (call.lineno, call.col_offset)
    before = {t.id for st in ast.walk(w) if isinstance(st, ast.Assign) and is_clock(ff, st.value)
              and (st.lineno, st.col_offset) < at for t in st.targets if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and (n.lineno, n.col_offset) > at
               and isinstance(n.right, ast.Name) and n.right.id in before for n in ast.walk(w))
