"""Timing that cannot forget to wait for the device: :func:`measure`.

GPU work is asynchronous: Python queues a kernel and races ahead, so a clock read
right after ``a @ b`` measures the queueing, not the work.  ``measure`` picks the
right clock for the device the timed function works on:

========  ==================================================================
device    how each run is timed
========  ==================================================================
cpu       ``time.perf_counter()`` around the call
cuda      a pair of CUDA events recorded on the current stream around the
          call; the device is synchronized before the events are read
mps/xpu   the device is synchronized before and after the call, and
          ``time.perf_counter()`` read after each synchronization
========  ==================================================================

Each CUDA run starts on an idle device (the previous run was synchronized), so
a run's time includes the launch latency: it is what one call costs when its
result is needed, which is what the crossover experiment asks.

Example::

    >>> import torch, torchferry as tf
    >>> a = torch.randn(64, 64)
    >>> t = tf.measure(torch.mm, a, a, repeat=5)
    >>> t.device, t.method, len(t.times)
    ('cpu', 'perf_counter', 5)
    >>> t.min <= t.median <= t.max
    True
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["measure", "Timing", "format_seconds"]

#: the least number of timed runs when ``repeat`` is not given
MIN_RUNS = 3


def format_seconds(seconds: float) -> str:
    """``0.0000123`` -> ``'12.3 µs'``: three significant figures, a readable unit.

    >>> format_seconds(0.0123), format_seconds(2.5), format_seconds(4.2e-7)
    ('12.3 ms', '2.50 s', '420 ns')
    """
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return f"{_sig3(seconds / scale)} {unit}"
    return f"{_sig3(seconds / 1e-9)} ns"


def _sig3(x: float) -> str:
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


@dataclass(frozen=True)
class Timing:
    """What :func:`measure` found: the raw per-run times and their summary.

    ``times`` holds one wall time in seconds per timed run (warm-up runs are not
    in it).  ``method`` says how they were taken: ``"perf_counter"``,
    ``"cuda events"`` or ``"synchronize + perf_counter"``.
    """

    times: tuple[float, ...]
    device: str
    method: str
    warmup: int = 0

    @property
    def n(self) -> int:
        """Number of timed runs."""
        return len(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def max(self) -> float:
        return max(self.times)

    @property
    def iqr(self) -> float:
        """Interquartile range (75th minus 25th percentile, inclusive method); 0 for one run."""
        if len(self.times) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q3 - q1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with every raw time and the summary statistics (seconds)."""
        return {
            "device": self.device,
            "method": self.method,
            "warmup": self.warmup,
            "n": self.n,
            "median": self.median,
            "iqr": self.iqr,
            "min": self.min,
            "max": self.max,
            "mean": self.mean,
            "times": list(self.times),
        }

    def __str__(self) -> str:
        return (
            f"{format_seconds(self.median)} median (IQR {format_seconds(self.iqr)}, "
            f"min {format_seconds(self.min)}, {self.n} runs) on {self.device} "
            f"via {self.method}"
        )


# ------------------------------------------------------------- device inference
def _tensor_devices(obj: Any, found: list[torch.device]) -> None:
    """Append the device of every tensor inside ``obj`` (any nesting) to ``found``.

    Modules (``measure(fn, model, x)``) count by their parameters and buffers.
    """
    from torchferry.move import tree_map

    def note(t: torch.Tensor) -> torch.Tensor:
        found.append(t.device)
        return t

    if isinstance(obj, torch.nn.Module):
        for param in obj.parameters():
            found.append(param.device)
            break
        for buf in obj.buffers():
            found.append(buf.device)
            break
        return
    try:
        tree_map(note, obj)
    except Exception:  # a module inside, or a container the walker cannot rebuild
        if isinstance(obj, (list, tuple)):
            for item in obj:
                _tensor_devices(item, found)
        elif isinstance(obj, dict):
            for item in obj.values():
                _tensor_devices(item, found)


def _pick(devices: Sequence[torch.device]) -> list[torch.device]:
    """The accelerator devices among ``devices`` (first-seen order), else ``[cpu]``.

    Work on an accelerator is what needs waiting for; CPU tensors touched next to it
    (a scalar, an index) run synchronously anyway.
    """
    accel: list[torch.device] = []
    for d in devices:
        if d.type not in ("cpu", "meta") and d not in accel:
            accel.append(d)
    return accel or [torch.device("cpu")]


