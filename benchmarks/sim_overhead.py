"""Overhead of the simulated GPU: training steps plain on the CPU vs inside torchferry.simulate.

Run by hand: ``python benchmarks/sim_overhead.py [--steps N] [--rounds R] [--threads T]``.

For each model it times full training steps (zero_grad, forward, loss,
backward, optimizer step) in alternating rounds, plain and simulated, in one
process, and prints the median time per step and the median of the per-round
ratios (each round times the runs back to back, so both see the same load).  The optimizer
is SGD with momentum and ``foreach=False`` in both runs, so both execute the
same kernels (a simulated CUDA device would otherwise make PyTorch pick its
foreach path, which a CPU run does not); ``--default-optimizer`` times
PyTorch's default choice instead.

A third column times the plain CPU run under an empty pass-through
TorchFunctionMode: the floor any design built on a function mode pays, which
shows how much of the overhead is the simulation's own work.

Clock: ``--clock cpu`` (default) reads ``time.process_time()``, the CPU time
of this single-threaded process, which other jobs on a shared machine disturb
far less than the wall clock; ``--clock wall`` reads ``time.perf_counter()``.
On an idle machine with one torch thread the two agree.

Targets: (a) and (b) at most 1.3x, (c) at most 3x.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

import torchferry as tf


def _mlp() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    m = nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    return m, torch.randn(64, 784), torch.randint(0, 10, (64,))


def _cnn() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    m = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 10),
    )  # fmt: skip
    return m, torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))


def _tiny() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    layers: list[nn.Module] = []
    for _ in range(8):
        layers += [nn.Linear(64, 64), nn.ReLU()]
    return nn.Sequential(*layers), torch.randn(8, 64), torch.randint(0, 64, (8,))


CASES: list[tuple[str, Callable[[], tuple[nn.Module, torch.Tensor, torch.Tensor]], float]] = [
    ("(a) MLP 784-512-512-10, batch 64", _mlp, 1.3),
    ("(b) CNN 3x32x32, batch 64", _cnn, 1.3),
    ("(c) 8 x Linear(64,64), batch 8", _tiny, 3.0),
]


class _PassThrough(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


_CLOCK = time.process_time


def _time_steps(build, device: str, steps: int, foreach: bool | None) -> float:
    torch.manual_seed(0)
    model, x, y = build()
    model.to(device)
    x, y = x.to(device), y.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=foreach)
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    t0 = _CLOCK()
    for _ in range(steps):
        step()
    return (_CLOCK() - t0) / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=0, help="steps per round (default: per model)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument(
        "--default-optimizer",
        action="store_true",
        help="let PyTorch pick foreach/for-loop SGD (differs between cpu and cuda)",
    )
    ap.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: process CPU time (default); wall: perf_counter",
    )
    args = ap.parse_args()
    global _CLOCK
    _CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    torch.set_num_threads(args.threads)
    foreach = None if args.default_optimizer else False
    print(
        f"torch {torch.__version__}, {platform.python_implementation()} "
        f"{platform.python_version()}, {args.threads} thread(s), {args.rounds} rounds, "
        f"SGD foreach={foreach}, {args.clock} clock"
    )
    print(
        "| model | plain CPU ms/step | simulated cuda ms/step | ratio | target "
        "| empty function mode (floor) |"
    )
    print("|---|---|---|---|---|---|")
    for name, build, target in CASES:
        steps = args.steps or {"(a)": 150, "(b)": 20, "(c)": 500}[name[:3]]
        plain, sim, floor = [], [], []
        for r in range(args.rounds):
            # alternate the order so neither run always goes first; pair adjacent runs
            order = ("plain", "sim", "floor") if r % 2 == 0 else ("floor", "sim", "plain")
            for which in order:
                if which == "plain":
                    plain.append(_time_steps(build, "cpu", steps, foreach))
                elif which == "sim":
                    with tf.simulate("cuda"):
                        sim.append(_time_steps(build, "cuda", steps, foreach))
                else:
                    with _PassThrough():
                        floor.append(_time_steps(build, "cpu", steps, foreach))
        ratio = statistics.median(s_ / p_ for s_, p_ in zip(sim, plain, strict=True))
        fratio = statistics.median(f_ / p_ for f_, p_ in zip(floor, plain, strict=True))
        p, s = statistics.median(plain), statistics.median(sim)
        ok = "ok" if ratio <= target else "MISSED"
        print(
            f"| {name} | {p * 1e3:.3f} | {s * 1e3:.3f} | {ratio:.2f}x | <= {target}x {ok} "
            f"| {fratio:.2f}x |"
        )


if __name__ == "__main__":
    main()
