"""benchmarks/check_fix_tests.py: the outcomes read from pytest's JUnit XML, their
comparison before and after ``--fix``, the table, and the message for a missing snapshot."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "check_fix_tests", REPO / "benchmarks" / "check_fix_tests.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_fix_tests"] = mod
    spec.loader.exec_module(mod)
    return mod


cft = _load()

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="5">
<testcase classname="tests.test_a" name="test_ok[cpu]" time="0.1"/>
<testcase classname="tests.test_a" name="test_ok[cuda]" time="0.1">
  <skipped type="pytest.skip" message="no cuda">skip</skipped></testcase>
<testcase classname="tests.test_a" name="test_bad" time="0.1">
  <failure message="assert 1 == 2">tb</failure></testcase>
<testcase classname="tests.test_a" name="test_bad" time="0.1">
  <error message="teardown">tb</error></testcase>
<testcase classname="tests.test_b.TestX" name="test_fails" time="0.1">
  <failure message="x">tb</failure></testcase>
</testsuite></testsuites>
"""


def test_outcomes_from_junit_reads_every_test_and_keeps_the_worse_of_two_reports():
    got = cft.outcomes_from_junit(JUNIT)
    assert got == {
        "tests.test_a::test_ok[cpu]": "passed",
        "tests.test_a::test_ok[cuda]": "skipped",
        "tests.test_a::test_bad": "error",  # the call failed, then the teardown erred
        "tests.test_b.TestX::test_fails": "failed",
    }
    assert cft.tally(got) == "1/1/1/1"


def test_compare_finds_flips_and_tests_that_appear_or_vanish():
    before = {"a": "passed", "b": "failed", "c": "skipped", "d": "passed"}
    after = {"a": "passed", "b": "passed", "c": "skipped", "e": "passed"}
    assert cft.compare(before, after) == [
        cft.Flip("b", "failed", "passed"),
        cft.Flip("d", "passed", "absent"),
        cft.Flip("e", "absent", "passed"),
    ]
    assert cft.compare(before, dict(before)) == []


def _measured(before, after):
    cb = cft.CodeBase("o/n", "0" * 40, ("tests",), simulate=True)
    m = cft.Measured(cb, all_fixes=Counter({"FRY009": 3, "FRY004": 1}), files_fixed=["t.py"])
    m.before, m.after = before, after
    return m


def test_table_and_exit_status_report_a_flipped_test(capsys):
    same = {"cpu": {"t::a": "passed"}, "simulated cuda x1": {"t::a": "passed"}}
    flipped = {"cpu": {"t::a": "passed"}, "simulated cuda x1": {"t::a": "failed"}}
    assert cft.report_problems([_measured(same, same)]) == 0
    m = _measured(same, flipped)
    text = cft.table([m])
    assert (
        "| o/n@0000000 | 1 | 0 | FRY004 1, FRY009 3 | simulated cuda x1 | 1/0/0/0 | 0/1/0/0 | 1 |"
        in text
    )
    assert cft.report_problems([m]) == 1
    assert "o/n [simulated cuda x1] t::a: passed -> failed" in capsys.readouterr().out


def test_a_safe_fix_still_offered_after_fix_is_a_problem():
    same = {"cpu": {"t::a": "passed"}}
    m = _measured(same, same)
    m.left = Counter({"FRY003": 1})
    assert cft.report_problems([m]) == 1


def test_missing_snapshot_is_one_line_naming_export(tmp_path, capsys):
    assert cft.main(["--snapshots", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--export GIT_DIR" in err and str(tmp_path) in err


def test_unknown_code_base_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cft.main(["--only", "nobody/nothing"])
    assert exc.value.code == 2
    assert "unknown code base(s) nobody/nothing" in capsys.readouterr().err


def test_export_writes_every_file_of_the_pinned_commit(tmp_path):
    import subprocess

    src = tmp_path / "o+n"
    (src / "tests").mkdir(parents=True)
    (src / "tests" / "data.npz").write_bytes(b"\x00\x01")
    (src / "m.py").write_text("x = 1\n")
    git = ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    cb = cft.CodeBase("o/n", commit, ("tests",))
    dest, missing = cft.export_snapshot(cft._git_dir(tmp_path, "o/n"), cb, tmp_path / "out")
    assert missing == [] and dest.name == f"o-n@{commit}"
    assert (dest / "tests" / "data.npz").read_bytes() == b"\x00\x01"
    assert (dest / ".complete").is_file()
