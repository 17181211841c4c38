"""How fast is ``ferry check`` on a large real PyTorch code base, next to TorchFix?

Downloads timm's source from the package index (``pip download --no-deps timm``)
into ``.corpus/`` (gitignored) unless it is already there, unzips it, and then, in
one run and on the same files, times as subprocesses (wall clock):

* ``ferry check`` with all rules and a cold cache (``.ferry_cache`` deleted first),
* ``ferry check`` again with the warm cache,
* ``ferry check --no-cache --jobs 1`` (one process, for reference),
* ``torchfix --select ALL`` (TorchFix checks with libcst; it takes over a minute here).

Each timing is the median of ``--runs`` runs (TorchFix: ``--torchfix-runs``).  It prints
a table with the ratios, then the findings per rule and the list of findings.

    python benchmarks/check_speed.py                    # everything (about 2-3 minutes)
    python benchmarks/check_speed.py --torchfix-runs 0  # ferry only
    python benchmarks/check_speed.py --torchfix /path/to/venv/bin/torchfix
    python benchmarks/check_speed.py --beside-ruff DIR  # ferry next to `ruff check --select ALL`
    python benchmarks/check_speed.py --timm DIR         # an unpacked timm already there

``--beside-ruff DIR`` times, alternating run by run on DIR (e.g. an unpacked diffusers
source), ``ferry check --no-cache`` (the default rule set, and ``--select ALL``) and
``ruff check --no-cache --select ALL`` (ruff next to this Python, else on PATH), and prints
their medians and ratios instead of the timm table.

The subprocesses run without PYTHONDONTWRITEBYTECODE, as Python normally runs (one
untimed warm-up run of each tool writes the bytecode caches first).  A corpus
``pyproject.toml`` with an empty ``[tool.torchferry]`` table makes the corpus its own
project, so no configuration from a surrounding checkout applies.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".corpus"
BIN = Path(sys.executable).parent


def fetch_timm() -> Path:
    """The unzipped timm wheel (downloaded once)."""
    CORPUS.mkdir(exist_ok=True)
    wheels = sorted(CORPUS.glob("timm-*.whl"))
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "timm", "-d", str(CORPUS)],
            check=True,
        )
        wheels = sorted(CORPUS.glob("timm-*.whl"))
    wheel = wheels[-1]
    dest = CORPUS / wheel.name.removesuffix(".whl")
    if not (dest / "timm").is_dir():
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest)
    (dest / "pyproject.toml").write_text("# the benchmark's corpus root\n[tool.torchferry]\n")
    return dest


def lines_of(root: Path) -> tuple[int, int]:
    files = sorted((root / "timm").rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    e["NO_COLOR"] = "1"
    return e


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall seconds, CPU seconds of the process and its workers, the result)."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True)
    return time.perf_counter() - t0, _children_cpu() - c0, proc


def median_of(
    cmd: list[str], cwd: Path, runs: int, before=None
) -> tuple[list[tuple[float, float]], subprocess.CompletedProcess[str]]:
    times = []
    proc = None
    for _ in range(runs):
        if before:
            before()
        wall, cpu, proc = timed(cmd, cwd)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        times.append((wall, cpu))
    assert proc is not None
    return times, proc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="runs of each ferry timing (median)")
    ap.add_argument("--torchfix-runs", type=int, default=1, help="runs of torchfix (0: skip)")
    ap.add_argument(
        "--torchfix",
        default=None,
        help="the torchfix executable (default: next to this Python, else on PATH); "
        "TorchFix needs only libcst, so a small venv of its own will do",
    )
    ap.add_argument("--no-list", action="store_true", help="do not list the findings")
    ap.add_argument("--timm", metavar="DIR", type=Path, default=None,
                    help="time this unpacked timm (a directory holding timm/, e.g. "
                    "check_corpus.py's .corpus/ecosystem/timm-1.0.31) instead of downloading one")
    ap.add_argument("--beside-ruff", metavar="DIR", type=Path, default=None,
                    help="time ferry check next to ruff check --select ALL on DIR, and exit")
    args = ap.parse_args()
    if args.beside_ruff is not None:
        return beside_ruff(args.beside_ruff, args.runs)
    torchfix = args.torchfix or (
        str(BIN / "torchfix") if (BIN / "torchfix").exists() else shutil.which("torchfix")
    )
    if args.torchfix_runs and not (torchfix and os.access(torchfix, os.X_OK)):
        print(
            "check_speed.py: error: torchfix not found; `pip install torchfix` (in any venv) "
            "and pass --torchfix PATH, or --torchfix-runs 0 for ferry alone",
            file=sys.stderr,
        )
        return 2

    root = fetch_timm() if args.timm is None else args.timm.resolve()
    if not (root / "timm").is_dir():
        print(f"check_speed.py: error: {root}: no timm/ there", file=sys.stderr)
        return 2
    nfiles, nlines = lines_of(root)
    ferry = str(BIN / "ferry")
    target = "timm"
    cache = root / ".ferry_cache"

    def clear_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    print(f"# ferry check speed on {root.name}: {nfiles} files, {nlines:,} lines")
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average before: {os.getloadavg()[0]:.2f}"
    )
    # warm-up (untimed): bytecode caches of ferry, and of torchfix when it runs
    timed([ferry, "check", "--no-cache", "--exit-zero", target], root)

    rows = []
    cold, proc = median_of(
        [ferry, "check", "--format", "json", target], root, args.runs, before=clear_cache
    )
    findings = json.loads(proc.stdout)
    rows.append(("ferry check, cold cache (cache deleted)", cold))
    warm, proc_warm = median_of([ferry, "check", "--format", "json", target], root, args.runs)
    assert json.loads(proc_warm.stdout) == findings, "the warm run disagrees with the cold one"
    rows.append(("ferry check, warm cache", warm))
    one, _ = median_of(
        [ferry, "check", "--no-cache", "--jobs", "1", "--format", "json", target], root, args.runs
    )
    rows.append(("ferry check --no-cache --jobs 1", one))
    tf_count = None
    if args.torchfix_runs:
        assert torchfix is not None
        tf, tf_proc = median_of([torchfix, "--select", "ALL", target], root, args.torchfix_runs)
        rows.append(("torchfix --select ALL", tf))
        tf_count = sum(
            1 for line in tf_proc.stdout.splitlines() if ": TOR" in line and line.count(":") >= 3
        )
    if args.torchfix_runs:  # ferry once more after TorchFix: the load may have changed
        cold2, _ = median_of(
            [ferry, "check", "--format", "json", target], root, args.runs, before=clear_cache
        )
        rows.append(("ferry check, cold cache, after TorchFix", cold2))

    def med(times, k):
        return statistics.median(t[k] for t in times)

    ref = rows[3][1] if args.torchfix_runs else None
    print()
    print(
        "| command | runs | median wall (s) | min wall (s) | median CPU (s) "
        "| TorchFix / this (wall) | TorchFix / this (CPU) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, times in rows:
        w, c = med(times, 0), med(times, 1)
        rw = f"{med(ref, 0) / w:.0f}x" if ref else "-"
        rc = f"{med(ref, 1) / c:.0f}x" if ref else "-"
        mn = min(t[0] for t in times)
        print(f"| `{name}` | {len(times)} | {w:.3f} | {mn:.3f} | {c:.3f} | {rw} | {rc} |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")

    counts = Counter(f["code"] for f in findings)
    print(f"\nferry check findings on {root.name}: {len(findings)}")
    for code, n in sorted(counts.items()):
        name = next(f["name"] for f in findings if f["code"] == code)
        print(f"  {code} {name}: {n}")
    if tf_count is not None:
        print(f"torchfix --select ALL findings: {tf_count}")
    if not args.no_list:
        print()
        for f in findings:
            fix = (
                "" if f["fix"] is None else (" [safe fix]" if f["fix"]["safe"] else " [unsafe fix]")
            )
            print(f"{f['path']}:{f['line']}:{f['column']}: {f['code']}{fix} {f['message']}")
    return 0


def beside_ruff(tree: Path, runs: int) -> int:
    """ferry check and ruff check on ``tree``, alternating, medians and ratios."""
    ruff = str(BIN / "ruff") if (BIN / "ruff").exists() else shutil.which("ruff")
    if not tree.is_dir() or ruff is None:
        what = f"{tree}: not a directory" if not tree.is_dir() else "ruff not found"
        print(f"check_speed.py: error: {what}", file=sys.stderr)
        return 2
    ferry = str(BIN / "ferry")
    cmds = {
        "ferry check --no-cache (default rules)": [ferry, "check", "--no-cache", "--exit-zero",
                                                    "-q", "."],
        "ferry check --no-cache --select ALL": [ferry, "check", "--no-cache", "--exit-zero",
                                                "-q", "--select", "ALL", "."],
        "ruff check --no-cache --select ALL": [ruff, "check", "--no-cache", "--exit-zero", "-q",
                                               "--select", "ALL", "."],
    }
    nfiles = sum(1 for _ in tree.rglob("*.py"))
    print(f"# ferry check beside ruff on {tree.name}: {nfiles} Python files")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load average before: {os.getloadavg()[0]:.2f}")
    for cmd in cmds.values():  # warm-up: bytecode caches
        timed(cmd, tree)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            wall, cpu, _ = timed(cmd, tree)
            times[name].append((wall, cpu))
    ref = times["ruff check --no-cache --select ALL"]
    rw = statistics.median(t[0] for t in ref)
    rc = statistics.median(t[1] for t in ref)
    print("\n| command | runs | median wall (s) | median CPU (s) | this / ruff (wall) "
          "| this / ruff (CPU) |")
    print("|---|---|---|---|---|---|")
    for name, ts in times.items():
        w = statistics.median(t[0] for t in ts)
        c = statistics.median(t[1] for t in ts)
        print(f"| `{name}` | {len(ts)} | {w:.2f} | {c:.2f} | {w / rw:.2f}x | {c / rc:.2f}x |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
