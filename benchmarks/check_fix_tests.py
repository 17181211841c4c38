"""Does a safe fix change results?  Real code bases' own test suites, before and after ``--fix``.

``check_corpus.py --fix`` shows that ``ferry check --fix`` leaves every file parsing and
that a second run changes nothing; it cannot show that a fixed program computes what it
computed before.  This script does, on a PINNED list of public code bases that carry
their own test suites (``CODEBASES`` below), chosen because ``ferry check --fix`` changes
files in them, in code their tests run:

1. the snapshot (``.corpus/fixtests/OWNER-NAME@COMMIT``) is copied to a temporary
   directory, its tests run (``python -m pytest`` in the copy, CPU only, with a time
   limit) and every test id's outcome is recorded (passed, failed, skipped, error: from
   pytest's JUnit XML);
2. where the suite has tests for an accelerator, they run a second time on the simulated
   GPU (``pytest -p torchferry.sim.pytest_plugin --ferry-simulate cuda``, two devices
   where a test needs them), which is where a test guarded by
   ``torch.cuda.is_available()`` runs the fixed lines;
3. ``ferry check --fix`` (safe fixes only) is applied to the copy, with the default rule
   set first and then ``--select ALL``; the safe fixes offered before, per rule, are
   counted, and none may be left after;
4. the tests run again, in each mode, and the outcomes are compared per test id: the
   sets of passed, failed, skipped and erroring tests must be identical.  A test that
   flips, or a test id that appears or vanishes, is a broken safe fix.

    python benchmarks/check_fix_tests.py --export /work/.mirror --venv /tmp/fixtests-venv
    python benchmarks/check_fix_tests.py --venv /tmp/fixtests-venv   # set up once, then run
    python benchmarks/check_fix_tests.py --only kymatio/kymatio          # one code base

``--export GIT_DIR`` writes each snapshot from ``GIT_DIR/OWNER+NAME`` (a clone or bare
mirror holding the pinned commit: ``git clone --mirror https://github.com/OWNER/NAME``)
into ``.corpus/fixtests/`` and exits.  ``--venv DIR`` names the virtual environment the
suites run in (it is created, with torch and each code base's pinned requirements, when
it does not exist): never this checkout's own environment, so the suites' requirements do
not mix with torchferry's.  The torchferry that fixes and simulates is this checkout's
``src/`` (or the first ``PYTHONPATH`` entry holding one, as in ``check_corpus.py``).

Exit status: 0 when no test flipped, 1 when one did (the table lists it), 2 on a usage
error or a missing snapshot.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SNAPSHOTS = REPO / ".corpus" / "fixtests"
TORCH_PIN = "torch==2.13.0"


@dataclass(frozen=True)
class CodeBase:
    """One pinned code base: where its tests are and what they need."""

    repo: str  #: OWNER/NAME on GitHub
    commit: str  #: the pinned commit (40 hex digits)
    tests: tuple[str, ...]  #: pytest arguments: the test paths (and -k, -m) that run on CPU
    requires: tuple[str, ...] = ()  #: pinned pip requirements besides torch and pytest
    simulate: bool = False  #: the suite has tests guarded by torch.cuda.is_available()
    devices: int = 1  #: how many simulated GPUs (2: tests guarded by device_count() > 1)
    timeout_s: int = 600  #: the limit for one run of the suite

    @property
    def dirname(self) -> str:
        """The snapshot's directory name under ``.corpus/fixtests/``."""
        return f"{self.repo.replace('/', '-')}@{self.commit}"


