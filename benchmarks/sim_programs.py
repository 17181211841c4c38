"""Real programs under ``ferry run --simulate cuda`` next to their CPU run.

``python benchmarks/sim_programs.py [--steps 20]`` (needs ``pip install transformers==5.24.0``,
the version measured with torch 2.13.0)
runs, each as its own process:

1. a tiny GPT-2 (transformers' ``GPT2LMHeadModel``, a config built locally) trained for
   STEPS steps with ``python`` on the CPU and with ``ferry run --simulate cuda``: the
   losses must be the same (no dropout: nothing is drawn on the device);
2. the same script with ``--compile`` (``torch.compile(model)``) under the simulation:
   it must run and give the same losses as the CPU run without compile;
3. a script that starts a Python child: under the simulation the child must see the
   simulated GPU.

Prints a table (program, CPU, simulated, verdict, wall seconds) and exits 1 if a check
fails.  Wall times are of the whole processes (imports included) on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "sim_programs")
FERRY = [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda"]


def _run(cmd: list[str]) -> tuple[str, str, float, int]:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return r.stdout, r.stderr, time.perf_counter() - t0, r.returncode


def _losses(out: str) -> list[str]:
    return re.findall(r"^step \d+ loss (\S+)$", out, re.M)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    steps = ["--steps", str(ap.parse_args().steps)]
    script = os.path.join(PROGRAMS, "gpt2_train.py")
    rows, ok = [], True

    cpu_out, cpu_err, cpu_s, cpu_rc = _run([sys.executable, script, *steps])
    sim_out, sim_err, sim_s, sim_rc = _run([*FERRY, script, *steps])
    cpu, sim = _losses(cpu_out), _losses(sim_out)
    same = cpu_rc == sim_rc == 0 and cpu == sim and len(cpu) > 0 and "device cuda:0" in sim_out
    ok &= same
    rows.append(("GPT-2 train (transformers)", f"{len(cpu)} losses, last {cpu[-1:]}",
                 f"{len(sim)} losses on cuda:0" if sim_rc == 0 else sim_err.strip()[-200:],
                 "same losses" if same else "DIFFER", f"{cpu_s:.1f} / {sim_s:.1f}"))

    c_out, c_err, c_s, c_rc = _run([*FERRY, script, *steps, "--compile"])
    compiled = _losses(c_out)
    notice = "compiled kernels are not what runs" in c_err
    same = c_rc == 0 and compiled == cpu and notice
    ok &= same
    rows.append(("GPT-2 train, torch.compile(model)", "(CPU run without compile)",
                 f"{len(compiled)} losses" if c_rc == 0 else c_err.strip()[-200:],
                 "runs, same losses, one notice" if same else "FAILED", f"- / {c_s:.1f}"))

    child = os.path.join(PROGRAMS, "child_sees_gpus.py")
    p_out, _, p_cs, _ = _run([sys.executable, child])
    s_out, s_err, p_ss, s_rc = _run([*FERRY, child])
    want = "parent True 1\nchild True 1 cuda:0\n"
    same = s_rc == 0 and s_out == want
    ok &= same
    rows.append(("subprocess child", p_out.strip().replace("\n", "; "),
                 s_out.strip().replace("\n", "; ") or s_err.strip()[-200:],
                 "child sees the simulated GPU" if same else "FAILED", f"{p_cs:.1f} / {p_ss:.1f}"))

    import torch
    import transformers

    print(f"torch {torch.__version__}, transformers {transformers.__version__}, "
          f"Python {sys.version.split()[0]}")
    print("| program | CPU run | simulated cuda | result | wall s (CPU / simulated) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
