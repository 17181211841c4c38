"""``ferry bench transfer``: how fast the ferry is, host<->GPU, pageable vs pinned.

For each size from 4 KiB to 1 GiB (x4 steps) four copies are timed with CUDA
events: host-to-device and device-to-host, from/to ordinary pageable host memory
(``copy_`` blocking, what ``.to("cuda")`` does) and from/to pinned (page-locked)
host memory (``copy_(..., non_blocking=True)``, what ``DataLoader(pin_memory=True)``
plus ``.to(dev, non_blocking=True)`` does).  Buffers are allocated once per size,
so only the copy is timed.  The link's datasheet limit comes from the card's
profile when torchferry has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from torchferry.bench.profiles import profile_for_device_name

__all__ = ["run_transfer", "DEFAULT_SIZES", "QUICK_SIZES", "COLUMNS", "human_bytes",
           "NO_GPU_EXIT"]

KIB = 1024
DEFAULT_SIZES = tuple(4 * KIB * 4**i for i in range(10))  # 4 KiB .. 1 GiB
QUICK_SIZES = tuple(s for s in DEFAULT_SIZES if s <= 64 * KIB * KIB)  # .. 64 MiB
COLUMNS = (("h2d", "pageable"), ("h2d", "pinned"), ("d2h", "pageable"), ("d2h", "pinned"))
#: exit code of ``ferry bench transfer`` on a machine without a CUDA GPU
NO_GPU_EXIT = 3


def human_bytes(n: int) -> str:
    """4096 -> '4 KiB', 1073741824 -> '1 GiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


def why_no_gpu() -> str | None:
    """None when a CUDA GPU is usable here, else the one-line reason."""
    import torch

    try:
        if torch.cuda.is_available():
            return None
    except Exception as exc:  # a broken driver
        return f"torch.cuda.is_available() raised {type(exc).__name__}: {exc}"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return ("it measures pageable vs pinned host memory, a CUDA notion, and this machine "
                "has mps, not a CUDA GPU")
    build = "a CPU-only build of torch" if torch.version.cuda is None else (
        f"torch built for CUDA {torch.version.cuda}, but no GPU is visible")
    return f"no CUDA GPU here (torch.cuda.is_available() is False; {build})"


def run_transfer(
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    device: str = "cuda",
    min_time: float = 0.1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Time the four kinds of copy at every size; returns records plus the link's limit."""
    import torch

    from torchferry.bench.matmul import _first_line, is_oom
    from torchferry.timing import measure

    dev = torch.device(device)
    if dev.index is None:
        # CUDA-only measurement: the command refuses to run without a CUDA GPU (exit 3)
        dev = torch.device("cuda", torch.cuda.current_device())  # noqa: FRY001
    name = torch.cuda.get_device_name(dev)  # noqa: FRY001 (the same CUDA-only measurement)
    prof = profile_for_device_name(name)
    step = progress or (lambda _msg: None)
    records: list[dict[str, Any]] = []
    for nbytes in sizes:
        bufs: dict[str, Any] = {}
        try:
            bufs["dev"] = torch.empty(nbytes, dtype=torch.uint8, device=dev).fill_(7)
            bufs["pageable"] = torch.ones(nbytes, dtype=torch.uint8)
            bufs["pinned"] = torch.ones(nbytes, dtype=torch.uint8).pin_memory()
        except Exception as exc:
            if not is_oom(exc):
                raise
            bufs.clear()
            torch.cuda.empty_cache()
            for direction, memory in COLUMNS:
                step(f"{human_bytes(nbytes)} {direction} {memory}")
                records.append(_rec(nbytes, direction, memory,
                                    error="out of memory: " + _first_line(exc)))
            continue
        for direction, memory in COLUMNS:
            step(f"{human_bytes(nbytes)} {direction} {memory}")
            host = bufs[memory]
            nb = memory == "pinned"
            if direction == "h2d":
                def fn(dst=bufs["dev"], src=host, nb=nb):
                    dst.copy_(src, non_blocking=nb)
            else:
                def fn(dst=host, src=bufs["dev"], nb=nb):
                    dst.copy_(src, non_blocking=nb)
            try:
                t = measure(fn, device=dev, warmup=1, min_time=min_time)
            except Exception as exc:
                if not is_oom(exc):
                    raise
                records.append(_rec(nbytes, direction, memory,
                                    error="out of memory: " + _first_line(exc)))
                continue
            records.append(_rec(nbytes, direction, memory, seconds=t.median, iqr=t.iqr,
                                runs=t.n, method=t.method,
                                gb_per_s=nbytes / t.median / 1e9 if t.median > 0 else None))
        bufs.clear()
    link = {"name": prof.link_name, "gb_per_s": prof.link_bandwidth / 1e9,
            "profile": prof.key, "source": prof.sources.get("link_bandwidth")} if prof else {}
    best = {}
    for direction, memory in COLUMNS:
        vals = [r["gb_per_s"] for r in records if r["direction"] == direction
                and r["memory"] == memory and r.get("gb_per_s")]
        best[f"{direction}_{memory}"] = max(vals) if vals else None
    return {"device": str(dev), "device_label": f"{name} ({dev})", "sizes": list(sizes),
            "records": records, "link": link, "peak_gb_per_s": best}


def _rec(nbytes: int, direction: str, memory: str, **kw: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"bytes": nbytes, "direction": direction, "memory": memory,
                           "kind": "measured", "seconds": None, "iqr": None, "runs": None,
                           "method": None, "gb_per_s": None, "error": None}
    rec.update(kw)
    return rec


def summary_lines(doc: dict[str, Any]) -> list[str]:
    """'Peak h2d pinned 52.1 GB/s = 83% of the link (PCIe Gen5 x16, 63.0 GB/s per direction).'"""
    lines = []
    link = doc.get("link") or {}
    for direction, memory in COLUMNS:
        v = doc["peak_gb_per_s"].get(f"{direction}_{memory}")
        if v is None:
            continue
        text = f"peak {direction} {memory}: {v:.1f} GB/s"
        if link.get("gb_per_s"):
            text += f" = {v / link['gb_per_s'] * 100:.0f}% of the link's {link['gb_per_s']:.1f} GB/s"
        lines.append(text)
    if link.get("gb_per_s"):
        lines.append(f"link limit: {link['name']}, {link['gb_per_s']:.1f} GB/s per direction "
                     f"(datasheet, '{link['profile']}' profile)")
    else:
        lines.append("link limit: unknown (torchferry has no profile for this card)")
    return lines