CODEBASES: tuple[CodeBase, ...] = (
    # FRY009 in its torch-backend tests, on lines that run on CUDA only
    CodeBase(
        "kymatio/kymatio",
        "11552ed5533d566e6c60d77eecccb37dfb229dec",
        ("tests/scattering2d/test_torch_backend_2d.py",),
        ("scipy==1.17.1", "appdirs==1.4.4", "configparser==7.3.0", "packaging==26.4"),
        simulate=True,
        devices=2,
    ),
    # FRY009 in a test that loops over "cpu" and, where available, "cuda"
    CodeBase(
        "patrick-kidger/torchcde",
        "9ff6aba4738989dc5fe3aee86d45812c318f6231",
        ("test/test_linear_interpolation.py",),
        ("torchdiffeq==0.2.5", "torchsde==0.2.6", "scipy==1.17.1"),
        simulate=True,
    ),
    # FRY003 (the default rule set's safe fix) in a test of the pairwise probit model
    CodeBase(
        "facebookresearch/aepsych",
        "7c30684431d55cbf8caf5a1433e6c115bf65488b",
        ("tests/models/test_pairwise_probit.py", "-k", "pairs_to_comparisons or 1d"),
        (
            "botorch==0.18.1",
            "gpytorch==1.15.2",
            "linear_operator==0.6.1",
            "pandas==3.1.1",
            "statsmodels==0.15.0",
            "dill==0.4.1",
            "SQLAlchemy==1.4.46",
            "aepsych_client==0.5.0",
            "matplotlib==3.11.2",
            "scikit-learn==1.9.1",
            "scipy==1.17.1",
            "tqdm==4.70.1",
            "torcheval==0.0.7",
            "pathos==0.3.5",
            "multiprocess==0.70.19",
        ),
        simulate=True,
    ),
    # FRY009 in a model of its fixtures, which its tests summarise
    CodeBase(
        "TylerYep/torchinfo",
        "5c4164f1e2e185ce33c597dbe00535bf8ed2b930",
        ("tests/torchinfo_test.py",),  # torchinfo_xl_test.py needs torchvision's C++ ops
        simulate=True,
    ),
    # FRY009 in the models of its plate tests, which run on CUDA only
    CodeBase(
        "pyro-ppl/pyro",
        "ff6ae1c9572591791aae8842bcd702fcf0b46fd6",
        ("tests/poutine/test_mapdata.py",),
        ("opt_einsum==3.4.0", "pyro-api==0.1.2"),
        simulate=True,
    ),
    # FRY004 in a test that loads the state dicts of an older model
    CodeBase(
        "cornellius-gp/gpytorch",
        "7c4ec80f0f05cf530348a8a8972d67a11dd26ed2",
        ("test/examples/test_svgp_gp_regression.py",),
        ("linear_operator==0.6.1", "mpmath==1.3.0", "scikit-learn==1.9.1", "scipy==1.17.1"),
    ),
    # FRY009 in its attention models' tests, on the device chosen by torch.cuda.is_available()
    CodeBase(
        "benedekrozemberczki/pytorch_geometric_temporal",
        "adefe44265ad8faf239fd6cf3b59b95ca3ee60aa",
        ("test/attention_test.py", "-k", "astgcn or mstgcn or mtgnn"),
        ("torch_geometric==2.8.1", "networkx==3.6.1"),
        simulate=True,
    ),
    # FRY009 in the TARP test that runs on the GPU only (its slow tests train a model)
    CodeBase(
        "sbi-dev/sbi",
        "900821dc78aafeb63bca5692d4d9cecfe3c605ae",
        ("tests/tarp_test.py", "-m", "not slow"),
        (
            "joblib==1.6.0",
            "matplotlib==3.11.2",
            "pillow==13.0.0",
            "nflows==0.14",
            "scikit-learn==1.9.1",
            "scipy==1.17.1",
            "skorch==1.4.0",
            "tensorboard==2.21.0",
            "tqdm==4.70.1",
            "zuko==1.6.0",
            "pandas==3.1.1",
            "pytest-harvest==1.10.5",
            "decopatch==1.4.10",
            "makefun==1.16.0",
        ),
        simulate=True,
    ),
)


# -- snapshots -----------------------------------------------------------------------


