"""``ferry bench``: where does the GPU pay off, on this machine?

``ferry bench`` (= ``ferry bench matmul``) runs the lessons' experiment: an n x n
matrix product on the CPU and on every available accelerator, with the inputs
already resident and with the ferry rides, and finds the crossover sizes.  With
no accelerator the accelerator columns are predicted from a device profile
(``--predict``), and labelled as predicted everywhere.

``ferry bench transfer`` measures host<->GPU copy bandwidth, pageable vs pinned.
Without a CUDA GPU it says why in one line and exits 3.

This module does not import torch at import time (the CLI stays fast).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from torchferry.bench.profiles import DEFAULT_PROFILE, PROFILES
from torchferry.errors import UsageError

__all__ = ["register", "parse_sizes", "parse_dtype", "cpu_threads"]

DEFAULT_SIZES = (50, 100, 200, 500, 1000, 2000, 4000)
QUICK_SIZES = (50, 100, 200, 500, 1000)
DEFAULT_MIN_TIME = 0.2
QUICK_MIN_TIME = 0.02

_DTYPE_ALIASES = {
    "float32": "float32", "fp32": "float32", "float": "float32", "f32": "float32",
    "float16": "float16", "fp16": "float16", "half": "float16", "f16": "float16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float64": "float64", "fp64": "float64", "double": "float64", "f64": "float64",
}

EPILOG = """\
exit codes: 0 done (a size that ran out of memory is reported in the table and the
run goes on); 2 bad input; 3 'transfer' on a machine without a CUDA GPU.

examples:
  ferry bench                         # CPU vs accelerator (or the predicted T4), 50..4000
  ferry bench --quick --plot bench.png
  ferry bench --sizes 64,512,4096 --dtype bf16 --predict h100 --json out.json --csv out.csv
  ferry bench transfer --json transfer.json
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bench",
        help="measure where the GPU pays off: CPU vs GPU matmul crossover, copy bandwidth",
        description=(
            "matmul (default): time an n x n matrix product on the CPU and on every available "
            "accelerator, with inputs already resident and with the ferry rides (inputs "
            "shipped host-to-device, result back); report GFLOP/s, the winner per size and "
            "the crossover sizes.  Without an accelerator the accelerator columns are "
            "PREDICTED from a datasheet profile (--predict) and marked '~'.  "
            "transfer: host<->GPU copy bandwidth, pageable vs pinned, 4 KiB to 1 GiB, against "
            "the link's datasheet limit (needs a CUDA GPU)."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("experiment", nargs="?", default="matmul", choices=("matmul", "transfer"),
                   help="what to measure (default: matmul)")
    p.add_argument("--sizes", metavar="N,N,...",
                   help="matmul sizes, comma-separated positive integers "
                        f"(default: {','.join(map(str, DEFAULT_SIZES))})")
    p.add_argument("--dtype", metavar="DTYPE",
                   help="matmul dtype: float32 (default), float16, bfloat16 or float64")
    p.add_argument("--predict", metavar="PROFILE",
                   help=f"device profile for predicted columns when no accelerator is present: "
                        f"{', '.join(PROFILES)} (default: {DEFAULT_PROFILE}, the GPU of a free "
                        "Colab notebook); with an accelerator, the profile to compare the "
                        "model against when the card has none of its own")
    p.add_argument("--quick", action="store_true",
                   help="fewer sizes and shorter timing (matmul up to 1000, transfer up to 64 MiB)")
    p.add_argument("--min-time", type=float, metavar="SECONDS",
                   help=f"time each case at least this long, in >= 3 runs (default "
                        f"{DEFAULT_MIN_TIME}, --quick {QUICK_MIN_TIME})")
    p.add_argument("--threads", type=int, metavar="N",
                   help="CPU threads torch may use while timing (default: torch's own choice)")
    p.add_argument("--json", metavar="FILE", help="write every figure, the machine and crossovers")
    p.add_argument("--csv", metavar="FILE", help="write one row per size, device and mode")
    p.add_argument("--plot", metavar="FILE.png", help="write a log-log plot (needs matplotlib)")
    p.set_defaults(handler=_handle)


# ------------------------------------------------------------------ parsing
def parse_sizes(text: str) -> list[int]:
    """'50, 100,4000' -> [50, 100, 4000]; anything else is a UsageError.

    >>> parse_sizes("200,50,200")
    [50, 200]
    """
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in parts):
        raise UsageError(f"--sizes {text!r}: give comma-separated positive integers, e.g. 50,500,4000")
    sizes = []
    for p in parts:
        try:
            n = int(p)
        except ValueError:
            raise UsageError(f"--sizes: {p!r} is not an integer (e.g. --sizes 50,500,4000)") from None
        if n <= 0:
            raise UsageError(f"--sizes: {n} is not a positive size (e.g. --sizes 50,500,4000)")
        sizes.append(n)
    return sorted(set(sizes))


