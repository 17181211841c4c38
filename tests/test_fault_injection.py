"""Fault injection for everything torchferry writes: kill -9 mid-save, a full disk, read-only
directories and file systems, concurrent writers of the same path.

The invariant under every fault: the target is either the complete old content or the
complete new one, the error is the one ``open()``/``torch.save`` would give, and no
temporary file outlives the next write.  A full disk and a read-only file system are real
(a 1 MiB tmpfs) when the tests run as root and ``mount`` works, else simulated with a
writer that raises what the kernel would.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import torchferry as tf
from torchferry._internal import atomic
from torchferry._internal.atomic import TMP_SUFFIX, write_atomic, write_bytes

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _temps(d: Path) -> list[str]:
    return [p.name for p in d.iterdir() if p.name.endswith(TMP_SUFFIX)]


@contextlib.contextmanager
def _tmpfs(path: Path, size: str = "1m"):
    """A small tmpfs at ``path`` (root only); skips the test when it cannot be mounted."""
    if not ROOT:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


# ------------------------------------------------------------- kill -9 during save
SAVER = """
import sys, torch, torchferry
path, value = sys.argv[1], float(sys.argv[2])
print("ready", flush=True)
torchferry.save({"w": torch.full((4_000_000,), value), "value": value}, path)
print("done", flush=True)
"""


@pytest.mark.slow
def test_kill_9_during_save_never_leaves_a_half_checkpoint(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.full((4_000_000,), 0.0), "value": 0.0}, p)
    rng = random.Random(0)
    values = {0.0}
    for i in range(1, 5):
        proc = subprocess.Popen([sys.executable, "-c", SAVER, str(p), str(float(i))],
                                stdout=subprocess.PIPE, env=ENV)
        assert proc.stdout is not None
        proc.stdout.readline()  # torch imported, the save is about to start
        time.sleep(rng.uniform(0.0, 0.15))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        values.add(float(i))
        got = tf.load(p)  # always a whole checkpoint: the old one or one of the new ones
        assert got["value"] in values
        assert torch.equal(got["w"], torch.full((4_000_000,), got["value"]))
    monkeypatch.setattr(atomic, "STALE_AFTER", 0.0)
    tf.save({"w": torch.ones(1), "value": -1.0}, p)
    assert _temps(tmp_path) == [] and [x.name for x in tmp_path.iterdir()] == ["ckpt.pt"]


def test_kill_9_mid_write_keeps_the_old_file(tmp_path):
    p = tmp_path / "data.bin"
    write_bytes(p, b"old content")
    code = (
        "import os\n"
        "from torchferry._internal.atomic import write_atomic\n"
        "def half(fh):\n"
        "    fh.write(b'new con'); fh.flush(); os.kill(os.getpid(), 9)\n"
        f"write_atomic({str(p)!r}, half)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=ENV)
    assert r.returncode == -signal.SIGKILL
    assert p.read_bytes() == b"old content"
    assert len(_temps(tmp_path)) == 1  # the killed write's leftover ...
    old = time.time() - 3600
    os.utime(tmp_path / _temps(tmp_path)[0], (old, old))
    write_bytes(p, b"newer")
    assert _temps(tmp_path) == [] and p.read_bytes() == b"newer"  # ... gone after the next


# ------------------------------------------------------------- a full disk
def test_full_disk_real_tmpfs(tmp_path):
    with _tmpfs(tmp_path / "small", "1m") as disk:
        p = disk / "ckpt.pt"
        tf.save({"w": torch.ones(1000)}, p)
        before = p.read_bytes()
        with pytest.raises(OSError) as info:
            tf.save({"w": torch.ones(1_000_000)}, p)  # 4 MB into 1 MiB
        assert info.value.errno == errno.ENOSPC
        assert p.read_bytes() == before and _temps(disk) == []
        assert torch.equal(tf.load(p)["w"], torch.ones(1000))


class _FullDisk:
    """A file whose writes fail with ENOSPC once ``limit`` bytes are written."""

    def __init__(self, fh, limit):
        self.fh, self.left = fh, limit

    def write(self, data):
        if len(data) > self.left:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.left -= len(data)
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()


def test_full_disk_simulated(tmp_path, monkeypatch):
    """torch's zip writer turns a failed write into 'RuntimeError: unexpected pos': save()
    reports the OSError the disk gave, and the old checkpoint stays."""
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.ones(10)}, p)
    before = p.read_bytes()
    real = os.fdopen

    def small_disk(fd, *args, **kwargs):
        fh = real(fd, *args, **kwargs)
        return _FullDisk(fh, 1000) if kwargs.get("closefd") is False else fh

    monkeypatch.setattr(atomic.os, "fdopen", small_disk)
    with pytest.raises(OSError) as info:
        tf.save({"w": torch.ones(100_000)}, p)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC
    assert p.read_bytes() == before and _temps(tmp_path) == []
    with pytest.raises(OSError) as info:
        write_atomic(p, lambda fh: _FullDisk(fh, 10).write(b"x" * 100))
    assert info.value.errno == errno.ENOSPC and p.read_bytes() == before


def test_full_disk_during_fsync(tmp_path, monkeypatch):
    """Some file systems report a full disk (or EIO) only at fsync."""
    p = tmp_path / "a"
    write_bytes(p, b"old")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))))
    with pytest.raises(OSError, match="No space left"):
        write_bytes(p, b"new")
    assert p.read_bytes() == b"old" and _temps(tmp_path) == []


def test_full_disk_cache_is_skipped_silently(tmp_path, monkeypatch, capsys):
    from torchferry.check import cache as cache_mod

    monkeypatch.setenv(cache_mod.KEY_ENV, str(tmp_path / "key"))
    c = cache_mod.Cache(tmp_path, "0" * 24)
    c.put(str(tmp_path), "d", [])

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(atomic, "write_bytes", full)
    c.save()  # no exception, no output
    assert capsys.readouterr() == ("", "")


# ------------------------------------------------------------- read-only places
def test_read_only_file_system(tmp_path):
    with _tmpfs(tmp_path / "ro", "1m") as disk:
        p = disk / "ckpt.pt"
        tf.save({"w": torch.ones(3)}, p)
        before = p.read_bytes()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        for target in (p, disk / "new.pt"):
            with pytest.raises(OSError) as info:
                tf.save({"w": torch.zeros(3)}, target)
            assert info.value.errno == errno.EROFS and info.value.filename == str(target)
            with pytest.raises(OSError) as via_open:
                open(target, "wb")
            assert via_open.value.errno == errno.EROFS  # the error open() gives
        assert p.read_bytes() == before


@pytest.mark.skipif(ROOT, reason="root may create files in a 0555 directory")
def test_read_only_directory_as_a_user(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    (d / "ckpt.pt").write_bytes(b"x")
    os.chmod(d / "ckpt.pt", 0o444)
    os.chmod(d, 0o555)
    try:
        for target in (d / "ckpt.pt", d / "new.pt"):
            with pytest.raises(PermissionError):
                tf.save({"w": torch.zeros(3)}, target)
        assert (d / "ckpt.pt").read_bytes() == b"x" and _temps(d) == []
    finally:
        os.chmod(d, 0o755)


def test_read_only_directory_simulated(tmp_path, monkeypatch):
    """EACCES on creating the temporary file (a 0555 directory as a user): a new file is
    refused as open() refuses it; an existing writable file is rewritten in place."""
    d = tmp_path / "ro"
    d.mkdir()
    existing = d / "ckpt.pt"
    tf.save({"w": torch.ones(2)}, existing)

    def closed(directory, name):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), directory)

    monkeypatch.setattr(atomic, "_create_temp", closed)
    with pytest.raises(PermissionError) as info:
        tf.save({"w": torch.ones(2)}, d / "new.pt")
    assert info.value.filename == str(d / "new.pt")
    tf.save({"w": torch.zeros(2)}, existing)
    assert torch.equal(tf.load(existing)["w"], torch.zeros(2))


# ------------------------------------------------------------- concurrent writers
WRITER = """
import sys, time
from torchferry._internal.atomic import write_bytes
path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    write_bytes(path, (tag * 200_000).encode())
print("ok", flush=True)
"""


@pytest.mark.slow
def test_concurrent_writers_of_one_path(tmp_path, monkeypatch):
    p = tmp_path / "shared.bin"
    monkeypatch.setattr(atomic, "STALE_AFTER", 0.0)  # for this process's final write
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(p), tag, "25"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        for tag in "abcd"
    ]
    seen = set()
    while any(proc.poll() is None for proc in procs):
        with contextlib.suppress(FileNotFoundError):
            data = p.read_bytes()
            assert len(data) == 200_000 and len(set(data)) == 1  # never torn or mixed
            seen.add(data[:1])
    for proc in procs:
        out, err = proc.communicate()
        assert proc.returncode == 0 and out == b"ok\n", err.decode()
    assert _temps(tmp_path) == []  # every writer cleaned up after itself
    assert len(set(p.read_bytes())) == 1


def test_concurrent_saves_do_not_delete_each_others_temp(tmp_path):
    """A write in progress (its temporary file locked) is never cleaned by another."""
    import fcntl

    p = tmp_path / "ckpt.pt"
    fd, tmp = atomic._create_temp(str(tmp_path), "ckpt.pt")  # a writer mid-save
    old = time.time() - 3600
    os.utime(tmp, (old, old))
    try:
        tf.save({"w": torch.ones(1)}, p)
        assert os.path.exists(tmp)
        with pytest.raises(OSError):
            fcntl.flock(os.open(tmp, os.O_RDONLY), fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
        os.unlink(tmp)


@pytest.mark.slow
def test_concurrent_check_runs_share_one_cache(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for i in range(30):
        (proj / f"m{i}.py").write_text(f"import torch\nx{i} = torch.zeros(2).cuda()\n")
    env = {**ENV, "XDG_CACHE_HOME": str(tmp_path / "key")}
    cmd = [sys.executable, "-m", "torchferry", "check"]
    first = subprocess.run([*cmd, "--no-cache"], cwd=proj, capture_output=True, text=True,
                           env=env)
    procs = [subprocess.Popen(cmd, cwd=proj, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert (proc.returncode, out) == (first.returncode, first.stdout), err
    warm = subprocess.run(cmd, cwd=proj, capture_output=True, text=True, env=env)
    assert (warm.returncode, warm.stdout) == (first.returncode, first.stdout)
    assert [p.name for p in (proj / ".ferry_cache").iterdir() if p.name.endswith(TMP_SUFFIX)] == []


def test_bind_mounted_checkpoint_real(tmp_path):
    """docker -v host/model.pt:/app/model.pt: renaming over the mount point is EBUSY, and
    torch.save writes it; so does save(), into the host's file."""
    if not ROOT:
        pytest.skip("bind mounts need root")
    host = tmp_path / "host.pt"
    tf.save({"w": torch.zeros(2)}, host)
    inside = tmp_path / "model.pt"
    inside.write_bytes(b"")
    r = subprocess.run(["mount", "--bind", str(host), str(inside)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {r.stderr.decode().strip()}")
    try:
        tf.save({"w": torch.ones(2)}, inside)
    finally:
        subprocess.run(["umount", "-l", str(inside)], check=False)
    assert torch.equal(tf.load(host)["w"], torch.ones(2))
    assert _temps(tmp_path) == []


# ----------------------------------------------------------------- paths, permissions, users
def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX access ACL in the kernel's xattr format (what setfacl writes)."""
    import struct

    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


_ANY = 0xFFFFFFFF
#: u::rw-, u:4321:rw-, g::---, m::rw-, o::---  (a file shared with one user only)
_SHARED_WITH_ONE = _acl((1, 6, _ANY), (2, 6, 4321), (4, 0, _ANY), (0x10, 6, _ANY), (0x20, 0, _ANY))


def _set_acl(p: Path) -> None:
    try:
        os.setxattr(p, "system.posix_acl_access", _SHARED_WITH_ONE)
    except (AttributeError, OSError) as exc:
        pytest.skip(f"no POSIX ACLs here: {exc}")


def _as_user(fn, uid: int = 65533, gid: int = 65533) -> str:
    """Call ``fn()`` in a forked child that dropped root for ``uid``/``gid`` (a fork, not a
    new interpreter: the interpreter may live where only root can reach it); returns the
    child's error text, "" when ``fn`` returned."""
    if not ROOT or not hasattr(os, "fork"):
        pytest.skip("needs root (to become another user) and fork")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            os.write(w, f"{type(exc).__name__}: {exc}".encode())
            code = 1
        os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        err = fh.read().decode()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) in (0, 1), status
    return err


@pytest.fixture
def shared_dir():
    """A directory every user can reach (pytest's tmp_path is root's, mode 0700)."""
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="ferry-shared-"))
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_dotdot_after_a_symlink_is_resolved_as_the_kernel_does(tmp_path, monkeypatch):
    """latest -> runs/7: latest/../model.pt is runs/model.pt for open() and torch.save,
    not the model.pt next to the link (a lexical normpath overwrote that one)."""
    (tmp_path / "runs" / "7").mkdir(parents=True)
    (tmp_path / "latest").symlink_to("runs/7")
    (tmp_path / "model.pt").write_bytes(b"unrelated")
    monkeypatch.chdir(tmp_path)
    tf.save({"w": torch.ones(2)}, "latest/../model.pt")
    assert (tmp_path / "model.pt").read_bytes() == b"unrelated"
    assert torch.equal(tf.load(tmp_path / "runs" / "model.pt")["w"], torch.ones(2))
    # a link whose target text holds "..": the same rule, after the link
    (tmp_path / "lnk").symlink_to("latest/../other.pt")
    write_bytes("lnk", b"new")
    assert (tmp_path / "runs" / "other.pt").read_bytes() == b"new"
    assert not (tmp_path / "other.pt").exists() and (tmp_path / "lnk").is_symlink()


