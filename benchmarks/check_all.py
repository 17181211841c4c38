"""Every development measurement of ``ferry check``, with both rule selections, in one run.

It runs, each as its own subprocess and each with ``--select ALL`` and ``--select DEFAULT``:

- recall on the project's own small fixtures and on every report set pinned by a manifest in
  ``tests/check/recall/sets/`` (``check_corpus.py --recall --set SET``);
- precision on the ecosystem packages and on every code-base set of ``check_corpus.py`` whose
  snapshots are in ``.corpus/SET-extra`` (``check_corpus.py --SET --extra .corpus/SET-extra``);
- every batch of the mutation benchmark (``check_mutants.py --set BATCH``).

Each output goes to ``OUT/rep-SET-SEL.txt``, ``OUT/code-SET-SEL.txt`` or
``OUT/mut-BATCH-SEL.txt``; the table printed at the end holds the ``| all |`` row of each
(recall: expected, caught, share; code bases: findings, labelled, real, debatable, false,
strict precision, actionable share; mutants: mutants, bite on a GPU, caught, share, ...).
Compare two commits by running it from a ``git archive`` of each::

    python benchmarks/check_all.py OUT                 # everything (tens of minutes)
    python benchmarks/check_all.py OUT --only rep-cove --only mut-reef
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SELECTIONS = ("ALL", "DEFAULT")


def measurements(root: Path = ROOT) -> Iterator[tuple[str, list[str]]]:
    """``(name, arguments)`` of every measurement whose data is present under ``root``.

    >>> names = [n for n, _ in measurements()]
    >>> "rep-fixtures-ALL" in names and "mut-original-DEFAULT" in names
    True
    """
    sys.path.insert(0, str(HERE))
    from check_corpus import HELD_OUT_SETS  # noqa: PLC0415  (a benchmark script, not a module)
    from check_mutants import BATCHES  # noqa: PLC0415

    corpus = HERE / "check_corpus.py"
    mutants = HERE / "check_mutants.py"
    for sel in SELECTIONS:
        yield (
            f"rep-fixtures-{sel}",
            [str(corpus), "--recall", "--fixtures", "tests/check/recall/fixtures", "--select", sel],
        )
        for manifest in sorted((root / "tests/check/recall/sets").glob("*.toml")):
            if (root / ".corpus/recall" / manifest.stem / "fixtures").is_dir():
                yield (
                    f"rep-{manifest.stem}-{sel}",
                    [str(corpus), "--recall", "--set", manifest.stem, "--select", sel],
                )
        yield f"code-eco-{sel}", [str(corpus), "--select", sel]
        for name, held in HELD_OUT_SETS.items():
            extra = root / ".corpus" / f"{name}-extra"
            if extra.is_dir():
                yield (
                    f"code-{name}-{sel}",
                    [str(corpus), held.flag, "--extra", str(extra), "--select", sel],
                )
        for batch in BATCHES:
            chosen = ["--select", sel] if sel == "ALL" else []  # its default is the default set
            yield f"mut-{batch}-{sel}", [str(mutants), "--set", batch, *chosen]


def all_row(text: str) -> str:
    """The cells of the last ``| all |`` row of a measurement's output, or its last line.

    >>> all_row("| rule | n |\\n| all | 39 | 21 | 54% |\\n")
    '39 | 21 | 54%'
    """
    rows = [ln for ln in text.splitlines() if ln.startswith("| all |")]
    if rows:
        return " | ".join(c.strip() for c in rows[-1].strip("|").split("|")[1:] if c.strip())
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1][:100] if lines else "(no output)"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("out", type=Path, help="directory for the outputs (created)")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PREFIX",
        help="only measurements whose name starts with PREFIX (repeatable)",
    )
    args = ap.parse_args(argv)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"check_all: cannot create {args.out}: {e.strerror}", file=sys.stderr)
        return 2
    rows: list[tuple[str, str, float, int]] = []
    for name, cmd in measurements():
        if args.only and not any(name.startswith(p) for p in args.only):
            continue
        start = time.perf_counter()
        done = subprocess.run([sys.executable, *cmd], cwd=ROOT, capture_output=True, text=True)
        out = done.stdout + done.stderr
        (args.out / f"{name}.txt").write_text(out)
        rows.append((name, all_row(out), time.perf_counter() - start, done.returncode))
    print("| measurement | the `all` row | seconds | exit |")
    print("|---|---|---|---|")
    for name, row, secs, rc in rows:
        print(f"| {name} | {row} | {secs:.0f} | {rc} |")
    return max((rc for *_, rc in rows), default=0)


if __name__ == "__main__":
    raise SystemExit(main())
