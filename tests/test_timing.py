"""torchferry.measure: the right clock per device, warm-up discarded, honest statistics."""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest
import torch
import torch.utils.benchmark as tbench

import torchferry
from torchferry import timing
from torchferry.timing import Timing, format_seconds, measure


def test_exported_lazily_at_top_level():
    assert torchferry.measure is measure


def test_cpu_uses_perf_counter_and_exact_repeat():
    a = torch.randn(32, 32)
    t = measure(torch.mm, a, a, repeat=7)
    assert (t.device, t.method, t.n, len(t.times)) == ("cpu", "perf_counter", 7, 7)
    assert all(x > 0 for x in t.times)
    assert t.min <= t.median <= t.max


def test_warmup_calls_are_made_and_discarded():
    calls = []

    def fn(x):
        calls.append(1)
        if len(calls) <= 2:  # the two warm-up calls are slow
            time.sleep(0.25)
        return x

    t = measure(fn, torch.ones(1), warmup=2, repeat=5)
    assert len(calls) == 7 and t.n == 5 and t.warmup == 2
    assert t.max < 0.2  # neither slow call is in the times


def test_inference_probe_counts_as_a_warmup_call():
    calls = []
    x = torch.ones(3)

    def closure():  # no tensor in args: the device is found by running it once
        calls.append(1)
        return x + 1

    measure(closure, warmup=2, repeat=4)
    assert len(calls) == 6
    calls.clear()
    measure(closure, warmup=0, repeat=4)
    assert len(calls) == 5  # warmup=0: the probe is the one extra untimed call
    calls.clear()
    measure(lambda t: closure(), torch.ones(2), warmup=0, repeat=4)
    assert len(calls) == 5  # host tensors in args: fn is still watched once


def test_adaptive_repeat_reaches_min_time_and_at_least_three_runs():
    t = measure(time.sleep, 0.004, min_time=0.05)
    assert t.n >= 3 and sum(t.times) >= 0.05
    t = measure(time.sleep, 0.02, min_time=0.0)
    assert t.n == timing.MIN_RUNS
    t = measure(lambda: None, min_time=10.0, max_repeat=50)
    assert t.n == 50


def test_statistics_match_numpy():
    times = (0.5, 0.1, 0.4, 0.2, 0.3, 0.9)
    t = Timing(times=times, device="cpu", method="perf_counter")
    q1, med, q3 = np.percentile(times, [25, 50, 75])
    assert t.median == pytest.approx(med)
    assert t.iqr == pytest.approx(q3 - q1)
    assert (t.min, t.max, t.n) == (0.1, 0.9, 6)
    assert t.mean == pytest.approx(statistics.fmean(times))
    d = t.to_dict()
    assert d["times"] == list(times) and d["median"] == pytest.approx(med)
    assert Timing(times=(1.0,), device="cpu", method="perf_counter").iqr == 0.0
    assert "median" in str(t) and "perf_counter" in str(t)


@pytest.mark.parametrize(
    "kwargs",
    [{"warmup": -1}, {"warmup": 1.5}, {"repeat": 0}, {"repeat": True}, {"min_time": -1.0},
     {"min_time": float("nan")}, {"max_repeat": 0}],
)
def test_bad_arguments_are_rejected(kwargs):
    with pytest.raises(ValueError):
        measure(lambda: None, **kwargs)


def test_not_callable():
    with pytest.raises(TypeError, match="callable"):
        measure(3)


def test_format_seconds():
    assert format_seconds(1.5) == "1.50 s"
    assert format_seconds(0.000123) == "123 µs"
    assert format_seconds(2.5e-8) == "25.0 ns"
    assert format_seconds(float("nan")) == "n/a"


# ------------------------------------------------------------ device inference
def test_pick_prefers_the_accelerator():
    cpu, c0, c1 = torch.device("cpu"), torch.device("cuda", 0), torch.device("cuda", 1)
    assert timing._pick([cpu, c0, cpu, c0]) == [c0]
    assert timing._pick([cpu]) == [cpu]
    assert timing._pick([]) == [cpu]
    assert timing._pick([c1, cpu, c0]) == [c1, c0]
    assert timing._pick([torch.device("meta")]) == [cpu]


