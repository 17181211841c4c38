"""The one atomic-write helper: complete or not at all, and otherwise what ``open(path, "wb")`` does.

Its users (checkpoints, ``--fix``, the check cache, the ``ferry run`` report) are
tested through the helper's behaviour here and end to end in their own tests.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from torchferry._internal import atomic
from torchferry._internal.atomic import TMP_SUFFIX, write_atomic, write_bytes

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def _open_error(path) -> OSError:
    try:
        with open(path, "wb"):
            pass
    except OSError as exc:
        return exc
    raise AssertionError(f"open({path!r}) succeeded")


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.endswith((TMP_SUFFIX, ".tmp")))


# ------------------------------------------------------------- the ordinary case
def test_new_file_gets_the_umask_like_open(tmp_path):
    p = tmp_path / "a.bin"
    write_bytes(p, b"x")
    assert p.read_bytes() == b"x"
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~_umask()
    assert _leftovers(tmp_path) == []


def test_existing_mode_is_kept(tmp_path):
    p = tmp_path / "a.bin"
    p.write_bytes(b"old")
    os.chmod(p, 0o640)
    write_bytes(p, b"new")
    assert p.read_bytes() == b"new" and stat.S_IMODE(p.stat().st_mode) == 0o640


def test_a_failing_writer_leaves_the_target_alone(tmp_path):
    p = tmp_path / "a.bin"
    p.write_bytes(b"good")

    def half(fh):
        fh.write(b"half")
        raise RuntimeError("serialiser broke")

    with pytest.raises(RuntimeError, match="serialiser broke"):
        write_atomic(p, half)
    assert p.read_bytes() == b"good" and _leftovers(tmp_path) == []


def test_fsyncs_file_and_directory(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.fstat(fd).st_mode) or real(fd))
    write_bytes(tmp_path / "a", b"x")
    assert any(stat.S_ISREG(m) for m in synced) and any(stat.S_ISDIR(m) for m in synced)


# ------------------------------------------------------------- symlinks and hard links
def test_symlink_target_is_written_and_the_link_stays(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "model.pt"
    target.write_bytes(b"old")
    link = tmp_path / "model.pt"
    link.symlink_to(target)
    write_bytes(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert _leftovers(tmp_path) == [] and _leftovers(shared) == []


def test_relative_symlink_chain_and_dangling_link(tmp_path):
    (tmp_path / "real").write_bytes(b"old")
    (tmp_path / "l1").symlink_to("real")
    (tmp_path / "l2").symlink_to("l1")
    write_bytes(tmp_path / "l2", b"new")
    assert (tmp_path / "real").read_bytes() == b"new" and (tmp_path / "l2").is_symlink()
    (tmp_path / "dangling").symlink_to("created-by-write")
    write_bytes(tmp_path / "dangling", b"x")  # open() creates the link's target too
    assert (tmp_path / "created-by-write").read_bytes() == b"x"
    assert (tmp_path / "dangling").is_symlink()


def test_symlink_loop_is_the_os_error(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OSError) as info:
        write_bytes(tmp_path / "a", b"x")
    assert info.value.errno == _open_error(tmp_path / "a").errno == errno.ELOOP


def test_hard_links_all_see_the_new_content(tmp_path):
    """Decision: a hard-linked file is rewritten in place once the new content is complete
    (as open() would), instead of the rename detaching this name from the others."""
    a = tmp_path / "a.py"
    a.write_bytes(b"old")
    b = tmp_path / "b.py"
    os.link(a, b)
    write_bytes(a, b"new")
    assert b.read_bytes() == b"new" and a.stat().st_ino == b.stat().st_ino
    assert a.stat().st_nlink == 2 and _leftovers(tmp_path) == []


def test_hard_linked_file_untouched_when_the_writer_fails(tmp_path):
    a = tmp_path / "a"
    a.write_bytes(b"good")
    os.link(a, tmp_path / "b")

    def boom(fh):
        fh.write(b"par")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError):
        write_atomic(a, boom)
    assert (tmp_path / "b").read_bytes() == b"good"


# ------------------------------------------------------------- devices and pipes
@pytest.mark.skipif(ROOT, reason="as root a regression would replace the real /dev/null for "
                    "every process: the device node made by the next test covers root")
def test_dev_null_stays_a_device():
    """Renaming over /dev/null replaced the device node (as root) or was refused (as a user:
    'directory /dev is not writable')."""
    before = os.stat("/dev/null")
    write_bytes("/dev/null", b"x" * 1000)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert not [n for n in os.listdir("/dev") if n.endswith(TMP_SUFFIX)]


@pytest.mark.skipif(not ROOT, reason="creating a device node needs root")
def test_character_device_is_written_into_not_replaced(tmp_path):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a second /dev/null
    link = tmp_path / "out"
    link.symlink_to(dev)
    for p in (dev, link):
        write_bytes(p, b"payload")
    assert stat.S_ISCHR(os.lstat(dev).st_mode) and link.is_symlink()
    assert _leftovers(tmp_path) == []


def test_fifo_gets_the_bytes_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = _fifo_reader(fifo, got)
    write_bytes(fifo, b"through the pipe")
    _finish(reader, fifo)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dev_stdout_redirected_to_a_file_writes_into_that_file(tmp_path):
    """/dev/stdout -> /proc/self/fd/1 -> the shell's file: replacing that file would lose
    everything else written to stdout, so it is written into."""
    out = tmp_path / "out.txt"
    code = (
        "import sys; from torchferry._internal.atomic import write_text\n"
        "print('before', flush=True)\n"
        "write_text('/dev/stdout', 'report\\n')\n"
        "print('after', flush=True)\n"
    )
    with open(out, "w") as fh:
        subprocess.run([sys.executable, "-c", code], stdout=fh, check=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.read_text() == "before\nreport\nafter\n"


# ------------------------------------------------------------- what the OS refuses
@pytest.mark.parametrize("make", ["missing", "file", "dir"])
def test_trailing_slash_is_the_os_error(tmp_path, make):
    base = tmp_path / "foo"
    if make == "file":
        base.write_bytes(b"keep")
    elif make == "dir":
        base.mkdir()
    path = str(base) + "/"
    expected = _open_error(path)
    with pytest.raises(type(expected)) as info:
        write_bytes(path, b"x")
    assert info.value.errno == expected.errno
    assert not (base.is_file() and base.read_bytes() != b"keep")
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if make == "missing" else ["foo"])


def test_directory_is_the_os_error(tmp_path):
    with pytest.raises(IsADirectoryError):
        write_bytes(tmp_path, b"x")


def test_missing_directory_is_the_os_error(tmp_path):
    p = tmp_path / "nope" / "a"
    with pytest.raises(FileNotFoundError) as info:
        write_bytes(p, b"x")
    assert info.value.filename == str(p)


@pytest.mark.skipif(ROOT, reason="root may write a read-only file, as with open()")
def test_read_only_file_is_refused_like_open(tmp_path):
    p = tmp_path / "ro"
    p.write_bytes(b"keep")
    os.chmod(p, 0o444)
    with pytest.raises(PermissionError) as info:
        write_bytes(p, b"x")
    assert info.value.filename == str(p)
    assert p.read_bytes() == b"keep" and stat.S_IMODE(p.stat().st_mode) == 0o444


@pytest.mark.skipif(not ROOT, reason="what root gets")
def test_read_only_file_as_root_is_written_like_open(tmp_path):
    p = tmp_path / "ro"
    p.write_bytes(b"old")
    os.chmod(p, 0o444)
    with open(p, "wb"):  # open() lets root write it ...
        pass
    write_bytes(p, b"new")  # ... and so do we, keeping the mode
    assert p.read_bytes() == b"new" and stat.S_IMODE(p.stat().st_mode) == 0o444


def test_read_only_file_refused_whatever_the_user(tmp_path, monkeypatch):
    """The refusal comes from the OS's own open(O_WRONLY); simulate the EACCES it gives a
    non-root user so the path is exercised as root too."""
    p = tmp_path / "ro"
    p.write_bytes(b"keep")
    real = os.open

    def fake_open(path, flags, *a):
        if os.fspath(path) == str(p) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path, flags, *a)

    monkeypatch.setattr(os, "open", fake_open)
    with pytest.raises(PermissionError, match="Permission denied") as info:
        write_bytes(p, b"x")
    assert info.value.filename == str(p) and p.read_bytes() == b"keep"
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(ROOT, reason="root can create files in a read-only directory")
def test_read_only_directory_new_file_refused(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    os.chmod(d, 0o555)
    try:
        with pytest.raises(PermissionError):
            write_bytes(d / "x", b"x")
    finally:
        os.chmod(d, 0o755)


def test_closed_directory_but_writable_file_is_written_in_place(tmp_path, monkeypatch):
    p = tmp_path / "a"
    p.write_bytes(b"old")

    def no_temp(directory, name):
        raise PermissionError(errno.EACCES, "Permission denied", directory)

    monkeypatch.setattr(atomic, "_create_temp", no_temp)
    write_bytes(p, b"new")  # open(p, "wb") would succeed, so we do too
    assert p.read_bytes() == b"new"


@pytest.mark.skipif(not ROOT, reason="chown needs root")
def test_owner_is_kept_when_root_rewrites_a_users_file(tmp_path):
    p = tmp_path / "a"
    p.write_bytes(b"old")
    os.chown(p, 1234, 1234)
    write_bytes(p, b"new")
    st = p.stat()
    assert (st.st_uid, st.st_gid) == (1234, 1234)


# ------------------------------------------------------------- stale temporary files
def _stale(d: Path, name: str, age: float, suffix: str | None = None) -> Path:
    t = d / (f".{name}.0123456789ab{TMP_SUFFIX}" if suffix is None else suffix)
    t.write_bytes(b"x" * 100)
    old = time.time() - age
    os.utime(t, (old, old))
    return t


def test_stale_temp_of_a_killed_write_is_removed(tmp_path):
    stale = _stale(tmp_path, "model.pt", 60)
    fresh = _stale(tmp_path, "model.pt", 0, f".model.pt.ba9876543210{TMP_SUFFIX}")
    other = _stale(tmp_path, "other.pt", 60)  # another path's: not ours to judge now
    lookalike = _stale(tmp_path, "model.pt", 60, ".model.pt.notours.ferry-tmp")
    legacy = _stale(tmp_path, "model.pt", 2 * 3600, ".model.pt.ab_cd123.tmp")
    legacy_recent = _stale(tmp_path, "model.pt", 60, ".model.pt.zz_cd123.tmp")
    write_bytes(tmp_path / "model.pt", b"x")
    assert not stale.exists() and not legacy.exists()
    assert fresh.exists() and other.exists() and lookalike.exists() and legacy_recent.exists()


def test_locked_temp_of_a_running_write_is_kept(tmp_path):
    """A concurrent writer holds a lock on its temporary file: never deleted under it."""
    import fcntl

    t = _stale(tmp_path, "model.pt", 60)
    fd = os.open(t, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        code = (
            "from torchferry._internal.atomic import write_bytes\n"
            f"write_bytes({str(tmp_path / 'model.pt')!r}, b'x')\n"
        )
        subprocess.run([sys.executable, "-c", code], check=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert t.exists()
    finally:
        os.close(fd)
    write_bytes(tmp_path / "model.pt", b"y")  # now unlocked and old: ours to clean
    assert not t.exists()


def test_symlinked_lookalike_temp_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    t = tmp_path / f".model.pt.0123456789ab{TMP_SUFFIX}"
    t.symlink_to(victim)
    write_bytes(tmp_path / "model.pt", b"x")
    assert victim.read_bytes() == b"precious"


def test_long_names_fit(tmp_path):
    name = "n" * 250
    write_bytes(tmp_path / name, b"x")
    assert (tmp_path / name).read_bytes() == b"x"


def _fifo_reader(fifo, got):

    t = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    t.start()
    return t


def _finish(t, fifo):
    t.join(10)
    if t.is_alive():  # nothing wrote into the FIFO: release the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(5)


def test_file_system_without_chmod_or_fsync_still_works(tmp_path, monkeypatch):
    """vfat cannot chmod, some FUSE file systems cannot fsync: open() writes there, so do we."""
    p = tmp_path / "a"
    p.write_bytes(b"old")

    def no(*a):
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    monkeypatch.setattr(os, "fchmod", no)
    monkeypatch.setattr(os, "fsync", no)
    write_bytes(p, b"new")
    assert p.read_bytes() == b"new"


def test_bind_mounted_file_is_written_in_place(tmp_path, monkeypatch):
    """A file bind-mounted on its own cannot be renamed over (EBUSY); open() writes it."""
    p = tmp_path / "model.pt"
    p.write_bytes(b"old")
    ino = p.stat().st_ino

    def busy(src, dst):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), src, None, dst)

    monkeypatch.setattr(os, "replace", busy)
    write_bytes(p, b"new content")
    assert p.read_bytes() == b"new content" and p.stat().st_ino == ino
    assert _leftovers(tmp_path) == []
    monkeypatch.setattr(os, "replace", lambda s, d: (_ for _ in ()).throw(
        OSError(errno.EIO, os.strerror(errno.EIO))))
    with pytest.raises(OSError, match="Input/output"):
        write_bytes(p, b"x")
    assert p.read_bytes() == b"new content" and _leftovers(tmp_path) == []
