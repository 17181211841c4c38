"""torchferry.load / save: portable, atomic, and never running code."""

from __future__ import annotations

import io
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.serialization as ser

import torchferry as tf


def save_tagged(obj, path, tag="cuda:0"):
    """Save ``obj`` with every storage tagged as living on ``tag`` (a real GPU checkpoint)."""
    ser._package_registry.insert(0, (-1, lambda s: tag, lambda o, loc: None))
    try:
        torch.save(obj, path)
    finally:
        ser._package_registry.pop(0)


def test_roundtrip(tmp_path):
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.arange(4.0), "step": 3}, p)
    out = tf.load(p)
    assert out["step"] == 3 and torch.equal(out["w"], torch.arange(4.0))


def test_gpu_checkpoint_loads_on_cpu_machine(tmp_path):
    p = tmp_path / "gpu.pt"
    save_tagged({"w": torch.ones(2)}, p)
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            torch.load(p, weights_only=True)  # what the lesson warns about
    out = tf.load(p)
    assert out["w"].device.type == "cpu" and torch.equal(out["w"], torch.ones(2))


def test_explicit_map_location_passed_through(tmp_path):
    p = tmp_path / "c.pt"
    tf.save({"w": torch.ones(2)}, p)
    assert tf.load(p, map_location="meta")["w"].device.type == "meta"


class Evil:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def test_malicious_pickle_refused_and_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    p = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(1), "x": Evil(marker)}, p)
    with pytest.raises(tf.UnsafeCheckpointError) as info:
        tf.load(p)
    msg = str(info.value)
    assert "system" in msg and str(p) in msg
    assert "weights_only=False" not in msg  # never advise turning the safety off
    assert isinstance(info.value, pickle.UnpicklingError)
    assert not marker.exists()


def test_unsafe_checkpoint_loads_when_asked_knowingly(tmp_path):
    import fractions

    p = tmp_path / "c.pt"
    torch.save({"c": fractions.Fraction(1, 3)}, p)
    with pytest.raises(tf.UnsafeCheckpointError, match="fractions.Fraction"):
        tf.load(p)
    assert tf.load(p, weights_only=False)["c"] == fractions.Fraction(1, 3)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint at") as info:
        tf.load(tmp_path / "nope.pt")
    assert info.value.filename.endswith("nope.pt")


@pytest.mark.parametrize("cut", [10, 200, -20])
def test_truncated_file(tmp_path, cut):
    good = tmp_path / "good.pt"
    tf.save({"w": torch.randn(100)}, good)
    data = good.read_bytes()
    bad = tmp_path / "bad.pt"
    bad.write_bytes(data[:cut])
    with pytest.raises(tf.CheckpointError, match="truncated or corrupt") as info:
        tf.load(bad)
    assert "bad.pt" in str(info.value)


def test_garbage_file(tmp_path):
    bad = tmp_path / "junk.pt"
    bad.write_bytes(b"this is not a checkpoint at all")
    with pytest.raises(tf.CheckpointError, match="junk.pt"):
        tf.load(bad)


def test_directory_is_not_a_checkpoint(tmp_path):
    with pytest.raises(IsADirectoryError):
        tf.load(tmp_path)


def test_file_object(tmp_path):
    buf = io.BytesIO()
    tf.save({"w": torch.ones(1)}, buf)
    buf.seek(0)
    assert tf.load(buf)["w"].item() == 1.0


def test_save_moves_tensors_to_cpu(tmp_path):
    p = tmp_path / "m.pt"
    seen = []
    real = torch.save

    def spy(obj, f, *a, **k):
        seen.append(obj)
        return real(obj, f, *a, **k)

    import torchferry.checkpoint as ck

    ck.torch.save = spy
    try:
        class Dev:  # an object with its own .to, to observe the move
            def to(self, device, **k):
                return f"moved to {device}"

        tf.save({"d": Dev()}, p)
    finally:
        ck.torch.save = real
    assert seen[0]["d"] == "moved to cpu"


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.ones(3)}, p)
    before = p.read_bytes()

    def boom(obj, f, *a, **k):
        f.write(b"half a checkpo")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", boom)
    with pytest.raises(OSError, match="disk full"):
        tf.save({"w": torch.zeros(3)}, p)
    assert p.read_bytes() == before
    assert [x.name for x in tmp_path.iterdir()] == ["ckpt.pt"]  # no temp file left behind


