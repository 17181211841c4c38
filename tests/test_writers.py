"""Every file torchferry writes goes through the one atomic helper: ``ferry check --fix``
and the ``ferry run --report`` file."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys

import pytest

from torchferry.cli import main

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
FIXABLE = "import torch\nx = torch.zeros(2).cuda()\n"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    return tmp_path


def _fix(capsys, *paths):
    rc = main(["check", "--fix", "--no-cache", "--select", "ALL", *paths])
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------- ferry check --fix
def test_fix_keeps_hard_links(proj, capsys):
    """--fix broke hard links (the other name kept the old text)."""
    a = proj / "a.py"
    a.write_text(FIXABLE)
    os.link(a, proj / "b_link.py")
    _fix(capsys, "a.py")
    assert a.read_text() != FIXABLE
    assert (proj / "b_link.py").read_text() == a.read_text()
    assert a.stat().st_nlink == 2


def test_fix_refuses_a_read_only_file_like_open(proj, capsys, monkeypatch):
    """--fix rewrote 0444 files.  As root open() may write them, so the refusal the
    OS gives a user is simulated for that one path."""
    a = proj / "a.py"
    a.write_text(FIXABLE)
    os.chmod(a, 0o444)
    real = os.open

    def as_a_user(path, flags, *args):
        if os.path.abspath(os.fspath(path)) == str(a) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", as_a_user)
    rc, out, err = _fix(capsys, "a.py")
    assert rc == 2 and "Permission denied" in (out + err)
    assert a.read_text() == FIXABLE and stat.S_IMODE(a.stat().st_mode) == 0o444


def test_fix_through_a_symlink_edits_the_target(proj, capsys):
    real = proj / "real.py"
    real.write_text(FIXABLE)
    (proj / "link.py").symlink_to(real)
    _fix(capsys, "link.py")
    assert (proj / "link.py").is_symlink() and real.read_text() != FIXABLE


# ------------------------------------------------------------- ferry run --report
def _script(tmp_path):
    s = tmp_path / "ok.py"
    s.write_text("print('from the script')\n")
    return s


@pytest.mark.slow
def test_report_to_stdout_goes_after_the_scripts_output(tmp_path):
    """--report /dev/stdout was refused as a user ("directory /dev is not
    writable") and, as root, replaced the link.  A link to /dev/stdout inside tmp_path
    takes the same path through /proc/self/fd/1 without risking the real one."""
    out = tmp_path / "out.txt"
    link = tmp_path / "stdout"
    link.symlink_to("/dev/stdout")
    with open(out, "w") as fh:
        r = subprocess.run([sys.executable, "-m", "torchferry", "run", "--report", str(link),
                            str(_script(tmp_path))], stdout=fh, stderr=subprocess.PIPE,
                           text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.startswith("from the script\n")
    assert json.loads(text[len("from the script\n"):]) == {"error": None, "trips": []}
    assert link.is_symlink()


def test_report_path_check_accepts_dev_stdout():
    from torchferry.diagnose.run import check_report_path

    assert check_report_path("/dev/stdout") == "/dev/stdout"


@pytest.mark.skipif(not ROOT, reason="creating a device node needs root")
def test_report_into_a_character_device(tmp_path, capsys):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    assert main(["run", "--report", str(dev), str(_script(tmp_path))]) == 0
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "ok.py"]


def test_report_file_gets_the_umask_like_a_checkpoint(tmp_path, capsys):
    """The report file was created 0600 while checkpoints got the umask."""
    report = tmp_path / "r.json"
    assert main(["run", "--report", str(report), str(_script(tmp_path))]) == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o666 & ~_umask()
    os.chmod(report, 0o640)
    assert main(["run", "--report", str(report), str(_script(tmp_path))]) == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o640


def test_report_through_a_symlink_writes_the_target(tmp_path, capsys):
    target = tmp_path / "reports" / "r.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "r.json"
    link.symlink_to(target)
    assert main(["run", "--report", str(link), str(_script(tmp_path))]) == 0
    assert link.is_symlink() and json.loads(target.read_text())["error"] is None
