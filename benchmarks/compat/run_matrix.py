"""Re-run the test suite against other torch and Python versions; print a pass/fail table.

Each (Python, torch) pair gets its own virtual environment under ``--workdir``
(made once, reused after), with ``torch==VERSION`` from PyPI -- on Linux that is
the CUDA build, the wheel users get from ``pip install torch`` -- and this
checkout installed editable with its ``[dev]`` extra.  ``pip --isolated`` reads
no pip.conf and no ``PIP_*`` variable, so a local index holding the ``+cpu``
build (this project's machines have one) is not used; the certificate bundle
named by ``PIP_CERT`` is passed on.

    python benchmarks/compat/run_matrix.py                       # the default matrix
    python benchmarks/compat/run_matrix.py --torch 2.8.0 --python 3.11 -- tests/sim

Arguments after ``--`` go to pytest (default: ``tests -m "not slow"``).  Each
environment costs a torch download (about 0.5-0.9 GB, and 2-3 GB of nvidia
wheels for the CUDA builds) and a few minutes; results print as each finishes.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TORCH = ["2.4.1", "2.6.0", "2.8.0", "2.13.0"]
DEFAULT_PYTHON = ["3.11"]


def find_python(version: str) -> str | None:
    """An interpreter for ``version`` (e.g. 3.10): on PATH, or under ~/.pyenv/versions."""
    # pyenv's installs first: its shims on PATH fail for a version that is not selected
    for cand in sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python"))):
        return cand
    exe = shutil.which(f"python{version}")
    if exe and "/.pyenv/shims/" not in exe:
        return exe
    return None


def make_env(python: str, torch: str, where: Path, log) -> Path:
    py = where / "bin" / "python"
    if py.exists():
        return py
    subprocess.run([python, "-m", "venv", str(where)], check=True)
    cert = ["--cert", os.environ["PIP_CERT"]] if os.environ.get("PIP_CERT") else []
    cmd = [str(py), "-m", "pip", "install", "-q", "--isolated", *cert,
           f"torch=={torch}", "-e", f"{ROOT}[dev]"]
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        shutil.rmtree(where, ignore_errors=True)
        raise RuntimeError(f"pip install failed (exit {r.returncode}); see {log.name}")
    return py


_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")


def run_tests(py: Path, pytest_args: list[str], log) -> dict[str, Any]:
    # the project's addopts already say -q; -qq would drop the final counts line
    cmd = [str(py), "-m", "pytest", "-p", "no:cacheprovider", *pytest_args]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    log.write(r.stdout + r.stderr)
    counts: dict[str, Any] = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    lines = [x for x in r.stdout.splitlines() if _COUNT.search(x)]
    for n, what in _COUNT.findall(lines[-1] if lines else ""):
        key = "error" if what.startswith("error") else what
        if key in counts:
            counts[key] += int(n)
    counts["exit"] = r.returncode
    parts: dict[str, int] = {}
    for m in re.finditer(r"^(?:FAILED|ERROR) tests/([^/:]+)", r.stdout, re.M):
        part = m.group(1) if not m.group(1).endswith(".py") else "library"
        parts[part] = parts.get(part, 0) + 1
    counts["by_part"] = parts
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torch", nargs="+", default=DEFAULT_TORCH, metavar="VERSION")
    p.add_argument("--python", nargs="+", default=DEFAULT_PYTHON, metavar="X.Y")
    p.add_argument("--workdir", default=os.path.expanduser("~/.cache/torchferry-compat"))
    p.add_argument("pytest_args", nargs="*", default=None)
    args = p.parse_args(argv)
    pytest_args = args.pytest_args or ["tests", "-m", "not slow"]
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    print(f"pytest {' '.join(pytest_args)}   (environments in {work})")
    print("| Python | torch | wheel | passed | failed | errors | skipped | failing parts | install s | tests s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0
    for pyver in args.python:
        python = find_python(pyver)
        for tv in args.torch:
            name = f"py{pyver}-torch{tv}"
            if python is None:
                print(f"| {pyver} | {tv} | - | no Python {pyver} here | | | | | | |", flush=True)
                continue
            with open(work / f"{name}.log", "w") as log:
                t0 = time.perf_counter()
                try:
                    py = make_env(python, tv, work / name, log)
                except (RuntimeError, subprocess.CalledProcessError) as exc:
                    print(f"| {pyver} | {tv} | - | install failed: {exc} | | | | | | |", flush=True)
                    worst = 1
                    continue
                t1 = time.perf_counter()
                ver = subprocess.run([str(py), "-c", "import torch; print(torch.__version__)"],
                                     capture_output=True, text=True).stdout.strip()
                wheel = "cpu" if "+cpu" in ver else ("cuda" if "+cu" in ver else "plain")
                c = run_tests(py, pytest_args, log)
                t2 = time.perf_counter()
            if c["failed"] or c["error"] or c["exit"] not in (0, 5):
                worst = 1
            parts = ", ".join(f"{k} {v}" for k, v in sorted(c["by_part"].items())) or "-"
            print(f"| {pyver} | {ver or tv} | {wheel} | {c['passed']} | {c['failed']} | "
                  f"{c['error']} | {c['skipped']} | {parts} | {t1 - t0:.0f} | {t2 - t1:.0f} |",
                  flush=True)
    return worst


if __name__ == "__main__":
    sys.exit(main())