@pytest.mark.slow
def test_save_crash_mid_write_leaves_old_file(tmp_path):
    """Kill the process while it writes: the old checkpoint must survive intact."""
    p = tmp_path / "ckpt.pt"
    tf.save({"w": torch.ones(3)}, p)
    code = (
        "import os, torch, torchferry\n"
        "real = torch.save\n"
        "def dying(obj, f, *a, **k):\n"
        "    f.write(b'partial'); f.flush()\n"
        "    os._exit(9)\n"
        "torch.save = dying\n"
        f"torchferry.save({{'w': torch.zeros(3)}}, {str(p)!r})\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert r.returncode == 9
    assert torch.equal(tf.load(p)["w"], torch.ones(3))


def test_save_permissions_like_open(tmp_path):
    p = tmp_path / "new.pt"
    tf.save({"w": torch.ones(1)}, p)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask
    os.chmod(p, 0o640)
    tf.save({"w": torch.ones(1)}, p)
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_save_into_missing_directory(tmp_path):
    target = tmp_path / "nope" / "c.pt"
    with pytest.raises(FileNotFoundError, match="No such file or directory") as info:
        tf.save({"w": torch.ones(1)}, target)
    assert info.value.filename == str(target)  # what open() reports


def test_save_module_is_refused_with_advice(tmp_path):
    with pytest.raises(TypeError, match=r"state_dict\(\)"):
        tf.save(torch.nn.Linear(1, 1), tmp_path / "m.pt")


def test_safetensors_roundtrip(tmp_path):
    pytest.importorskip("safetensors")
    p = tmp_path / "w.safetensors"
    w = torch.randn(3, 4).t()  # non-contiguous
    tf.save({"w": w, "b": torch.zeros(2)}, p)
    out = tf.load(p)
    assert torch.equal(out["w"], w) and out["w"].device.type == "cpu"


def test_safetensors_rejects_non_flat(tmp_path):
    pytest.importorskip("safetensors")
    with pytest.raises(TypeError, match="flat"):
        tf.save({"w": {"nested": torch.ones(1)}}, tmp_path / "w.safetensors")


def test_safetensors_corrupt(tmp_path):
    pytest.importorskip("safetensors")
    p = tmp_path / "w.safetensors"
    p.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken")
    with pytest.raises(tf.CheckpointError, match="w.safetensors"):
        tf.load(p)


def test_checkpoint_survives_path_types(tmp_path):
    p = str(tmp_path / "s.pt")
    tf.save([torch.ones(1)], p)
    assert isinstance(tf.load(Path(p)), list)


# ------------------------------------------------------------- files saved like torch.save
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(ROOT, reason="as root a regression would replace the real /dev/null for "
                    "every process: the device node made by the next test covers root")
def test_save_to_dev_null_keeps_the_device():
    """save() renamed a regular file over /dev/null (as root: for every process)."""
    before = os.stat("/dev/null")
    tf.save({"w": torch.ones(10)}, "/dev/null")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not ROOT, reason="creating a device node needs root")
def test_save_to_a_character_device_writes_into_it(tmp_path):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    tf.save({"w": torch.ones(10)}, dev)
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_save_into_a_fifo_streams_a_loadable_checkpoint(tmp_path):

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    t = _fifo_reader(fifo, got)
    tf.save({"w": torch.arange(3.0)}, fifo)
    _finish(t, fifo)
    assert torch.equal(tf.load(io.BytesIO(got[0]))["w"], torch.arange(3.0))


def test_save_through_a_symlink_updates_the_shared_target(tmp_path):
    """the link was replaced by a local file and the shared target left stale."""
    shared = tmp_path / "shared"
    shared.mkdir()
    tf.save({"w": torch.zeros(2)}, shared / "model.pt")
    link = tmp_path / "model.pt"
    link.symlink_to(shared / "model.pt")
    tf.save({"w": torch.ones(2)}, link)
    assert link.is_symlink()
    assert torch.equal(tf.load(shared / "model.pt")["w"], torch.ones(2))


def test_save_keeps_hard_links(tmp_path):
    a = tmp_path / "a.pt"
    tf.save({"w": torch.zeros(2)}, a)
    os.link(a, tmp_path / "b.pt")
    tf.save({"w": torch.ones(2)}, a)
    assert torch.equal(tf.load(tmp_path / "b.pt")["w"], torch.ones(2))


def test_save_over_a_write_protected_file_is_refused_like_torch(tmp_path, monkeypatch):
    """the rename bypassed a 0444 file's protection; torch.save raises PermissionError.
    As root open() may write it, so the refusal the OS gives a user is simulated."""
    import errno

    p = tmp_path / "ro.pt"
    tf.save({"w": torch.zeros(2)}, p)
    os.chmod(p, 0o444)
    before = p.read_bytes()
    if not ROOT:
        with pytest.raises(PermissionError):
            torch.save({"w": torch.ones(2)}, p)
    real = os.open

    def as_a_user(path, flags, *a):
        if os.fspath(path) == str(p) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path, flags, *a)

    monkeypatch.setattr(os, "open", as_a_user)
    with pytest.raises(PermissionError) as info:
        tf.save({"w": torch.ones(2)}, p)
    assert info.value.filename == str(p) and p.read_bytes() == before
    assert stat.S_IMODE(p.stat().st_mode) == 0o444


