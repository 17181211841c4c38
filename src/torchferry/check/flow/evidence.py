"""Turning the analysis's origins into a finding's evidence (the chain a reader checks)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.api import Evidence
from torchferry.check.flow.lattice import Op, Origin, Value

if TYPE_CHECKING:
    from torchferry.check.api import Context


def step(ctx: Context, origin: Origin, message: str) -> Evidence:
    """One step at ``origin`` (its column converted to characters in this file)."""
    if origin.path is None:
        return Evidence(message, origin.line, ctx.char_col(origin.line, origin.column))
    return Evidence(message, origin.line, origin.column, origin.path)


def at(ctx: Context, node: ast.AST, message: str) -> Evidence:
    line, col, _, _ = ctx.span(node)
    return Evidence(message, line, col)


def latest(v: Value, *ops: Op) -> Origin | None:
    """The most recent origin of ``v`` that did one of ``ops``."""
    return next((o for o in v.origins if o.op in ops), None)


def first(v: Value, *ops: Op) -> Origin | None:
    """The oldest origin of ``v`` that did one of ``ops`` (where it was made)."""
    return next((o for o in reversed(v.origins) if o.op in ops), None)


def where(origin: Origin) -> str:
    """``line 12`` or ``line 12 of model.py``."""
    if origin.path is None:
        return f"line {origin.line}"
    return f"line {origin.line} of {origin.path.rsplit('/', 1)[-1]}"
