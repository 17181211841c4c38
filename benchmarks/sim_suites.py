"""Third-party test suites on the CPU and under ``pytest --ferry-simulate cuda``.

``python benchmarks/sim_suites.py --root DIR [SUITE ...]`` runs each suite's selection
twice, plainly and with ``--ferry-simulate cuda`` (``--ferry-device-count 2``), and
prints pytest's counts side by side, with the tests that fail in either run.  DIR holds a
checkout of each suite's repository at the version below (the tests are not in the
wheels), named as the ``dir`` column says; the package itself must be installed at that
version in this Python (``pip install torchinfo==1.8.0 safetensors==0.8.0
torch_geometric==2.8.0.post1``).  GPU-only tests are those a CPU-only run skips or does
not generate; they are what the simulated run adds.  Runs under ``nice``; a suite's
selection is kept to a few minutes on a 2-core machine.

A GPU test that fails under the simulation with ``UnsupportedFeatureError`` (a feature the
simulation refuses by design, naming it) is counted as *refused*, not as passing; the last
line gives the share passing of all GPU tests run and of those not refused.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    dir: str  # the checkout, under --root
    cwd: str  # where pytest runs, inside the checkout
    args: tuple[str, ...]
    git_ref: str


SUITES = (
    Suite("torchinfo", "1.8.0", "torchinfo", ".",
          ("tests", "--no-output", "--ignore", "tests/torchinfo_xl_test.py"), "v1.8.0"),
    # the tests of the Python binding, copied out of the checkout so the installed
    # package (not the sources' bindings/python/py_src) is tested
    Suite("safetensors", "0.8.0", "safetensors", "bindings/python",
          ("tests/test_pt_comparison.py", "tests/test_pt_model.py", "tests/test_simple.py"),
          "main at 24b0b28"),
    Suite("torch_geometric", "2.8.0.post1", "pyg", ".",
          # the CUDA variants only (withCUDA/withDevice add a cuda:0 parameter when
          # torch.cuda.is_available()): the CPU run then selects none
          ("-o", "addopts=", "-m", "not rag and not dataset", "-k", "cuda",
           "test/nn/norm", "test/nn/aggr",
           "test/nn/dense", "test/nn/models/test_basic_gnn.py", "test/nn/conv/test_gcn_conv.py",
           "test/nn/conv/test_sage_conv.py", "test/nn/conv/test_gat_conv.py",
           "test/nn/conv/test_rgcn_conv.py", "test/utils"), "2.8.0.post1"),
)
SIM = ("--ferry-simulate", "cuda", "--ferry-device-count", "2")
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


REFUSAL = "UnsupportedFeatureError"


def run(suite: Suite, root: str, simulated: bool) -> tuple[dict[str, int], dict[str, str], float]:
    """pytest's counts, {failed or errored test: its summary line's message}, wall seconds."""
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-rfE",
           "-p", "no:cacheprovider", *(SIM if simulated else ()), *suite.args]
    t0 = time.perf_counter()
    env = {**os.environ, "COLUMNS": "1000"}  # summary lines not cut at 80 columns
    r = subprocess.run(cmd, cwd=os.path.join(root, suite.dir, suite.cwd), capture_output=True,
                       text=True, check=False, env=env)
    lines = r.stdout.strip().splitlines()
    counts = {k.rstrip("s") if k.startswith("error") else k: int(n)
              for n, k in _COUNT.findall(lines[-1] if lines else "")}
    bad = dict(ln.partition(" - ")[::2] for ln in lines if ln.startswith(("FAILED ", "ERROR ")))
    return counts, {k.split(" ", 1)[1]: v for k, v in bad.items()}, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, help="folder holding the suites' checkouts")
    ap.add_argument("suites", nargs="*", help="names (default: all)")
    a = ap.parse_args()
    chosen = [s for s in SUITES if not a.suites or s.name in a.suites]
    print("| package | version | CPU: passed / failed / skipped | simulated cuda x2: passed / "
          "failed / skipped | GPU tests run (simulated minus CPU) | of which pass | refused by "
          "design | other failures | wall s (CPU / sim) |")
    print("|---|---|---|---|---|---|---|---|---|")
    lines, total = [], [0, 0, 0]
    for s in chosen:
        cpu, cpu_bad, cs = run(s, a.root, False)
        sim, sim_bad, ss = run(s, a.root, True)
        ran = lambda c: c.get("passed", 0) + c.get("failed", 0) + c.get("error", 0)  # noqa: E731
        fmt = lambda c: (f"{c.get('passed', 0)} / {c.get('failed', 0) + c.get('error', 0)} / "  # noqa: E731
                         f"{c.get('skipped', 0)}")
        new_bad = {t: m for t, m in sim_bad.items() if t not in cpu_bad}  # the GPU tests' failures
        refused = [t for t, m in new_bad.items() if REFUSAL in m]
        gpu = ran(sim) - ran(cpu)
        other = len(new_bad) - len(refused)
        passed = gpu - len(new_bad)
        total = [total[0] + gpu, total[1] + passed, total[2] + len(refused)]
        print(f"| {s.name} | {s.version} | {fmt(cpu)} | {fmt(sim)} | {gpu} | {passed} | "
              f"{len(refused)} | {other} | {cs:.0f} / {ss:.0f} |")
        lines += [f"{s.name} CPU: {t} - {m}" for t, m in cpu_bad.items()]
        lines += [f"{s.name} sim: {t} - {m}" for t, m in sim_bad.items()]
    gpu, passed, refused = total
    if gpu:
        print(f"all: {passed} of {gpu} GPU tests pass ({100 * passed / gpu:.1f}%); {refused} "
              f"refused by design; of the {gpu - refused} not refused, {passed} pass "
              f"({100 * passed / max(gpu - refused, 1):.1f}%)")
    for line in lines:
        print(line[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
