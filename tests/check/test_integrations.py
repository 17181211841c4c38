"""flake8 plugin, pre-commit hook definition, and `ferry check` never importing torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from torchferry.check.flake8_plugin import Plugin

pytestmark = pytest.mark.slow  # starts processes / runs whole programs

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_plugin_class_protocol(fake_rules):
    import ast

    src = 'import torch\n# é\ns = "é"; d = "cuda"\n'
    plugin = Plugin(ast.parse(src), "x.py", src.splitlines(keepends=True))
    assert Plugin.name == "torchferry" and Plugin.version
    # 0-based character column (the byte offset would be 14), flake8 prints it + 1
    assert list(plugin.run()) == [(3, 13, 'FRY902 hard-coded "cuda"', Plugin)]
    assert list(Plugin(ast.parse("x = 1\n"), "y.py", ["x = 1\n"]).run()) == []


def test_flake8_runs_the_plugin_with_ferry_columns(tmp_path):
    src = 'import torch\n\nx = torch.load("m.pt")\ny = torch.load("m.pt")  # noqa: FRY004\n'
    f = tmp_path / "t.py"
    f.write_text(src)
    proc = subprocess.run(
        [str(BIN / "flake8"), "--select", "FRY004", str(f)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{f}:3:5: FRY004 ")
    ferry = subprocess.run(
        [str(BIN / "ferry"), "check", "--select", "FRY004", "--no-cache", str(f)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert ferry.stdout.splitlines()[0].startswith(f"{f.name}:3:5: FRY004 ")


def test_pre_commit_hook_definition():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "ferry-check"
    assert hook["entry"].split()[:2] == ["ferry", "check"]
    assert hook["language"] == "python"
    assert set(hook["types_or"]) == {"python", "jupyter"}
    # the entry runs as pre-commit runs it: with the staged file names appended
    proc = subprocess.run(
        [str(BIN / hook["entry"].split()[0]), *hook["entry"].split()[1:], "--no-cache", __file__],
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr


def test_flake8_entry_point_registered():
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="flake8.extension") if e.name == "FRY"]
    assert ep.load() is Plugin


def test_ferry_check_never_imports_torch(tmp_path):
    f = tmp_path / "t.py"
    f.write_text('import torch\nx = torch.zeros(3)\nx.to("cuda")\n')
    nb = tmp_path / "n.ipynb"
    nb.write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,'
        ' "source": ["import torch\\n", "torch.load(\'m.pt\')"]}], "metadata": {},'
        ' "nbformat": 4, "nbformat_minor": 5}'
    )
    code = (
        "import sys\n"
        "from torchferry.cli import main\n"
        f"rc = main(['check', '--no-cache', '--jobs', '1', {str(tmp_path)!r}])\n"
        "bad = sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.'))\n"
        "print('IMPORTED', bad)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr  # it found something, so the rules ran
    assert "FRY" in proc.stdout
    assert "IMPORTED []" in proc.stdout
    # and the CLI entry point itself, measured with -X importtime
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "torchferry", "check", "--no-cache", str(f)],
        capture_output=True,
        text=True,
    )
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "torchferry.check.engine" in imported
    assert "torch" not in imported and "numpy" not in imported


def _run_in_tty(argv, env):
    import os
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.run(argv, stdout=slave, stderr=slave, env=env, timeout=600)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the other side is closed and drained
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.returncode, b"".join(chunks)


def test_colour_on_a_terminal_unless_no_color(tmp_path):
    import os

    f = tmp_path / "t.py"
    f.write_text('import torch\nstate = torch.load("m.pt")\n')
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm"
    argv = [str(BIN / "ferry"), "check", "--no-cache", "--select", "ALL", str(f)]
    rc, data = _run_in_tty(argv, env)
    assert rc == 1 and b"FRY004" in data and b"\x1b[" in data
    rc, data = _run_in_tty(argv, {**env, "NO_COLOR": "1"})
    assert rc == 1 and b"FRY004" in data and b"\x1b[" not in data
