"""Real programs under ``ferry run --simulate cuda`` next to their CPU run.

``python benchmarks/sim_programs.py [--steps 20] [--cpu-compile]`` (needs ``pip install
transformers==5.24.0 accelerate``, the versions measured with torch 2.13.0) runs, each as its
own process:

1. a tiny GPT-2 (transformers' ``GPT2LMHeadModel``, a config built locally) trained for
   STEPS steps with ``python`` on the CPU and with ``ferry run --simulate cuda``: the
   losses must be the same (no dropout: nothing is drawn on the device);
2. the same script with ``--compile`` (``torch.compile(model)``) under the simulation:
   it must run and give the same losses as the CPU run without compile;
3. a script that starts a Python child: under the simulation the child must see the
   simulated GPU;
4. the tiny GPT-2 trained by Hugging Face's ``Trainer`` with
   ``TrainingArguments(torch_compile=True)`` (``sim_programs/trainer_compile.py``, 4 steps)
   under the simulation: the same losses as the CPU run without compile (the simulation
   runs the compiled model eagerly); with ``--cpu-compile`` also the CPU run with compile
   (inductor's C++ kernels: minutes here), whose losses may differ in the last digits;
5. a script that starts ``accelerate launch --multi_gpu --num_processes 2`` under
   ``--device-count 2``: each rank on its own simulated GPU with an NCCL group.

Prints a table (program, CPU, simulated, verdict, wall seconds) and exits 1 if a check
fails.  Wall times are of the whole processes (imports included) on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
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


def _trainer_rows(cpu_compile: bool) -> tuple[list[tuple[str, ...]], bool]:
    """Hugging Face Trainer with torch_compile=True, simulated, beside the CPU run(s)."""
    script = os.path.join(PROGRAMS, "trainer_compile.py")
    with tempfile.TemporaryDirectory() as tmp:
        e_out, e_err, e_s, e_rc = _run([sys.executable, script, tmp, "--no-compile"])
        s_out, s_err, s_s, s_rc = _run([*FERRY, script, tmp])
        eager, sim = _losses(e_out), _losses(s_out)
        same = e_rc == s_rc == 0 and eager == sim and len(sim) > 0 and "device cuda:0" in s_out
        rows = [("HF Trainer, TrainingArguments(torch_compile=True)",
                 f"{len(eager)} losses without compile, last {eager[-1:]}",
                 f"{len(sim)} losses on cuda:0, compiled" if s_rc == 0 else s_err.strip()[-200:],
                 "same losses" if same else "DIFFER", f"{e_s:.1f} / {s_s:.1f}")]
        if cpu_compile:
            c_out, c_err, c_s, c_rc = _run([sys.executable, script, tmp])
            comp = _losses(c_out)
            close = c_rc == 0 and len(comp) == len(sim) and all(
                abs(float(a) - float(b)) <= 1e-6 * abs(float(a)) for a, b in zip(comp, sim, strict=True))
            rows.append(("the same Trainer, CPU run with compile (inductor)",
                         f"{len(comp)} losses, last {comp[-1:]}" if c_rc == 0 else c_err[-200:],
                         f"last {sim[-1:]}", "within 1e-6 relative" if close else "DIFFER",
                         f"{c_s:.1f} / -"))
            same &= close
    return rows, same


def _accelerate_row() -> tuple[tuple[str, ...], bool]:
    script = os.path.join(PROGRAMS, "accelerate_launch.py")
    out, err, secs, rc = _run([*FERRY, "--device-count", "2", script, "2"])
    lines = sorted(x for x in out.splitlines() if x.startswith("rank "))
    want = ["rank 0 of 2 device cuda:0 backend nccl sum 3.0 on cuda:0",
            "rank 1 of 2 device cuda:1 backend nccl sum 3.0 on cuda:1"]
    ok = rc == 0 and lines == want
    return (("accelerate launch --multi_gpu --num_processes 2 (a subprocess)", "-",
             "; ".join(lines) or err.strip()[-200:],
             "each rank on its own simulated GPU" if ok else "FAILED", f"- / {secs:.1f}"), ok)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--cpu-compile", action="store_true",
                    help="also run the Trainer on the CPU with torch_compile=True (slow)")
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

    rows_trainer, ok_trainer = _trainer_rows(ap.parse_args().cpu_compile)
    rows += rows_trainer
    ok &= ok_trainer
    row, ok_launch = _accelerate_row()
    rows.append(row)
    ok &= ok_launch

    import accelerate
    import torch
    import transformers

    print(f"torch {torch.__version__}, transformers {transformers.__version__}, "
          f"accelerate {accelerate.__version__}, Python {sys.version.split()[0]}")
    print("| program | CPU run | simulated cuda | result | wall s (CPU / simulated) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
