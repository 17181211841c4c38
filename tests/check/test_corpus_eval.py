"""benchmarks/check_corpus.py: the join of findings with labels, the labels file itself,
the pyproject written from a wheel's METADATA, and one real ``ferry check`` run."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from torchferry.check.config import _toml_loads

REPO = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "check_corpus", REPO / "benchmarks" / "check_corpus.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_corpus"] = mod
    spec.loader.exec_module(mod)
    return mod


cc = _load()


def _f(line: int, excerpt: str = "x = torch.zeros(3).to(d)", code: str = "FRY009"):
    return cc.Finding("pkg", "a/b.py", line, code, "msg", excerpt)


def _l(line: int, excerpt: str = "x = torch.zeros(3).to(d)", code: str = "FRY009", v="real"):
    return cc.Label("pkg", "a/b.py", line, code, excerpt, v, "why")


def test_a_label_survives_a_line_shift_and_twins_go_to_the_nearest() -> None:
    findings = [_f(12), _f(40)]  # the same line of code twice, shifted by 2
    labels = [_l(38, v="false"), _l(10, v="real")]
    matched, stale = cc.join(findings, labels)
    assert matched[0].verdict == "real" and matched[1].verdict == "false"
    assert stale == []


def test_an_exact_line_wins_over_a_nearer_shifted_twin() -> None:
    findings = [_f(10), _f(11)]
    labels = [_l(11, v="false"), _l(30, v="real")]
    matched, _ = cc.join(findings, labels)
    assert matched[1].verdict == "false" and matched[0].verdict == "real"


def test_changed_excerpt_or_code_leaves_the_finding_unlabelled_and_the_label_stale() -> None:
    findings = [_f(10, excerpt="y = 1"), _f(20, code="FRY001")]
    labels = [_l(10), _l(20)]
    matched, stale = cc.join(findings, labels)
    assert matched == {} and len(stale) == 2


def test_precision_table_counts_strictly() -> None:
    findings = [_f(1), _f(2), _f(3), _f(4)]
    labels = [_l(1, v="real"), _l(2, v="false"), _l(3, v="debatable")]
    matched, _ = cc.join(findings, labels)
    row = next(r for r in cc.table(findings, matched).splitlines() if r.startswith("| FRY009"))
    assert row == "| FRY009 | 4 | 3 | 1 | 1 | 1 | 50% | 33% |"


def test_bad_labels_are_rejected_with_one_line(tmp_path: Path) -> None:
    p = tmp_path / "labels.toml"
    p.write_text(
        '[[label]]\npackage = "p"\npath = "a.py"\nline = 1\ncode = "FRY001"\n'
        'excerpt = "x"\nverdict = "maybe"\nreason = "r"\n'
    )
    with pytest.raises(SystemExit, match="verdict 'maybe'"):
        cc.load_labels(p)
    p.write_text('[[label]]\npackage = "p"\n')
    with pytest.raises(SystemExit, match="lacks"):
        cc.load_labels(p)


@pytest.mark.parametrize(
    ("path", "packages", "extras"),
    [
        (cc.DEFAULT_LABELS, cc.CORPUS, cc.EXTRA),
        (cc.DEFAULT_FRESH_LABELS, cc.FRESH, cc.FRESH_EXTRA),
        (cc.DEFAULT_UNSEEN_LABELS, cc.UNSEEN, cc.UNSEEN_EXTRA),
        (cc.DEFAULT_BLIND_LABELS, cc.BLIND, cc.BLIND_EXTRA),
        (cc.DEFAULT_SEALED_LABELS, cc.SEALED, cc.SEALED_EXTRA),
    ],
    ids=["corpus", "fresh", "unseen", "blind", "sealed"],
)
def test_the_committed_labels_file_is_valid_and_consistent(
    path: Path, packages: tuple, extras: tuple
) -> None:
    labels = cc.load_labels(path)
    assert labels, "no labels committed"
    verdicts: dict[tuple, set[str]] = {}
    for lab in labels:  # two findings of one rule on one line get two labels; they agree
        key = (lab.package, lab.path, lab.cell, lab.line, lab.code)
        verdicts.setdefault(key, set()).add(lab.verdict)
    assert all(len(v) == 1 for v in verdicts.values())
    known = {cc._norm(n) for n, _ in packages} | {r.replace("/", "-") for r, _ in extras}
    assert {lab.package for lab in labels} <= known
    assert all(len(lab.reason) > 15 for lab in labels), "a reason says why, in a sentence"


#: the held-out code-base sets with a labels file of their own, and how many snapshots each
#: pins (None: not fixed for that set)
_LABELLED_SETS = [
    ("vault", None),
    ("dock", 8),
    ("pier", 18),
    ("quay", 19),
    ("wharf", 18),
    ("jetty", 18),
    ("berth", 18),
    ("cove", 18),
    ("reef", 18),
    ("shoal", 18),
    ("strait", 18),
    ("inlet", 18),
    ("fjord", 18),
    ("sound", 18),
    ("bay", 18),
    ("lagoon", 18),
    ("delta", 18),
    ("estuary", 18),
    ("firth", 18),
    ("harbor", 16),
    ("marsh", 16),
    ("cape", 16),
    ("moor", 16),
    ("creek", 16),
    ("bight", 16),
    ("brook", 15),
]


@pytest.mark.parametrize(("name", "snapshots"), _LABELLED_SETS)
def test_a_held_out_labels_file_names_only_its_own_code_bases(name: str, snapshots: int | None) -> None:
    """A held-out set's labels are written after its first measurement; until then the file
    holds none, and any label it holds names one of the set's snapshots."""
    path = getattr(cc, f"DEFAULT_{name.upper()}_LABELS")
    assert path.is_file()
    extra = getattr(cc, f"{name.upper()}_EXTRA")
    known = {cc._norm(n) for n, _ in getattr(cc, name.upper())} | {r.replace("/", "-") for r, _ in extra}
    assert {lab.package for lab in cc.load_labels(path)} <= known
    assert cc.HELD_OUT_SETS[name].labels == path
    assert snapshots is None or len(extra) == snapshots
    assert all(len(commit) == 40 for _, commit in extra)


