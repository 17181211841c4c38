"""One summary line per run_all.sh step, read from the step's JSON result.

    python3 benchmarks/gpu/summarize.py bench bench.json
    python3 benchmarks/gpu/summarize.py transfer transfer.json
    python3 benchmarks/gpu/summarize.py loader loader.json     # first word: pass/fail/skipped

Never fails the calling script: an unreadable file prints "(unreadable: ...)" and
exits 0.  Standard library only.
"""

from __future__ import annotations

import json
import sys


def bench(d: dict) -> str:
    text = " ".join(d.get("crossover_sentences") or ["(no crossover computed)"])
    if d.get("predicted"):
        return "CPU measured, GPU predicted: " + text
    med = d.get("model_error_median_abs_pct") or {}
    if med:
        text += " Model median |error|: " + ", ".join(f"{m} {v:.0f}%" for m, v in med.items())
    else:
        text += " Model error: n/a (no profile for this card)"
    return text


def transfer(d: dict) -> str:
    peaks = ", ".join(f"{k} {v:.1f} GB/s" for k, v in (d.get("peak_gb_per_s") or {}).items() if v)
    link = d.get("link") or {}
    if link.get("gb_per_s"):
        return f"peak {peaks} (link {link['gb_per_s']:.1f} GB/s per direction, {link['name']})"
    return f"peak {peaks} (link limit unknown)"


def loader(d: dict) -> str:
    ms = 1e3
    return (f"{d['status']} DeviceLoader {d['wrapped_step_s'] * ms:.2f} ms/step vs bound "
            f"{d['bound_s'] * ms:.2f} ms (1.1 x max(copy {d['copy_s'] * ms:.2f}, compute "
            f"{d['compute_s'] * ms:.2f})); plain loop {d['plain_step_s'] * ms:.2f} ms")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("bench", "transfer", "loader"):
        print("usage: summarize.py bench|transfer|loader FILE", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as fh:
            d = json.load(fh)
        print({"bench": bench, "transfer": transfer, "loader": loader}[argv[0]](d))
    except Exception as exc:  # the summary must never break the run
        print(f"(unreadable: {type(exc).__name__}: {exc})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
