"""Fixtures for the checker's infrastructure tests: tiny fake rules, so the engine,
CLI, fixes and reporters are tested independently of the real rules."""

from __future__ import annotations

import ast
import types

import pytest

from torchferry.check import engine
from torchferry.check.api import Context, Fix


def _bare_to(ctx: Context):
    """Flags ``x.to(...)`` as a statement.

    ## What it does
    Flags a bare `.to()` call on a plain name.

    ## Fix safety
    Safe: assigns the result back.
    """
    for node in ctx.nodes.get(ast.Expr, []):
        call = node.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "to"
            and isinstance(call.func.value, ast.Name)
        ):
            name = call.func.value.id
            fix = Fix((ctx.edit(node, f"{name} = {ctx.text(call)}"),), True, f"assign to `{name}`")
            yield ctx.finding("FRY901", node, "result of `.to()` is discarded", fix)


def _hard_cuda(ctx: Context):
    """Flags the string literal "cuda".

    ## What it does
    Flags `"cuda"`.
    """
    for node in ctx.nodes.get(ast.Constant, []):
        if node.value == "cuda":
            fix = Fix((ctx.edit(node, "device"),), False, "use `device`")
            yield ctx.finding("FRY902", node, 'hard-coded "cuda"', fix)


def _broken_fix(ctx: Context):
    """Flags the name BROKEN with a fix that breaks the syntax."""
    for node in ctx.nodes.get(ast.Name, []):
        if node.id == "BROKEN":
            yield ctx.finding("FRY903", node, "broken", Fix((ctx.edit(node, "("),), True, "break"))


def _crash(ctx: Context):
    """Crashes on the name CRASH."""
    for node in ctx.nodes.get(ast.Name, []):
        if node.id == "CRASH":
            raise ZeroDivisionError("boom")
    return []


def _module(code: str, name: str, fix: str, check) -> types.ModuleType:
    mod = types.ModuleType(f"fake_{code.lower()}")
    mod.CODE, mod.NAME, mod.FIX, mod.check = code, name, fix, check
    mod.__doc__ = check.__doc__
    return mod


FAKE_RULES = (
    _module("FRY901", "bare-to", "safe", _bare_to),
    _module("FRY902", "hard-cuda", "unsafe", _hard_cuda),
    _module("FRY903", "broken-fix", "safe", _broken_fix),
    _module("FRY904", "crash", "none", _crash),
)


@pytest.fixture
def fake_rules(monkeypatch):
    """Replace the real rules with FAKE_RULES for the duration of a test."""
    monkeypatch.setattr(engine, "_all_rules", lambda: FAKE_RULES)
    engine._resolve.cache_clear()
    yield FAKE_RULES
    engine._resolve.cache_clear()