def test_pyproject_from_wheel_metadata_declares_the_requirements() -> None:
    metadata = (
        "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.29.1\n"
        "Requires-Dist: numpy\nRequires-Dist: torch (>=2.14.0)\n"
        "Requires-Dist: scipy ; extra == 'scipy'\n\nlong description\n"
    )
    data = _toml_loads(cc._pyproject_from_metadata(metadata, "torchvision", "0.29.1"))
    assert data["project"]["dependencies"] == ["numpy", "torch (>=2.14.0)"]
    assert data["project"]["optional-dependencies"] == {"scipy": ["scipy"]}
    assert data["tool"]["torchferry"] == {}


def test_collect_runs_ferry_check_and_keeps_the_source_line(tmp_path: Path) -> None:
    pkg = tmp_path / "demo-1.0"
    (pkg / "demo").mkdir(parents=True)
    (pkg / "pyproject.toml").write_text("[tool.torchferry]\n")
    (pkg / "demo" / "m.py").write_text(
        "import torch\n\n\ndef f(device):\n    x = torch.zeros(3)\n    x.to(device)\n    return x\n"
    )
    findings, errors = cc.collect([pkg], "FRY002", no_cache=True)
    assert errors == []
    assert [(f.package, f.path, f.line, f.code, f.excerpt) for f in findings] == [
        ("demo", "demo/m.py", 6, "FRY002", "x.to(device)")
    ]


