"""What the files checked together tell about each other: the ``nn.Module`` classes they
define.

``ferry check`` checks each file on its own (in worker processes, with a per-file cache),
but a model class is often defined in one file and used in another
(``from .model import Net`` ... ``net = Net().to(device)``).  Before checking, one cheap
pass over the bytes of every file of the run (a regular expression, no parsing) collects
the classes that subclass ``nn.Module`` -- directly (``nn.Module``, ``torch.nn.Linear``,
a base whose name ends in ``Module``, such as ``LightningModule``) or through other
classes of the run -- and every file is then checked knowing them.  A class name defined
twice with different bases counts as a module if either definition is one.

>>> sorted(module_classes([b"class A(nn.Module):\\n    pass\\nclass B(A): pass\\n",
...                        b"class C(B):\\n    x = 1\\nclass D(object): pass\\n"]))
['A', 'B', 'C']
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_CLASS = re.compile(rb"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.M)


def module_classes(sources: Iterable[bytes]) -> frozenset[str]:
    """The names of the classes defined in ``sources`` that are ``nn.Module`` subclasses."""
    bases: dict[str, set[str]] = {}
    modules: set[str] = set()
    for data in sources:
        if b"class" not in data:
            continue
        for m in _CLASS.finditer(data):
            name = m.group(1).decode("ascii", "replace")
            for raw in m.group(2).split(b","):
                base = raw.strip().decode("utf-8", "replace")
                if not base or "=" in base:
                    continue  # ``metaclass=...``
                last = base.rsplit(".", 1)[-1]
                if last.endswith("Module") or (
                    base.startswith(("nn.", "torch.nn.")) and last[:1].isupper()
                ):
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
    return hashlib.blake2b("\n".join(sorted(names)).encode(), digest_size=8).hexdigest()
