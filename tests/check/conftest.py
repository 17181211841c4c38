"""Fixtures for the checker's tests: tiny fake rules, so the engine, CLI, fixes and
reporters are tested independently of the real rules; and ``finding_lines``, which checks
small programs written to a temporary folder with the real rules."""

from __future__ import annotations

import ast
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from torchferry.check import engine
from torchferry.check.api import Context, Fix
from torchferry.check.runner import Options, check_paths


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


@pytest.fixture
def finding_lines(tmp_path: Path) -> Callable[..., list[int]]:
    """``finding_lines(files, select)``: write ``files`` (name -> text) to a temporary
    folder, check them as one run with the rules ``select`` names, and return the sorted
    lines of the findings in the first file."""

    def run(files: dict[str, str], select: str) -> list[int]:
        paths = []
        for name, text in files.items():
            path = tmp_path / name
            path.write_text(text)
            paths.append(path)
        opts = Options(root=tmp_path, select=(select,), target_torch_version=None)
        outcomes = check_paths(paths, opts, jobs=1)
        return sorted(d.line for o in outcomes for d in o.diagnostics if o.path == paths[0])

    return run


@pytest.fixture
def finding_places(tmp_path: Path) -> Callable[..., list[tuple[str, int]]]:
    """``finding_places(files, select)``: write ``files`` (relative path -> text) to a
    temporary folder, check them as one run with the rules ``select`` names, and return
    ``(file name, line)`` of every finding, in the run's order of files and findings."""

    def run(files: dict[str, str], select: str) -> list[tuple[str, int]]:
        paths = []
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            paths.append(path)
        opts = Options(root=tmp_path, select=(select,), target_torch_version=None)
        outcomes = check_paths(paths, opts, jobs=1)
        return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics]

    return run
