"""Check the simulated GPU's fidelity table against a real GPU.

Run on a machine with a CUDA GPU:  ``PYTHONPATH=src python3 benchmarks/gpu/fidelity.py``

Runs every case of ``tests/sim/fidelity_cases.py``'s ``CASES`` (the table the test
suite checks the simulation against; test data, loaded by its path) on the real GPU, prints each case whose
real outcome differs from the recorded one, and a summary line.  Exit status 1
when any case differs.  Without a GPU it says it is skipping and exits 0.
Needs only torch and numpy (no pip installs, no torchferry simulation).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

CASES_FILE = pathlib.Path(__file__).resolve().parents[2] / "tests" / "sim" / "fidelity_cases.py"


def _load_cases():
    spec = importlib.util.spec_from_file_location("ferry_fidelity_cases", CASES_FILE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("fidelity: no CUDA GPU on this machine; skipping (nothing checked)")
        return 0
    cases = _load_cases()
    CASES, mismatch, run_case = cases.CASES, cases.mismatch, cases.run_case

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
