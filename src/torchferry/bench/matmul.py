"""The lessons' experiment: an n x n matrix product on the CPU and on the accelerator.

For each size the CPU is measured; each available accelerator is measured twice,
with the inputs already resident on it and with the ferry rides (both inputs
shipped host-to-device from ordinary pageable memory, the result shipped back,
which is what ``a.to(dev) @ b.to(dev)`` then ``.cpu()`` costs).  Without an
accelerator those two columns are predicted from a device profile.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from torchferry.bench.model import matmul_flops, predict_matmul
from torchferry.bench.profiles import DeviceProfile, profile_for_device_name

__all__ = ["run_matmul", "crossovers", "winners", "model_errors", "is_oom"]

MODES = ("resident", "rides")
MODE_WORDS = {"resident": "when data already lives there", "rides": "when you ship it"}


def is_oom(exc: BaseException) -> bool:
    """True for every flavour of 'out of memory' torch raises (cuda, mps, cpu allocator)."""
    import torch

    if isinstance(exc, MemoryError):
        return True
    oom_type = getattr(torch, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


def host_bytes_available() -> int | None:
    """MemAvailable from /proc/meminfo (Linux), or None where unknown.

    Asked before allocating the host inputs: on Linux a too-large allocation may
    "succeed" (overcommit) and the process is then killed while the pages are
    touched, which no ``except`` can report.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def warm_up(dev: Any, seconds: float = 0.3) -> None:
    """Keep an accelerator busy for a moment before timing it: an idle GPU runs at a low
    clock and ramps up under load, and the first products pay for library handles."""
    import time

    import torch

    from torchferry.timing import _sync

    try:
        x = torch.randn(1024, 1024, device=dev)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(8):
                x @ x
            _sync(dev)
    except Exception:  # best effort: timing proceeds (and reports errors) regardless
        pass


def _free(dev: Any) -> None:
    import torch

    try:
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        elif dev.type == "mps":
            torch.mps.empty_cache()
    except Exception:  # best effort only
        pass


#: A case whose median is below this is measured in SMALL_CASE_ROUNDS rounds, and the
#: least median kept.
SMALL_CASE_SECONDS = 1e-3
SMALL_CASE_ROUNDS = 5


def _record(n: int, device: str, label: str, mode: str, kind: str, **kw: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "size": n, "device": device, "label": label, "mode": mode, "kind": kind,
        "seconds": None, "iqr": None, "min": None, "max": None, "runs": None, "method": None,
        "gflops": None, "error": None,
    }
    rec.update(kw)
    if isinstance(rec["seconds"], float) and rec["seconds"] > 0:
        rec["gflops"] = matmul_flops(n) / rec["seconds"] / 1e9
    return rec


def _ride(a: Any, b: Any, dev: Any) -> Any:
    """The lessons' round trip: ship both inputs over, multiply there, bring the result home."""
    return (a.to(dev) @ b.to(dev)).cpu()


def cpu_time_measure(fn: Callable[..., Any], *args: Any, min_time: float = 0.1,
                     warmup: int = 1) -> Any:
    """Time ``fn(*args)`` on the CPU by this thread's CPU time, not the wall clock.

    With one torch thread the work runs in the calling thread, so its CPU time is the
    work's own time whatever else the machine runs: a busy machine makes the wall
    clock count the waits for a processor (a 50 x 50 product read 16 ms instead of
    4 us), the thread's CPU clock does not.  Same runs rule as :func:`measure`.
    """
    from torchferry.timing import MIN_RUNS, Timing

    for _ in range(warmup):
        fn(*args)
    times: list[float] = []
    total = 0.0
    while len(times) < 10_000 and (len(times) < MIN_RUNS or total < min_time):
        t0 = time.thread_time()
        fn(*args)
        times.append(time.thread_time() - t0)
        total += times[-1]
    return Timing(times=tuple(times), device="cpu", method="thread CPU time", warmup=warmup)


def _measure(fn: Callable[..., Any], args: tuple[Any, ...], dev: Any, warmup: int,
             min_time: float) -> Any:
    """One timing: the thread's CPU time for the CPU with one torch thread, else measure's."""
    import torch

    from torchferry.timing import measure

    if getattr(dev, "type", None) == "cpu" and torch.get_num_threads() == 1:
        return cpu_time_measure(fn, *args, min_time=min_time, warmup=warmup)
    return measure(fn, *args, device=dev, warmup=warmup, min_time=min_time)


