"""What the files checked together tell about each other: the ``nn.Module`` classes they
define.

``ferry check`` checks each file on its own (in worker processes, with a per-file cache),
but a model class is often defined in one file and used in another
(``from .model import Net`` ... ``net = Net().to(device)``).  Before checking, one cheap
pass over the bytes of every file of the run (a regular expression, no parsing) collects
the classes that subclass ``nn.Module`` -- directly (``nn.Module``, ``torch.nn.Linear``,
``LightningModule`` and the other package classes of
:data:`torchferry.check.flow.modclass.PACKAGE_MODULES`) or through other classes of the
run, at any depth and in any file (``class Net(m.Base)`` after ``import pkg.models as m``;
``class Net(B)`` after ``from .models import Base as B``: a base imported under another
name is known by its own) -- and every file is then checked knowing them.  A class name
defined twice with different bases counts as a module if either definition is one.  A
class whose base comes from another package and is not one of those
(allennlp's ``Model``; a transformers model class known by its naming, ``BertModel``, whose
bare name says nothing of its package) is not named here: the device-flow
analysis decides it from the class's code (:mod:`torchferry.check.flow.modclass`),
following the imports to the file that defines it.

>>> sorted(module_classes([b"class A(nn.Module):\\n    pass\\nclass B(A): pass\\n",
...                        b"class C(B):\\n    x = 1\\nclass D(object): pass\\n",
...                        b"from .c import C as Alias\\nclass E(Alias): pass\\n"]))
['A', 'B', 'C', 'E']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from torchferry.check.flow.modclass import PACKAGE_MODULES, torch_nn_class

try:  # the builtin module: hashlib would load OpenSSL first, slower to start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

#: (each pattern starts at a line feed and is searched in ``b"\n" + data``: a pattern that
#: starts with a literal character is searched several times faster than one that starts
#: with ``^`` under re.M)
_CLASS = re.compile(rb"\n[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)")
#: ``from M import A as B`` (also inside parentheses): the names a file imports under another
_ALIAS = re.compile(rb"\n[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")
#: the class names of :data:`PACKAGE_MODULES` (a header names its bases as imported)
_PACKAGE_BASES = frozenset(q.rsplit(".", 1)[-1] for q in PACKAGE_MODULES)
_AS = re.compile(rb"(\w+)[ \t\n\\]+as[ \t\n\\]+(\w+)")


def _matches(pattern: re.Pattern[bytes], buf: bytes, needle: bytes) -> list[re.Match[bytes]]:
    r"""``pattern.finditer(buf)`` as a list, for a pattern that starts with a line feed and
    whose every match says ``needle`` on its first line: tried only after the line feeds
    that start such a line (each one after the end of the match before), since scanning
    every line start took twice as long.

    >>> [m.group(1) for m in _matches(_CLASS, b"\nclass A(B):\n x = 1\nclass C(\n D): pass", b"class")]
    [b'A', b'C']
    """
    out: list[re.Match[bytes]] = []
    end = 0
    last = -1
    at = buf.find(needle)
    while at >= 0:
        start = buf.rfind(b"\n", 0, at)
        if start != last:  # one try per line
            last = start
            if start >= end and (m := pattern.match(buf, start)) is not None:
                out.append(m)
                end = m.end()
        at = buf.find(needle, at + len(needle))
    return out


def headers(data: bytes) -> bytes:
    """The lines of a file :func:`module_classes` reads: its class headers and the imports
    that rename a name (nothing else of a file changes the classes it defines)."""
    if b"class" not in data:
        return b""
    data = b"\n" + data
    found = [m.group(0)[1:] for m in _matches(_CLASS, data, b"class")]
    if b" as " in data:
        found += [m.group(0)[1:] for m in _matches(_ALIAS, data, b"import")
                  if _AS.search(m.group(1))]
    return b"\n".join(found)


def _aliases(data: bytes) -> dict[str, str]:
    """The names ``data`` imports under another name: alias -> the imported name."""
    if b" as " not in data:
        return {}
    out: dict[str, str] = {}
    for m in _matches(_ALIAS, b"\n" + data, b"import"):
        names = m.group(1)
        if b"as" not in names:
            continue  # no ``A as B`` in it: the search below is slow on long lists of names
        for a in _AS.finditer(names):
            out[a.group(2).decode("ascii", "replace")] = a.group(1).decode("ascii", "replace")
    return out


def module_classes(sources: Iterable[bytes]) -> frozenset[str]:
    """The names of the classes defined in ``sources`` that are ``nn.Module`` subclasses."""
    bases: dict[str, set[str]] = {}
    modules: set[str] = set()
    for data in sources:
        if b"class" not in data:
            continue
        renamed = _aliases(data)
        for m in _matches(_CLASS, b"\n" + data, b"class"):
            name = m.group(1).decode("ascii", "replace")
            for raw in m.group(2).split(b","):
                base = raw.strip().decode("utf-8", "replace")
                if not base or "=" in base:
                    continue  # ``metaclass=...``
                last = base.rsplit(".", 1)[-1]
                last = renamed.get(last, last) if "." not in base else last
                if last in _PACKAGE_BASES or base.startswith(("nn.", "torch.nn.")) and \
                        torch_nn_class("torch.nn." + base.split("nn.", 1)[1]):
                    modules.add(name)
                bases.setdefault(name, set()).add(last)
    changed = True
    while changed:  # through other classes of the run, in any order
        changed = False
        for name, bs in bases.items():
            if name not in modules and bs & modules:
                modules.add(name)
                changed = True
    return frozenset(modules)


def fingerprint(names: frozenset[str]) -> str:
    """A short stable digest of a set of class names (part of each cache entry's key: a
    file's findings depend on the classes the other files define)."""
    return blake2b("\n".join(sorted(names)).encode(), digest_size=8).hexdigest()