def export_snapshot(git_dir: Path, cb: CodeBase, out: Path) -> tuple[Path, list[str]]:
    """Write every file of ``cb.commit`` held in ``git_dir`` to ``out/cb.dirname``;
    (the directory, the paths whose blob is absent, e.g. large files of a partial clone)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from check_corpus import write_commit

    dest = out / cb.dirname
    # symlinks are left out: these suites do not need them
    missing = write_commit(git_dir, cb.commit, dest, lambda mode, _rel: mode != "120000")
    (dest / ".complete").write_text(f"{cb.repo}@{cb.commit}\n")
    return dest, missing


def _git_dir(root: Path, repo: str) -> Path | None:
    """The git directory of ``repo`` under ``root`` (``OWNER+NAME``, bare or a clone)."""
    base = root / repo.replace("/", "+")
    for cand in (base / "repo", base / ".git", base):
        if (cand / "HEAD").is_file():
            return cand
    return None


# -- test outcomes -------------------------------------------------------------------


def outcomes_from_junit(xml_text: str) -> dict[str, str]:
    """Test id -> outcome ("passed", "failed", "error", "skipped") from pytest's JUnit XML.

    A test reported twice (a failure in the call and an error in its teardown) keeps
    the worse outcome: error over failed over skipped over passed."""
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    out: dict[str, str] = {}
    for case in ET.fromstring(xml_text).iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        kinds = {child.tag for child in case}
        outcome = (
            "error"
            if "error" in kinds
            else "failed"
            if "failure" in kinds
            else "skipped"
            if "skipped" in kinds
            else "passed"
        )
        if rank[outcome] >= rank.get(out.get(test_id, "passed"), 0):
            out[test_id] = outcome
    return out


@dataclass(frozen=True)
class Flip:
    """A test whose outcome differs after the fixes ("absent": no such test id)."""

    test_id: str
    before: str
    after: str


def compare(before: dict[str, str], after: dict[str, str]) -> list[Flip]:
    """The tests whose outcome changed, and the ids that appeared or vanished, sorted."""
    ids = sorted(set(before) | set(after))
    return [
        Flip(t, before.get(t, "absent"), after.get(t, "absent"))
        for t in ids
        if before.get(t, "absent") != after.get(t, "absent")
    ]


def tally(outcomes: dict[str, str]) -> str:
    """``passed/failed/error/skipped`` counts of one run, e.g. ``41/0/0/3``."""
    c = Counter(outcomes.values())
    return f"{c['passed']}/{c['failed']}/{c['error']}/{c['skipped']}"


# -- running ---------------------------------------------------------------------------


def checker_src() -> Path:
    """The ``src`` whose torchferry fixes and simulates: the first ``PYTHONPATH`` entry
    that holds one, else this checkout's."""
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and (Path(entry) / "torchferry" / "__init__.py").is_file():
            return Path(entry).resolve()
    return REPO / "src"