def parse_dtype(text: str) -> str:
    """'bf16' -> 'bfloat16'; unknown names are a UsageError."""
    key = text.strip().lower().removeprefix("torch.")
    if key not in _DTYPE_ALIASES:
        raise UsageError(f"unknown dtype {text!r}: choose float32, float16, bfloat16 or float64")
    return _DTYPE_ALIASES[key]


def _parse_profile(text: str) -> str:
    key = text.strip().lower().replace("-", "").replace(" ", "")
    if key not in PROFILES:
        raise UsageError(f"unknown device profile {text!r}: choose {', '.join(PROFILES)}")
    return key


def _check_output(path: str | None, flag: str) -> None:
    if path is None:
        return
    parent = Path(path).expanduser().resolve().parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {path}: folder {parent} is not writable")
    if Path(path).is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name")


def _check_plot(path: str | None) -> None:
    if path is None:
        return
    _check_output(path, "--plot")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install matplotlib "
                         "(or pip install 'torchferry[bench]')") from None


# ----------------------------------------------------------------- handlers
def _handle(args: argparse.Namespace) -> int:
    if args.min_time is not None and not (args.min_time >= 0 and args.min_time < 1e4):
        raise UsageError(f"--min-time {args.min_time}: give a number of seconds >= 0")
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads {args.threads}: give a number of threads >= 1")
    for flag in ("json", "csv"):
        _check_output(getattr(args, flag), f"--{flag}")
    _check_plot(args.plot)
    import torch

    before = torch.get_num_threads()
    try:
        return _run(args)
    finally:  # main([...]) inside another program leaves its thread pool as it was
        torch.set_num_threads(before)


def _run(args: argparse.Namespace) -> int:
    import torch

    args.threads_why = None
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    elif args.experiment == "matmul":
        threads, why = cpu_threads(_busy_cpus(), os.cpu_count() or 1, torch.get_num_threads())
        if why is not None:
            torch.set_num_threads(threads)
            args.threads_why = why
    if args.experiment == "transfer":
        for flag in ("sizes", "dtype", "predict"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag} applies to 'ferry bench matmul', not to 'transfer'")
        return _transfer(args)
    return _matmul(args)


def cpu_threads(load: float | None, cpus: int, default: int) -> tuple[int, str | None]:
    """The torch threads to time the CPU with, and why when it is fewer than ``default``.

    torch's pool has a thread per core and each product waits for its slowest thread:
    when other work holds cores (the load average before the run), a thread that waits
    for a core stalls the whole product (a 50 x 50 product read 16 ms, flat up to
    500 x 500, on 2 cores under load 1.6).  So the CPU is timed with the cores that are
    free, at least one; with one thread, by its own CPU time.

    >>> cpu_threads(2.0, 2, 2)[0], cpu_threads(0.1, 8, 8)
    (1, (8, None))
    """
    if load is None:
        return default, None
    free = max(1, int(cpus - load + 0.5))
    if free >= default:
        return default, None
    return free, (f"the machine is busy (1-minute load {load:.1f} on {cpus} CPUs): the CPU is "
                  f"timed with {free} of torch's {default} threads"
                  + (", by the thread's CPU time (waits for a processor not counted)"
                     if free == 1 else "") + "; --threads N overrides")


def _min_time(args: argparse.Namespace) -> float:
    if args.min_time is not None:
        return args.min_time
    return QUICK_MIN_TIME if args.quick else DEFAULT_MIN_TIME