@pytest.mark.parametrize("existing", [None, "dir", "file"])
def test_save_to_a_trailing_slash_is_the_os_error(tmp_path, existing):
    """save(x, "foo/") wrote a file named foo."""
    foo = tmp_path / "foo"
    if existing == "dir":
        foo.mkdir()
    elif existing == "file":
        foo.write_bytes(b"keep")
    try:
        open(str(foo) + "/", "wb")
    except OSError as exc:
        expected = exc
    with pytest.raises(type(expected)):
        tf.save({"w": torch.ones(1)}, str(foo) + "/")
    assert (not foo.exists()) if existing is None else (foo.is_dir() or foo.read_bytes() == b"keep")


@pytest.mark.slow
def test_killed_save_leaves_no_temp_after_the_next_save(tmp_path, monkeypatch):
    """each killed save left its temporary file forever."""
    import torchferry._internal.atomic as atomic

    p = tmp_path / "ckpt.pt"
    code = (
        "import os, torch, torchferry\n"
        "def dying(obj, f, *a, **k):\n"
        "    f.write(b'partial' * 1000); f.flush(); os._exit(9)\n"
        "torch.save = dying\n"
        f"torchferry.save({{'w': torch.zeros(3)}}, {str(p)!r})\n"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    left = [x for x in tmp_path.iterdir() if x.name != "ckpt.pt"]
    assert len(left) == 1 and left[0].name.endswith(".ferry-tmp")
    monkeypatch.setattr(atomic, "STALE_AFTER", 0.0)
    tf.save({"w": torch.ones(3)}, p)
    assert [x.name for x in tmp_path.iterdir()] == ["ckpt.pt"]


# ------------------------------------------------------------- load errors
class Payload:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def _no_unsafe_advice(exc):
    assert "weights_only=False" not in str(exc)


@pytest.mark.parametrize("fmt", ["legacy", "raw", "raw-protocol-2", "nested-raw", "raw-protocol-0"])
def test_malicious_legacy_and_raw_pickles_are_unsafe_not_corrupt(tmp_path, fmt):
    """legacy-format and raw pickles were 'truncated or corrupt ... Re-save it'."""
    marker = tmp_path / "pwned"
    p = tmp_path / "evil.pt"
    if fmt == "legacy":
        torch.save({"x": Payload(marker)}, p, _use_new_zipfile_serialization=False)
    elif fmt == "raw":
        p.write_bytes(pickle.dumps(Payload(marker)))
    elif fmt == "raw-protocol-0":  # ASCII: must not pass for "a text file"
        p.write_bytes(pickle.dumps(Payload(marker), protocol=0))
    elif fmt == "raw-protocol-2":
        p.write_bytes(pickle.dumps({"a": [Payload(marker)]}, protocol=2))
    else:
        p.write_bytes(pickle.dumps({"w": [1, 2], "x": (Payload(marker),)}, protocol=4))
    with pytest.raises(tf.UnsafeCheckpointError) as info:
        tf.load(p)
    msg = str(info.value)
    assert str(p) in msg and "posix.system" in msg and "whose module posix is blocked" in msg
    _no_unsafe_advice(info.value)
    assert not marker.exists()


def test_unsafe_checkpoint_advice_never_turns_the_safety_off(tmp_path):
    import fractions

    p = tmp_path / "c.pt"
    torch.save({"c": fractions.Fraction(1, 3)}, p)
    with pytest.raises(tf.UnsafeCheckpointError, match="fractions.Fraction") as info:
        tf.load(p)
    _no_unsafe_advice(info.value)
    assert "safe_globals" in str(info.value)


@pytest.mark.parametrize(
    "content, says",
    [
        (b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 1234\n",
         "git-lfs pointer.*git lfs pull"),
        (b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head></html>\n", "HTML"),
        (b"\n  <html lang='en'><body>404</body></html>", "HTML"),
        (b'{"w": [1, 2, 3]}\n', "JSON"),
        (b"hello world, not a checkpoint\n", "text file"),
        (b"", "empty"),
    ],
)
def test_files_that_are_not_checkpoints_say_what_they_are(tmp_path, content, says):
    """an LFS pointer, an HTML page or JSON got torch's weights_only=False advice;
    a text file starting with 'h' raised KeyError: 104."""
    p = tmp_path / "model.pt"
    p.write_bytes(content)
    with pytest.raises(tf.CheckpointError, match=says) as info:
        tf.load(p)
    assert str(p) in str(info.value)
    assert not isinstance(info.value, tf.UnsafeCheckpointError)
    _no_unsafe_advice(info.value)


def test_truncated_zip_mid_record_names_the_path(tmp_path):
    """a zip cut inside a record gave a bare OSError: [Errno 22] Invalid argument."""
    good = io.BytesIO()
    torch.save({"w": torch.ones(1000)}, good)
    data = good.getvalue()
    p = tmp_path / "cut.pt"
    p.write_bytes(data[: len(data) - 700])
    with pytest.raises(tf.CheckpointError, match="truncated or corrupt") as info:
        tf.load(p)
    assert str(p) in str(info.value)


def test_every_truncation_is_a_checkpoint_error(tmp_path):
    good = io.BytesIO()
    torch.save({"w": torch.ones(300), "b": torch.zeros(3)}, good)
    data = good.getvalue()
    p = tmp_path / "cut.pt"
    for n in range(1, len(data), 97):
        p.write_bytes(data[:n])
        with pytest.raises(tf.CheckpointError) as info:
            tf.load(p)
        assert str(p) in str(info.value)
        _no_unsafe_advice(info.value)


def test_legacy_tar_checkpoint_is_a_checkpoint_error(tmp_path):
    """torch's legacy .tar format raised a RuntimeError advising weights_only=False."""
    import tarfile

    p = tmp_path / "old.pt"
    with tarfile.open(p, "w") as t:
        for name in ("sys_info", "pickle", "storages", "tensors"):
            info = tarfile.TarInfo(name)
            info.size = 1
            t.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(tf.CheckpointError, match="legacy .tar format") as info:
        tf.load(p)
    assert str(p) in str(info.value)
    _no_unsafe_advice(info.value)


def test_record_of_the_wrong_size_is_a_checkpoint_error(tmp_path):
    """a storage record shorter than its tensor gave a bare
    RuntimeError: record size (8 bytes) does not match expected size ..."""
    import zipfile

    good = io.BytesIO()
    torch.save({"w": torch.ones(10)}, good)
    src = zipfile.ZipFile(io.BytesIO(good.getvalue()))
    p = tmp_path / "rec.pt"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            out.writestr(info.filename, data[:8] if info.filename.endswith("data/0") else data)
    try:
        w = torch.load(p, weights_only=True)["w"]
    except RuntimeError as exc:  # torch 2.13 refuses the file
        assert "record size (8 bytes) does not match expected size (40 bytes" in str(exc)
    else:  # torch 2.8 loads it: 8 bytes of the file, the rest whatever memory held
        assert w.shape == (10,)
    with pytest.raises(tf.CheckpointError, match=r"record size \(8 bytes\) does not match "
                       r"expected size \(40 bytes") as info:
        tf.load(p)
    assert str(p) in str(info.value)


def test_record_longer_than_its_tensor_is_a_checkpoint_error(tmp_path):
    """torch 2.13 refuses extra bytes in a storage record; torch 2.8 ignored them."""
    import zipfile

    good = io.BytesIO()
    torch.save({"w": torch.ones(10), "v": torch.arange(3, dtype=torch.int16)}, good)
    src = zipfile.ZipFile(io.BytesIO(good.getvalue()))
    p = tmp_path / "long.pt"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            out.writestr(info.filename, data + bytes(8) if info.filename.endswith("data/1") else data)
    with pytest.raises(tf.CheckpointError, match=r"record size \(14 bytes\) does not match "
                       r"expected size \(6 bytes = 6 elements") as info:
        tf.load(p)
    assert str(p) in str(info.value)
    with open(p, "rb") as fh:  # an open file too, left where it was
        fh.seek(0)
        with pytest.raises(tf.CheckpointError, match="record size"):
            tf.load(fh)
    ok = io.BytesIO(good.getvalue())
    assert tf.load(ok)["v"].tolist() == [0, 1, 2]


def test_missing_checkpoint_names_the_path_once(tmp_path):
    """FileNotFoundError ... no checkpoint at 'nope.pt': 'nope.pt'."""
    with pytest.raises(FileNotFoundError) as info:
        tf.load("nope.pt")
    assert str(info.value).count("nope.pt") == 1
    assert info.value.filename == "nope.pt"


def test_non_file_errors_are_not_called_corrupt(tmp_path):
    p = tmp_path / "c.pt"
    tf.save({"w": torch.ones(1)}, p)
    with pytest.raises(RuntimeError) as info:
        tf.load(p, map_location="nonsense-device")
    assert not isinstance(info.value, tf.CheckpointError)


def _fifo_reader(fifo, got):
    import threading

    t = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    t.start()
    return t


def _finish(t, fifo):
    t.join(10)
    if t.is_alive():  # nothing wrote into the FIFO: release the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(5)
