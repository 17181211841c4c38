"""``pytest --ferry-simulate cuda --ferry-memory SIZE``: what mem_get_info() reports."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # starts pytest processes


def _pytest(tmp_path, *options):
    (tmp_path / "test_mem.py").write_text(
        "import torch\n\n"
        "def test_mem():\n"
        "    print('mem', torch.cuda.mem_get_info(), "
        "torch.cuda.get_device_properties(0).total_memory)\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *options,
         str(tmp_path / "test_mem.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )


def test_ferry_memory_sets_the_simulated_size(tmp_path):
    r = _pytest(tmp_path, "--ferry-simulate", "cuda", "--ferry-memory", "24GiB")
    size = 24 * 1024**3
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"mem ({size}, {size}) {size}" in r.stdout


def test_ferry_memory_bad_size_is_a_usage_error(tmp_path):
    r = _pytest(tmp_path, "--ferry-simulate", "cuda", "--ferry-memory", "lots")
    assert r.returncode == 4  # pytest's usage error
    assert "--ferry-memory: invalid memory size 'lots'" in r.stderr
