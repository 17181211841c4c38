"""``torchferry.load`` on hostile and broken input, and ``torchferry.save``'s object graph.

Every load failure is a ``CheckpointError`` naming the path (an I/O error stays the
``OSError`` it is); a file cannot make the loader allocate much more than it holds; a
file that is not a checkpoint is recognised from its first bytes, not read whole.
"""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
import torch

import torchferry as tf

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _rewrite(src: bytes, dest: Path, replace: dict[str, bytes], compress: set[str] = frozenset(),
             extra: dict[str, bytes] | None = None) -> None:
    """A copy of the zip checkpoint ``src`` with some records replaced."""
    z = zipfile.ZipFile(io.BytesIO(src))
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_STORED) as out:
        for info in z.infolist():
            data = z.read(info.filename)
            for suffix, new in replace.items():
                if info.filename.endswith(suffix):
                    data = new
            kind = zipfile.ZIP_DEFLATED if any(info.filename.endswith(c) for c in compress) else zipfile.ZIP_STORED
            out.writestr(info.filename, data, compress_type=kind)
        for name, data in (extra or {}).items():
            out.writestr(name, data)


def _saved(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


#: data.pkl of a checkpoint holding bytearray(2 GiB): allowed objects only, 2 GiB from a number
_BYTEARRAY_2G = b"\x80\x02c__builtin__\nbytearray\n\x8a\x05\x00\x00\x00\x80\x00\x85R."


def _hostile_bytearray(p: Path) -> None:
    _rewrite(_saved({}), p, {"data.pkl": _BYTEARRAY_2G})


def test_a_tiny_file_claiming_gigabytes_is_refused_naming_the_limit(tmp_path):
    p = tmp_path / "tiny.pt"
    _hostile_bytearray(p)
    assert p.stat().st_size < 2000
    with pytest.raises(tf.CheckpointError) as info:
        tf.load(p)
    msg = str(info.value)
    assert str(p) in msg and "2.0 GiB" in msg and "max_bytes=N" in msg


def test_a_compressed_record_larger_than_the_limit_is_refused(tmp_path):
    p = tmp_path / "bomb.pt"
    _rewrite(_saved({"w": torch.zeros(32 << 20)}), p, {}, compress={"data/0"})
    assert p.stat().st_size < 1 << 20  # 128 MiB of zeros, deflated
    with pytest.raises(tf.CheckpointError, match=r"128\.0 MiB.*over the limit"):
        tf.load(p)
    assert tf.load(p, max_bytes=None)["w"].numel() == 32 << 20  # the user may raise it


def test_an_ordinary_checkpoint_loads_and_a_low_limit_refuses_it(tmp_path):
    p = tmp_path / "ok.pt"
    tf.save({"w": torch.ones(1000)}, p)
    assert tf.load(p)["w"].sum() == 1000
    with pytest.raises(tf.CheckpointError, match="over the limit of 100 bytes"):
        tf.load(p, max_bytes=100)


_RSS_CHILD = r"""
import io, sys, torch, torchferry as tf
buf = io.BytesIO(); torch.save({"w": torch.ones(1)}, buf); buf.seek(0); tf.load(buf)  # warm
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith(key))
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # resets the peak (VmHWM) to the current resident size
before = status("VmRSS:")
try:
    tf.load(sys.argv[1])
except tf.CheckpointError as exc:
    print("refused:", str(exc)[:80], file=sys.stderr)
else:
    raise SystemExit("loaded")
print(max(0, status("VmHWM:") - before))
"""


def _load_peak(path: Path) -> int:
    """Bytes of resident memory ``tf.load(path)`` added at its peak, in a fresh process."""
    r = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(path)], capture_output=True,
                       text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout)