def _timed(n: int, device: str, label: str, mode: str, fn: Callable[..., Any],
           args: tuple[Any, ...], dev: Any, min_time: float) -> dict[str, Any]:
    t = _measure(fn, args, dev, 1, min_time)
    if t.median >= SMALL_CASE_SECONDS:
        return _record(n, device, label, mode, "measured", seconds=t.median, iqr=t.iqr,
                       min=t.min, max=t.max, runs=t.n, method=t.method)
    # a small case: a burst of other work shifts one median a lot (on a busy machine a
    # 50 x 50 CPU product measured 10x its idle time); the least of a few medians,
    # each over its own runs, is what the machine can do
    rounds = [t] + [_measure(fn, args, dev, 0, min_time) for _ in range(SMALL_CASE_ROUNDS - 1)]
    best = min(rounds, key=lambda r: r.median)
    return _record(n, device, label, mode, "measured", seconds=best.median, iqr=best.iqr,
                   min=min(r.min for r in rounds), max=max(r.max for r in rounds),
                   runs=sum(r.n for r in rounds), method=best.method,
                   rounds=SMALL_CASE_ROUNDS)


#: A cell whose interquartile range is more than this fraction of its median is noise.
NOISY_SPREAD = 0.5
#: Doubling n multiplies a product's work by 8; a CPU time that grows less than this
#: factor over such a step does not follow the work (waits, not compute).
MIN_GROWTH = 1.5


