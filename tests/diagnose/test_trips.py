"""torchferry.trips: every kind of ride, per user line, loop detection, rules, both back ends."""

from __future__ import annotations

import importlib
import json

import pytest
import torch
from torch import nn

import torchferry as tf

trips_mod = importlib.import_module("torchferry.diagnose.tripcount")

KEYS = {"path", "line", "source", "kind", "op", "count", "bytes", "rule", "blocked_s", "loop"}


def _by(rows, **want):
    return [r for r in rows if all(r[k] == v for k, v in want.items())]


def _helper_sync(t):
    return t.sum().item()  # called once per iteration of the caller's loop


def test_every_kind_in_the_simulation():
    with tf.simulate("cuda", count=2):
        with tf.trips() as t:
            x = torch.ones(256).to("cuda")  # h2d: 1 KiB
            _ = x.cpu()  # d2h
            _ = x.to("cuda:1")  # d2d
            _ = x.sum().item()  # sync item
            _ = x[:3].tolist()  # sync tolist
            if x.sum():  # sync bool
                pass
            _ = torch.nonzero(x)  # sync nonzero
            _ = x[x > 0]  # sync masked index
            print(x[:2])  # sync print
            model = nn.Linear(4, 4)
            model.to("cuda")  # module move
    rows = t.rows
    assert all(set(r) == KEYS for r in rows)
    json.dumps(rows)  # serialisable as is
    kinds = {(r["kind"], r["op"]) for r in rows}
    assert {("h2d", "to"), ("d2h", "cpu"), ("d2d", "to"), ("sync", "item"), ("sync", "tolist"),
            ("sync", "bool"), ("sync", "nonzero"), ("sync", "masked_index"), ("sync", "print"),
            ("module_move", "Module.to")} <= kinds
    (h2d,) = _by(rows, kind="h2d")
    assert h2d["bytes"] == 1024 and h2d["count"] == 1 and h2d["source"].startswith("x = torch.ones(256)")
    (mm,) = _by(rows, kind="module_move")
    assert mm["bytes"] == (16 + 4) * 4 and mm["count"] == 1  # weight and bias, counted once
    assert not _by(rows, kind="h2d", op="Module.to")  # the module's copies are inside its row
    assert all(r["rule"] is None for r in rows)  # nothing here runs in a loop
    assert t.simulated


def test_sync_every_step_is_flagged_once_per_iteration_with_rule_and_fix():
    with tf.simulate("cuda"):
        model = nn.Linear(8, 1).to("cuda")
        x = torch.randn(4, 8, device="cuda")
        with tf.trips() as t:
            total = 0.0
            for step in range(12):
                loss = model(x).pow(2).mean()
                total += loss.item()
                if step % 5 == 0:
                    print(f"step {step}: {loss.item():.3f}")  # guarded: a logging interval
                both = _helper_sync(loss) + _helper_sync(loss)  # noqa: F841
                model.to("cuda")  # a module move on every step
    rows = t.rows
    (item,) = _by(rows, kind="sync", op="item", source="total += loss.item()")
    assert item["count"] == 12 and item["rule"] == "FRY007" and item["loop"] is not None
    guarded = [r for r in rows if r["source"].startswith("print(")]
    assert guarded and all(r["rule"] is None for r in guarded)
    (helper,) = [r for r in rows if r["source"].startswith("return t.sum().item()")]
    assert helper["count"] == 24 and helper["rule"] == "FRY007"  # its caller's loop counts
    (move,) = _by(rows, kind="module_move")
    assert move["count"] == 12 and move["rule"] == "FRY008" and move["bytes"] == 0
    text = t.format()
    assert "once per iteration of the loop" in text and "12 iterations" in text
    assert "2 times per iteration" in text  # the helper line runs twice per step
    assert "FRY007 sync-in-loop; fix: accumulate on the device" in text
    assert "FRY008 move-in-loop; fix: move the model once, before the loop" in text
    assert rows[0]["kind"] == "sync"  # most costly first: the syncs outrank the free move


