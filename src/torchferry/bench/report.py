"""Everything ``ferry bench`` shows or writes: progress bar, tables, JSON, CSV, plots.

Predicted figures are labelled as predicted everywhere: a ``~`` before every
predicted cell in the terminal tables (with a legend), ``"kind": "predicted"`` on
every JSON record and CSV row, and dashed lines in the plots.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from torchferry._internal import atomic
from torchferry.timing import format_seconds

__all__ = [
    "Progress", "machine_info", "matmul_table", "model_error_table", "transfer_table",
    "write_json", "write_matmul_csv", "write_transfer_csv", "plot_matmul", "plot_transfer",
]


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled

    def __call__(self, what: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 24
        filled = int(width * min(self.done, self.total) / self.total)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {what:<32.32}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 72 + "\r")
            self.stream.flush()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """The machine a benchmark ran on (JSON-ready)."""
    import torch

    from torchferry._version import __version__

    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        load = None
    accels = []
    try:
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(i)
                accels.append({"device": f"cuda:{i}", "name": props.name,
                               "memory_bytes": props.total_memory})
    except Exception:
        pass
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        accels.append({"device": "mps", "name": "Apple GPU"})
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "torch_cuda": torch.version.cuda,
        # float32 matmuls use TF32 tensor cores (much faster) unless this is "highest"
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "torchferry": __version__,
        "accelerators": accels,
        "loadavg_1_5_15min": load,
        "command": " ".join(["ferry", *sys.argv[1:]]) if sys.argv else None,
    }


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(lines)


def _cell(rec: dict[str, Any] | None, what: str = "seconds") -> str:
    if rec is None:
        return "-"
    if rec.get("error"):
        if "out of memory" in rec["error"]:
            text = "OOM"
        elif rec["error"].startswith("no datasheet"):
            text = "n/a"
        else:
            text = "error"
        return ("~" + text) if rec["kind"] == "predicted" else text
    value = rec.get(what)
    if value is None:
        return "-"
    if what == "seconds":
        text = format_seconds(value)
    else:
        text = f"{value:,.0f}" if value >= 100 else f"{value:.1f}"
    if rec.get("unreliable"):
        text += "?"  # listed, with the reason, under the table
    return ("~" + text) if rec["kind"] == "predicted" else text


def _short(acc: dict[str, Any]) -> str:
    return acc["short"]


def matmul_table(doc: dict[str, Any]) -> str:
    """The terminal table: one row per size."""
    recs = doc["records"]
    contenders = doc["contenders"]

    def find(n: int, device: str, mode: str, kind: str) -> dict[str, Any] | None:
        for r in recs:
            if (r["size"], r["device"], r["mode"], r["kind"]) == (n, device, mode, kind):
                return r
        return None

    header = ["size", "CPU", "GFLOP/s"]
    for c in contenders:
        s = _short(c)
        header += [f"{s} resident", "GFLOP/s", f"{s} +rides"]
    for c in contenders:
        s = _short(c) if len(contenders) > 1 else ""
        header += [f"faster {s}(resident)".replace("  ", " "), f"faster {s}(rides)"]
    rows = []
    for n in doc["sizes"]:
        cpu = find(n, "cpu", "compute", "measured")
        row = [f"{n}", _cell(cpu), _cell(cpu, "gflops")]
        for c in contenders:
            res = find(n, c["device"], "resident", c["kind"])
            ride = find(n, c["device"], "rides", c["kind"])
            row += [_cell(res), _cell(res, "gflops"), _cell(ride)]
        for c in contenders:
            for mode in ("resident", "rides"):
                w = next((w for w in doc["winners"] if w["size"] == n and w["mode"] == mode
                          and w["accelerator"] == c["device"]), None)
                if w is None or w["winner"] is None:
                    row.append("-")
                else:
                    who = "CPU" if w["winner"] == "cpu" else _short(c)
                    if w["kind"] == "predicted":
                        who = "~" + who
                    sp = w["speedup"]
                    ratio = sp if sp and sp >= 1 else (1 / sp if sp else None)
                    row.append(f"{who} {ratio:.1f}x" if ratio else who)
        rows.append(row)
    return _table(header, rows)


def model_error_table(doc: dict[str, Any]) -> str | None:
    """Model vs measurement for measured accelerators that have a profile; None if none."""
    errs = doc.get("model_error") or []
    if not errs:
        return None
    out = []
    for acc in doc["accelerators"]:
        mine = [e for e in errs if e["device"] == acc["device"]]
        if not mine:
            continue
        rows = []
        for n in doc["sizes"]:
            row = [str(n)]
            for mode in ("resident", "rides"):
                e = next((e for e in mine if e["size"] == n and e["mode"] == mode), None)
                if e is None:
                    row += ["-", "-", "-"]
                else:
                    row += [format_seconds(e["measured"]), format_seconds(e["predicted"]),
                            f"{e['error_pct']:+.0f}%"]
            rows.append(row)
        header = ["size", "resident measured", "model", "error", "rides measured", "model",
                  "error"]
        med = _median_abs(mine)
        out.append(
            f"Model error for {acc['label']} against the '{acc['profile']}' profile "
            f"(error = (model - measured) / measured):\n" + _table(header, rows)
            + "\n" + "; ".join(f"median |error| {mode}: {v:.0f}%" for mode, v in med.items())
        )
    return "\n\n".join(out) if out else None


def _median_abs(errs: list[dict[str, Any]]) -> dict[str, float]:
    import statistics

    out = {}
    for mode in ("resident", "rides"):
        vals = [abs(e["error_pct"]) for e in errs if e["mode"] == mode]
        if vals:
            out[mode] = statistics.median(vals)
    return out


def transfer_table(doc: dict[str, Any]) -> str:
    from torchferry.bench.transfer import COLUMNS, human_bytes

    header = ["size"] + [f"{d} {m} GB/s" for d, m in COLUMNS]
    rows = []
    for nbytes in doc["sizes"]:
        row = [human_bytes(nbytes)]
        for direction, memory in COLUMNS:
            r = next((r for r in doc["records"] if r["bytes"] == nbytes
                      and r["direction"] == direction and r["memory"] == memory), None)
            if r is None:
                row.append("-")
            elif r.get("error"):
                row.append("OOM" if "out of memory" in r["error"] else "error")
            else:
                row.append(f"{r['gb_per_s']:.2f}")
        rows.append(row)
    return _table(header, rows)


# ------------------------------------------------------------------- files
def write_json(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``doc`` as JSON, atomically (a failed or killed run leaves the old file)."""
    atomic.write_text(path, json.dumps(doc, indent=2, default=str) + "\n")


