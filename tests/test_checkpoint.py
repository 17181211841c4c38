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
