"""Recall of ``ferry check`` on the held-out sets of public bug reports.

Eleven sets, each gathered after the one before it had been measured, and each kept away
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
  repository;
* ``quay/fixtures/``: gathered after the pier set had been measured, one report per
  repository;
* ``wharf/fixtures/``: gathered after the quay set had been measured, one report per
  repository;
* ``jetty/fixtures/``: gathered after the wharf set had been measured, one report per
  repository;
* ``berth/fixtures/``: gathered after the jetty set had been measured, one report per
  repository.

Each reproduction copies the original file at a commit where the reported mistake is
present (trimmed only of unrelated code, as its header says), or, where the place of the
faulty value is decided in another file, a directory of the repository's files at their
repository-relative paths, each file with the same header, with the expected findings
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
SETS = {
    "unseen": 2,
    "blind": 1,
    "held": 1,
    "sealed": 1,
    "vault": 1,
    "dock": 1,
    "pier": 1,
    "quay": 1,
    "wharf": 1,
    "jetty": 1,
    "berth": 1,
}
#: every directory of reproductions: the development/test fixtures, the fresh set, the
#: held-out sets
REPORTS = {
    "fixtures": HERE / "fixtures",
    "fresh": HERE / "fresh" / "fixtures",
    **{name: HERE / name / "fixtures" for name in SETS},
}
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")
_SOURCE = re.compile(r"# Source: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$")


def _reports(name: str) -> list[Path]:
    """The reproductions of a set: each ``*.py`` file, and each directory (one report
    made of several files of the repository)."""
    root = REPORTS[name]
    return sorted(p for p in root.iterdir() if p.suffix == ".py" or _is_report_dir(p))


def _is_report_dir(path: Path) -> bool:
    return path.is_dir() and path.name != "__pycache__"


def _sources(report: Path) -> list[Path]:
    """The Python files of one reproduction: the file itself, or a directory's files."""
    if report.is_dir():
        return sorted(p for p in report.rglob("*.py") if "__pycache__" not in p.parts)
    return [report]


def _files(name: str) -> list[Path]:
    return [f for report in _reports(name) for f in _sources(report)]


def _repos(name: str, cc: ModuleType) -> set[str]:
    return {cc.repo_key(cc._source_of(_sources(r)[0])) for r in _reports(name)}


def _report_id(path: Path) -> str:
    fixtures = next(p for p in path.parents if p.name == "fixtures")
    return f"{fixtures.parent.name}/{path.relative_to(fixtures).as_posix()}"


@pytest.mark.parametrize("path", [p for name in SETS for p in _files(name)], ids=_report_id)
def test_each_reproduction_cites_its_source_commit_and_trimming(path: Path, cc: ModuleType):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert _SOURCE.match(lines[0])
    assert "# Report:" in text, "what the report says"
    assert _COMMIT.search(text), "the repository and the full commit the code is copied from"
    assert "trimmed:" in text, "what was left out of the copied file"
    if path.parent.name == "fixtures":
        assert any(cc._MARKER.search(line) for line in lines), "no expected finding"
    assert "\r" not in text
    with warnings.catch_warnings():  # the copied code's own (``x is not -1``, ``"\\c"``)
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        compile(text, str(path), "exec")


@pytest.mark.parametrize(
    "report",
    [r for name in SETS for r in _reports(name) if r.is_dir()],
    ids=_report_id,
)
def test_a_directory_reproduction_is_one_report_of_one_commit(report: Path, cc: ModuleType):
    files = _sources(report)
    assert len(files) >= 2, "a directory holds several files of the repository"
    texts = [f.read_text(encoding="utf-8") for f in files]
    heads = {tuple(text.splitlines()[:4]) for text in texts}
    assert len(heads) == 1, "every file starts with the same four header lines"
    assert any(cc._MARKER.search(line) for text in texts for line in text.splitlines()), (
        "no expected finding in any file of the directory"
    )


@pytest.mark.parametrize("name", SETS)
def test_a_set_comes_from_repositories_in_no_other_set(name: str, cc: ModuleType) -> None:
    reports, repos = _reports(name), _repos(name, cc)
    assert len(reports) >= 25 and len(repos) >= 25, "many repositories, not a cluster"
    assert len(reports) <= SETS[name] * len(repos), "reports per repository"
    for other in REPORTS:
        if other != name:
            common = repos & _repos(other, cc)
            assert not common, (other, sorted(common))
    snapshots = (*cc.EXTRA, *(r for held in cc.HELD_OUT_SETS.values() for r in held.snapshots))
    assert not {r.lower() for r in repos} & {r.lower() for r, _ in snapshots}


def test_the_newest_sets_share_no_package_with_a_corpus(cc: ModuleType) -> None:
    packages = {cc._norm(n) for n, _ in (*cc.CORPUS, *cc.FRESH, *cc.UNSEEN, *cc.BLIND, *cc.SEALED)}
    for name in (
        "blind",
        "held",
        "sealed",
        "vault",
        "dock",
        "pier",
        "quay",
        "wharf",
        "jetty",
        "berth",
    ):
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
        (
            "wharf",
            ("corpus", "fresh", "unseen", "blind", "sealed", "vault", "dock", "pier", "quay"),
        ),
        (
            "jetty",
            (
                "corpus",
                "fresh",
                "unseen",
                "blind",
                "sealed",
                "vault",
                "dock",
                "pier",
                "quay",
                "wharf",
            ),
        ),
        (
            "berth",
            (
                "corpus",
                "fresh",
                "unseen",
                "blind",
                "sealed",
                "vault",
                "dock",
                "pier",
                "quay",
                "wharf",
                "jetty",
            ),
        ),
        (
            "cove",
            (
                "corpus",
                "fresh",
                "unseen",
                "blind",
                "sealed",
                "vault",
                "dock",
                "pier",
                "quay",
                "wharf",
                "jetty",
                "berth",
            ),
        ),
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
    assert len({c.report for c in cases}) == len(_reports(name)) and total >= len(_reports(name))
    assert 0 <= caught <= total and "| all |" in table