def test_devices_of_args_in_any_nesting_and_modules():
    found = []
    timing._tensor_devices(({"x": [torch.ones(1, device="meta")]}, 3), found)
    assert found == [torch.device("meta")]
    found = []
    timing._tensor_devices((torch.nn.Linear(2, 2), {"k": torch.ones(1)}), found)
    assert torch.device("cpu") in found


def test_probe_sees_tensors_created_inside_fn_that_returns_nothing():
    def fn():
        torch.ones(3, device="meta").sum()  # touches meta, returns None

    found, ok = timing._probe(fn, ())
    assert ok and torch.device("meta") in found


def test_explicit_accelerator_device_syncs_around_every_run(monkeypatch):
    synced = []
    monkeypatch.setattr(timing, "_sync", lambda d: synced.append(str(d)))
    t = measure(lambda: None, device="mps", warmup=1, repeat=4)
    assert t.method == "synchronize + perf_counter" and t.device == "mps"
    # once after the warm-up, then before and after each of the 4 runs
    assert synced == ["mps"] * (1 + 2 * 4)


def test_cuda_path_reads_events_only_after_synchronizing(monkeypatch):
    """The CUDA timer, with torch.cuda replaced by a recorder (no GPU here)."""
    log = []

    class FakeEvent:
        def __init__(self, enable_timing=False):
            assert enable_timing
            self.at = None

        def record(self, stream=None):
            log.append("record")
            self.at = len(log)

        def elapsed_time(self, other):
            assert log[-1] == "sync", "elapsed_time read before synchronize()"
            return 2.0  # ms

    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: log.append("sync"))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda d=None: "stream")
    t = measure(lambda: log.append("work"), device="cuda:0", warmup=1, repeat=3)
    assert t.method == "cuda events" and t.device == "cuda:0"
    assert t.times == (0.002, 0.002, 0.002)
    runs = log[log.index("work") + 1:]  # after the warm-up call
    assert runs[-4:] == ["record", "work", "record", "sync"]


# ------------------------------------------------------------ agreement with torch
@pytest.fixture
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # a 2-core machine shared with other jobs: 1 thread is stabler
    yield
    torch.set_num_threads(before)


@pytest.mark.slow
def test_cpu_median_agrees_with_torch_benchmark_timer(one_thread):
    """Same call, same statistic, interleaved call by call: ``measure``'s median on the CPU
    is the one ``torch.utils.benchmark.Timer`` reports, in the same unit.

    The call sleeps 30 ms and then multiplies two small matrices: its length is set by the
    clock, not by how much CPU this machine's other jobs leave (a CPU-bound op measured
    under load 5-15 gave ratios of 0.7-1.2 between two runs of the same clock).
    """
    a = torch.randn(8, 8)

    def op() -> torch.Tensor:
        time.sleep(0.03)
        return torch.mm(a, a)

    timer = tbench.Timer(stmt="op()", globals={"op": op}, num_threads=1)
    ours, theirs = [], []
    for _ in range(11):
        ours.append(measure(op, device="cpu", warmup=0, repeat=1).median)
        theirs.append(timer.timeit(1).median)
    ratio = statistics.median(ours) / statistics.median(theirs)
    assert 0.9 <= ratio <= 1.1, (ratio, ours, theirs)
    assert 0.03 <= statistics.median(ours) < 0.3  # seconds, one call


def test_a_bad_device_gets_torchferry_devices_error():
    """measure(device="gpu0") raised torch's bare "Invalid device string"; device() and to()
    raise DeviceUnavailableError for the same value, and now so does measure()."""
    with pytest.raises(torchferry.DeviceUnavailableError,
                       match=r"^'gpu0' was asked for by the device argument of "
                             r"torchferry.measure, but that is not a device name"):
        measure(lambda: None, device="gpu0")


def test_measure_inside_the_simulation_says_it_timed_the_cpu():
    import torchferry as tf

    with tf.simulate("cuda"):
        x = torch.randn(16, 16, device="cuda")
        t = tf.measure(lambda: x @ x, min_time=0.0)
    assert t.method == "simulated cuda events (CPU time)" and t.device == "cuda:0"
    assert str(t).endswith("on cuda:0 via simulated cuda events (CPU time)")
    t = tf.measure(lambda: x.cpu() @ x.cpu(), device="cpu", min_time=0.0)
    assert t.method == "perf_counter"  # the CPU's own work is the CPU's