@pytest.mark.parametrize("n", [3, 10, 40])
def test_print_in_a_long_loop_is_one_ride_per_iteration(n):
    # CPython rewrites a call site after its first runs: the count must not split
    with tf.simulate("cuda"):
        x = torch.ones(3, device="cuda")
        with tf.trips() as t:
            for _ in range(n):
                print(x)
                print(x); print(x)  # noqa: E702 - two calls on one line: two sites
    text = t.format()
    assert "a host sync (print) once per iteration of the loop at line" in text
    assert f"{n} iterations" in text
    assert "a host sync (print) 2 times per iteration" in text
    assert text.count(f"{n} iterations") == 2, text


def test_nothing_counted_on_the_cpu_and_patches_removed():
    orig_to = nn.Module.to
    with tf.trips() as t:
        assert nn.Module.to is not orig_to
        x = torch.ones(3).cpu()
        v = x.sum().item()  # noqa: F841 - a CPU tensor: no sync
        nn.Linear(2, 2).to("cpu")
    assert nn.Module.to is orig_to
    mm = _by(t.rows, kind="module_move")
    assert [r["bytes"] for r in mm] == [0]  # a call to Module.to, nothing copied
    assert not _by(t.rows, kind="sync") and not _by(t.rows, kind="h2d")
    assert not t.simulated


def test_real_device_mode_counts_copies_to_another_device():
    with tf.trips() as t:
        w = torch.ones(10).to("meta")  # a real copy to another device (meta)
        m = nn.Linear(3, 3)
        m.to("meta")
    (h2d,) = _by(t.rows, kind="h2d")
    assert h2d["bytes"] == 40 and h2d["op"] == "to" and h2d["blocked_s"] is None
    (mm,) = _by(t.rows, kind="module_move")
    assert mm["bytes"] == (9 + 3) * 4
    assert w.device.type == "meta"


def test_real_device_mode_counts_type_as_and_type_moves():
    """type_as(other) is ATen's self.to(other.options()): a copy that never calls Tensor.to,
    so it went uncounted on real devices.  Casts that stay on the device are not rides."""
    other = torch.ones(2, device="meta")
    with tf.trips() as t:
        a = torch.ones(10).type_as(other)  # a copy to another device (meta)
        b = torch.ones(10).type_as(torch.ones(2, dtype=torch.float64))  # a cast on the host
        c = torch.ones(10).type(torch.float64)
        name = torch.ones(1).type()
    (h2d,) = _by(t.rows, kind="h2d")
    assert (h2d["op"], h2d["bytes"], h2d["count"]) == ("type_as", 40, 1)
    assert len(t.rows) == 1
    assert a.device.type == "meta" and b.dtype is c.dtype is torch.float64
    assert name == "torch.FloatTensor"


def test_real_device_mode_times_syncs(monkeypatch):
    # treat the CPU as the accelerator, so the real-device handlers see syncs on this machine
    monkeypatch.setattr(trips_mod, "_accel", lambda d: True)
    x = torch.arange(6.0)
    with tf.trips() as t:
        for _ in range(4):
            v = x.sum().item()  # noqa: F841
        xs = x.tolist()  # noqa: F841
        sel = x[x > 2]  # noqa: F841
        nz = x.nonzero()  # noqa: F841
        flag = bool(x[0] == 0)  # noqa: F841
        s = repr(x)  # noqa: F841
    rows = t.rows
    (item,) = _by(rows, op="item")
    assert item["count"] == 4 and item["rule"] == "FRY007" and item["blocked_s"] >= 0.0
    for op in ("tolist", "masked_index", "nonzero", "bool", "print"):
        (r,) = _by(rows, kind="sync", op=op)
        assert isinstance(r["blocked_s"], float)
    assert "blocked" in t.format()


