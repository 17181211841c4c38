"""What ``ferry check --fix`` writes, and what it walks, under faults: an edit saved while
the run is checking, a file that cannot be written, leftovers of a killed run, a tree
deeper than Python's recursion limit, a directory only root may list, stdin closed."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from torchferry._internal.atomic import TMP_SUFFIX
from torchferry.check import runner
from torchferry.cli import main

BAD = "import torch\nx.to(d)\n"
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def proj(tmp_path, monkeypatch, fake_rules):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    return tmp_path


def run(capsys, *argv):
    rc = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_an_edit_saved_during_the_run_is_never_overwritten(proj, capsys, monkeypatch):
    """The file is edited after --fix read it and before the fixed text is written: the
    edit stays, the file is named, the exit status is 2."""
    a = proj / "a.py"
    a.write_text(BAD)
    real = runner.check_bytes

    def check_then_user_saves(path, data, opts, display):
        result = real(path, data, opts, display)
        if opts.fix:
            a.write_text(BAD + "y = 1  # the user's edit\n")
        return result

    monkeypatch.setattr(runner, "check_bytes", check_then_user_saves)
    rc, out, err = run(capsys, "--fix", "a.py")
    assert a.read_text() == BAD + "y = 1  # the user's edit\n"
    assert rc == 2
    assert "a.py: changed on disk while it was checked: fixes not written" in err
    assert "All checks passed" not in out


def test_a_file_that_cannot_be_written_keeps_its_findings(proj, capsys, monkeypatch):
    (proj / "a.py").write_text(BAD)

    def full_disk(path, data, **kw):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(runner, "write_bytes", full_disk)
    rc, out, err = run(capsys, "--fix", "a.py")
    assert rc == 2 and "could not write the fixes" in err
    assert "All checks passed" not in out and "FRY901" in out
    rc, out, err = run(capsys, "--fix", "--format", "json", "a.py")
    assert rc == 2 and [d["code"] for d in json.loads(out)] == ["FRY901"]
    assert (proj / "a.py").read_text() == BAD


def test_leftover_of_a_killed_fix_is_removed_by_the_next_fix(proj, capsys):
    (proj / "a.py").write_text("import torch\n")  # nothing to fix: no write happens
    left = proj / f".a.py.0123456789ab{TMP_SUFFIX}"
    left.write_text("import torch\nhalf")
    old = time.time() - 60
    os.utime(left, (old, old))
    rc, out, err = run(capsys, "--fix", ".")
    assert rc == 0, err
    assert not left.exists()


def test_a_thousand_level_tree_is_checked(proj, capsys):
    d = proj
    for _ in range(1000):
        d = d / "d"
        d.mkdir()  # one level at a time (mkdir(parents=True) recurses too)
    (d / "deep.py").write_text(BAD)
    assert len(str(d)) < 4096
    try:
        rc, out, err = run(capsys, ".")
        assert rc == 1, err
        assert "deep.py:2:1: FRY901" in out
    finally:  # shutil.rmtree (pytest's clean-up of old temporary trees) recurses
        (d / "deep.py").unlink()
        while d != proj:
            d.rmdir()
            d = d.parent


def _in_child_as_user(fn, uid: int = 65533) -> tuple[int, str]:
    """``fn()`` (returning an exit status) in a forked child that dropped root; its status
    and what it printed."""
    if not ROOT or not hasattr(os, "fork"):
        pytest.skip("needs root (to become another user) and fork")
    import tempfile

    fd, log = tempfile.mkstemp()
    os.chmod(log, 0o666)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 3
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            sys.stdout = sys.stderr = open(log, "w")  # noqa: SIM115
            code = fn()
            sys.stdout.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    text = Path(log).read_text()
    os.close(fd)
    os.unlink(log)
    return os.waitstatus_to_exitcode(status), text


def test_unreadable_directory_is_reported_not_skipped(tmp_path, fake_rules):
    import shutil

    base = Path(tempfile_dir := __import__("tempfile").mkdtemp(prefix="ferry-walk-"))
    try:
        os.chmod(base, 0o755)
        (base / "pyproject.toml").write_text('[project]\nname = "p"\n')
        (base / "ok.py").write_text("import torch\n")
        closed = base / "closed"
        closed.mkdir()
        (closed / "hidden.py").write_text(BAD)
        os.chmod(closed, 0o700)  # root's: another user cannot list it
        rc, text = _in_child_as_user(lambda: main(["check", "--no-cache", tempfile_dir]))
        assert rc == 2, text
        assert "closed: cannot read the directory, its files were not checked" in text
        assert "All checks passed" not in text
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_stdin_closed_is_a_one_line_error(proj, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)  # what python gives for `ferry check - <&-`
    rc, out, err = run(capsys, "-")
    assert rc == 2
    assert err.strip() == "ferry check: error: cannot read the source from stdin: it is closed"


# ------------------------------------------------------------- fixes and notebooks, real rules
def _nb(source) -> str:
    import json as _json

    return _json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                   "source": source}],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "P"}},
        "nbformat": 4, "nbformat_minor": 5,
    }, indent=1)


def test_fry009_safe_fix_is_offered_with_a_comment_after_the_call():
    from torchferry.check import engine

    src = 'import torch\nx = torch.zeros(3).to("cuda")  # on the GPU\n'
    res = engine.fix_source(src, "a.py", unsafe=False, select=("FRY009",))
    assert res.source == 'import torch\nx = torch.zeros(3, device="cuda")  # on the GPU\n'
    kept = 'import torch\nx = torch.zeros(3).to(  # why\n    "cuda")\n'  # inside: not deleted
    assert engine.fix_source(kept, "a.py", unsafe=False, select=("FRY009",)).source == kept


@pytest.mark.parametrize("source, fixed", [
    (["import torch\nx = torch.zeros(3).to(\"cuda\")\n", "y = 1\nz = 2\n", "w = 3"],
     ["import torch\nx = torch.zeros(3, device=\"cuda\")\n", "y = 1\nz = 2\n", "w = 3"]),
    (["import torch\n", "x = torch.zeros(3).to(\"cuda\")\ny = 1\n", "z = 2\n", "w = 3"],
     ["import torch\n", "x = torch.zeros(3, device=\"cuda\")\ny = 1\n", "z = 2\n", "w = 3"]),
])
def test_notebook_fix_keeps_the_source_list_layout_beyond_the_edit(tmp_path, monkeypatch, source, fixed):
    import json as _json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "n.ipynb").write_text(_nb(source))
    assert main(["check", "--no-cache", "--fix", "--select", "FRY009", "n.ipynb"]) == 0
    assert _json.loads((tmp_path / "n.ipynb").read_text())["cells"][0]["source"] == fixed


def test_a_notebook_spelling_torch_with_json_escapes_is_checked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = _nb(["import T\n", "x = T.zeros(3).to(\"cuda\")\n"]).replace("T", "\\u0074orch")
    assert b"torch" not in text.encode()
    (tmp_path / "n.ipynb").write_text(text)
    rc = main(["check", "--no-cache", "--select", "FRY009", "n.ipynb"])
    assert rc == 1 and "FRY009" in capsys.readouterr().out