def _write_csv(path: str | os.PathLike[str], fields: list[str], rows: list[dict[str, Any]]) -> None:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    atomic.write_text(path, buf.getvalue())


MATMUL_CSV_FIELDS = ["size", "device", "label", "mode", "kind", "seconds", "iqr", "min", "max",
                     "runs", "method", "gflops", "error"]


def write_matmul_csv(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    rows = [{**r, "dtype": doc["dtype"]} for r in doc["records"]]
    _write_csv(path, MATMUL_CSV_FIELDS + ["dtype"], rows)


TRANSFER_CSV_FIELDS = ["bytes", "direction", "memory", "kind", "seconds", "iqr", "runs",
                       "gb_per_s", "link_gb_per_s", "error"]


def write_transfer_csv(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    link = doc.get("link", {}).get("gb_per_s")
    rows = [{**r, "link_gb_per_s": link} for r in doc["records"]]
    _write_csv(path, TRANSFER_CSV_FIELDS, rows)


# ------------------------------------------------------------------- plots
def _save_figure(fig: Any, path: str | os.PathLike[str]) -> None:
    """``fig.savefig`` into ``path`` atomically, in the format :func:`plot_format` picks."""
    fmt = plot_format(path)
    atomic.write_atomic(path, lambda fh: fig.savefig(fh, format=fmt))


def plot_format(path: str | os.PathLike[str]) -> str:
    """The image format for ``path``: its suffix when matplotlib knows it, else PNG, written
    under exactly that name (``savefig("noext")`` alone would write ``noext.png``).

    >>> plot_format("a.svg"), plot_format("noext"), plot_format("a.b/c")
    ('svg', 'png', 'png')
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    known = {"png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp",
             "pgf", "raw", "rgba"}  # fmt: skip
    return suffix if suffix in known else "png"


def _figure(width: float = 8.0, height: float = 5.5) -> Any:
    # The object API with the Agg canvas: no pyplot, no global backend switch.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def plot_matmul(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Time vs size, log-log; one line per device and mode; predicted dashed; crossovers marked."""
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    recs = doc["records"]
    colours = ["tab:blue", "tab:green", "tab:purple"]
    rides_colours = ["tab:orange", "tab:red", "tab:brown"]
    series: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    labels: dict[tuple[str, str, str], str] = {}
    for r in recs:
        if r["seconds"] is None:
            continue
        key = (r["device"], r["mode"], r["kind"])
        series.setdefault(key, []).append((r["size"], r["seconds"]))
        labels[key] = r["label"]
    devices = [d for d in dict.fromkeys(k[0] for k in series) if d != "cpu"]
    for key, pts in series.items():
        device, mode, kind = key
        pts.sort()
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if device == "cpu":
            colour, marker = "black", "o"
        else:
            palette = colours if mode == "resident" else rides_colours
            colour = palette[devices.index(device) % len(palette)]
            marker = "s" if mode == "resident" else "^"
        style = "--" if kind == "predicted" else "-"
        what = {"compute": "", "resident": ", data resident", "rides": ", with ferry rides"}[mode]
        tag = " (predicted)" if kind == "predicted" and "predicted" not in labels[key] else ""
        ax.plot(xs, ys, style, marker=marker, color=colour,
                label=f"{labels[key]}{tag}{what}")
    for c in doc["crossovers"]:
        x = c.get("estimate") or c.get("from_size")
        if x is None or c.get("below_smallest"):
            continue
        ax.axvline(x, color="grey", linestyle=":", linewidth=1)
        word = "data resident" if c["mode"] == "resident" else "with rides"
        pred = "predicted " if c["kind"] == "predicted" else ""
        ax.annotate(f"{pred}crossover ({word})\n~{x:.0f} x {x:.0f}", xy=(x, 1), xycoords=("data", "axes fraction"),
                    xytext=(3, -28 if c["mode"] == "resident" else -58),
                    textcoords="offset points", fontsize=8, color="dimgrey")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("matrix size n (n x n @ n x n)")
    ax.set_ylabel("time per product (s), median")
    title = f"matmul {doc['dtype']}: CPU measured"
    if any(c["kind"] == "predicted" for c in doc["contenders"]):
        title += "; accelerator predicted (dashed)"
    elif doc["contenders"]:
        title = (f"matmul {doc['dtype']}: CPU and accelerator measured (solid); "
                 "datasheet model (dashed)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    _save_figure(fig, path)


def plot_transfer(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Bandwidth vs size, log-log; one line per direction and memory kind; the link's limit."""
    from torchferry.bench.transfer import COLUMNS

    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    colours = {"h2d": "tab:blue", "d2h": "tab:red"}
    for direction, memory in COLUMNS:
        pts = sorted((r["bytes"], r["gb_per_s"]) for r in doc["records"]
                     if r["direction"] == direction and r["memory"] == memory
                     and r.get("gb_per_s"))
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts],
                "-" if memory == "pinned" else "-.", marker="o", color=colours[direction],
                label=f"{direction} {memory}")
    link = doc.get("link") or {}
    if link.get("gb_per_s"):
        ax.axhline(link["gb_per_s"], color="black", linestyle="--", linewidth=1,
                   label=f"link limit {link['gb_per_s']:.1f} GB/s ({link.get('name', '')}, "
                         "datasheet)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s (median)")
    ax.set_title(f"host<->device copies: {doc.get('device_label', '')}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save_figure(fig, path)