def _matmul(args: argparse.Namespace) -> int:
    sizes = parse_sizes(args.sizes) if args.sizes is not None else list(
        QUICK_SIZES if args.quick else DEFAULT_SIZES)
    dtype = parse_dtype(args.dtype) if args.dtype is not None else "float32"
    predict_key = _parse_profile(args.predict) if args.predict is not None else DEFAULT_PROFILE
    min_time = _min_time(args)

    from torchferry.bench import matmul, report

    load_before = _load()
    accels = matmul.accelerator_devices()
    profile = PROFILES[predict_key]
    progress = report.Progress(len(sizes) * (1 + 2 * len(accels)))
    try:
        result = matmul.run_matmul(sizes, dtype, predict=profile,
                                   predict_explicit=args.predict is not None,
                                   min_time=min_time, accelerators=accels, progress=progress)
    finally:
        progress.close()
    predicted = not accels
    doc: dict[str, Any] = {
        "experiment": "matmul",
        "dtype": dtype,
        "sizes": sizes,
        "min_time": min_time,
        "timing": "median of >= 3 timed runs after 1 warm-up, each case timed for at least "
                  "min_time seconds (torchferry.measure: cuda events / synchronize / perf_counter)",
        "machine": report.machine_info(),
        "loadavg_1min_before": load_before,
        "predicted": predicted,
        "model": {
            "compute": "launch_latency + max(2 n^3 / peak_flops[dtype], 3 n^2 bytes / mem_bandwidth)",
            "rides": "compute + sum over 3 copies (a, b to the device; result back) of "
                     "(bytes / (link_bandwidth * pageable_fraction) + sync_latency)",
            "profile": profile.to_dict() if predicted else None,
            "profiles_used": sorted({a["profile"] for a in result["accelerators"] if a["profile"]}),
        },
        **result,
    }
    doc["crossover_sentences"] = matmul.crossover_sentence(doc["crossovers"], max(sizes))
    doc["model_error_median_abs_pct"] = report._median_abs(doc["model_error"])
    doc["busy_warning"] = None if torch_threads() == 1 else _busy_warning(load_before,
                                                                           doc["machine"])
    doc["cpu_threads_note"] = getattr(args, "threads_why", None)
    doc["unreliable"] = [
        {"size": r["size"], "device": r["device"], "mode": r["mode"], "why": r["unreliable"]}
        for r in doc["records"] if r.get("unreliable")
    ]
    _print_matmul(doc, profile if predicted else None)
    _write(doc, args, report.write_matmul_csv, report.plot_matmul)
    return 0


def torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _busy_cpus(window: float = 0.3) -> float | None:
    """How many CPUs other work keeps busy now: the larger of the 1-minute load average
    (slow to rise) and the busy share of /proc/stat over ``window`` seconds while this
    process sleeps (Linux); None where neither can be read."""
    import time

    def sample() -> tuple[int, int] | None:
        try:
            with open("/proc/stat") as fh:
                fields = [int(x) for x in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields) - idle, sum(fields)

    load = _load()
    first = sample()
    if first is None:
        return load
    time.sleep(window)
    second = sample()
    if second is None or second[1] <= first[1]:
        return load
    busy = (second[0] - first[0]) / (second[1] - first[1]) * (os.cpu_count() or 1)
    return round(max(busy, load or 0.0), 2)


def _busy_warning(load_before: float | None, machine: dict[str, Any]) -> str | None:
    """A warning when other work competed for the CPUs while the CPU was timed."""
    loads = [x for x in (load_before, (machine.get("loadavg_1_5_15min") or [None])[0])
             if x is not None]
    cpus = machine.get("logical_cpus") or 1
    if not loads or max(loads) <= cpus * 0.75:
        return None
    return (f"warning: this machine was busy (1-minute load {max(loads):.1f} on {cpus} CPUs): "
            "the CPU times include waiting for a processor; rerun when it is idle")


