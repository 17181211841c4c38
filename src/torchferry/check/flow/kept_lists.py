"""Lists kept on ``self`` across methods: the readers of a container that a method of the
class fills.

``self.acc = []`` in ``__init__``, ``self.acc.append(loss)`` in ``step`` (a method that moves
or makes a tensor), then ``np.mean(self.acc)`` in ``end``: the last method's text names
neither a factory nor a move, yet the list it reads holds what ``step`` appended (the
class's table of attributes joins what every method stores, growth by ``append`` included).
:func:`readers` finds such methods, so that the analysis interprets them too."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable

#: ``self.acc.append(``, ``self.acc[k].append(`` (also ``extend``, ``insert``): the growth
#: of a container kept on ``self``
_GROWN = re.compile(r"\bself\.(\w+)(?:\[[^\]\n]*\])?\.(?:append|extend|insert)\(")


def grown(text: str) -> set[str]:
    """The attributes of ``self`` whose list ``text`` grows.

    >>> sorted(grown("self.acc.append(x)\\nself.h[k].extend(y)\\nself.n.add(1)"))
    ['acc', 'h']
    """
    return {m.group(1) for m in _GROWN.finditer(text)}


def reads(text: str, attrs: set[str]) -> bool:
    """Does ``text`` read ``self.<a>`` for one of ``attrs``?

    >>> reads("return np.mean(self.acc)", {"acc"}), reads("self.accs = 1", {"acc"})
    (True, False)
    """
    return any(re.search(rf"\bself\.{re.escape(a)}\b", text) for a in attrs)


def readers(methods: Iterable[tuple[ast.AST, object]], relevant: set[int],
            text_of: Callable[[ast.AST], str], outside: Callable[[str], bool]) -> set[int]:
    """The methods of ``methods`` (each with its class, ``None`` for a function), not in
    ``relevant``, that read a list kept on ``self`` which a method of ``relevant`` of the
    same class grows (:func:`grown`), unless the file stores that attribute on another
    object than ``self`` (``outside``): then what the list holds is not the class's own
    doing."""
    by_class: dict[int, list[ast.AST]] = {}
    for fn, cls in methods:
        if cls is not None:
            by_class.setdefault(id(cls), []).append(fn)
    out: set[int] = set()
    for fns in by_class.values():
        kept = {a for fn in fns if id(fn) in relevant for a in grown(text_of(fn))}
        kept = {a for a in kept if not outside(a)}
        if kept:
            out |= {id(fn) for fn in fns if id(fn) not in relevant and reads(text_of(fn), kept)}
    return out


def grown_outside(lines: list[str], attr: str) -> bool:
    """Does a line grow ``<x>.<attr>`` for an ``x`` other than ``self``?

    >>> grown_outside(["r.acc.append(t)"], "acc"), grown_outside(["self.acc.append(t)"], "acc")
    (True, False)
    """
    pattern = re.compile(rf"(?<!\bself)\.{re.escape(attr)}(?:\[[^\]\n]*\])?\.(?:append|extend|insert)\(")
    return any(pattern.search(line) for line in lines if attr in line)
