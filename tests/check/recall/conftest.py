"""The benchmark module ``benchmarks/check_corpus.py``, loaded once, as a fixture."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]

#: reproductions are copied project code, checked by ferry check, never run or collected
#: (a directory reproduction may hold a repository's own ``test_*.py``)
collect_ignore_glob = ["*/fixtures/*"]


def load_check_corpus() -> ModuleType:
    name = "check_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "check_corpus.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def cc() -> ModuleType:
    return load_check_corpus()
