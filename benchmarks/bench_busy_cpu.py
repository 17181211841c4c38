"""How a busy machine bends CPU matmul timings, and what `ferry bench` times instead.

Starts LOAD busy python processes (default: one per CPU), then times an n x n float32
product for each n three ways, side by side in one run:

* wall clock, torch's default threads (what `ferry bench` did);
* wall clock, one thread;
* the thread's CPU time, one thread (what `ferry bench` does on a busy machine).

Each figure is the median of at least 3 runs and 0.2 s.  Run it on an idle machine to
see the load's effect alone: `python benchmarks/bench_busy_cpu.py [--load N]`.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import time

import torch


def _median(fn, clock, min_time=0.2):
    fn()
    times: list[float] = []
    while len(times) < 3 or sum(times) < min_time:
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--sizes", default="50,100,200,500,1000")
    args = ap.parse_args()
    default = torch.get_num_threads()
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        time.sleep(0.5)
        print(f"{args.load} busy processes on {os.cpu_count()} CPUs; torch default threads "
              f"{default}; load before: {os.getloadavg()[0]:.1f}")
        print(f"{'n':>5}  {'wall, default threads':>22}  {'wall, 1 thread':>15}  "
              f"{'thread CPU time, 1 thread':>26}")
        for n in (int(s) for s in args.sizes.split(",")):
            product = functools.partial(torch.matmul, torch.randn(n, n), torch.randn(n, n))
            torch.set_num_threads(default)
            wall_default = _median(product, time.perf_counter)
            torch.set_num_threads(1)
            wall_one = _median(product, time.perf_counter)
            cpu_one = _median(product, time.thread_time)
            print(f"{n:>5}  {wall_default * 1e6:>19.1f} us  {wall_one * 1e6:>12.1f} us  "
                  f"{cpu_one * 1e6:>23.1f} us")
    finally:
        for p in spin:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
