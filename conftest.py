"""Repository-wide pytest setup.

``--doctest-modules`` (pyproject) runs the examples in every docstring under
``src/``.  Under ``tests/`` only test modules are collected: the rule fixtures and
other data files there are programs with mistakes on purpose, not modules to import.
"""

from __future__ import annotations

from collections.abc import Iterator
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
def _doctest_environment(request: pytest.FixtureRequest) -> None:
    """Docstring examples see a machine without device overrides, as a reader's would."""
    if isinstance(request.node, pytest.DoctestItem):
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.delenv("TORCHFERRY_DEVICE", raising=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collect with the cyclic collector off, then freeze what collection imported.

    Importing the test modules and ``src/`` (torch, IPython, ...) leaves a heap of
    objects that live to the end of the run; every automatic full collection walked all
    of them again (22 collections, 4.1 s of a 25 s run, measured with ``gc.callbacks``).
    One collection after collecting frees import-time garbage; ``gc.freeze()`` then puts
    the survivors where later collections do not look.  Objects the tests create are
    collected as before.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        if enabled:
            gc.enable()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Let the finished test process exit without CPython's shutdown collections.

    At exit the interpreter runs full cyclic collections over everything still alive
    (torch, its compiler stack, IPython, every test module): 1.5-2.5 s a run, measured
    here.  The run is over and its files are written, so nothing is lost by freezing
    what is left; objects still die by reference counting as modules are torn down.
    """
    import atexit
    import gc

    atexit.register(gc.freeze)
