"""Helpers for the analysis's tests: analyse a snippet, find the value of a name or call."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from torchferry.check.flow import FileFlow, Project, Value, Where, analyze


class Snippet:
    def __init__(self, src: str, path: str = "/p/main.py", project: Project | None = None):
        self.tree = ast.parse(textwrap.dedent(src).lstrip("\n"))
        self.ff: FileFlow = analyze(self.tree, path, project)
        self.results = list(self.ff.results())

    def value_at(self, line: int, name: str) -> Value:
        """The value of the last ``name`` loaded on ``line``."""
        found = None
        for r in self.results:
            for node in ast.walk(r.node):
                if isinstance(node, ast.Name) and node.id == name and node.lineno == line:
                    v = r.value(node)
                    if v is not None:
                        found = v
        assert found is not None, f"{name} not evaluated on line {line}"
        return found

    def call_at(self, line: int):
        for r in self.results:
            for c in r.calls.values():
                if c.node.lineno == line:
                    return c
        raise AssertionError(f"no call on line {line}")

    wheres = staticmethod(lambda v: wheres(v))

    def function(self, name: str):
        for r in self.results:
            if getattr(r.node, "name", None) == name:
                return r
        raise AssertionError(name)


def wheres(v: Value) -> set[str] | None:
    """The places of a value by name (``{"CPU", "ACCEL"}``), None when unknown."""
    if v.places is None:
        return None
    return {p.where.name if p.where in (Where.CPU, Where.ACCEL) else f"{p.where.name}{p.ref}"
            for p in v.places}


@pytest.fixture
def snippet():
    return Snippet


def project_sources(*extra: str) -> list[str]:
    """``extra`` and the project's own modules (real code of every shape)."""
    root = Path(__file__).resolve().parents[3] / "src" / "torchferry"
    return [*extra, *(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py")))]