def test_report_prints_and_empty_table(capsys):
    with tf.trips() as t:
        pass
    t.report()
    out = capsys.readouterr().out
    assert out.startswith("torchferry trips: no host<->device copies")


def test_one_read_per_epoch_is_the_fix_not_a_finding():
    """The lesson's advice (accumulate on the device, read one number per epoch) must not
    be flagged: a sync in a loop that holds the batch loop runs once per epoch."""
    with tf.simulate("cuda"):
        x = torch.ones(2, device="cuda")
        with tf.trips() as t:
            for _epoch in range(5):
                total = torch.zeros((), device="cuda")
                for _step in range(4):
                    total += x.sum()
                    last = x.sum().item()  # noqa: F841 - once per step: flagged
                epoch_mean = total.item() / 4  # noqa: F841 - once per epoch: fine
    (per_step,) = _by(t.rows, op="item", source="last = x.sum().item()  # noqa: F841 - once per step: flagged")
    assert per_step["count"] == 20 and per_step["rule"] == "FRY007"
    (per_epoch,) = [r for r in t.rows if r["source"].startswith("epoch_mean")]
    assert per_epoch["count"] == 5 and per_epoch["rule"] is None
    assert "epoch_mean" not in t.format().split("rides repeated")[-1]


@pytest.mark.parametrize("n", [2])
def test_short_loops_are_not_flagged(n):
    with tf.simulate("cuda"):
        x = torch.ones(2, device="cuda")
        with tf.trips(loop_min=3) as t:
            for _ in range(n):
                x.sum().item()
    (r,) = _by(t.rows, op="item")
    assert r["count"] == 2 and r["rule"] is None


def test_real_device_path_wraps_only_rides_and_restores_them(monkeypatch):
    from torch.overrides import TorchFunctionMode

    monkeypatch.setattr(trips_mod, "_accel", lambda d: True)
    before = {n: torch.Tensor.__dict__.get(n) for n in ("item", "__getitem__", "__repr__", "to")}
    add = torch.Tensor.__add__

    class Seen(TorchFunctionMode):  # a user's own mode still works, and sees each call once
        calls = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") == "item":
                Seen.calls += 1
            return func(*args, **(kwargs or {}))

    x = torch.ones(3)
    with tf.trips() as t:
        assert torch.Tensor.__add__ is add  # ops that never ride are not wrapped
        with Seen():
            assert x.sum().item() == 3.0
    assert Seen.calls == 1
    assert [r["count"] for r in _by(t.rows, op="item")] == [1]  # counted once, not per layer
    after = {n: torch.Tensor.__dict__.get(n) for n in before}
    assert after == before and torch.tensor(1.0).item() == 1.0


def test_trips_before_simulate_is_a_clear_error():
    with tf.trips():
        with pytest.raises(RuntimeError, match="enter the simulation first"):
            with tf.simulate("cuda"):
                torch.ones(2).to("cuda")
    assert torch.ones(2).to("cpu").device.type == "cpu"


def test_ride_costs_come_from_the_bench_copy_model():
    # one cost model of a host/device copy: ferry bench's (datasheet profile + measured latency)
    from torchferry.bench.model import predict_copy
    from torchferry.bench.profiles import DEFAULT_PROFILE, PROFILES

    p = PROFILES[DEFAULT_PROFILE]
    row = trips_mod._Row("train.py", 1, "h2d", "to", count=3, nbytes=3 * 4096)
    assert row.cost() == pytest.approx(3 * predict_copy(4096, p))
    sync = trips_mod._Row("train.py", 2, "sync", "item", count=5)
    assert sync.cost() == pytest.approx(5 * p.sync_latency)
    timed = trips_mod._Row("train.py", 3, "d2h", "cpu", count=2, nbytes=8000, blocked=1e-3,
                           timed=True)
    assert timed.cost() == pytest.approx(1e-3 + predict_copy(8000, p) - p.sync_latency)