def flag_unreliable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mark each measured cell that cannot be trusted, with the reason in ``unreliable``
    (None for a sound one), and return the flagged ones.

    Two symptoms: a spread (IQR over median) above :data:`NOISY_SPREAD`; and, for the
    CPU, a time that does not grow with the work: at least 8x the work (n doubled) in
    less than :data:`MIN_GROWTH` x the time, which is what waiting for a processor on a
    busy machine looks like (an accelerator's small cases are legitimately flat: launch
    latency).

    >>> recs = [_record(n, "cpu", "CPU", "compute", "measured", seconds=0.016, iqr=0.001)
    ...         for n in (50, 100, 500)]
    >>> [r["size"] for r in flag_unreliable(recs)]
    [50, 100, 500]
    """
    flagged = []
    series: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        r.setdefault("unreliable", None)
        if r["kind"] == "measured" and r["seconds"]:
            series.setdefault((r["device"], r["mode"]), []).append(r)
            if r["iqr"] is not None and r["iqr"] > NOISY_SPREAD * r["seconds"]:
                r["unreliable"] = (f"noisy: the runs spread over {r['iqr'] / r['seconds']:.0%} "
                                   "of the median")
    for (device, _mode), rs in series.items():
        if device != "cpu":
            continue
        rs.sort(key=lambda r: r["size"])
        for small, big in zip(rs, rs[1:], strict=False):
            work = (big["size"] / small["size"]) ** 3
            if work >= 8 and big["seconds"] < MIN_GROWTH * small["seconds"]:
                why = (f"flat: {big['size']} x {big['size']} ({work:.0f}x the work of "
                       f"{small['size']} x {small['size']}) took {big['seconds'] / small['seconds']:.1f}x "
                       "the time: the timer counted waiting, not work")
                for r in (small, big):
                    r["unreliable"] = r["unreliable"] or why
    for r in records:
        if r.get("unreliable"):
            flagged.append(r)
    return flagged


def accelerator_devices() -> list[str]:
    """Every accelerator device torch can use here (``cuda:0``, ``mps`` ...), CPU excluded."""
    from torchferry.devices import available_devices

    return [d for d in available_devices() if d != "cpu"]


def device_label(dev: str) -> str:
    """A readable name: 'NVIDIA H200 (cuda:0)', 'Apple GPU (mps)'."""
    import torch

    kind = dev.split(":")[0]
    try:
        if kind == "cuda":
            return f"{torch.cuda.get_device_name(torch.device(dev))} ({dev})"
        if kind == "xpu":
            return f"{torch.xpu.get_device_name(torch.device(dev))} ({dev})"
    except Exception:
        pass
    if kind == "mps":
        return f"{_apple_chip() or 'Apple GPU'} ({dev})"
    return dev


def _apple_chip() -> str | None:
    import subprocess

    try:
        out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None
    except Exception:
        return None


def run_matmul(
    sizes: Sequence[int],
    dtype: str,
    *,
    predict: DeviceProfile | None,
    predict_explicit: bool = False,
    min_time: float = 0.2,
    accelerators: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure (and predict) every size; return the records, winners and crossovers.

    ``predict`` is the profile for the predicted columns when there is no
    accelerator, and for the model-error comparison when there is one and its
    card has no profile of its own (only if ``predict_explicit``).
    """
    import torch

    tdtype = getattr(torch, dtype)  # a name parse_dtype accepted
    accels = list(accelerator_devices() if accelerators is None else accelerators)
    step = progress or (lambda _msg: None)
    records: list[dict[str, Any]] = []
    profiles: dict[str, dict[str, Any]] = {}
    gen = torch.Generator().manual_seed(0)

    for dev_name in accels:
        label = device_label(dev_name)
        prof = profile_for_device_name(label)
        if prof is None and predict_explicit:
            prof = predict
        profiles[dev_name] = {"label": label, "profile": prof.key if prof else None}

    for dev_name in accels:
        warm_up(torch.device(dev_name), 0.05 if min_time < 0.1 else 0.3)

    for n in sizes:
        step(f"{n}x{n} cpu")
        # a, b, their float32 originals and the result, with some room to spare
        need = n * n * (3 * tdtype.itemsize + 8) * 1.25
        avail = host_bytes_available()
        try:
            if avail is not None and need > avail:
                raise MemoryError(f"host: {n} x {n} needs about {need / 1e9:.1f} GB, "
                                  f"{avail / 1e9:.1f} GB available; not attempted")
            a = torch.randn(n, n, generator=gen).to(tdtype)
            b = torch.randn(n, n, generator=gen).to(tdtype)
        except Exception as exc:  # the host cannot even hold the inputs
            if not is_oom(exc):
                raise
            err = "out of memory: " + _first_line(exc)
            records.append(_record(n, "cpu", "CPU", "compute", "measured", error=err))
            for dev_name in accels:
                for mode in MODES:
                    records.append(_record(n, dev_name, profiles[dev_name]["label"], mode,
                                           "measured", error=err))
            continue
        cpu = torch.device("cpu")
        try:
            records.append(_timed(n, "cpu", "CPU", "compute", torch.matmul, (a, b), cpu,
                                  min_time))
        except Exception as exc:
            if not (is_oom(exc) or isinstance(exc, RuntimeError)):
                raise
            kind = "out of memory: " if is_oom(exc) else ""
            records.append(_record(n, "cpu", "CPU", "compute", "measured",
                                   error=kind + _first_line(exc)))

        for dev_name in accels:
            dev = torch.device(dev_name)
            label = profiles[dev_name]["label"]
            ad = bd = None
            for mode in MODES:
                step(f"{n}x{n} {dev_name} {mode}")
                try:
                    if mode == "resident":
                        ad, bd = a.to(dev), b.to(dev)
                        rec = _timed(n, dev_name, label, mode, torch.matmul, (ad, bd), dev,
                                     min_time)
                    else:
                        ad = bd = None
                        rec = _timed(n, dev_name, label, mode, _ride, (a, b, dev), dev,
                                     min_time)
                except Exception as exc:
                    if not (is_oom(exc) or isinstance(exc, RuntimeError)):
                        raise
                    ad = bd = None
                    _free(dev)
                    kind = "out of memory: " if is_oom(exc) else ""
                    rec = _record(n, dev_name, label, mode, "measured",
                                  error=kind + _first_line(exc))
                records.append(rec)
            ad = bd = None
            # the model's view of this very card, for the error table
            prof_key = profiles[dev_name]["profile"]
            if prof_key is not None:
                from torchferry.bench.profiles import PROFILES

                records += _predicted(n, dtype, PROFILES[prof_key], dev_name,
                                      f"{label} model")
        del a, b  # free the host inputs before the next size

    if not accels and predict is not None:
        for n in sizes:
            records += _predicted(n, dtype, predict, predict.key, f"{predict.name} (predicted)")

    # Which figures decide winners: measured accelerators if any, else the prediction.
    if accels:
        contenders = [(d, profiles[d]["label"], "measured") for d in accels]
    elif predict is not None:
        contenders = [(predict.key, f"{predict.name} (predicted)", "predicted")]
    else:
        contenders = []
    flag_unreliable(records)
    return {
        "records": records,
        "contenders": [{"device": d, "label": lab, "kind": kind,
                        "short": d if kind == "measured" else d.upper()}
                       for d, lab, kind in contenders],
        "accelerators": [{"device": d, **profiles[d]} for d in accels],
        "winners": winners(records, sizes, contenders),
        "crossovers": crossovers(records, sizes, contenders),
        "model_error": model_errors(records),
    }


def _predicted(n: int, dtype: str, prof: DeviceProfile, device: str, label: str) -> list[dict]:
    pred = predict_matmul(n, dtype, prof)
    out = []
    for mode in MODES:
        value = pred[mode]
        if value is None:
            out.append(_record(n, device, label, mode, "predicted",
                               error=f"no datasheet {dtype} rate for {prof.name}"))
        elif value == "oom":
            out.append(_record(n, device, label, mode, "predicted",
                               error="out of memory (predicted: inputs and result exceed "
                                     f"{prof.memory / 1e9:.0f} GB)"))
        else:
            out.append(_record(n, device, label, mode, "predicted", seconds=float(value),
                               method="model"))
    return out


def _seconds(records: list[dict], n: int, device: str, mode: str, kind: str) -> float | None:
    for r in records:
        if (r["size"], r["device"], r["mode"], r["kind"]) == (n, device, mode, kind):
            return r["seconds"]
    return None


