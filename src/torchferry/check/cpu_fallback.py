"""Where a program's own code picks its device with a CPU fallback.

``device = "cuda" if torch.cuda.is_available() else "cpu"``, ``torch.device("cuda" if
torch.cuda.is_available() else "cpu")``, or an ``if torch.cuda.is_available():`` whose arm
assigns a CPU device (``else: device = torch.device("cpu")``): the program is written to run
on a machine without the accelerator.  A hard-coded accelerator on the path that such a run
also takes crashes there (FRY001's default part).

Only the code counts: the test calls ``is_available()`` of ``torch.cuda`` (or
``torch.backends.mps``, ``torch.xpu``), and the fallback is a literal ``"cpu"`` or
``torch.device("cpu")``.  A flag (``args.cuda``, ``--no-cuda``) or a variable's name alone
says nothing here.

>>> tree = ast.parse('import torch\\ndevice = "cuda" if torch.cuda.is_available() else "cpu"')
>>> fallback_site(tree)
(2, 9)
>>> fallback_site(ast.parse('device = "cuda" if args.cuda else "cpu"')) is None
True
"""

from __future__ import annotations

import ast
import os
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

from torchferry.check.api import Evidence, walk
from torchferry.check.names import dotted

if TYPE_CHECKING:
    from torchferry.check.flow import Project

#: the modules whose ``is_available()`` tells whether the accelerator is there
_BACKENDS = ("cuda", "mps", "xpu")


def checks_availability(test: ast.AST) -> bool:
    """Does ``test`` call ``torch.cuda.is_available()`` (or mps's, xpu's)?

    >>> checks_availability(ast.parse("not torch.cuda.is_available()").body[0].value)
    True
    >>> checks_availability(ast.parse("args.cuda").body[0].value)
    False
    """
    for n in walk(test):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr == "is_available":
            owner = dotted(n.func.value) or ""
            if owner.rsplit(".", 1)[-1] in _BACKENDS:
                return True
    return False


def _is_cpu(e: ast.expr) -> bool:
    """A CPU device written out: ``"cpu"`` or ``torch.device("cpu")``.

    >>> [_is_cpu(ast.parse(s).body[0].value) for s in ('"cpu"', 'torch.device("cpu")', 'x.cpu()')]
    [True, True, False]
    """
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) and e.value.split(":")[0] == "cpu"
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
        e.func.attr == "device" and len(e.args) == 1 and _is_cpu(e.args[0])


def _assigns_cpu(arm: list[ast.stmt]) -> bool:
    """Does a statement of ``arm`` (directly) assign a CPU device (``device = "cpu"``)?"""
    return any(isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None
               and _is_cpu(s.value) for s in arm)


def fallback_site(tree: ast.AST) -> tuple[int, int] | None:
    """The line and column of the first CPU fallback of the device pick in ``tree``, if any.

    >>> fallback_site(ast.parse("if torch.cuda.is_available():\\n    d = 'cuda'\\nelse:\\n    d = 'cpu'"))
    (1, 0)
    >>> fallback_site(ast.parse("x = x.cuda() if torch.cuda.is_available() else x.cpu()")) is None
    True
    """
    hits = []
    for n in walk(tree):
        if isinstance(n, ast.IfExp) and (_is_cpu(n.body) or _is_cpu(n.orelse)) and \
                checks_availability(n.test):
            hits.append((n.lineno, n.col_offset))
        elif isinstance(n, ast.If) and (_assigns_cpu(n.body) or _assigns_cpu(n.orelse)) and \
                checks_availability(n.test):
            hits.append((n.lineno, n.col_offset))
    return min(hits) if hits else None


#: a file's fallback site by path, per run (the files of a run are read once each)
_SITES: weakref.WeakKeyDictionary[Project, dict[str, tuple[int, int] | None]] = \
    weakref.WeakKeyDictionary()


def _site_in(project: Project, path: str) -> tuple[int, int] | None:
    """:func:`fallback_site` of another Python file of the run, parsed only when its bytes
    say both ``is_available`` and ``cpu`` (a notebook's are JSON: never read here)."""
    memo = _SITES.setdefault(project, {})
    if path not in memo:
        data = project.files.get(path, b"")
        site = None
        if path.endswith(".py") and b"is_available" in data and b"cpu" in data:
            try:
                site = fallback_site(ast.parse(data))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                site = None
        memo[path] = site
    return memo[path]


def _program(project: Project, path: str) -> Iterable[str]:
    """The other files of the run that are part of ``path``'s program: those it imports
    directly, and those that import it, directly or not (none when too many do)."""
    yield from sorted(project.imports_of(path))
    yield from sorted(project.importers(path) or ())


def program_fallback(tree: ast.AST, path: str, project: Project | None) -> Evidence | None:
    """Evidence that the program of the file ``path`` (its tree ``tree``) picks its device
    with a CPU fallback: in the file itself, else in the first file of its program (see
    :func:`_program`) that does; None where none does.  ``path`` is the file's absolute path
    when ``project`` is given."""
    message = "the program falls back to the CPU here when no accelerator is available"
    own = fallback_site(tree)
    if own is not None:
        return Evidence(message, *own)
    if project is None:
        return None
    path = os.path.abspath(path)
    if path not in project.files:
        return None
    for other in _program(project, path):
        site = _site_in(project, other)
        if site is not None:
            return Evidence(message, *site, path=other)
    return None