def test_posix_acl_and_xattrs_are_kept(tmp_path):
    """A rename would give the new file the mode bits only: with an ACL, the group bits are
    the ACL's mask, so the group would get what only one named user had."""
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.zeros(1)}, p)
    os.chmod(p, 0o600)
    _set_acl(p)
    os.setxattr(p, "user.origin", b"run 7")
    mode = os.stat(p).st_mode
    tf.save({"w": torch.ones(1)}, p)
    write_bytes(p, p.read_bytes())  # the writer --fix and the cache use
    assert os.getxattr(p, "system.posix_acl_access") == _SHARED_WITH_ONE
    assert os.getxattr(p, "user.origin") == b"run 7"
    assert os.stat(p).st_mode == mode
    assert torch.equal(tf.load(p)["w"], torch.ones(1))


def test_an_attribute_that_cannot_be_copied_means_writing_in_place(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    p.write_bytes(b"old")
    os.setxattr(p, "user.k", b"v")
    inode = os.stat(p).st_ino

    def refuse(*a, **k):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refuse)
    write_bytes(p, b"new")
    assert p.read_bytes() == b"new" and os.stat(p).st_ino == inode
    assert os.getxattr(p, "user.k") == b"v" and _temps(tmp_path) == []


def test_long_non_ascii_name_fits(tmp_path):
    """243 bytes, 123 characters: the temporary name is cut by bytes (NAME_MAX is 255 bytes)."""
    name = "é" * 120 + ".pt"
    assert len(name.encode()) == 243
    tf.save({"w": torch.ones(1)}, tmp_path / name)
    write_bytes(tmp_path / name, b"x")
    assert (tmp_path / name).read_bytes() == b"x" and _temps(tmp_path) == []


