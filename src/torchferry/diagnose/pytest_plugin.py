"""pytest plugin: a failure under ``--ferry-simulate`` (or the ``simulated_gpu`` fixture)
carries the explanation ``ferry run`` prints, as a report section beside the captured
output: the operand on the odd device, where it was made, the fix, the rule.

Registered through the ``pytest11`` entry point next to the simulation's plugin
(:mod:`torchferry.sim.pytest_plugin`).  Importing it imports neither torch nor the
simulation; it does nothing unless a simulation is active.

The section is titled ``torchferry explain``; ``--show-capture=no`` hides it as it
hides captured output.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from typing import Any

import pytest

SECTION = "torchferry explain"
_RECORDER_KEY = "_torchferry_explain"


def _simulating() -> bool:
    sim = sys.modules.get("torchferry.sim")
    return sim is not None and bool(sim.is_active())


@pytest.hookimpl(trylast=True)
def pytest_configure(config: Any) -> None:
    """Under ``--ferry-simulate`` note where tensors are made, as ``ferry run`` does (the
    explanation's "created at")."""
    if not _simulating():
        return
    from torchferry.diagnose.explanation import explain

    recorder = explain(file=None)
    recorder.__enter__()
    setattr(config, _RECORDER_KEY, recorder)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: Any) -> None:
    recorder = getattr(config, _RECORDER_KEY, None)
    if recorder is not None:
        recorder.__exit__(None, None, None)
        delattr(config, _RECORDER_KEY)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, Any]:
    report = yield
    excinfo = call.excinfo
    if excinfo is None or not _simulating() or excinfo.errisinstance(pytest.skip.Exception):
        return report
    from torchferry.diagnose.explanation import explain_exception, format_report

    try:
        explained = explain_exception(excinfo.value)
    except Exception as exc:  # noqa: BLE001 - never mask the test's own failure
        report.sections.append((SECTION, f"could not explain this error ({type(exc).__name__}: {exc})"))
        return report
    if explained is not None:
        report.sections.append((SECTION, format_report(explained)))
    return report
