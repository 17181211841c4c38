"""Acceptance: the lesson's programs under ``ferry run --simulate cuda`` print the GPU output."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import torchferry

pytestmark = pytest.mark.slow  # starts processes / runs whole programs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FERRY = [sys.executable, "-m", "torchferry"]
PACKAGE = os.path.dirname(os.path.abspath(torchferry.__file__)) + os.sep

GPU_OUTPUT = "using: cuda\ncpu\ncuda:0\ntensor([2., 2., 2.], device='cuda:0')\n[2. 2. 2.]\n"
CPU_OUTPUT = "using: cpu\ncpu\ncpu\ntensor([2., 2., 2.])\n[2. 2. 2.]\n"
MIXING = (
    "RuntimeError: Expected all tensors to be on the same device, but found at least two "
    "devices, cuda:0 and cpu!"
)


def _ferry(*args):
    return subprocess.run(
        [*FERRY, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_lesson_program_prints_gpu_output():
    r = _ferry("run", "--simulate", "cuda", "examples/lesson_portable.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout == GPU_OUTPUT


def test_lesson_program_without_simulation_prints_cpu_output():
    r = _ferry("run", "examples/lesson_portable.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout == CPU_OUTPUT


def test_lesson_mixing_snippet_raises_the_lessons_error():
    r = _ferry("run", "--simulate", "cuda", "examples/lesson_mixing.py")
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert MIXING in lines  # the exception line, exactly
    traceback_part = r.stderr[: r.stderr.index(MIXING)]
    assert 'examples/lesson_mixing.py", line 5' in traceback_part
    # The traceback reads as on a GPU: no frame from our package.  (Frames are matched by
    # file path, not by the word "torchferry", which a clone's own folder name contains.)
    files = re.findall(r'^  File "([^"]+)"', traceback_part, re.MULTILINE)
    assert files and not [f for f in files if os.path.abspath(f).startswith(PACKAGE)], files
