"""Recall of ``ferry check`` on the held-out sets of public bug reports.

Each set was gathered after the one before it had been measured, and kept away from the
work on the rules while it was gathered: ``unseen`` (measured, never tuned on), ``blind``
(gathered while the data-flow rules were being changed), then ``held``, ``sealed``,
``vault``, ``dock``, ``pier``, ``quay``, ``wharf``, ``jetty``, ``berth``, ``cove``,
``reef``, ``shoal``, ``strait``, ``inlet``, ``fjord``, ``sound``, ``bay``, ``lagoon``,
``delta``, ``estuary`` and ``firth``, one report per repository.

Each reproduction copies the original file at a commit where the reported mistake is
present (trimmed only of unrelated code, as its header says), or, where the place of the
faulty value is decided in another file, a directory of the repository's files at their
repository-relative paths, each file with the same header, with the expected findings
(``# FRY010``) written from the report and the code and committed before ``ferry check``
first ran on it.  The reproductions are third-party code and are not kept in this
repository: ``sets/SET.toml`` pins each set (every report's source, repository, commit and
paths, and per file its line count, sha256 and marked sites), and the files live in
``.corpus/recall/SET/fixtures`` (``python benchmarks/check_corpus.py --recall-export SET
--mirror GIT_DIR`` rebuilds the whole-file ones from clones).  Their recall is measured and
reported (``python benchmarks/check_corpus.py --recall --set SET``), not enforced here, so
that no change is made to pass it.  The tests on the manifests always run: each set comes
from repositories in no other set (nor any corpus code base), every report cites its
source and commit and marks an expected finding.  Those that read the reproductions run
where a set's files are present (and match its manifest), and are skipped elsewhere.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest


def _load() -> ModuleType:
    """``benchmarks/check_corpus.py``, as the ``cc`` fixture loads it (needed at collection)."""
    if "check_corpus" in sys.modules:
        return sys.modules["check_corpus"]
    spec = importlib.util.spec_from_file_location(
        "check_corpus", Path(__file__).resolve().parents[3] / "benchmarks" / "check_corpus.py"
    )
    assert spec and spec.loader
    mod = sys.modules["check_corpus"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_cc = _load()
#: the report sets with a manifest, oldest first (the fresh set has its own tests)
MANIFESTS = {name: rs for name, rs in _cc.report_sets().items() if name != "fresh"}
SETS = {name: rs.per_repository for name, rs in MANIFESTS.items()}
_COMMIT = re.compile(r"# Code: [\w.-]+/[\w.-]+@[0-9a-f]{40}\b")
_SOURCE = re.compile(r"# Source: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$")
_HASH = re.compile(r"[0-9a-f]{40}")


def _absent(name: str) -> str | None:
    """Why the reproductions of set ``name`` cannot be read here (None: they can)."""
    problems = _cc.verify_set(_cc.report_sets()[name])
    return problems[0] if problems else None


def _present(name: str) -> list:
    """``[name]`` as a parameter that skips, naming the rebuild, where the set is absent."""
    why = _absent(name)
    return [pytest.param(name, marks=pytest.mark.skipif(why is not None, reason=why or ""))]


def _repos(name: str, cc: ModuleType) -> set[str]:
    """The repositories of a set's reports (the development fixtures: from their headers)."""
    if name == "fixtures":
        return {cc.repo_key(cc._source_of(p)) for p in cc.reproductions(cc.RECALL_FIXTURES)}
    return {cc.repo_key(r.source) for r in cc.report_sets()[name].reports}


def _reports(name: str) -> list[Path]:
    return _cc.reproductions(_cc.recall_set_dir(name))


@pytest.mark.parametrize("name", [p for name in SETS for p in _present(name)])
def test_each_reproduction_cites_its_source_commit_and_trimming(name: str, cc: ModuleType):
    for report in _reports(name):
        for path in cc._report_files(report):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            assert _SOURCE.match(lines[0]), path
            assert "# Report:" in text, ("what the report says", path)
            assert _COMMIT.search(text), ("the repository and the full commit", path)
            assert "trimmed:" in text, ("what was left out of the copied file", path)
            if report.is_file():
                assert any(cc._MARKER.search(line) for line in lines), ("no marker", path)
            assert "\r" not in text
            with warnings.catch_warnings():  # the copied code's own (``x is not -1``, ``"\c"``)
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                compile(text, str(path), "exec")