def _print_matmul(doc: dict[str, Any], profile: Any) -> None:
    from torchferry.bench import report

    m = doc["machine"]
    if doc.get("busy_warning"):  # first: it qualifies every number and sentence below
        print(doc["busy_warning"])
    print(f"ferry bench matmul: {doc['dtype']}, n x n @ n x n; CPU: {m['cpu']} "
          f"({m['torch_threads']} torch threads), torch {m['torch']}")
    if profile is not None:
        print(f"No accelerator here: the {profile.key.upper()} columns are PREDICTED (~) from the "
              f"{profile.name} profile (vendor datasheet figures), not measured.")
    if doc.get("cpu_threads_note"):
        print(f"note: {doc['cpu_threads_note']}")
    print(report.matmul_table(doc))
    if doc["unreliable"]:
        print("? unreliable (do not trust these cells, nor a winner or crossover that rests on "
              "them; rerun on an idle machine, or with --threads 1):")
        for u in doc["unreliable"]:
            where = "CPU" if u["device"] == "cpu" else f"{u['device']} {u['mode']}"
            print(f"  {u['size']} x {u['size']} {where}: {u['why']}")
    print()
    for line in doc["crossover_sentences"]:
        print(line)
    if profile is not None and not profile.peak_flops.get(doc["dtype"]):
        print(f"~n/a: the {profile.name} profile has no {doc['dtype']} rate (its datasheet "
              "gives none), so nothing is predicted for it.")
    elif profile is not None:
        print(f"~ predicted: launch {profile.launch_latency * 1e6:.0f} µs + max(flops / "
              f"{profile.peak_flops.get(doc['dtype'], 0) / 1e12:g} TFLOP/s, bytes / "
              f"{profile.mem_bandwidth / 1e9:g} GB/s); rides add bytes / ("
              f"{profile.link_bandwidth / 1e9:.2f} GB/s {profile.link_name} x "
              f"{profile.pageable_fraction:g} for pageable memory) + "
              f"{profile.sync_latency * 1e6:.0f} µs per copy.")
    if doc["accelerators"] and doc["dtype"] == "float32" and m.get(
            "float32_matmul_precision", "highest") != "highest":
        print(f"note: torch.get_float32_matmul_precision() is "
              f"'{m['float32_matmul_precision']}': float32 products may run on TF32 tensor "
              "cores, faster than the FP32 rate the model assumes")
    errors = report.model_error_table(doc)
    if errors:
        print()
        print(errors)
    for acc in doc["accelerators"]:
        if acc["profile"] is None:
            print(f"No profile for {acc['label']}: the model's error is not reported "
                  "(pass --predict PROFILE to compare against one).")


def _write(doc: dict[str, Any], args: argparse.Namespace, write_csv: Any, plot: Any) -> None:
    from torchferry.bench import report

    written = []
    if args.json:
        report.write_json(doc, args.json)
        written.append(args.json)
    if args.csv:
        write_csv(doc, args.csv)
        written.append(args.csv)
    if args.plot:
        plot(doc, args.plot)
        written.append(args.plot)
    if written:
        print("wrote " + ", ".join(written))


def _transfer(args: argparse.Namespace) -> int:
    from torchferry.bench import transfer

    reason = transfer.why_no_gpu()
    if reason is not None:
        print(f"ferry bench transfer: cannot run here: {reason}; it needs a CUDA GPU "
              "('ferry bench' predicts the ferry rides from a device profile instead)",
              file=sys.stderr)
        return transfer.NO_GPU_EXIT

    from torchferry.bench import report

    sizes = list(transfer.QUICK_SIZES if args.quick else transfer.DEFAULT_SIZES)
    progress = report.Progress(len(sizes) * len(transfer.COLUMNS))
    try:
        result = transfer.run_transfer(sizes, min_time=_min_time(args) / 2, progress=progress)
    finally:
        progress.close()
    doc = {"experiment": "transfer", "machine": report.machine_info(),
           "timing": "median of >= 3 copies after 1 warm-up, timed with CUDA events; pageable: "
                     "blocking copy_; pinned: copy_(non_blocking=True)",
           **result}
    print(f"ferry bench transfer: {doc['device_label']}, GB/s = bytes / median copy time")
    print(report.transfer_table(doc))
    print()
    for line in transfer.summary_lines(doc):
        print(line)
    _write(doc, args, report.write_transfer_csv, report.plot_transfer)
    return 0