def test_collect_runs_the_torchferry_that_pythonpath_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PYTHONPATH=OTHER/src`` measures that checkout's rules (a baseline's), as --recall does."""
    other = tmp_path / "other" / "src" / "torchferry"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    finding = {"path": "m.py", "line": 1, "code": "FRY999", "message": "from the other checkout"}
    (other / "__main__.py").write_text(f"print({json.dumps([finding])!r})\n")
    pkg = tmp_path / "demo-1.0"
    pkg.mkdir()
    (pkg / "m.py").write_text("import torch\n")
    monkeypatch.setenv("PYTHONPATH", str(other.parent))
    assert cc.checker_src() == other.parent.resolve()
    findings, _ = cc.collect([pkg], "ALL")
    assert [(f.path, f.code, f.excerpt) for f in findings] == [("m.py", "FRY999", "import torch")]
    monkeypatch.delenv("PYTHONPATH")
    assert cc.checker_src() == REPO / "src"


def test_drop_labels_keeps_the_header_and_the_other_blocks(tmp_path: Path) -> None:
    p = tmp_path / "labels.toml"
    block = '[[label]]\npackage = "p"\npath = "a.py"\nline = {n}\ncode = "FRY001"\nexcerpt = "x"\nverdict = "real"\nreason = "a reason long enough"\n\n'
    p.write_text("# header\n\n" + "".join(block.format(n=n) for n in (1, 2, 3)))
    assert cc.drop_labels(p, {2}) == 1
    assert [lab.line for lab in cc.load_labels(p)] == [1, 3]
    assert p.read_text().startswith("# header\n\n[[label]]")


def test_the_committed_split_is_the_hash_rule_and_halves_partition() -> None:
    committed = cc.load_split()
    assert committed == cc.computed_split(), "rerun benchmarks/check_corpus.py --write-split"
    keys = set(cc.corpus_keys())
    assert committed["corpus"] <= keys
    dev = {k for k in keys if cc.in_half(k, committed["corpus"], "dev")}
    test = {k for k in keys if cc.in_half(k, committed["corpus"], "test")}
    assert dev and test and not dev & test and dev | test == keys


def test_split_by_hash_is_deterministic_balanced_and_ignores_order() -> None:
    weights = {f"owner{i}/repo": 1 + i % 3 for i in range(20)}
    test = cc.split_by_hash(weights)
    assert test == cc.split_by_hash(dict(reversed(list(weights.items()))))
    held = sum(weights[k] for k in test)
    assert 2 * held >= sum(weights.values()) > 2 * (held - max(weights.values()))


def test_recall_halves_partition_the_reproductions_by_repository(tmp_path: Path) -> None:
    for i, url in enumerate(
        ["https://github.com/A/b/issues/1", "https://github.com/a/B/pull/2", "https://x.org/t/3"]
    ):
        (tmp_path / f"r{i}.py").write_text(f"# Source: {url}\n# Report: x\ny = 1  # FRY002\n")
    assert cc.repo_key("https://github.com/A/b/issues/1 (comment)") == "a/b"
    test = {"a/b"}
    dev = cc.recall_cases(tmp_path, "dev", test)
    held = cc.recall_cases(tmp_path, "test", test)
    assert [c.path.name for c in held] == ["r0.py", "r1.py"]
    assert [c.path.name for c in dev] == ["r2.py"]
    assert len(cc.recall_cases(tmp_path, "all", test)) == 3


def test_the_held_out_code_bases_are_not_in_the_corpus() -> None:
    corpus = {cc._norm(n) for n, _ in cc.CORPUS} | {r.lower() for r, _ in cc.EXTRA}
    fresh = {cc._norm(n) for n, _ in cc.FRESH} | {r.lower() for r, _ in cc.FRESH_EXTRA}
    unseen = {cc._norm(n) for n, _ in cc.UNSEEN} | {r.lower() for r, _ in cc.UNSEEN_EXTRA}
    assert not corpus & fresh
    assert not (corpus | fresh) & unseen


def test_the_unseen_code_bases_share_no_repository_with_a_bug_report() -> None:
    """A package whose repository gave a reproduction has been read: not held out."""
    sources = {
        cc.repo_key(cc._source_of(p)).split("/")[-1].lower()
        for p in cc.RECALL_FIXTURES.glob("*.py")
    } | {
        cc.repo_key(r.source).split("/")[-1].lower()
        for rs in cc.report_sets().values()
        for r in rs.reports
    }
    unseen = {cc._norm(n) for n, _ in cc.UNSEEN} | {
        r.split("/")[-1].lower() for r, _ in cc.UNSEEN_EXTRA
    }
    assert not unseen & sources, sorted(unseen & sources)


def test_export_snapshot_keeps_sources_and_reports_missing_blobs(tmp_path: Path) -> None:
    import subprocess

    src = tmp_path / "src"
    src.mkdir()
    (src / "train.py").write_text("import torch\n")
    (src / "requirements.txt").write_text("torch\n")
    (src / "data.bin").write_bytes(b"\0" * 10)

    def git(*a: str) -> None:
        subprocess.run(["git", "-C", str(src), *a], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    commit = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dest, missing = cc.export_snapshot(src / ".git", "o/n", commit, tmp_path / "out")
    assert dest.name == f"o-n@{commit}" and missing == []
    assert sorted(p.name for p in dest.iterdir()) == ["requirements.txt", "train.py"]


def test_recall_runs_every_rule_unless_told_the_default_set(tmp_path: Path) -> None:
    (tmp_path / "r.py").write_text(
        "# Source: https://example.org/1\n# Report: x\nimport torch\n"
        'device = torch.device("cuda")  # FRY001\n'
    )
    assert [c.found for c in cc.recall_cases(tmp_path)] == [{(4, "FRY001")}]
    assert [c.found for c in cc.recall_cases(tmp_path, select=())] == [set()], (
        "FRY001 is opt-in: the default rule set does not run it"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--fresh", "--unseen"],
        ["--unseen", "--blind"],
        ["--unseen", "--half", "test"],
        ["--blind", "--half", "test"],
        ["--sealed", "--blind"],
        ["--sealed", "--half", "dev"],
        ["--vault", "--sealed"],
        ["--vault", "--half", "test"],
        ["--dock", "--vault"],
        ["--dock", "--half", "dev"],
        ["--pier", "--dock"],
        ["--pier", "--half", "test"],
        ["--quay", "--pier"],
        ["--quay", "--half", "dev"],
        ["--wharf", "--quay"],
        ["--wharf", "--half", "test"],
        ["--jetty", "--wharf"],
        ["--jetty", "--half", "dev"],
        ["--berth", "--jetty"],
        ["--berth", "--half", "test"],
        ["--cove", "--berth"],
        ["--cove", "--half", "dev"],
        ["--reef", "--cove"],
        ["--reef", "--half", "test"],
        ["--shoal", "--reef"],
        ["--shoal", "--half", "dev"],
        ["--strait", "--shoal"],
        ["--strait", "--half", "test"],
        ["--inlet", "--strait"],
        ["--inlet", "--half", "dev"],
        ["--fjord", "--inlet"],
        ["--fjord", "--half", "test"],
        ["--sound", "--fjord"],
        ["--sound", "--half", "dev"],
        ["--bay", "--sound"],
        ["--bay", "--half", "dev"],
        ["--lagoon", "--bay"],
        ["--lagoon", "--half", "dev"],
        ["--delta", "--lagoon"],
        ["--delta", "--half", "dev"],
        ["--estuary", "--delta"],
        ["--estuary", "--half", "dev"],
        ["--firth", "--estuary"],
        ["--firth", "--half", "dev"],
        ["--harbor", "--firth"],
        ["--harbor", "--half", "dev"],
        ["--marsh", "--harbor"],
        ["--marsh", "--half", "dev"],
        ["--cape", "--marsh"],
        ["--cape", "--half", "dev"],
        ["--moor", "--cape"],
        ["--moor", "--half", "dev"],
        ["--creek", "--moor"],
        ["--creek", "--half", "dev"],
        ["--bight", "--creek"],
        ["--bight", "--half", "dev"],
        ["--brook", "--bight"],
        ["--brook", "--half", "dev"],
    ],
    ids=[
        "two-sets",
        "blind-and-another",
        "unseen-half",
        "blind-half",
        "sealed-and-another",
        "sealed-half",
        "vault-and-another",
        "vault-half",
        "dock-and-another",
        "dock-half",
        "pier-and-another",
        "pier-half",
        "quay-and-another",
        "quay-half",
        "wharf-and-another",
        "wharf-half",
        "jetty-and-another",
        "jetty-half",
        "berth-and-another",
        "berth-half",
        "cove-and-another",
        "cove-half",
        "reef-and-another",
        "reef-half",
        "shoal-and-another",
        "shoal-half",
        "strait-and-another",
        "strait-half",
        "inlet-and-another",
        "inlet-half",
        "fjord-and-another",
        "fjord-half",
        "sound-and-another",
        "sound-half",
        "bay-and-another",
        "bay-half",
        "lagoon-and-another",
        "lagoon-half",
        "delta-and-another",
        "delta-half",
        "estuary-and-another",
        "estuary-half",
        "firth-and-another",
        "firth-half",
        "harbor-and-another",
        "harbor-half",
        "marsh-and-another",
        "marsh-half",
        "cape-and-another",
        "cape-half",
        "moor-and-another",
        "moor-half",
        "creek-and-another",
        "creek-half",
        "bight-and-another",
        "bight-half",
        "brook-and-another",
        "brook-half",
    ],
)
def test_held_out_sets_are_one_at_a_time_and_whole(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cc.main(argv)
    assert exc.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert ": error: --" in last and ("separate sets" in last or "held out as a whole" in last)


def test_fetch_only_unpacks_the_set_and_runs_no_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, version in cc.BLIND:  # an unpacked cache: nothing to download
        done = tmp_path / f"{cc._norm(name)}-{version}"
        done.mkdir()
        (done / ".complete").write_text(f"{name}=={version}\n")

    def no_check(*args: object, **kwargs: object) -> None:
        raise AssertionError("--fetch-only ran ferry check")

    monkeypatch.setattr(cc, "collect", no_check)
    assert cc.main(["--blind", "--fetch-only", "--corpus", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{tmp_path / f'{cc._norm(n)}-{v}'}: unpacked" for n, v in cc.BLIND]


def test_recall_measures_the_torchferry_on_pythonpath(tmp_path: Path) -> None:
    """``PYTHONPATH=OTHER/src`` measures OTHER's rules, not this checkout's ``src/``."""
    other = tmp_path / "other" / "src"
    (other / "torchferry").mkdir(parents=True)
    (other / "torchferry" / "__init__.py").write_text("")
    plain = tmp_path / "plain"
    plain.mkdir()
    path = os.pathsep.join([str(plain), str(other)])
    assert cc.checker_src(path) == other.resolve()
    assert cc.checker_src(str(plain)) == cc.REPO / "src"
    assert cc.checker_src("") == cc.REPO / "src"


def test_a_directory_reproduction_is_checked_as_one_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """show.py's ``to_cpu(x)`` is read in helpers.py: only a run over both files knows its
    result is on the CPU (alone, a callable given a device tensor returns it there)."""
    head = "# Source: https://github.com/o/r/issues/1\n# Report: x\n"
    rep = tmp_path / "q01_converted_by_a_helper"
    (rep / "pkg").mkdir(parents=True)
    (rep / "pkg" / "helpers.py").write_text(
        head + "def to_cpu(x):\n    return x.detach().cpu()\n\n\ndef double(x):\n    return x * 2\n"
    )
    (rep / "show.py").write_text(
        head + "import torch\nfrom pkg.helpers import double, to_cpu\n"
        "x = torch.ones(2, device='cuda')\na = to_cpu(x).numpy()\nb = double(x).numpy()  # FRY003\n"
    )
    (tmp_path / "single.py").write_text(head + "import torch\ny = 1  # FRY002\n")
    cases = cc.recall_cases(tmp_path, select=("FRY003",))
    assert [(c.path.name, c.report) for c in cases] == [
        ("helpers.py", rep),
        ("show.py", rep),
        ("single.py", tmp_path / "single.py"),
    ]
    assert [(c.expected, c.found) for c in cases[:2]] == [
        (set(), set()),
        ({(7, "FRY003")}, {(7, "FRY003")}),
    ]
    alone = cc.recall_cases(tmp_path, select=("FRY003",), alone=True)
    assert alone[1].found == {(6, "FRY003"), (7, "FRY003")}
    cc.recall_mode(tmp_path, select=("FRY003",))
    out = capsys.readouterr().out
    assert "recall on 2 reproductions" in out and "1 of them directories, one run each" in out
    assert "reports with every expected finding caught: 1 of 2" in out
    assert "single.py:4: FRY002" in out and "q01_converted_by_a_helper/show.py" not in out
    cc.recall_mode(tmp_path, select=("FRY003",), alone=True)
    assert "q01_converted_by_a_helper/show.py:6: FRY003" in capsys.readouterr().out


def _fixable_package(root: Path) -> Path:
    pkg = root / "demo-1.0"
    pkg.mkdir(parents=True)
    (pkg / "pyproject.toml").write_text("[tool.torchferry]\n")
    (pkg / "m.py").write_text(
        "import torch\n\n\ndef f(device):\n"
        "    x = torch.zeros(3).to(device)\n    y = torch.ones(2).cuda()\n    return x, y\n"
    )
    return pkg


def test_fix_mode_counts_fixes_per_rule_and_writes_the_diff_on_a_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = _fixable_package(tmp_path / "corpus")
    original = (pkg / "m.py").read_text()
    diff = tmp_path / "fixes.diff"
    assert cc.fix_mode([pkg], "FRY009", unsafe=False, diff=diff) == 0
    out = capsys.readouterr().out
    assert "| demo | 1 | FRY009 safe 1 | 1 | 0 | 0 | 0 |" in out
    assert "1 fixes applied (FRY009 safe 1) in 1 files of 1 code bases; no problem found" in out
    assert (pkg / "m.py").read_text() == original  # the copy was fixed, not the corpus
    text = diff.read_text()
    assert text.startswith('demo/m.py:6: FRY009 [safe] Pass `device="cuda"` to the factory\n')
    assert '-    y = torch.ones(2).cuda()\n+    y = torch.ones(2, device="cuda")\n' in text
    assert "+    x" not in text  # the unsafe fix (`.to(device)`) is left alone


def test_fix_mode_with_unsafe_counts_each_applicability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = _fixable_package(tmp_path / "corpus")
    assert cc.fix_mode([pkg], "FRY009", unsafe=True) == 0
    out = capsys.readouterr().out
    assert "| demo | 2 | FRY009 safe 1, FRY009 unsafe 1 | 1 | 0 | 0 | 0 |" in out


def test_fix_mode_reports_a_fixed_file_that_no_longer_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = _fixable_package(tmp_path / "corpus")
    real_run_check = cc.run_check

    def breaking(pkg_dir: Path, select: str, extra=()):  # a fixer that writes bad syntax
        items, err = real_run_check(pkg_dir, select, extra)
        if "--fix" in extra:
            (pkg_dir / "m.py").write_text("def f(:\n")
        return items, err

    monkeypatch.setattr(cc, "run_check", breaking)
    assert cc.fix_mode([pkg], "FRY009", unsafe=False) == 1
    out = capsys.readouterr().out
    assert "demo/m.py: does not parse after --fix" in out


def test_the_diff_shows_a_frequent_unchanged_line_as_context() -> None:
    old = ["def f():", "    return model"] * 150 + ["x = torch.load(p)", "    return model"]
    new = old[:-2] + ['x = torch.load(p, map_location="cpu")', "    return model"]
    hunk = "".join(cc._hunks(old, new))
    assert hunk == (
        "@@ -299,4 +299,4 @@\n def f():\n     return model\n-x = torch.load(p)\n"
        '+x = torch.load(p, map_location="cpu")\n     return model\n'
    )


def test_diff_without_fix_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cc.main(["--diff", "out.diff"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().endswith("error: --diff goes with --fix")


def _git_repo_with(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    import subprocess

    src = tmp_path / "owner+name"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)

    def git(*a: str) -> str:
        return subprocess.run(
            ["git", "-C", str(src), *a], check=True, capture_output=True, text=True
        ).stdout

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    return src, git("rev-parse", "HEAD").strip()


def _reproduction(commit: str, path: str, body: str, trimmed: str = "nothing, the whole file"):
    return (
        "# Source: https://github.com/owner/name/issues/1\n# Report: it fails\n"
        f"# Code: owner/name@{commit} {path}\n# trimmed: {trimmed}\n{body}"
    )


def test_a_report_set_manifest_pins_each_file_and_its_markers(tmp_path: Path) -> None:
    repo, commit = _git_repo_with(tmp_path, {"pkg/m.py": "import torch\nx = torch.zeros(3)\n"})
    fixtures = tmp_path / "set" / "fixtures"
    fixtures.mkdir(parents=True)
    body = "import torch\nx = torch.zeros(3)  # FRY003, FRY010\n"
    (fixtures / "r1.py").write_text(_reproduction(commit, "pkg/m.py", body))
    path = cc.write_manifest("demo", fixtures, 3, 1, dest=tmp_path / "sets")
    rs = cc.report_sets(tmp_path / "sets")["demo"]
    (report,) = rs.reports
    assert (report.repository, report.commit, report.paths) == ("owner/name", commit, ("pkg/m.py",))
    assert report.whole and report.source == "https://github.com/owner/name/issues/1"
    (f,) = report.files
    assert (f.path, f.lines, len(f.header)) == ("r1.py", 6, 4)
    assert f.markers == (cc.Marker(6, ("FRY003", "FRY010"), "  # FRY003, FRY010"),)
    assert "torch.zeros" not in path.read_text(), "no code line in a manifest"
    assert cc.verify_set(rs, fixtures) == []
    (fixtures / "r1.py").write_text(_reproduction(commit, "pkg/m.py", body + "\n"))
    (fixtures / "r2.py").write_text("x = 1  # FRY003\n")
    problems = cc.verify_set(rs, fixtures)
    assert len(problems) == 2 and "r1.py: differs" in problems[0] and "r2.py: not in" in problems[1]
    assert "--recall-export demo" in cc.verify_set(rs, tmp_path / "absent")[0]


def test_a_report_set_is_rebuilt_byte_for_byte_from_a_clone(tmp_path: Path) -> None:
    original = "import torch\nx = torch.zeros(3)\ny = 1"  # no newline at the end
    repo, commit = _git_repo_with(tmp_path / "mirror", {"m.py": original, "n.py": "z = 2\n"})
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    whole = "import torch\nx = torch.zeros(3)  # FRY003\ny = 1\n"
    (fixtures / "r1.py").write_text(_reproduction(commit, "m.py", whole))
    (fixtures / "r2.py").write_text(_reproduction(commit, "n.py", "z = 2  # FRY003\n", "a part"))
    cc.write_manifest("demo", fixtures, 1, 1, dest=tmp_path / "sets")
    rs = cc.report_sets(tmp_path / "sets")["demo"]
    out = tmp_path / "rebuilt"
    outcome = cc.export_report_set(rs, tmp_path / "mirror", out)
    assert outcome == {"written": ["r1.py"], "trimmed": ["r2.py"]}
    assert (out / "r1.py").read_bytes() == (fixtures / "r1.py").read_bytes()
    assert cc.export_report_set(rs, tmp_path / "mirror", out)["present"] == ["r1.py"]
    assert cc.export_report_set(rs, tmp_path / "none", tmp_path / "x")["no mirror"] == ["r1.py"]


def test_a_reproduction_whose_crlf_line_ends_were_made_lf_is_rebuilt(tmp_path: Path) -> None:
    _, commit = _git_repo_with(
        tmp_path / "mirror", {"m.py": "import torch\r\nx = torch.zeros(3)\r\n"}
    )
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    body = "import torch\nx = torch.zeros(3)  # FRY010\n"
    lf = _reproduction(commit, "m.py", body, "nothing; CRLF line endings made LF")
    (fixtures / "r1.py").write_text(lf)
    cc.write_manifest("demo", fixtures, 1, 1, dest=tmp_path / "sets")
    rs = cc.report_sets(tmp_path / "sets")["demo"]
    out = tmp_path / "rebuilt"
    assert cc.export_report_set(rs, tmp_path / "mirror", out) == {"written": ["r1.py"]}
    assert (out / "r1.py").read_bytes() == lf.encode()
    (fixtures / "r1.py").write_text(lf.replace("zeros(3)", "zeros(4)"))
    cc.write_manifest("demo", fixtures, 1, 1, dest=tmp_path / "sets")
    rs = cc.report_sets(tmp_path / "sets")["demo"]
    assert cc.export_report_set(rs, tmp_path / "mirror", tmp_path / "x") == {"differs": ["r1.py"]}


def test_recall_on_a_set_refuses_files_that_differ_from_its_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fixtures = tmp_path / "data" / "demo" / "fixtures"
    fixtures.mkdir(parents=True)
    (fixtures / "r1.py").write_text(_reproduction("0" * 40, "m.py", "x = 1  # FRY003\n"))
    cc.write_manifest("demo", fixtures, 1, 1, dest=tmp_path / "sets")
    monkeypatch.setattr(cc, "RECALL_MANIFESTS", tmp_path / "sets")
    monkeypatch.setattr(cc, "RECALL_DATA", tmp_path / "data")
    assert cc.main(["--recall", "--set", "demo", "--select", "FRY003"]) == 0
    assert "recall on 1 reproductions" in capsys.readouterr().out
    (fixtures / "r1.py").write_text("x = 2\n")
    assert cc.main(["--recall", "--set", "demo"]) == 2
    assert "r1.py: differs from the manifest" in capsys.readouterr().err
    assert cc.main(["--recall", "--set", "nope"]) == 2