def _probe(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[list[torch.device], bool]:
    """Run ``fn(*args)`` once and report every device its tensor operations touched.

    The call runs under a ``TorchDispatchMode`` that notes the device of each ATen
    operation's tensor inputs and outputs, so a closure that only creates tensors
    on the GPU, or a model called on a captured batch, is found too.  If ``fn``
    cannot run under a dispatch mode (some compiled code), it is run again plainly
    and only what it returns is inspected.  Returns (devices, ran_ok).
    """
    found: list[torch.device] = []
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:  # pragma: no cover - very old torch
        TorchDispatchMode = None  # type: ignore[assignment,misc]  # noqa: N806

    if TorchDispatchMode is not None:

        class _DeviceSpy(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, f_args=(), kwargs=None):  # noqa: ANN001
                out = func(*f_args, **(kwargs or {}))
                _tensor_devices((f_args, kwargs or {}, out), found)
                return out

        try:
            with _DeviceSpy():
                out = fn(*args)
            _tensor_devices(out, found)
            return found, True
        except Exception:
            found.clear()  # fall through: try once without the spy
    out = fn(*args)
    _tensor_devices(out, found)
    return found, True


def _infer_devices(
    fn: Callable[..., Any], args: tuple[Any, ...], device: Any
) -> tuple[list[torch.device], bool]:
    """The devices to synchronize, and whether a (discardable) call was spent finding them."""
    if device is not None:
        try:
            d = torch.device(device)
        except (RuntimeError, TypeError, ValueError):
            from torchferry.devices import _not_a_device  # the error to() gives for it

            raise _not_a_device(device, "device argument of torchferry.measure") from None
        if d.type in ("cuda", "xpu") and d.index is None:
            mod = getattr(torch, d.type)
            d = torch.device(d.type, mod.current_device())
        return [d], False
    seen: list[torch.device] = []
    _tensor_devices(args, seen)
    picked = _pick(seen)
    if picked[0].type != "cpu":
        return picked, False
    # Only host tensors (or none) in args: fn may still ship them to a GPU and work
    # there (``measure(lambda x: model(x.cuda()), x)``); timing that with a bare
    # perf_counter would measure the queueing.  Watch one (warm-up) call to know.
    found, _ = _probe(fn, args)
    return _pick(seen + found), True


# ---------------------------------------------------------------------- timers
def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    elif dev.type == "mps":
        torch.mps.synchronize()
    elif dev.type == "xpu":
        torch.xpu.synchronize(dev)
    elif dev.type not in ("cpu", "meta"):
        acc = getattr(torch, "accelerator", None)
        if acc is not None and hasattr(acc, "synchronize"):
            acc.synchronize(dev)


class _PerfCounterTimer:
    method = "perf_counter"

    def __init__(self, devices: list[torch.device]) -> None:
        self.devices = devices

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
        t0 = time.perf_counter()
        fn(*args)
        return time.perf_counter() - t0


class _SyncTimer(_PerfCounterTimer):
    """mps, xpu, several devices at once: synchronize around each run."""

    method = "synchronize + perf_counter"

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
        for d in self.devices:
            _sync(d)
        t0 = time.perf_counter()
        fn(*args)
        for d in self.devices:
            _sync(d)
        return time.perf_counter() - t0


class _CudaEventTimer(_PerfCounterTimer):
    """Events recorded on the current stream; the device is synchronized before they are read."""

    method = "cuda events"

    def __init__(self, devices: list[torch.device]) -> None:
        super().__init__(devices)
        self.dev = devices[0]
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize(self.dev)  # queued work from before must not count

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
        stream = torch.cuda.current_stream(self.dev)
        self.start.record(stream)
        fn(*args)
        self.end.record(stream)
        torch.cuda.synchronize(self.dev)  # events are read only once they have happened
        return self.start.elapsed_time(self.end) / 1e3  # ms -> s


def _simulated(d: torch.device) -> bool:
    """An accelerator of ``torchferry.simulate``, whose work runs on the CPU, at once
    (the simulation is looked up, never imported: none ran when it is not loaded)."""
    if d.type == "cpu":
        return False
    sim = sys.modules.get("torchferry.sim")
    return sim is not None and bool(sim.is_active())


def _timer_for(devices: list[torch.device]) -> _PerfCounterTimer:
    if len(devices) == 1 and devices[0].type == "cpu":
        return _PerfCounterTimer(devices)
    if len(devices) == 1 and devices[0].type == "cuda":
        return _CudaEventTimer(devices)
    return _SyncTimer(devices)


# ------------------------------------------------------------------------ API
def measure(
    fn: Callable[..., Any],
    *args: Any,
    device: str | torch.device | None = None,
    warmup: int = 1,
    repeat: int | None = None,
    min_time: float = 0.1,
    max_repeat: int = 10_000,
) -> Timing:
    """Time ``fn(*args)`` correctly on whatever device it runs on.

    Args:
        fn: the work to time; called as ``fn(*args)``, its result is discarded.
        device: the device to wait for.  By default it is inferred: an accelerator
            holding a tensor in ``args`` (any nesting, modules by their parameters);
            else every tensor ``fn`` touches during its first (warm-up) call, inputs
            and outputs of each operation, and what it returns, so work shipped to a
            GPU inside ``fn`` is waited for too.  An accelerator wins over the CPU;
            touching no tensor at all means ``cpu``.
        warmup: untimed calls first (lazy initialisation, caches, autotuning);
            their times are discarded.  Device inference may cost one extra untimed
            call when ``warmup`` is 0 and ``args`` hold no accelerator tensor.
        repeat: the exact number of timed runs.  When ``None`` (default), runs
            repeat until they add up to ``min_time`` seconds, at least 3 and at
            most ``max_repeat`` runs.
        min_time: see ``repeat``.
        max_repeat: see ``repeat``.

    Returns:
        a :class:`Timing` with ``median``, ``iqr``, ``min``, ``max``, the raw
        ``times`` (seconds), ``device`` and ``method``.

    Example::

        >>> import torch, torchferry as tf
        >>> x = torch.randn(256, 256)
        >>> t = tf.measure(lambda: x @ x, min_time=0.01)
        >>> t.device, t.method, t.n >= 3
        ('cpu', 'perf_counter', True)
    """
    _check_arguments(fn, warmup, repeat, min_time, max_repeat)
    devices, probed = _infer_devices(fn, args, device)
    warm = warmup - 1 if probed and warmup > 0 else warmup
    timer = _timer_for(devices)
    for _ in range(warm):
        fn(*args)
    for d in devices:
        _sync(d)

    times = _timed_runs(timer, fn, args, repeat, min_time, max_repeat)
    dev_name = ",".join(str(d) for d in devices)
    method = timer.method
    if any(_simulated(d) for d in devices):  # say what was timed: the CPU's work
        method = f"simulated {method} (CPU time)"
    return Timing(times=tuple(times), device=dev_name, method=method, warmup=warmup)


def _check_arguments(fn: Callable[..., Any], warmup: int, repeat: int | None, min_time: float,
                     max_repeat: int) -> None:
    """Raise TypeError or ValueError for arguments :func:`measure` cannot use."""
    if not callable(fn):
        raise TypeError(f"measure() needs a callable, got {type(fn).__name__}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")
    if repeat is not None and (isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1):
        raise ValueError(f"repeat must be an int >= 1 or None, got {repeat!r}")
    if not (isinstance(min_time, (int, float)) and math.isfinite(min_time) and min_time >= 0):
        raise ValueError(f"min_time must be a finite number >= 0, got {min_time!r}")
    if isinstance(max_repeat, bool) or not isinstance(max_repeat, int) or max_repeat < 1:
        raise ValueError(f"max_repeat must be an int >= 1, got {max_repeat!r}")


def _timed_runs(timer: _PerfCounterTimer, fn: Callable[..., Any], args: tuple[Any, ...],
                repeat: int | None, min_time: float, max_repeat: int) -> list[float]:
    """The times of the timed runs of ``fn(*args)``: ``repeat`` of them, or (None) until they
    add up to ``min_time`` seconds, at least ``MIN_RUNS`` and at most ``max_repeat``."""
    times: list[float] = []
    if repeat is not None:
        for _ in range(repeat):
            times.append(timer.run(fn, args))
    else:
        total = 0.0
        while len(times) < max_repeat and (len(times) < MIN_RUNS or total < min_time):
            t = timer.run(fn, args)
            times.append(t)
            total += t
    return times
