"""The device-flow analysis: what each value of a file is and where it lives.

An abstract interpretation of every scope over a small typed lattice
(:mod:`~torchferry.check.flow.lattice`), with per-function summaries followed across the
files of the run (:mod:`~torchferry.check.flow.program`,
:mod:`~torchferry.check.flow.project`).  Rules read its records (calls, meetings, values)
through :func:`analyze`; it never imports torch.

>>> import ast
>>> src = "import torch\\nm = torch.nn.Linear(2, 2).cuda()\\ny = m(torch.ones(2))\\n"
>>> ff = analyze(ast.parse(src), "<example>")
>>> call = [c for r in ff.results() for c in r.calls.values() if c.callee is Callee.MODULE][0]
>>> [p.where.name for p in call.func.places], [p.where.name for p in call.args[0].places]
(['ACCEL'], ['CPU'])
"""

from __future__ import annotations

import ast

from torchferry.check.flow.events import Callee, CallEvent, MeetEvent, ScopeResult
from torchferry.check.flow.lattice import (
    ACCEL,
    BOTTOM,
    CPU,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Reason,
    Value,
    Where,
    join,
)
from torchferry.check.flow.program import ClassInfo, FileFlow
from torchferry.check.flow.project import Project

__all__ = [
    "ACCEL", "BOTTOM", "CPU", "UNKNOWN", "Basis", "CallEvent", "Callee", "ClassInfo",
    "FileFlow", "Kind", "MeetEvent", "Op", "Origin", "Place", "Project", "Reason",
    "ScopeResult", "Value", "Where", "analyze", "join",
]  # fmt: skip


def analyze(tree: ast.Module, path: str, project: Project | None = None,
            module_classes: frozenset[str] = frozenset(),
            lines: list[str] | None = None, source: str | None = None) -> FileFlow:
    """The analysis of one file (scopes are interpreted when first asked for; with the
    source ``lines``, :meth:`FileFlow.results` skips those that cannot matter; ``source``:
    the text ``tree`` was parsed from, for :meth:`Project.add`)."""
    ff = FileFlow(tree, path, project, module_classes, lines, source)
    if project is not None:
        project.add(ff, source)
    return ff
