"""Recall of ``ferry check`` on a fourth held-out set of public bug reports (``held/fixtures/``).

Held out: gathered after the blind set had been measured, while the rules were being
changed, and kept away from that work.  The reproductions in ``held/fixtures/`` come from
repositories that appear in no other set (neither the development/test fixtures, nor
``fresh/``, ``unseen/`` or ``blind/fixtures/``, nor any corpus code base), one report per
repository.  Each copies the original file at a commit where the reported mistake is
present (trimmed only of unrelated code, as its header says), with the expected findings
(``# FRY010``) written from the report and the code and committed before ``ferry check``
first ran on it.  Their recall is measured and reported (``python
benchmarks/check_corpus.py --recall --fixtures tests/check/recall/held/fixtures``), not
enforced here, so that no change is made to pass it.  These tests check that every
reproduction is well-formed, that the set is disjoint from everything else, and that the
measurement runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).parent
HELD = HERE / "held" / "fixtures"
OTHER_REPORTS = (
    HERE / "fixtures",
    HERE / "fresh" / "fixtures",
    HERE / "unseen" / "fixtures",
    HERE / "blind" / "fixtures",
)
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _repos(directory: Path, cc: ModuleType) -> set[str]:
    return {cc.repo_key(cc._source_of(p)) for p in directory.glob("*.py")}


@pytest.mark.parametrize("path", sorted(HELD.glob("*.py")), ids=lambda p: p.name)
def test_each_held_reproduction_cites_its_source_commit_and_trimming(
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


def test_the_held_reports_come_from_repositories_in_no_other_set(cc: ModuleType) -> None:
    held = _repos(HELD, cc)
    assert len(list(HELD.glob("*.py"))) >= 25
    assert len(held) == len(list(HELD.glob("*.py"))), "one report per repository"
    for other in OTHER_REPORTS:
        assert not held & _repos(other, cc), (other, sorted(held & _repos(other, cc)))
    snapshots = (*cc.EXTRA, *cc.FRESH_EXTRA, *cc.UNSEEN_EXTRA, *cc.BLIND_EXTRA)
    assert not held & {r.lower() for r, _ in snapshots}
    packages = {cc._norm(n) for n, _ in (*cc.CORPUS, *cc.FRESH, *cc.UNSEEN, *cc.BLIND)}
    assert not {cc._norm(r.split("/")[-1]) for r in held} & packages


def test_recall_on_the_held_set_is_measured(cc: ModuleType) -> None:
    cases = cc.recall_cases(HELD)
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(list(HELD.glob("*.py"))) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
