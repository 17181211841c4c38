"""How long does the fast test loop (``pytest -m "not slow"``) take, and where does it go?

Runs ``python -m pytest -m "not slow"`` (what a developer types; pyproject's addopts
apply) ``--runs`` times as subprocesses from the repository root and prints
one row per run: wall clock, CPU time (user + system of the pytest process), and the
wall clock split into its phases, read by a small probe plugin:

* ``start+collect``: interpreter start, pytest start, importing every test module and
  every ``src/`` module (``--doctest-modules``), torch among them;
* ``tests``: setup, call and teardown of the selected tests;
* ``finish``: pytest's own end of session and unconfigure;
* ``exit``: atexit handlers and the interpreter's shutdown.

Two environments, chosen with ``--bytecode``:

* ``as-is`` (default): the environment of the caller.  On the machines this project is
  developed on ``PYTHONDONTWRITEBYTECODE=1`` is set, so nothing is cached between runs:
  pytest rewrites the asserts of every test module on every run.  This is the slow case.
* ``written``: without ``PYTHONDONTWRITEBYTECODE``, as Python normally runs; one untimed
  warm-up run writes the bytecode and pytest's assertion-rewrite caches first.

The 1-minute load average before and after each run is printed, because the numbers
mean little on a busy machine.  Run by hand, never as a test::

    python benchmarks/test_loop.py                      # 3 runs, environment as it is
    python benchmarks/test_loop.py --runs 5 --bytecode written
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The probe plugin, written to a temporary directory and loaded with -p.  It records the
# phase boundaries (time.perf_counter, wall clock) and writes them as JSON at the very
# last atexit handler it can register (after pytest's own unconfigure work).
PROBE = '''
import atexit, json, os, time
_T0 = time.perf_counter()
_marks = {}

def pytest_collection_finish(session):
    _marks["collected"] = time.perf_counter() - _T0
    _marks["selected"] = len(session.items)

def pytest_sessionstart(session):
    _marks["pytest_started"] = time.perf_counter() - _T0

def pytest_sessionfinish(session, exitstatus):
    _marks["tests_done"] = time.perf_counter() - _T0
    _marks["exitstatus"] = int(exitstatus)

def pytest_unconfigure(config):
    def _write():
        _marks["atexit"] = time.perf_counter() - _T0
        with open(os.environ["FERRY_LOOP_PROBE_OUT"], "w") as f:
            json.dump(_marks, f)
    atexit.register(_write)
'''


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on Linux
        return float("nan")


def one_run(env: dict[str, str], probe_dir: str, out: Path) -> dict[str, float]:
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [probe_dir, env.get("PYTHONPATH")])),
           "FERRY_LOOP_PROBE_OUT": str(out)}
    cmd = [sys.executable, "-m", "pytest", "-p", "ferry_loop_probe",
           "-m", "not slow"]
    load0 = _load()
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = os.times()
    marks = json.loads(out.read_text())
    said = [line for line in proc.stdout.splitlines() if " passed" in line or " failed" in line]
    tail = said[-1].strip("= ") if said else proc.stdout.strip()[-300:]
    if proc.returncode != 0:
        raise SystemExit(f"the fast loop failed (exit {proc.returncode}): {tail}")
    return {
        "wall": wall,
        "cpu": (after.children_user - before.children_user)
        + (after.children_system - before.children_system),
        "collect": marks["collected"],
        "tests": marks["tests_done"] - marks["collected"],
        "finish": marks["atexit"] - marks["tests_done"],
        "exit": wall - marks["atexit"],
        "selected": marks["selected"],
        "load0": load0,
        "load1": _load(),
        "summary": tail,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bytecode", choices=("as-is", "written"), default="as-is")
    ap.add_argument("--clean-bytecode", action="store_true",
                    help="as-is: delete src/ and tests/ __pycache__ files first (a fresh clone "
                    "has none; Python reads them even when it may not write them)")
    args = ap.parse_args(argv)

    env = dict(os.environ)
    if args.bytecode == "written":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    stale = [p for d in ("src", "tests") for p in (ROOT / d).rglob("__pycache__/*.pyc")]
    if args.bytecode == "as-is" and args.clean_bytecode:
        for p in stale:
            p.unlink()
        stale = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "ferry_loop_probe.py").write_text(PROBE)
        out = Path(tmp) / "marks.json"
        if args.bytecode == "written":
            one_run(env, tmp, out)  # untimed: writes the bytecode and rewrite caches
        rows = [one_run(env, tmp, out) for _ in range(args.runs)]

    print(f"pytest -m 'not slow' from {ROOT}  (bytecode: {args.bytecode}; "
          f"PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', 'unset')}; "
          f"{os.cpu_count()} CPUs)")
    head = f"{'run':>4} {'wall s':>7} {'CPU s':>6} {'start+collect':>13} {'tests':>6} " \
           f"{'finish':>6} {'exit':>5} {'load before/after':>18}"
    print(head)
    for i, r in enumerate(rows, 1):
        print(f"{i:>4} {r['wall']:7.1f} {r['cpu']:6.1f} {r['collect']:13.1f} {r['tests']:6.1f} "
              f"{r['finish']:6.1f} {r['exit']:5.1f} {r['load0']:8.2f} / {r['load1']:<7.2f}")
    med = {k: statistics.median(r[k] for r in rows)
           for k in ("wall", "cpu", "collect", "tests", "finish", "exit")}
    print(f"{'med':>4} {med['wall']:7.1f} {med['cpu']:6.1f} {med['collect']:13.1f} "
          f"{med['tests']:6.1f} {med['finish']:6.1f} {med['exit']:5.1f}")
    print(f"{rows[0]['selected']} tests selected; pytest said: {rows[-1]['summary']}")
    if stale and args.bytecode == "as-is":
        print(f"note: {len(stale)} bytecode files under src/ and tests/ were read (not a fresh "
              "clone); --clean-bytecode deletes them first")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