@pytest.mark.parametrize("name", [p for name in SETS for p in _present(name)])
def test_a_directory_reproduction_is_one_report_of_one_commit(name: str, cc: ModuleType):
    for report in (r for r in _reports(name) if r.is_dir()):
        texts = [f.read_text(encoding="utf-8") for f in cc._report_files(report)]
        assert len(texts) >= 2, ("a directory holds several files of the repository", report)
        heads = {tuple(text.splitlines()[:4]) for text in texts}
        assert len(heads) == 1, ("every file starts with the same four header lines", report)


@pytest.mark.parametrize("name", SETS)
def test_each_manifest_report_cites_its_source_commit_and_an_expected_finding(
    name: str, cc: ModuleType
) -> None:
    reports = cc.report_sets()[name].reports
    names = [r.name for r in reports]
    assert len(names) == len(set(names)), "each reproduction once"
    for r in reports:
        assert _SOURCE.match(f"# Source: {r.source}"), r.name
        assert r.repository and _HASH.fullmatch(r.commit), r.name
        assert r.trimming, ("what was left out of the copied file", r.name)
        assert r.files and any(f.markers for f in r.files), ("no expected finding", r.name)
        assert len(r.paths) == len(r.files) or not r.whole, ("a path per whole file", r.name)
        for f in r.files:
            assert f.path.split("/")[0] == r.name and re.fullmatch(r"[0-9a-f]{64}", f.sha256)
            assert f.header and f.header[0] == f"# Source: {r.source}", f.path
            assert all(0 < m.line <= f.lines and m.codes for m in f.markers), f.path
            assert all(cc._MARKER.search(m.suffix) for m in f.markers), f.path


def test_the_report_sets_are_ordered_and_the_newest_are_in_the_manifests(cc: ModuleType) -> None:
    sets = cc.report_sets()
    assert len({s.order for s in sets.values()}) == len(sets), "one place in the order each"
    assert {"fresh", "unseen", "blind", "jetty", "berth"} <= set(sets)


@pytest.mark.parametrize("name", SETS)
def test_a_set_comes_from_repositories_in_no_other_set(name: str, cc: ModuleType) -> None:
    reports, repos = cc.report_sets()[name].reports, _repos(name, cc)
    assert len(reports) >= 12 and len(repos) >= 12, "many repositories, not a cluster"
    assert len(reports) <= SETS[name] * len(repos), "reports per repository"
    for other in ("fixtures", *cc.report_sets()):
        if other != name:
            common = repos & _repos(other, cc)
            assert not common, (other, sorted(common))
    snapshots = (*cc.EXTRA, *(r for held in cc.HELD_OUT_SETS.values() for r in held.snapshots))
    assert not {r.lower() for r in repos} & {r.lower() for r, _ in snapshots}


def test_the_newest_sets_share_no_package_with_a_corpus(cc: ModuleType) -> None:
    packages = {cc._norm(n) for n, _ in (*cc.CORPUS, *cc.FRESH, *cc.UNSEEN, *cc.BLIND, *cc.SEALED)}
    for name in list(SETS)[1:]:  # every set after unseen
        names = {cc._norm(r.split("/")[-1]) for r in _repos(name, cc)}
        assert not names & packages, (name, sorted(names & packages))


#: the code-base sets in the order they were gathered, each after the ones before it
_CODE_SETS = ("corpus", "fresh", "unseen", "blind", "sealed", "vault", "dock", "pier", "quay",
              "wharf", "jetty", "berth", "cove", "reef", "shoal", "strait", "inlet", "fjord",
              "sound", "bay", "lagoon", "delta", "estuary", "firth", "harbor", "marsh",
              "cape", "moor", "creek", "bight", "brook")


@pytest.mark.parametrize(
    ("name", "earlier"), [(name, _CODE_SETS[:k]) for k, name in enumerate(_CODE_SETS) if k >= 3]
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
    reports = set().union(*(_repos(d, cc) for d in ("fixtures", *cc.report_sets())))
    assert not newest & {r.split("/")[-1] for r in reports}, "a code base whose reports were read"
    assert cc.HELD_OUT_SETS[name].cache.name == name


@pytest.mark.parametrize("name", [p for name in SETS for p in _present(name)])
def test_recall_on_a_set_is_measured(name: str, cc: ModuleType) -> None:
    cases = cc.recall_cases(cc.recall_set_dir(name))
    table, caught, total = cc.recall_table(cases)
    reports = cc.report_sets()[name].reports
    assert len({c.report for c in cases}) == len(reports) and total >= len(reports)
    assert total == sum(len(m.codes) for r in reports for f in r.files for m in f.markers)
    assert 0 <= caught <= total and "| all |" in table