def _env(extra_path: Sequence[Path]) -> dict[str, str]:
    """The environment of a suite run: CPU only, no bytecode, ``extra_path`` importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PYTHONPATH=os.pathsep.join(str(p) for p in extra_path),
        CUDA_VISIBLE_DEVICES="",
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS="1",
        MPLBACKEND="Agg",
    )
    return env


def run_suite(python: Path, tree: Path, cb: CodeBase, simulate: bool) -> dict[str, str]:
    """Run the code base's tests in ``tree``; test id -> outcome.  A run that reports no
    test at all (a collection error of the whole session, a time-out) is an error."""
    with tempfile.TemporaryDirectory(prefix="ferry-fixtests-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        cmd += ["--junitxml", str(junit), "-o", "junit_family=xunit1", *cb.tests]
        if simulate:
            cmd += ["-p", "torchferry.sim.pytest_plugin", "--ferry-simulate", "cuda"]
            cmd += ["--ferry-device-count", str(cb.devices)]
        try:
            proc = subprocess.run(
                cmd,
                cwd=tree,
                env=_env([tree, checker_src()]),
                capture_output=True,
                text=True,
                timeout=cb.timeout_s,
            )
        except subprocess.TimeoutExpired:
            raise SystemExit(
                f"check_fix_tests: {cb.repo}: the suite ran past {cb.timeout_s} s"
            ) from None
        if not junit.is_file():
            raise SystemExit(
                f"check_fix_tests: {cb.repo}: pytest wrote no report (exit {proc.returncode}):"
                f"\n{(proc.stdout + proc.stderr)[-1500:]}"
            )
        return outcomes_from_junit(junit.read_text(encoding="utf-8"))


def safe_fixes(tree: Path, select: str | None) -> Counter[str]:
    """The safe fixes ``ferry check`` offers in ``tree``, per rule."""
    chosen = ["--select", select] if select else []
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchferry",
            "check",
            ".",
            "--format",
            "json",
            "--exit-zero",
            "--no-cache",
            *chosen,
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(checker_src())},
        capture_output=True,
        text=True,
    )
    if not proc.stdout.strip().startswith("["):
        raise SystemExit(f"check_fix_tests: ferry check failed in {tree}:\n{proc.stderr[-1500:]}")
    return Counter(f["code"] for f in json.loads(proc.stdout) if (f.get("fix") or {}).get("safe"))


def apply_fixes(tree: Path, select: str | None) -> None:
    """``ferry check --fix`` (safe fixes only) on ``tree``; a file that cannot be fixed
    (exit 2) stops the measurement."""
    chosen = ["--select", select] if select else []
    proc = subprocess.run(
        [sys.executable, "-m", "torchferry", "check", ".", "--fix", "--no-cache", *chosen],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(checker_src())},
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"check_fix_tests: --fix failed in {tree}:\n{proc.stderr[-1500:]}")


def _digests(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every Python file and notebook under ``root``."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".py", ".ipynb")
    }


@dataclass
class Measured:
    """One code base's measurement."""

    cb: CodeBase
    default_fixes: Counter[str] = field(default_factory=Counter)  #: default rule set, safe
    all_fixes: Counter[str] = field(default_factory=Counter)  #: then --select ALL, safe
    left: Counter[str] = field(default_factory=Counter)  #: safe fixes offered after --fix
    files_fixed: list[str] = field(default_factory=list)
    before: dict[str, dict[str, str]] = field(default_factory=dict)  #: mode -> outcomes
    after: dict[str, dict[str, str]] = field(default_factory=dict)
    seconds: float = 0.0

    def flips(self) -> dict[str, list[Flip]]:
        """Mode -> the tests that flipped."""
        return {m: compare(self.before[m], self.after.get(m, {})) for m in self.before}


def measure(cb: CodeBase, snapshot: Path, python: Path) -> Measured:
    """Copy ``snapshot``, run its tests, apply the safe fixes, run them again."""
    t0 = time.perf_counter()
    got = Measured(cb)
    modes = ["cpu", f"simulated cuda x{cb.devices}"] if cb.simulate else ["cpu"]
    with tempfile.TemporaryDirectory(prefix="ferry-fixtests-") as tmp:
        tree = Path(tmp) / cb.dirname
        shutil.copytree(snapshot, tree)
        for mode in modes:
            got.before[mode] = run_suite(python, tree, cb, mode != "cpu")
            if "passed" not in got.before[mode].values():
                raise SystemExit(
                    f"check_fix_tests: {cb.repo} [{mode}]: no test passed before --fix"
                )
        old = _digests(tree)
        got.default_fixes = safe_fixes(tree, None)
        apply_fixes(tree, None)
        got.all_fixes = safe_fixes(tree, "ALL")
        apply_fixes(tree, "ALL")
        got.left = safe_fixes(tree, "ALL")
        new = _digests(tree)
        got.files_fixed = sorted(rel for rel in new if new[rel] != old.get(rel))
        for mode in modes:
            got.after[mode] = run_suite(python, tree, cb, mode != "cpu")
    got.seconds = time.perf_counter() - t0
    return got


def _per_rule(c: Counter[str]) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(c.items())) or "0"


