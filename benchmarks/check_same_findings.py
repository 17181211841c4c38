"""Does a change to ``ferry check`` leave every finding as it was?

``record OUT`` runs ``ferry check --format json --no-cache --exit-zero`` (with every rule,
``--select ALL``, and with the default set) on each code base of the ecosystem corpus
(``.corpus/ecosystem/*``, unpacked by ``benchmarks/check_corpus.py --fetch-only``) and on
each report set's reproductions that exist (``.corpus/recall/SET/fixtures``), from inside
the directory checked, and writes the findings, sorted, one JSON file per directory and
selection into ``OUT``.  The checker is the one ``PYTHONPATH`` names, so the rules of
another checkout (a ``git archive`` of a commit) are recorded with
``PYTHONPATH=OTHER/src``.

``compare A B`` prints each file that differs (or is missing from one side) and exits 1
if any does, 0 when every finding is byte-identical.

    PYTHONPATH=/tmp/base/src python benchmarks/check_same_findings.py record /tmp/before
    PYTHONPATH=src python benchmarks/check_same_findings.py record /tmp/after
    python benchmarks/check_same_findings.py compare /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".corpus"
SELECTIONS = {"all": ["--select", "ALL"], "default": []}


def targets(corpus: Path) -> list[tuple[str, Path]]:
    """(name, directory) of each code base and each report set's reproductions."""
    out = [(p.name, p) for p in sorted((corpus / "ecosystem").glob("*"))
           if p.is_dir() and not p.name.startswith("_")]
    out += [(f"recall-{p.parent.name}", p) for p in sorted((corpus / "recall").glob("*/fixtures"))
            if p.is_dir() and "delta" not in p.parent.name]
    return out


def findings(directory: Path, select: list[str], jobs: int) -> tuple[str, int]:
    """The sorted findings of ``ferry check`` on ``directory``, as canonical JSON text, and
    how many there are."""
    cmd = [sys.executable, "-m", "torchferry", "check", "--format", "json", "--no-cache",
           "--exit-zero", "--jobs", str(jobs), *select, "."]
    proc = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{directory}: ferry check failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    rows = sorted(json.dumps(f, sort_keys=True) for f in json.loads(proc.stdout))
    return "[\n" + ",\n".join(rows) + "\n]\n", len(rows)


def record(out: Path, corpus: Path, jobs: int, only: list[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for name, directory in targets(corpus):
        if only and name not in only:
            continue
        for sel, args in SELECTIONS.items():
            t0 = time.perf_counter()
            text, n = findings(directory, args, jobs)
            (out / f"{name}.{sel}.json").write_text(text)
            print(f"{name} {sel}: {n} findings, {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


def compare(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.glob("*.json")} | {p.name for p in b.glob("*.json")})
    differ = 0
    for name in names:
        pa, pb = a / name, b / name
        if not (pa.exists() and pb.exists()):
            print(f"{name}: only in {a if pa.exists() else b}")
            differ += 1
        elif pa.read_bytes() != pb.read_bytes():
            print(f"{name}: differs")
            differ += 1
    print(f"{len(names)} files compared, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="write the findings of this PYTHONPATH's checker")
    rec.add_argument("out", type=Path)
    rec.add_argument("--corpus", type=Path, default=CORPUS, help="default: .corpus")
    rec.add_argument("--jobs", type=int, default=2, help="ferry check --jobs (default 2)")
    rec.add_argument("--only", action="append", default=[], help="only this directory name")
    cmp = sub.add_parser("compare", help="compare two recordings")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.command == "compare":
        return compare(args.a, args.b)
    print(f"# PYTHONPATH={os.environ.get('PYTHONPATH', '')}", flush=True)
    return record(args.out, args.corpus.resolve(), args.jobs, args.only)


if __name__ == "__main__":
    raise SystemExit(main())