def test_sticky_directory_other_users_writable_file(shared_dir):
    """In a 1777 directory a rename over another user's file is refused (EPERM); open()
    and torch.save write it, so the writer writes it in place: content new, owner kept."""
    os.chmod(shared_dir, 0o1777)
    p = shared_dir / "shared.bin"
    p.write_bytes(b"old")
    os.chown(p, 65534, 65534)
    os.chmod(p, 0o666)
    assert _as_user(lambda: write_bytes(p, b"new")) == ""
    st = os.stat(p)
    assert p.read_bytes() == b"new" and (st.st_uid, st.st_gid) == (65534, 65534)
    assert _temps(shared_dir) == []


def test_a_user_rewriting_another_users_file_keeps_its_owner(shared_dir):
    """A user may write a group- or world-writable file of someone else (open() keeps its
    owner); a rename would make it the writer's file."""
    os.chmod(shared_dir, 0o777)
    p = shared_dir / "a.py"
    p.write_bytes(b"old")
    os.chown(p, 65534, 65534)
    os.chmod(p, 0o666)
    assert _as_user(lambda: write_bytes(p, b"new")) == ""
    assert p.read_bytes() == b"new" and os.stat(p).st_uid == 65534


def test_unchanged_guard_refuses_a_file_edited_since_it_was_read(tmp_path):
    p = tmp_path / "a.py"
    p.write_bytes(b"as read")
    write_bytes(p, b"fixed", unchanged=b"as read")
    assert p.read_bytes() == b"fixed"
    p.write_bytes(b"the user's edit")
    with pytest.raises(atomic.ChangedSinceRead):
        write_bytes(p, b"fixed again", unchanged=b"fixed")
    assert p.read_bytes() == b"the user's edit" and _temps(tmp_path) == []