def table(rows: Sequence[Measured]) -> str:
    """The Markdown table of the measurements, one line per code base and mode."""
    lines = [
        "| code base | files fixed | safe fixes (default set) | safe fixes (then ALL) | "
        "mode | tests before p/f/e/s | after p/f/e/s | flipped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in rows:
        for mode, flips in m.flips().items():
            lines.append(
                f"| {m.cb.repo}@{m.cb.commit[:7]} | {len(m.files_fixed)} | "
                f"{_per_rule(m.default_fixes)} | {_per_rule(m.all_fixes)} | {mode} | "
                f"{tally(m.before[mode])} | {tally(m.after[mode])} | {len(flips)} |"
            )
    return "\n".join(lines)


# -- the virtual environment of the suites ------------------------------------------------


def ensure_venv(venv: Path) -> Path:
    """The python of ``venv``; created, with torch, pytest and the code bases' pinned
    requirements, when it does not exist."""
    python = venv / "bin" / "python"
    if not python.is_file():
        print(f"creating {venv} (torch, pytest and the suites' requirements)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        reqs = sorted({r for cb in CODEBASES for r in cb.requires})  # all: --only reuses it
        base = [TORCH_PIN, "pytest==9.2.0", "numpy==2.4.6", "pygls==2.1.1", "lsprotocol==2025.0.0"]
        subprocess.run([str(python), "-m", "pip", "install", "-q", *base, *reqs], check=True)
    return python


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument(
        "--snapshots",
        type=Path,
        default=DEFAULT_SNAPSHOTS,
        help=f"where the snapshots are (default: {DEFAULT_SNAPSHOTS})",
    )
    ap.add_argument(
        "--export",
        type=Path,
        metavar="GIT_DIR",
        help="write each pinned snapshot from GIT_DIR/OWNER+NAME and exit",
    )
    ap.add_argument(
        "--venv",
        type=Path,
        default=Path("/tmp/fixtests-venv"),
        help="the virtual environment the suites run in (created if absent)",
    )
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="OWNER/NAME",
        help="only this code base (repeatable)",
    )
    args = ap.parse_args(argv)
    known = {cb.repo for cb in CODEBASES}
    if set(args.only) - known:
        ap.error(
            f"unknown code base(s) {', '.join(sorted(set(args.only) - known))}; "
            f"known: {', '.join(sorted(known))}"
        )
    chosen = [cb for cb in CODEBASES if not args.only or cb.repo in args.only]
    if args.export is not None:
        return export_all(args.export, args.snapshots, chosen)
    absent = [cb for cb in chosen if not (args.snapshots / cb.dirname / ".complete").is_file()]
    if absent:
        print(
            f"check_fix_tests: no snapshot {args.snapshots / absent[0].dirname}; write them "
            f"with --export GIT_DIR (a mirror of each pinned repository)",
            file=sys.stderr,
        )
        return 2
    python = ensure_venv(args.venv)
    rows = []
    for cb in chosen:
        print(f"{cb.repo}: running its tests, fixing, running them again", flush=True)
        rows.append(measure(cb, args.snapshots / cb.dirname, python))
        print(f"  {rows[-1].seconds:.0f} s; fixed: {', '.join(rows[-1].files_fixed) or 'nothing'}")
    print(f"\nferry check --fix of {checker_src()}\n")
    print(table(rows))
    return report_problems(rows)


def export_all(git_root: Path, out: Path, chosen: Sequence[CodeBase]) -> int:
    """``--export``: write the snapshots of ``chosen`` found under ``git_root``."""
    status = 0
    for cb in chosen:
        git_dir = _git_dir(git_root, cb.repo)
        if git_dir is None:
            print(f"check_fix_tests: no clone of {cb.repo} under {git_root}", file=sys.stderr)
            status = 2
            continue
        dest, missing = export_snapshot(git_dir, cb, out)
        print(f"{dest}: written" + (f", {len(missing)} blobs missing" if missing else ""))
    return status


def report_problems(rows: Sequence[Measured]) -> int:
    """Print each flipped test and each safe fix left after ``--fix``; 1 if any."""
    problems = 0
    for m in rows:
        for mode, flips in m.flips().items():
            for f in flips:
                print(f"  {m.cb.repo} [{mode}] {f.test_id}: {f.before} -> {f.after}")
            problems += len(flips)
        if m.left:
            print(f"  {m.cb.repo}: safe fixes still offered after --fix: {_per_rule(m.left)}")
            problems += sum(m.left.values())
    print("\nno safe fix changed a test's outcome" if not problems else f"\n{problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
