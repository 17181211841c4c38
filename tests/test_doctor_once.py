"""``ferry doctor`` says a device override's fix once."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_doctor_prints_the_override_fix_once(monkeypatch):
    env = {"TORCHFERRY_DEVICE": "cudaa", "PATH": "/usr/bin:/bin"}
    import os

    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable, "-m", "torchferry", "doctor"], capture_output=True,
                         text=True, timeout=600, env=env)  # fmt: skip
    assert res.returncode == 1
    out = res.stdout
    assert out.lower().count("unset torchferry_device") == 1, out
    assert out.count("'cudaa' was asked for") == 1, out
    assert "    fix: unset TORCHFERRY_DEVICE or set it to an available device\n" in out + "\n"
