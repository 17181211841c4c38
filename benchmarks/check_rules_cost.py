"""Where ``ferry check``'s time goes: parsing vs. the shared analysis vs. each rule.

Uses the same corpus as ``benchmarks/check_speed.py`` (timm's source from the package
index, in ``.corpus/``; downloaded by that script's ``fetch_timm`` if missing) and, in one
process, file by file as the checker does, measures CPU time (``time.process_time``, so
other load on the machine matters less than for wall clock) of:

* ``ast.parse`` of each file (the engine's cost, shown for scale),
* building the syntactic model (``ctx.syntax``: imports, classes, bindings, call sites:
  one walk),
* each rule's ``check`` once it exists (the device-flow analysis is built by the first
  rule that asks, and counted in that rule's time).

It prints a table with each stage's share of the parse time, best of ``--runs`` runs.

    python benchmarks/check_rules_cost.py
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import platform
import time
from pathlib import Path

from torchferry.check.api import Context
from torchferry.check.rules import all_rules

HERE = Path(__file__).resolve().parent


def corpus() -> Path:
    spec = importlib.util.spec_from_file_location("check_speed", HERE / "check_speed.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.fetch_timm()


def measure(files: list[Path]) -> dict[str, float]:
    rules = all_rules()
    cost = {"parse": 0.0, "syntax (Walker)": 0.0}
    cost.update({r.CODE: 0.0 for r in rules})
    sources = [p.read_text(encoding="utf-8") for p in files]
    for path, src in zip(files, sources, strict=True):
        t0 = time.process_time()
        tree = ast.parse(src)
        t1 = time.process_time()
        ctx = Context(str(path), src, tree)
        ctx.syntax  # noqa: B018 - builds the shared walk
        t2 = time.process_time()
        cost["parse"] += t1 - t0
        cost["syntax (Walker)"] += t2 - t1
        for rule in rules:
            t = time.process_time()
            list(rule.check(ctx))
            cost[rule.CODE] += time.process_time() - t
    return cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    root = corpus()
    files = sorted((root / "timm").rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    runs = [measure(files) for _ in range(args.runs)]
    best = {k: min(r[k] for r in runs) for k in runs[0]}
    print(f"# {len(files)} files, {lines} lines of {root.name}; Python {platform.python_version()};"
          f" best of {args.runs} runs, CPU seconds in one process")
    print(f"| {'stage':<18} | {'CPU s':>7} | {'x parse':>7} |")
    print("|---|---:|---:|")
    rules_total = sum(v for k, v in best.items() if k.startswith("FRY"))
    rows = [*best.items(), ("all 13 rules", rules_total),
            ("syntax + rules", rules_total + best["syntax (Walker)"])]
    for name, value in rows:
        print(f"| {name:<18} | {value:7.3f} | {value / best['parse']:7.2f} |")


if __name__ == "__main__":
    main()
