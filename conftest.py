"""Repository-wide pytest setup.

``--doctest-modules`` (pyproject) runs the examples in every docstring under
``src/``.  Under ``tests/`` only test modules are collected: the rule fixtures and
other data files there are programs with mistakes on purpose, not modules to import.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_ROOT = Path(__file__).parent
_TESTS = _ROOT / "tests"
# `python -m torchferry` runs the CLI on import: never collected.
_NEVER = {_ROOT / "src" / "torchferry" / "__main__.py"}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path in _NEVER:
        return True
    if collection_path.suffix == ".py" and _TESTS in collection_path.parents:
        name = collection_path.name
        if not (name.startswith("test_") or name == "conftest.py"):
            return True
    return None


@pytest.fixture(autouse=True)
def _doctest_environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Docstring examples see a machine without device overrides, as a reader's would."""
    if isinstance(request.node, pytest.DoctestItem):
        monkeypatch.delenv("TORCHFERRY_DEVICE", raising=False)
