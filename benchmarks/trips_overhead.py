"""Overhead of counting ferry rides (torchferry.trips) and of explaining (torchferry.explain).

Run by hand: ``python benchmarks/trips_overhead.py [--steps N] [--rounds R] [--threads T]``.

The training step is the simulated-GPU benchmark's MLP (784-512-512-10, batch 64,
SGD with momentum, ``foreach=False``): zero_grad, forward, loss, backward, step.
Each row times the same step with and without the tool, in alternating rounds in
one process, and prints the best (minimum) round's ms/step and the ratio of the
bests, plus the ratio of the medians: on a busy machine the minimum is the
measurement least disturbed by other processes.

* ``sim``: inside ``torchferry.simulate("cuda")``; trips listens to the
  simulation's events (what ``ferry run --simulate cuda --trips`` does).
* ``cpu``: no simulation; trips wraps the calls that copy or sync (the code path
  a real GPU run takes; on the CPU no ride is counted, so this is the wrappers' cost).
* ``+ rides``: the step also moves its batch with ``.to(device)`` and reads
  ``loss.item()``, so trips has events to count on every step (3 per step).
* ``explain``: the step also makes its labels with ``torch.randint`` (a
  factory, which explain's recorder wraps); no error happens.
* On a machine with a CUDA GPU the rows are the same steps on the GPU itself
  (no simulation; ``torch.cuda.synchronize()`` before each clock read).

Targets: trips at most 1.3x; explaining costs nothing measurable.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import statistics
import time
from collections.abc import Callable

import torch
from torch import nn

import torchferry as tf


def _make(device: str, rides: bool, factory: bool) -> Callable[[], None]:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    ).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=False)
    loss_fn = nn.CrossEntropyLoss()
    x_host, y_host = torch.randn(64, 784), torch.randint(0, 10, (64,))
    x_dev, y_dev = x_host.to(device), y_host.to(device)

    def step() -> None:
        if rides:
            x, y = x_host.to(device), y_host.to(device)
        elif factory:
            x, y = x_dev, torch.randint(0, 10, (64,), device=device)
        else:
            x, y = x_dev, y_dev
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if rides:
            loss.item()

    return step


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _time(sim: bool, tool: str, rides: bool, factory: bool, steps: int) -> float:
    real = torch.cuda.is_available()
    outer = tf.simulate("cuda") if sim and not real else contextlib.nullcontext()
    with outer:
        step = _make("cuda" if sim or real else "cpu", rides, factory)
        inner: contextlib.AbstractContextManager = contextlib.nullcontext()
        if tool == "trips":
            inner = tf.trips()
        elif tool == "explain":
            inner = tf.explain()
        with inner:
            for _ in range(3):
                step()
            _sync()
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            _sync()
            return (time.perf_counter() - t0) / steps


# on a machine with a real GPU: the same steps on the GPU itself (trips' real-device path,
# syncs timed), no simulation
GPU_ROWS = [
    ("cuda: MLP step", True, "trips", False, False, 1.3),
    ("cuda: MLP step + rides (to, to, item)", True, "trips", True, False, 1.3),
    ("cuda: MLP step + torch.randint labels", True, "explain", False, True, None),
]

ROWS = [
    # label, simulated?, tool, rides, factory, target
    ("sim: MLP step", True, "trips", False, False, 1.3),
    ("sim: MLP step + rides (to, to, item)", True, "trips", True, False, 1.3),
    ("cpu (real-device path): MLP step", False, "trips", False, False, 1.3),
    ("cpu (real-device path): MLP step + rides", False, "trips", True, False, 1.3),
    ("cpu: MLP step + torch.randint labels", False, "explain", False, True, None),
    ("sim: MLP step + torch.randint labels", True, "explain", False, True, None),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20, help="steps per round (default 20)")
    ap.add_argument("--rounds", type=int, default=15, help="alternating rounds (default 15)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"torch {torch.__version__}, {platform.python_implementation()} "
        f"{platform.python_version()}, {args.threads} thread(s), {args.rounds} rounds x "
        f"{args.steps} steps; best round (and median ratio)"
    )
    print("| case | tool | without ms/step | with ms/step | ratio | median ratio | target |")
    print("|---|---|---|---|---|---|---|")
    rows = GPU_ROWS if torch.cuda.is_available() else ROWS
    if torch.cuda.is_available():
        print(f"device: {torch.cuda.get_device_name()} (real GPU: no simulation)")
    for label, sim, tool, rides, factory, target in rows:
        without, with_ = [], []
        for _ in range(args.rounds):
            without.append(_time(sim, "none", rides, factory, args.steps))
            with_.append(_time(sim, tool, rides, factory, args.steps))
        a, b = min(without), min(with_)
        med = statistics.median(with_) / statistics.median(without)
        spread = (statistics.median(without) - a) / a
        goal = f"<= {target}x {'ok' if b / a <= target else 'MISSED'}" if target else (
            f"none measurable (median vs best round without: +{spread:.0%})")
        print(f"| {label} | {tool} | {a * 1e3:.3f} | {b * 1e3:.3f} | {b / a:.3f}x | {med:.3f}x "
              f"| {goal} |")
    micro(args.rounds)


def _per_call(fn: Callable[[], object], tool: str, n: int) -> float:
    ctx: contextlib.AbstractContextManager = tf.explain() if tool == "explain" else (
        contextlib.nullcontext())
    with ctx:
        for _ in range(100):
            fn()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n


def micro(rounds: int) -> None:
    """Per-call cost of explain's recorder: a wrapped factory, and an op it never touches."""
    a, b = torch.ones(64), torch.ones(64)
    calls = [
        ("torch.randint(0, 10, (64,))  (a wrapped factory)", lambda: torch.randint(0, 10, (64,))),
        ("a + b  (any other op: untouched)", lambda: a + b),
    ]
    print()
    print("| call | without µs | with explain µs | difference µs |")
    print("|---|---|---|---|")
    for label, fn in calls:
        without, with_ = [], []
        for _ in range(rounds):
            without.append(_per_call(fn, "none", 20000))
            with_.append(_per_call(fn, "explain", 20000))
        x, y = min(without), min(with_)
        print(f"| {label} | {x * 1e6:.2f} | {y * 1e6:.2f} | {(y - x) * 1e6:+.2f} |")


if __name__ == "__main__":
    main()