def test_stale_temps_are_cleaned_for_files_not_written(tmp_path):
    """A leftover of a killed write to a.py is removed by clean_stale_temps (what --fix
    calls for every file it checks), a lookalike of another name is not."""
    old = time.time() - 60
    mine = tmp_path / f".a.py.0123456789ab{TMP_SUFFIX}"
    other = tmp_path / f".b.py.0123456789ab{TMP_SUFFIX}"
    for t in (mine, other):
        t.write_bytes(b"half")
        os.utime(t, (old, old))
    assert atomic.clean_stale_temps(str(tmp_path), ["a.py"]) == 1
    assert not mine.exists() and other.exists()


def test_a_default_acl_of_the_directory_is_not_added_to_a_file_without_one(tmp_path):
    """The temporary file inherits the directory's default ACL; the file it replaces had
    none, so the new one has none either (as open() leaves it)."""
    d = tmp_path / "d"
    d.mkdir()
    p = d / "ckpt.pt"
    p.write_bytes(b"old")
    os.chmod(p, 0o600)
    try:
        os.setxattr(d, "system.posix_acl_default", _SHARED_WITH_ONE)
    except OSError as exc:
        pytest.skip(f"no default ACLs here: {exc}")
    write_bytes(p, b"new")
    assert "system.posix_acl_access" not in os.listxattr(p)
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
