"""torchferry.DeviceLoader: pass-through on cpu, the prefetch pipeline's ordering and
lifetime rules (with the stream operations faked: no GPU here), forwarding, epochs,
exceptions, partially consumed epochs."""

from __future__ import annotations

import contextlib
import gc
import weakref

import pytest
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import torchferry
from torchferry import loader as loader_mod
from torchferry.errors import DeviceUnavailableError
from torchferry.loader import DeviceLoader


def batches(n, size=4):
    return [{"x": torch.full((size, 3), float(i)), "y": torch.arange(size) + i, "id": i}
            for i in range(n)]


# ------------------------------------------------------------------ cpu
def test_cpu_is_a_pass_through_without_copies():
    data = batches(3)
    out = list(DeviceLoader(data, "cpu"))
    assert len(out) == 3 and all(o is d for o, d in zip(out, data, strict=True))
    assert torchferry.DeviceLoader is DeviceLoader


def test_default_device_is_torchferry_device(monkeypatch):
    monkeypatch.delenv("TORCHFERRY_DEVICE", raising=False)
    assert DeviceLoader([]).device == torchferry.device()


def test_forwards_len_sampler_batch_size_attributes_and_reiterates():
    ds = TensorDataset(torch.randn(10, 3), torch.arange(10))
    dl = DataLoader(ds, batch_size=4, shuffle=True)
    wrapped = DeviceLoader(dl, "cpu")
    assert len(wrapped) == 3 and wrapped.batch_size == 4 and wrapped.sampler is dl.sampler
    assert wrapped.dataset is ds and wrapped.num_workers == 0  # any other attribute
    for _ in range(2):  # one epoch after another
        assert sorted(torch.cat([y for _, y in wrapped]).tolist()) == list(range(10))
    with pytest.raises(TypeError):
        len(DeviceLoader(iter([1, 2]), "cpu"))  # a bare iterator has no len, as before
    with pytest.raises(AttributeError):
        DeviceLoader([1], "cpu").no_such_thing  # noqa: B018


def test_set_epoch_reaches_a_distributed_sampler():
    ds = TensorDataset(torch.arange(40))
    sampler = DistributedSampler(ds, num_replicas=2, rank=0, shuffle=True, seed=1)
    wrapped = DeviceLoader(DataLoader(ds, batch_size=5, sampler=sampler), "cpu")
    orders = []
    for epoch in range(2):
        wrapped.set_epoch(epoch)
        assert sampler.epoch == epoch
        orders.append(torch.cat([b for (b,) in wrapped]).tolist())
    assert orders[0] != orders[1]  # reshuffled: the epoch reached the sampler's seed
    assert len(orders[0]) == len(orders[1]) == 20  # this rank's half, each epoch
    DeviceLoader([1, 2], "cpu").set_epoch(3)  # nothing to forward to: a no-op


def test_set_epoch_on_a_loader_that_has_it():
    class Loader(list):
        epoch = None

        def set_epoch(self, e):
            self.epoch = e

    inner = Loader([1])
    DeviceLoader(inner, "cpu").set_epoch(7)
    assert inner.epoch == 7


@pytest.mark.parametrize("kwargs", [{"prefetch": -1}, {"prefetch": 1.5}, {"prefetch": True},
                                    {"non_blocking": "maybe"}])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        DeviceLoader([], "cpu", **kwargs)


