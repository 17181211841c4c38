"""Check the simulated GPU's fidelity table against a real GPU.

Run on a machine with a CUDA GPU:  ``PYTHONPATH=src python3 benchmarks/gpu/fidelity.py``

Runs every case of ``torchferry.sim.fidelity_cases.CASES`` (the table the test
suite checks the simulation against) on the real GPU, prints each case whose
real outcome differs from the recorded one, and a summary line.  Exit status 1
when any case differs.  Without a GPU it says it is skipping and exits 0.
Needs only torch and numpy (no pip installs, no torchferry simulation).
"""

from __future__ import annotations

import sys


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("fidelity: no CUDA GPU on this machine; skipping (nothing checked)")
        return 0
    from torchferry.sim.fidelity_cases import CASES, mismatch, run_case

    n = torch.cuda.device_count()
    differ = skipped = 0
    for case in CASES:
        if case.devices > n:
            skipped += 1
            continue
        problem = mismatch(case, run_case(case))
        if problem is not None:
            differ += 1
            print(f"DIFFERS {case.name} (source: {case.source}): {problem}")
    checked = len(CASES) - skipped
    print(
        f"fidelity: {checked} cases checked on {torch.cuda.get_device_name()} "
        f"(torch {torch.__version__}), {differ} differ, {skipped} skipped "
        f"(need more than {n} GPU{'s' if n != 1 else ''})"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