def winners(records: list[dict], sizes: Sequence[int],
            contenders: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Per size, accelerator and mode: who is faster, the CPU or the accelerator."""
    out = []
    for n in sizes:
        cpu = _seconds(records, n, "cpu", "compute", "measured")
        for device, label, kind in contenders:
            for mode in MODES:
                acc = _seconds(records, n, device, mode, kind)
                if cpu is None or acc is None:
                    win = None
                else:
                    win = "cpu" if cpu <= acc else device
                out.append({"size": n, "accelerator": device, "label": label, "mode": mode,
                            "kind": kind, "winner": win,
                            "speedup": (cpu / acc) if (cpu and acc) else None})
    return out


def crossovers(records: list[dict], sizes: Sequence[int],
               contenders: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Per accelerator and mode: the smallest measured size from which it wins at every
    larger size, and a log-log interpolated estimate of where the two curves cross."""
    out = []
    ordered = sorted(sizes)
    for device, label, kind in contenders:
        for mode in MODES:
            ratios: list[float | None] = []  # accelerator time / cpu time
            for n in ordered:
                cpu = _seconds(records, n, "cpu", "compute", "measured")
                acc = _seconds(records, n, device, mode, kind)
                ratios.append(acc / cpu if (cpu and acc) else None)
            from_idx = None
            for i in range(len(ordered) - 1, -1, -1):
                ratio = ratios[i]
                if ratio is None:  # not measured there (out of memory, say): look past it
                    continue
                if ratio < 1:
                    from_idx = i
                else:
                    break
            entry: dict[str, Any] = {"accelerator": device, "label": label, "mode": mode,
                                     "kind": kind, "from_size": None, "estimate": None,
                                     "below_smallest": False,
                                     # the largest size with both times; None: no data
                                     "compared_up_to": max((n for n, r in zip(ordered, ratios, strict=True)
                                                            if r is not None), default=None)}
            if from_idx is not None:
                entry["from_size"] = ordered[from_idx]
                prev = ratios[from_idx - 1] if from_idx > 0 else None
                if from_idx == 0:
                    entry["below_smallest"] = True
                elif prev is not None and prev >= 1:
                    s0, s1 = ordered[from_idx - 1], ordered[from_idx]
                    won = ratios[from_idx]
                    assert won is not None  # from_idx is a measured size
                    r0, r1 = math.log(prev), math.log(won)
                    frac = r0 / (r0 - r1) if r0 != r1 else 1.0
                    entry["estimate"] = math.exp(math.log(s0) + frac * (math.log(s1) - math.log(s0)))
            out.append(entry)
    return out


def model_errors(records: list[dict]) -> list[dict[str, Any]]:
    """Model vs measurement for every accelerator that has both (percent error of the model)."""
    out = []
    for r in records:
        if r["kind"] != "measured" or r["mode"] == "compute" or r["seconds"] is None:
            continue
        pred = _seconds(records, r["size"], r["device"], r["mode"], "predicted")
        if pred is None:
            continue
        out.append({"size": r["size"], "device": r["device"], "mode": r["mode"],
                    "measured": r["seconds"], "predicted": pred,
                    "error_pct": (pred - r["seconds"]) / r["seconds"] * 100.0})
    return out


def crossover_sentence(cross: list[dict[str, Any]], largest: int) -> list[str]:
    """'The NVIDIA T4 (predicted) wins from 200 x 200 when data already lives there, ...'"""
    by_acc: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in cross:
        by_acc.setdefault(entry["label"], {})[entry["mode"]] = entry
    lines = []
    for label, modes in by_acc.items():
        parts = []
        for mode in MODES:
            found = modes.get(mode)
            if found is None:
                continue
            c = found
            if c.get("compared_up_to", largest) is None:  # n/a or failed at every size
                parts.append(f"cannot be compared {MODE_WORDS[mode]} (no time at any size)")
            elif c["from_size"] is None:
                top = c.get("compared_up_to", largest)
                parts.append(f"never up to {top} x {top} {MODE_WORDS[mode]}")
            elif c["below_smallest"]:
                n = c["from_size"]
                parts.append(f"already at {n} x {n} (the smallest size tried) {MODE_WORDS[mode]}")
            else:
                n = c["from_size"]
                est = f" (curves cross near {c['estimate']:.0f})" if c["estimate"] else ""
                parts.append(f"from {n} x {n}{est} {MODE_WORDS[mode]}")
        if parts and all(p.startswith("cannot be compared") for p in parts):
            lines.append(f"No conclusion for the {label}: it has no time at any size "
                         "(n/a: see the table).")
            continue
        lines.append(f"The {label} beats the CPU " + ", and ".join(parts) + ".")
    return lines