def test_memory_of_a_2gb_file_that_is_no_checkpoint_and_of_a_hostile_tiny_one(tmp_path):
    """Peak memory measured in a child: under 100 MB for a 2 GB file of zeros (it was read
    whole: 2.2 GB) and for the 884-byte file claiming 2 GiB (torch.load allocates it)."""
    big = tmp_path / "big.bin"
    with open(big, "wb") as fh:
        fh.truncate(2 << 30)  # sparse: no disk used
    tiny = tmp_path / "tiny.pt"
    _hostile_bytearray(tiny)
    assert _load_peak(big) < 100e6
    assert _load_peak(tiny) < 100e6


def test_tied_weights_load_tied_and_shared_structures_stay_shared(tmp_path):
    with tf.simulate("cuda"):
        m = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 10, bias=False))
        m[1].weight = m[0].weight
        m.to("cuda")
        a = torch.arange(6.0, device="cuda")
        nested: list = [a]
        for _ in range(40):
            nested = [nested, nested]
        tf.save({"sd": m.state_dict(), "view": a[2:], "a": a, "nested": nested}, tmp_path / "c.pt")
    d = tf.load(tmp_path / "c.pt")
    sd = d["sd"]
    assert sd["0.weight"].data_ptr() == sd["1.weight"].data_ptr()  # tied: one storage
    assert d["view"].data_ptr() == d["a"].data_ptr() + 2 * 4  # a view keeps its base
    assert d["nested"][0] is d["nested"][1]
    assert (tmp_path / "c.pt").stat().st_size < 10_000


def test_forty_levels_of_a_shared_cpu_list_finish_small(tmp_path):
    nested: list = [torch.ones(1)]
    for _ in range(40):
        nested = [nested, nested]
    tf.save(nested, tmp_path / "l.pt")
    assert (tmp_path / "l.pt").stat().st_size < 10_000


def test_storages_are_saved_as_torch_saves_them(tmp_path):
    obj = {"u": torch.UntypedStorage(4), "t": torch.ones(3).untyped_storage()}
    tf.save(obj, tmp_path / "s.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's own TypedStorage note
        d = tf.load(tmp_path / "s.pt")
        assert len(d["u"]) == 4 and len(d["t"]) == 12


def test_a_file_added_to_the_zip_is_a_checkpoint_error(tmp_path):
    p = tmp_path / "r.pt"
    _rewrite(_saved({"w": torch.ones(2)}), p, {}, extra={"README": b"hello"})
    with pytest.raises(tf.CheckpointError) as info:
        tf.load(p)
    assert str(p) in str(info.value) and "README" in str(info.value)


def test_a_tensor_larger_than_its_storage_is_a_checkpoint_error(tmp_path):
    p = tmp_path / "big-view.pt"
    data = _saved({"w": torch.ones(4)})
    pkl = zipfile.ZipFile(io.BytesIO(data)).read(
        next(n for n in zipfile.ZipFile(io.BytesIO(data)).namelist() if n.endswith("data.pkl")))
    assert b"K\x04\x85" in pkl  # the size (4,)
    _rewrite(data, p, {"data.pkl": pkl.replace(b"K\x04\x85", b"K\x40\x85", 1)})
    with pytest.raises(tf.CheckpointError) as info:
        tf.load(p)
    assert str(p) in str(info.value)


def test_zero_filled_file_is_said_so(tmp_path):
    p = tmp_path / "z.pt"
    p.write_bytes(bytes(10_000))
    with pytest.raises(tf.CheckpointError, match="all zero bytes") as info:
        tf.load(p)
    assert "legacy" not in str(info.value)


def test_symlink_loop_is_eloop(tmp_path):
    import errno

    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OSError) as info:
        tf.load(tmp_path / "a")
    assert info.value.errno == errno.ELOOP


class _Failing(io.RawIOBase):
    """A file object whose reads fail after ``after`` bytes (a network stream)."""

    def __init__(self, data: bytes, after: int, exc: OSError) -> None:
        self.buf, self.after, self.exc = io.BytesIO(data), after, exc

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        return self.buf.seek(pos, whence)

    def tell(self) -> int:
        return self.buf.tell()

    def readinto(self, b) -> int:
        if self.buf.tell() >= self.after:
            raise self.exc
        data = self.buf.read(min(len(b), self.after - self.buf.tell()))
        b[: len(data)] = data
        return len(data)


