"""Recall of ``ferry check`` on a held-out set of public bug reports (the fresh set).

Held out: measured, never tuned on.  The fresh reproductions were gathered after the
development/test split, each from the original file at the commit before the fix (trimmed
only of unrelated code), with the expected findings (``# FRY003``) written before ``ferry
check`` first ran on them.  They copy third-party code, so they are not kept in this
repository: ``sets/fresh.toml`` pins every file (sha256, line count, marked sites) and the
files live in ``.corpus/recall/fresh/fixtures``.  A rule change is not made for them; their
recall is measured and reported (``python benchmarks/check_corpus.py --recall --set
fresh``), not enforced here, so that no change is made to pass it.  These tests check that
every reproduction is well-formed and that the measurement runs; those that read the files
are skipped where the set is absent.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest


def _fresh(cc: ModuleType) -> Path:
    """The fresh set's directory, or a skip that says how to rebuild it."""
    problems = cc.verify_set(cc.report_sets()["fresh"])
    if problems:
        pytest.skip(problems[0])
    return cc.recall_set_dir("fresh")


def test_each_fresh_reproduction_cites_its_source_and_the_code_it_copies(cc: ModuleType) -> None:
    for path in sorted(_fresh(cc).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert re.match(r"# Source: https?://\S+", text.splitlines()[0]), path
        assert "# Report:" in text and "# Code: " in text, ("the report and the file", path)
        assert any(cc._MARKER.search(line) for line in text.splitlines()), path
        compile(text, str(path), "exec")


def test_the_fresh_manifest_pins_a_marked_file_per_report(cc: ModuleType) -> None:
    reports = cc.report_sets()["fresh"].reports
    assert len(reports) >= 20
    for r in reports:
        assert r.source.startswith("https://") and r.repository, r.name
        assert [f.path for f in r.files] == [r.name] and r.files[0].markers, r.name


def test_the_fresh_set_comes_from_repositories_outside_the_split_fixtures(cc: ModuleType) -> None:
    fixtures = {cc.repo_key(cc._source_of(p)) for p in cc.RECALL_FIXTURES.glob("*.py")}
    fresh = {cc.repo_key(r.source) for r in cc.report_sets()["fresh"].reports}
    assert not fresh & fixtures, f"also among the split fixtures: {sorted(fresh & fixtures)}"


def test_recall_on_the_fresh_set_is_measured(cc: ModuleType) -> None:
    fresh = _fresh(cc)
    cases = cc.recall_cases(fresh)
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(list(fresh.glob("*.py"))) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
