"""Recall of ``ferry check`` on a second held-out set of public bug reports (``unseen/fixtures/``).

Held out: measured, never tuned on.  The reproductions in ``unseen/fixtures/`` were gathered
after every earlier evaluation set had been measured, from repositories that appear in no
other set (neither the development/test fixtures nor ``fresh/fixtures/``, nor the corpus code
bases).  Each copies the original file at the commit before the fix (trimmed only of
unrelated code, as its header says), with the expected findings (``# FRY010``) written and
committed before ``ferry check`` first ran on it.  Their recall is measured and reported
(``python benchmarks/check_corpus.py --recall --fixtures tests/check/recall/unseen/fixtures``),
not enforced here, so that no change is made to pass it.  These tests check that every
reproduction is well-formed and that the measurement runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).parent
UNSEEN = HERE / "unseen" / "fixtures"
FRESH = HERE / "fresh" / "fixtures"
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(UNSEEN.glob("*.py")), ids=lambda p: p.name)
def test_each_unseen_reproduction_cites_its_source_commit_and_trimming(
    path: Path, cc: ModuleType
) -> None:
    text = _text(path)
    lines = text.splitlines()
    assert re.match(r"# Source: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$", lines[0])
    assert "# Report:" in text, "what the report says"
    assert _COMMIT.search(text), "the repository and the full commit the code is copied from"
    assert "trimmed:" in text, "what was left out of the copied file"
    assert any(cc._MARKER.search(line) for line in lines), "no expected finding"
    assert "\r" not in text
    compile(text, str(path), "exec")


def test_the_unseen_set_comes_from_repositories_in_no_other_set(cc: ModuleType) -> None:
    def repos(directory: Path) -> set[str]:
        return {cc.repo_key(cc._source_of(p)) for p in directory.glob("*.py")}

    unseen = repos(UNSEEN)
    assert len(list(UNSEEN.glob("*.py"))) >= 25
    assert len(unseen) >= 25, "one or two reports per repository, not a cluster"
    assert not unseen & repos(cc.RECALL_FIXTURES), sorted(unseen & repos(cc.RECALL_FIXTURES))
    assert not unseen & repos(FRESH), sorted(unseen & repos(FRESH))
    code_bases = {r.lower() for r, _ in (*cc.EXTRA, *cc.FRESH_EXTRA, *cc.UNSEEN_EXTRA)}
    assert not {u.lower() for u in unseen} & code_bases


def test_recall_on_the_unseen_set_is_measured(cc: ModuleType) -> None:
    cases = cc.recall_cases(UNSEEN)
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(list(UNSEEN.glob("*.py"))) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
