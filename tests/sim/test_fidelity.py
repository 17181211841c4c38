"""Every case of the fidelity table behaves in the simulation as it does on a real GPU."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

from torchferry.sim.session import simulate


def _load_cases():
    # test data next to this file, not a package module: load it by its path
    path = pathlib.Path(__file__).with_name("fidelity_cases.py")
    spec = importlib.util.spec_from_file_location("ferry_fidelity_cases", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod


_cases = _load_cases()
CASES, Case, Outcome, mismatch, run_case = (
    _cases.CASES, _cases.Case, _cases.Outcome, _cases.mismatch, _cases.run_case)


@pytest.mark.parametrize("case", [
    # a case that starts a Python process is slow (the fast loop leaves it out)
    pytest.param(c, marks=pytest.mark.slow) if "process" in c.tags else c for c in CASES
], ids=[c.name for c in CASES])
def test_case_matches_real_gpu(case):
    with simulate("cuda", count=case.devices):
        got = run_case(case)
    if case.refused is not None:  # a refusal by design, naming the feature
        assert got.exc is not None and got.exc[0] == "UnsupportedFeatureError"
        assert got.exc[1].startswith(case.refused)
        return
    assert mismatch(case, got) is None


def test_table_has_sources_and_unique_names():
    assert len({c.name for c in CASES}) == len(CASES)
    assert all(c.source in ("H200", "lesson", "rule", "torch-source") for c in CASES)
    # a case not checked on hardware says where its expected outcome was read
    assert all(c.cite for c in CASES if c.source == "torch-source")
    assert all((c.out is not None) or (c.exc is not None) or c.warns for c in CASES)


def test_mismatch_reports_differences():
    case = Case("x", "print(1)", out="1\n")
    assert mismatch(case, Outcome("1\n", None, [])) is None
    assert "expected output" in mismatch(case, Outcome("2\n", None, []))
    err = Case("y", "", exc=("RuntimeError", "boom"))
    assert "no exception" in mismatch(err, Outcome("", None, []))
    assert mismatch(err, Outcome("", ("RuntimeError", "boom"), [])) is None
    assert "TypeError" in mismatch(err, Outcome("", ("TypeError", "boom"), []))


def test_cases_fail_without_the_simulation():
    # the table is not vacuous: on this CPU-only machine, outside the simulation, it differs
    lesson = next(c for c in CASES if c.name == "lesson_portable")
    assert mismatch(lesson, run_case(lesson)) is not None
