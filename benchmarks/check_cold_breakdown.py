"""Where a cold ``ferry check`` run's CPU time goes, counted in each process that checks files.

Runs ``ferry check --exit-zero -q --format json --no-cache --jobs N [ARGS] PATH`` in this
process as the command line does (the collector tuned as for ``python -m torchferry``), with
counters around three steps, and prints one line per process that checked files (the main
process with ``--jobs 1``, else each worker) and the main process's own time:

* ``ast.parse``: how many trees were parsed and the CPU time of the parses;
* the analysis's interpretations of scopes (``Interp.run``): how many, and their CPU time
  without the interpretations they start (a call's summary), split into the first
  interpretation of a scope and repeats of it (the same file, line, kind of node and kind
  of interpretation again: in an analysis of the file made anew, or redone);
* the analyses of files (``FileFlow``) made, for a file checked or reached by a call, the
  first for that file in the process or another one.

    python benchmarks/check_cold_breakdown.py PATH [--jobs N] [-- more ferry check arguments]

The counters cost time themselves (each interpretation is timed): compare the shares, and
time whole processes without them.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from torchferry.check import runner  # noqa: E402
from torchferry.check.flow import interp, program  # noqa: E402

#: this process's counters (a worker starts with a copy of the main process's, reset)
COUNTS: Counter[str] = Counter()
CPU: Counter[str] = Counter()
_FLOWS: Counter[str] = Counter()
_SCOPES: Counter[tuple[str, int, str, bool]] = Counter()
_STACK: list[float] = []


def _reset() -> None:
    for c in (COUNTS, CPU, _FLOWS, _SCOPES):
        c.clear()


def _timed_parse(parse: Callable[..., ast.Module]) -> Callable[..., ast.Module]:
    def wrapped(*args: Any, **kwargs: Any) -> ast.Module:
        start = time.process_time()
        try:
            return parse(*args, **kwargs)
        finally:
            COUNTS["parses"] += 1
            CPU["parse"] += time.process_time() - start

    return wrapped


def _counted_flow(init: Callable[..., None]) -> Callable[..., None]:
    def wrapped(self: Any, tree: ast.Module, path: str, *args: Any, **kwargs: Any) -> None:
        checked = len(args) >= 3 and args[2] is not None or kwargs.get("lines") is not None
        _FLOWS[path] += 1
        again = "first" if _FLOWS[path] == 1 else "again"
        COUNTS[f"flows {'checked' if checked else 'reached'} {again}"] += 1
        init(self, tree, path, *args, **kwargs)

    return wrapped


def _timed_run(run: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def wrapped(self: Any) -> Any:
        node = self.node
        key = (self.ff.path, getattr(node, "lineno", 0), type(node).__name__, self.given is None)
        _SCOPES[key] += 1
        kind = "interp first" if _SCOPES[key] == 1 else "interp repeat"
        start = time.process_time()
        _STACK.append(0.0)
        try:
            return run(self)
        finally:
            spent = time.process_time() - start
            inner = _STACK.pop()
            COUNTS[kind] += 1
            CPU[kind] += spent - inner
            if _STACK:
                _STACK[-1] += spent

    return wrapped


def _report(out: Path, label: str) -> None:
    line = {
        "process": label,
        "pid": os.getpid(),
        "cpu": round(time.process_time(), 3),
        "counts": dict(COUNTS),
        "cpu_of": {k: round(v, 3) for k, v in CPU.items()},
    }
    with (out / f"{os.getpid()}.json").open("w") as fh:
        json.dump(line, fh)


def _instrument(out: Path) -> None:
    ast.parse = _timed_parse(ast.parse)  # type: ignore[assignment]
    program.FileFlow.__init__ = _counted_flow(program.FileFlow.__init__)  # type: ignore[method-assign]
    interp.Interp.run = _timed_run(interp.Interp.run)  # type: ignore[method-assign]
    _ORIGINAL.update(work=runner._work, init=runner._init_worker, out=out)
    runner._work = _counted_work
    runner._init_worker = _worker_start


#: the worker's steps before :func:`_instrument` replaced them, and the reports' folder
_ORIGINAL: dict[str, Any] = {}


def _worker_start(opts: Any) -> None:
    _reset()
    _ORIGINAL["init"](opts)


def _counted_work(items: list[tuple[Path, bytes, str]]) -> list[Any]:
    """A worker's batch (named at module level: the pool sends it by name)."""
    outcomes = _ORIGINAL["work"](items)
    _report(_ORIGINAL["out"], "worker")
    return outcomes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("path")
    ap.add_argument("--jobs", type=int, default=1)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    rest = argv[cut + 1 :]  # more ferry check arguments
    from torchferry.cli import main as ferry

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        _instrument(out)
        sys.argv = [
            "ferry",
            "check",
            "--exit-zero",
            "-q",
            "--format",
            "json",
            "--no-cache",
            "--jobs",
            str(args.jobs),
            *rest,
            args.path,
        ]
        stdout, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115
        try:
            ferry()  # as `python -m torchferry`: the collector tuned
        finally:
            sys.stdout.close()
            sys.stdout = stdout
        _report(out, "main")
        for f in sorted(out.glob("*.json"), key=lambda p: p.stat().st_mtime):
            print(f.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