def test_not_iterable_and_missing_device():
    with pytest.raises(TypeError, match="iterable"):
        DeviceLoader(3, "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(DeviceUnavailableError, match="cuda"):
            DeviceLoader([], "cuda")


def test_cpu_exception_passes_through_unchanged():
    boom = KeyError("bad sample")

    def gen():
        yield 1
        raise boom

    it = iter(DeviceLoader(gen(), "cpu"))
    assert next(it) == 1
    with pytest.raises(KeyError) as info:
        next(it)
    assert info.value is boom


def test_synchronous_move_to_a_non_cuda_device():
    # meta stands in for mps: no streams, every batch moved with torchferry.to
    out = list(DeviceLoader(batches(2), "meta"))
    assert [o["x"].device.type for o in out] == ["meta", "meta"]
    assert [o["id"] for o in out] == [0, 1]


# ------------------------------------------------- the prefetch pipeline, faked
class FakeEvent:
    def __init__(self, n):
        self.n = n


class FakeOps:
    """Records every stream operation the pipeline performs (stands in for CUDA)."""

    def __init__(self):
        self.log = []
        self.active = None
        self.events = 0  # copy events, numbered like the batches
        self.marks = 0

    def new_stream(self, device):
        self.log.append(("new_stream", str(device)))
        return "side"

    @contextlib.contextmanager
    def on(self, stream):
        prev, self.active = self.active, stream
        try:
            yield
        finally:
            self.active = prev

    def record(self, stream):
        assert self.active == "side" == stream  # recorded on the side stream, after the copy
        ev = FakeEvent(self.events)
        self.events += 1
        self.log.append(("record", ev.n))
        return ev

    def mark(self, stream):
        assert stream == "compute"
        self.marks += 1
        ev = FakeEvent(("mark", self.marks))
        self.log.append(("mark", ev.n))
        return ev

    def sync(self, event):
        self.log.append(("sync", event.n))

    def current_stream(self, device):
        return "compute"

    def wait(self, stream, event):
        self.log.append(("wait", stream, event.n))

    def record_stream(self, tensor, stream):
        self.log.append(("record_stream", id(tensor), stream))

    def pin(self, tensor):
        self.log.append(("pin", self.active))
        return tensor


class CountingSource:
    """An iterable whose iterators count what they produced and report their death."""

    def __init__(self, n, fail_at=None, exc=None):
        self.n, self.fail_at, self.exc = n, fail_at, exc
        self.produced = 0
        self.iterators = []

    def __len__(self):
        return self.n

    def __iter__(self):
        it = self._gen()
        self.iterators.append(weakref.ref(it))
        return it

    def _gen(self):
        for i in range(self.n):
            if i == self.fail_at:
                raise self.exc
            self.produced += 1
            yield {"x": torch.full((2, 2), float(i)), "y": torch.tensor([i]), "id": i}


@pytest.fixture
def fake_ops(monkeypatch):
    ops = FakeOps()
    monkeypatch.setattr(loader_mod, "_stream_ops", lambda device: ops)
    return ops


def test_pipeline_waits_records_and_looks_ahead(fake_ops):
    src = CountingSource(6)
    got = []
    for k, batch in enumerate(DeviceLoader(src, "meta", prefetch=2)):
        # 1. the batch's copy event was waited on by the compute stream before hand-out
        assert ("wait", "compute", k) in fake_ops.log
        # 2. every device tensor of it was recorded on the compute stream
        recorded = {e[1] for e in fake_ops.log if e[0] == "record_stream" and e[2] == "compute"}
        assert id(batch["x"]) in recorded and id(batch["y"]) in recorded
        # 3. two batches beyond it are already in flight (or the source is exhausted)
        assert src.produced == min(k + 3, 6)
        assert batch["x"].device.type == "meta" and batch["id"] == k
        got.append(batch["id"])
    assert got == list(range(6))
    # the event of batch k was recorded before its wait; pinning ran outside the side stream
    for k in range(6):
        assert fake_ops.log.index(("record", k)) < fake_ops.log.index(("wait", "compute", k))
    assert all(e[1] is None for e in fake_ops.log if e[0] == "pin")


def test_pipeline_prefetch_depth_one(fake_ops):
    src = CountingSource(4)
    for k, _ in enumerate(DeviceLoader(src, "meta", prefetch=1)):
        assert src.produced == min(k + 2, 4)


def test_pipeline_defers_the_loader_exception_until_its_turn(fake_ops):
    boom = RuntimeError("corrupt sample 3")
    src = CountingSource(6, fail_at=3, exc=boom)
    it = iter(DeviceLoader(src, "meta", prefetch=2))
    assert [next(it)["id"] for _ in range(3)] == [0, 1, 2]  # nothing lost before it
    with pytest.raises(RuntimeError) as info:
        next(it)
    assert info.value is boom  # the very same exception object


def test_pipeline_defers_a_move_error_too(fake_ops, monkeypatch):
    calls = {"n": 0}
    real_to = torchferry.move.to

    def flaky_to(obj, device, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise ValueError("cannot move batch 1")
        return real_to(obj, device, **kw)

    monkeypatch.setattr(torchferry.move, "to", flaky_to)
    it = iter(DeviceLoader(CountingSource(4), "meta", prefetch=2))
    assert next(it)["id"] == 0
    with pytest.raises(ValueError, match="batch 1"):
        next(it)


@pytest.mark.slow
def test_partial_epoch_then_new_iter_frees_the_old_one(fake_ops):
    src = CountingSource(8)
    wrapped = DeviceLoader(src, "meta", prefetch=2)
    for k, _ in enumerate(wrapped):
        if k == 1:
            break  # abandon the epoch with batches still queued
    gc.collect()
    assert src.iterators[0]() is None  # the wrapped loader's iterator is gone
    assert [b["id"] for b in wrapped] == list(range(8))  # the next epoch is whole


@pytest.mark.slow
def test_partial_epoch_with_worker_processes(fake_ops):
    ds = TensorDataset(torch.arange(24.0))
    dl = DataLoader(ds, batch_size=4, num_workers=2)
    wrapped = DeviceLoader(dl, "meta", prefetch=2)
    it = iter(wrapped)
    next(it)
    del it  # workers of the abandoned epoch are shut down, nothing hangs
    assert sum(b.shape[0] for (b,) in wrapped) == 24


def test_prefetch_zero_moves_on_the_current_stream(fake_ops):
    out = list(DeviceLoader(CountingSource(3), "meta", prefetch=0))
    assert [o["id"] for o in out] == [0, 1, 2]
    assert fake_ops.log == []  # no side stream, no events


def test_real_cuda_ops_pin_only_host_tensors_that_need_it():
    ops = loader_mod._CudaStreamOps()
    meta = torch.ones(2, device="meta")
    assert ops.pin(meta) is meta  # not on the host: untouched
    host = torch.ones(2)
    pinned = ops.pin(host)  # pins where a GPU exists; stays pageable (no error) where not
    assert torch.equal(pinned, host)


class Packed:
    """Stands in for PackedSequence/TensorDict: an object with its own .to()."""

    def __init__(self, data, log=None):
        self.data, self.log = data, log

    def to(self, device, non_blocking=False):
        self.log.append(("packed.to", str(device)))
        return Packed(self.data.to(device), self.log)


def test_batches_with_opaque_objects_move_on_the_consumer_stream(fake_ops):
    data = [{"p": Packed(torch.ones(2), fake_ops.log), "x": torch.zeros(2)} for _ in range(3)]
    out = list(DeviceLoader(data, "meta", prefetch=2))
    assert [o["p"].data.device.type for o in out] == ["meta"] * 3
    assert [o["x"].device.type for o in out] == ["meta"] * 3
    assert not any(e[0] in ("record", "wait") for e in fake_ops.log)  # no side-stream copy
    assert sum(e[0] == "packed.to" for e in fake_ops.log) == 3


def test_host_stays_at_most_prefetch_plus_one_batches_ahead(fake_ops):
    src = CountingSource(8)
    for k, _ in enumerate(DeviceLoader(src, "meta", prefetch=2)):
        marks = [e[1] for e in fake_ops.log if e[0] == "mark"]
        synced = [e[1] for e in fake_ops.log if e[0] == "sync"]
        assert len(marks) == k  # one mark per batch handed out before this one
        # the host waited for the oldest marks: never more than prefetch + 1 outstanding
        assert len(marks) - len(synced) <= 3 and synced == marks[: len(synced)]
    assert len([e for e in fake_ops.log if e[0] == "sync"]) == 7 - 3


def test_a_bad_device_is_named_as_the_loaders_argument():
    """The error said "asked for by the prefer argument" (torchferry.device()'s parameter)."""
    with pytest.raises(DeviceUnavailableError,
                       match=r"^'gpu0' was asked for by the device argument of DeviceLoader, "
                             r"but that is not a device name"):
        DeviceLoader([torch.ones(1)], "gpu0")


@pytest.mark.parametrize("bad", [1, 0, 1.0, "yes", [1]])
def test_non_blocking_takes_what_to_takes(bad):
    """``non_blocking=1`` passed the loader's check (1 == True) and failed only at the first
    batch on an accelerator, in torchferry.to."""
    with pytest.raises(ValueError, match=r"^non_blocking must be True, False or 'auto', not "):
        DeviceLoader([torch.ones(1)], "cpu", non_blocking=bad)
