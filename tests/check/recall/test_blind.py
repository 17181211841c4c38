"""Recall of ``ferry check`` on a third held-out set of public bug reports (``blind/fixtures/``).

Blind: gathered while the data-flow rules were being changed, by someone who did not work on
them, and kept away from that work.  The reproductions in ``blind/fixtures/`` come from
repositories that appear in no other set (neither the development/test fixtures, nor
``fresh/fixtures/`` or ``unseen/fixtures/``, nor any corpus code base).  Each copies the
original file at a commit where the reported mistake is present (trimmed only of unrelated
code, as its header says), with the expected findings (``# FRY010``) written from the report
and the code and committed before ``ferry check`` first ran on it.  Their recall is measured
and reported (``python benchmarks/check_corpus.py --recall --fixtures
tests/check/recall/blind/fixtures``), not enforced here, so that no change is made to pass
it.  These tests check that every reproduction is well-formed, that the set and the blind
code bases (``BLIND`` and ``BLIND_EXTRA`` in ``benchmarks/check_corpus.py``) are disjoint from
everything else, and that the measurement runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).parent
BLIND = HERE / "blind" / "fixtures"
OTHER_REPORTS = (HERE / "fixtures", HERE / "fresh" / "fixtures", HERE / "unseen" / "fixtures")
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _repos(directory: Path, cc: ModuleType) -> set[str]:
    return {cc.repo_key(cc._source_of(p)) for p in directory.glob("*.py")}


@pytest.mark.parametrize("path", sorted(BLIND.glob("*.py")), ids=lambda p: p.name)
def test_each_blind_reproduction_cites_its_source_commit_and_trimming(
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


def test_the_blind_reports_come_from_repositories_in_no_other_set(cc: ModuleType) -> None:
    blind = _repos(BLIND, cc)
    assert len(list(BLIND.glob("*.py"))) >= 25
    assert len(blind) >= 25, "one report per repository, not a cluster"
    for other in OTHER_REPORTS:
        assert not blind & _repos(other, cc), (other, sorted(blind & _repos(other, cc)))
    snapshots = (*cc.EXTRA, *cc.FRESH_EXTRA, *cc.UNSEEN_EXTRA, *cc.BLIND_EXTRA)
    assert not blind & {r.lower() for r, _ in snapshots}
    packages = {cc._norm(n) for n, _ in (*cc.CORPUS, *cc.FRESH, *cc.UNSEEN, *cc.BLIND)}
    assert not {r.split("/")[-1] for r in blind} & packages


def test_the_blind_code_bases_are_in_no_other_set(cc: ModuleType) -> None:
    def names(packages: tuple, snapshots: tuple) -> set[str]:
        return {cc._norm(n) for n, _ in packages} | {r.split("/")[-1].lower() for r, _ in snapshots}

    blind = names(cc.BLIND, cc.BLIND_EXTRA)
    assert len(cc.BLIND) + len(cc.BLIND_EXTRA) >= 4
    others = (
        names(cc.CORPUS, cc.EXTRA)
        | names(cc.FRESH, cc.FRESH_EXTRA)
        | names(cc.UNSEEN, cc.UNSEEN_EXTRA)
    )
    assert not blind & others, sorted(blind & others)
    reports = set().union(*(_repos(d, cc) for d in (*OTHER_REPORTS, BLIND)))
    assert not blind & {r.split("/")[-1] for r in reports}, "a code base whose reports were read"
    assert cc.HELD_OUT_SETS["blind"].cache.name == "blind"


def test_recall_on_the_blind_set_is_measured(cc: ModuleType) -> None:
    cases = cc.recall_cases(BLIND)
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(list(BLIND.glob("*.py"))) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