@pytest.mark.parametrize("exc", [OSError(5, "Input/output error"),
                                 ConnectionResetError(104, "Connection reset by peer")])
def test_read_errors_are_read_errors_not_empty(exc):
    f = _Failing(_saved({"w": torch.ones(2)}), 0, exc)
    with pytest.raises(type(exc)) as info:
        tf.load(f)
    assert info.value.errno == exc.errno


def test_proc_self_mem_is_an_io_error():
    with pytest.raises(OSError) as info:
        tf.load("/proc/self/mem")
    assert not isinstance(info.value, tf.CheckpointError) and info.value.filename == "/proc/self/mem"


def test_a_whole_checkpoint_on_a_pipe_loads():
    r, w = os.pipe()
    data = _saved({"w": torch.ones(3)})
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the writer
        os.close(r)
        os.write(w, data)
        os._exit(0)
    os.close(w)
    try:
        with os.fdopen(r, "rb") as fh:
            assert tf.load(fh)["w"].tolist() == [1.0, 1.0, 1.0]
    finally:
        os.waitpid(pid, 0)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here")
@pytest.mark.parametrize("where", ["gpu", "cuda", "cuda:1", torch.device("cuda")])
def test_map_location_of_a_missing_device_is_device_unavailable(tmp_path, where):
    p = tmp_path / "c.pt"
    tf.save({"w": torch.ones(1)}, p)
    with pytest.raises(tf.DeviceUnavailableError, match="map_location"):
        tf.load(p, map_location=where)
    with pytest.raises(tf.DeviceUnavailableError):
        tf.load(p, map_location={"cpu": "cuda"})


def test_a_plain_pickle_is_said_so_without_torchs_warning(tmp_path):
    p = tmp_path / "p.pkl"
    p.write_bytes(pickle.dumps({"a": 1}, protocol=4))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(tf.CheckpointError) as info:
            tf.load(p)
    assert [str(w.message) for w in seen] == []
    assert "plain pickle (protocol 4)" in str(info.value)
    assert "Unsupported operand" not in str(info.value)
    (tmp_path / "x.bin").write_bytes(bytes([149]) + b"junk")
    with pytest.raises(tf.CheckpointError, match="not a checkpoint") as info:
        tf.load(tmp_path / "x.bin")
    assert "Unsupported operand" not in str(info.value)


def test_a_checkpoint_pickled_with_protocol_4_says_so(tmp_path):
    """torch's weights-only loader stops at FRAME (opcode 149) of such a file; the error
    says how the file was made and how to re-save it, and torch's protocol warning is not
    let through."""
    p = tmp_path / "p4.pt"
    torch.save({"w": torch.ones(2)}, p, pickle_protocol=4)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(tf.CheckpointError) as info:
            tf.load(p)
    assert [str(w.message) for w in seen] == []
    msg = str(info.value)
    assert str(p) in msg and "pickle protocol 4" in msg and "Unsupported operand" not in msg
    assert "weights_only=False" not in msg


def test_a_legacy_format_file_claiming_gigabytes_is_refused(tmp_path):
    """The pre-1.6 format: torch allocates each storage while unpickling, from the element
    count its pickle states; 2**29 floats (2 GiB) claimed by a file of a few hundred bytes."""
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    data = buf.getvalue()
    numel = b"X\x03\x00\x00\x00cpuq\x06K\x02N"
    assert numel in data
    p = tmp_path / "old.pt"
    p.write_bytes(data.replace(numel, b"X\x03\x00\x00\x00cpuq\x06\x8a\x04\x00\x00\x00\x20N", 1))
    with pytest.raises(tf.CheckpointError, match=r"2\.0 GiB.*max_bytes=N") as info:
        tf.load(p)
    assert str(p) in str(info.value)
    (tmp_path / "ok.pt").write_bytes(data)
    assert tf.load(tmp_path / "ok.pt")["w"].tolist() == [1.0, 1.0]
