"""Recall of ``ferry check`` on the held-out sets of public bug reports.

Seven sets, each gathered after the one before it had been measured, and each kept away
from the work on the rules while it was gathered:

* ``unseen/fixtures/``: measured, never tuned on;
* ``blind/fixtures/``: gathered while the data-flow rules were being changed;
* ``held/fixtures/``: gathered after the blind set had been measured, one report per
  repository;
* ``sealed/fixtures/``: gathered after the held set had been measured, one report per
  repository;
* ``vault/fixtures/``: gathered after the sealed set had been measured, one report per
  repository;
* ``dock/fixtures/``: gathered after the vault set had been measured, one report per
  repository;
* ``pier/fixtures/``: gathered after the dock set had been measured, one report per
  repository.

Each reproduction copies the original file at a commit where the reported mistake is
present (trimmed only of unrelated code, as its header says), with the expected findings
(``# FRY010``) written from the report and the code and committed before ``ferry check``
first ran on it.  Their recall is measured and reported (``python
benchmarks/check_corpus.py --recall --fixtures tests/check/recall/<set>/fixtures``), not
enforced here, so that no change is made to pass it.  These tests check that every
reproduction is well-formed, that each set comes from repositories in no other set (nor
any corpus code base), and that the measurement runs.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).parent
#: the held-out sets, oldest first, and how many reports a repository may give each
SETS = {"unseen": 2, "blind": 1, "held": 1, "sealed": 1, "vault": 1, "dock": 1, "pier": 1}
#: every directory of reproductions: the development/test fixtures, the fresh set, the
#: held-out sets
REPORTS = {
    "fixtures": HERE / "fixtures",
    "fresh": HERE / "fresh" / "fixtures",
    **{name: HERE / name / "fixtures" for name in SETS},
}
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")
_SOURCE = re.compile(r"# Source: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$")


def _files(name: str) -> list[Path]:
    return sorted(REPORTS[name].glob("*.py"))


def _repos(name: str, cc: ModuleType) -> set[str]:
    return {cc.repo_key(cc._source_of(p)) for p in _files(name)}


@pytest.mark.parametrize(
    "path", [p for name in SETS for p in _files(name)], ids=lambda p: f"{p.parts[-3]}/{p.name}"
)
def test_each_reproduction_cites_its_source_commit_and_trimming(path: Path, cc: ModuleType):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert _SOURCE.match(lines[0])
    assert "# Report:" in text, "what the report says"
    assert _COMMIT.search(text), "the repository and the full commit the code is copied from"
    assert "trimmed:" in text, "what was left out of the copied file"
    assert any(cc._MARKER.search(line) for line in lines), "no expected finding"
    assert "\r" not in text
    with warnings.catch_warnings():  # the copied code's own (``x is not -1``, ``"\\c"``)
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        compile(text, str(path), "exec")


@pytest.mark.parametrize("name", SETS)
def test_a_set_comes_from_repositories_in_no_other_set(name: str, cc: ModuleType) -> None:
    files, repos = _files(name), _repos(name, cc)
    assert len(files) >= 25 and len(repos) >= 25, "many repositories, not a cluster"
    assert len(files) <= SETS[name] * len(repos), "reports per repository"
    for other in REPORTS:
        if other != name:
            common = repos & _repos(other, cc)
            assert not common, (other, sorted(common))
    snapshots = (*cc.EXTRA, *(r for held in cc.HELD_OUT_SETS.values() for r in held.snapshots))
    assert not {r.lower() for r in repos} & {r.lower() for r, _ in snapshots}


def test_the_newest_sets_share_no_package_with_a_corpus(cc: ModuleType) -> None:
    packages = {cc._norm(n) for n, _ in (*cc.CORPUS, *cc.FRESH, *cc.UNSEEN, *cc.BLIND, *cc.SEALED)}
    for name in ("blind", "held", "sealed", "vault", "dock", "pier"):
        names = {cc._norm(r.split("/")[-1]) for r in _repos(name, cc)}
        assert not names & packages, (name, sorted(names & packages))


@pytest.mark.parametrize(
    ("name", "earlier"),
    [
        ("blind", ("corpus", "fresh", "unseen")),
        ("sealed", ("corpus", "fresh", "unseen", "blind")),
        ("vault", ("corpus", "fresh", "unseen", "blind", "sealed")),
        ("dock", ("corpus", "fresh", "unseen", "blind", "sealed", "vault")),
        ("pier", ("corpus", "fresh", "unseen", "blind", "sealed", "vault", "dock")),
        ("quay", ("corpus", "fresh", "unseen", "blind", "sealed", "vault", "dock", "pier")),
    ],
)
def test_the_newest_code_bases_are_in_no_other_set(
    name: str, earlier: tuple[str, ...], cc: ModuleType
) -> None:
    def names(packages: tuple, snapshots: tuple) -> set[str]:
        return {cc._norm(n) for n, _ in packages} | {r.split("/")[-1].lower() for r, _ in snapshots}

    sets = {"corpus": (cc.CORPUS, cc.EXTRA)} | {
        key: (held.packages, held.snapshots) for key, held in cc.HELD_OUT_SETS.items()
    }
    newest = names(*sets[name])
    assert len(sets[name][0]) + len(sets[name][1]) >= 4
    others = set().union(*(names(*sets[key]) for key in earlier))
    assert not newest & others, sorted(newest & others)
    reports = set().union(*(_repos(d, cc) for d in REPORTS))
    assert not newest & {r.split("/")[-1] for r in reports}, "a code base whose reports were read"
    assert cc.HELD_OUT_SETS[name].cache.name == name


@pytest.mark.parametrize("name", SETS)
def test_recall_on_a_set_is_measured(name: str, cc: ModuleType) -> None:
    cases = cc.recall_cases(REPORTS[name])
    table, caught, total = cc.recall_table(cases)
    assert len(cases) == len(_files(name)) and total >= len(cases)
    assert 0 <= caught <= total and "| all |" in table
