"""Recall of ``ferry check`` on a held-out set of public bug reports (``fresh/fixtures/``).

Held out: measured, never tuned on.  The reproductions in ``fresh/fixtures/`` were gathered after
the development/test split, each from the original file at the commit before the fix
(trimmed only of unrelated code), with the expected findings (``# FRY003``) written before
``ferry check`` first ran on them.  A rule change is not made for them; their recall is
measured and reported (``python benchmarks/check_corpus.py --recall --fixtures
tests/check/recall/fresh/fixtures``), not enforced here, so that no change is made to pass it.
These tests check that every reproduction is well-formed and that the measurement runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

FRESH = Path(__file__).parent / "fresh" / "fixtures"


@pytest.mark.parametrize("path", sorted(FRESH.glob("*.py")), ids=lambda p: p.name)
def test_each_fresh_reproduction_cites_its_source_and_the_code_it_copies(
    path: Path, cc: ModuleType
) -> None:
    text = path.read_text(encoding="utf-8")
    assert re.match(r"# Source: https?://\S+", text.splitlines()[0]), "the first line cites it"
    assert "# Report:" in text and "# Code: " in text, "the report and the file copied"
    assert any(cc._MARKER.search(line) for line in text.splitlines()), "no expected finding"
    compile(text, str(path), "exec")


def test_the_fresh_set_comes_from_repositories_outside_the_split_fixtures(cc: ModuleType) -> None:
    fixtures = {cc.repo_key(cc._source_of(p)) for p in cc.RECALL_FIXTURES.glob("*.py")}
    fresh = {cc.repo_key(cc._source_of(p)) for p in FRESH.glob("*.py")}
    assert len(list(FRESH.glob("*.py"))) >= 20
    assert not fresh & fixtures, f"also among the split fixtures: {sorted(fresh & fixtures)}"


def test_recall_on_the_fresh_set_is_measured(cc: ModuleType) -> None:
    cases = cc.recall_cases(FRESH)
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(list(FRESH.glob("*.py"))) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
