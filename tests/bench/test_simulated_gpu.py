"""measure, ferry bench, ferry bench transfer and DeviceLoader inside the simulated GPU
(torchferry.simulate("cuda")): their CUDA code paths (events, streams, pinned memory,
device names) run here, on a CPU-only machine.  The simulation computes on the CPU, so
the *numbers* mean nothing; what is checked is that the paths run and report a GPU."""

from __future__ import annotations

import json

import pytest
import torch

import torchferry
from torchferry.bench import transfer
from torchferry.cli import main

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="a real GPU is here")


@pytest.fixture
def sim():
    with torchferry.simulate("cuda"):
        yield


@pytest.mark.slow
def test_measure_uses_cuda_events_and_infers_the_device(sim):
    a = torch.randn(64, 64, device="cuda")
    t = torchferry.measure(torch.mm, a, a, repeat=3)
    assert (t.device, t.method, t.n) == ("cuda:0", "simulated cuda events (CPU time)", 3)
    # a closure that only creates its tensor on the GPU: found by the probe call
    t = torchferry.measure(lambda: torch.ones(8, device="cuda").sum(), repeat=3)
    assert (t.device, t.method) == ("cuda:0", "simulated cuda events (CPU time)")
    # host tensors in, GPU work inside: still waited for
    x = torch.randn(16, 16)
    t = torchferry.measure(lambda h: h.to("cuda") @ h.to("cuda"), x, repeat=3)
    assert (t.device, t.method) == ("cuda:0", "simulated cuda events (CPU time)")
    t = torchferry.measure(lambda: torch.ones(8).sum(), repeat=3)  # CPU work in the simulation
    assert (t.device, t.method) == ("cpu", "perf_counter")


def test_bench_measures_the_simulated_gpu(sim, tmp_path, capsys):
    j = tmp_path / "sim.json"
    assert main(["bench", "--sizes", "32,64", "--min-time", "0.001", "--json", str(j)]) == 0
    out = capsys.readouterr().out
    doc = json.loads(j.read_text())
    assert doc["predicted"] is False and "PREDICTED" not in out
    gpu = [r for r in doc["records"] if r["device"] == "cuda:0"]
    assert {(r["mode"], r["kind"]) for r in gpu} == {("resident", "measured"), ("rides", "measured")}
    assert all(r["method"] == "simulated cuda events (CPU time)" and r["seconds"] > 0 for r in gpu)
    assert "simulated CUDA device 0" in gpu[0]["label"]
    assert all(c["kind"] == "measured" for c in doc["crossovers"])
    assert "No profile for" in out  # no datasheet for a simulated card: no model error


def test_transfer_runs_its_cuda_path(sim):
    doc = transfer.run_transfer([4096, 65536], min_time=0.001)
    assert {(r["direction"], r["memory"]) for r in doc["records"]} == set(transfer.COLUMNS)
    assert all(r["gb_per_s"] > 0 and r["method"] == "simulated cuda events (CPU time)"
               for r in doc["records"])
    assert doc["link"] == {}  # unknown card: no link limit claimed
    assert any("unknown" in line for line in transfer.summary_lines(doc))


@pytest.mark.slow
def test_transfer_outputs(sim, tmp_path):
    from torchferry.bench import report

    doc = transfer.run_transfer([4096, 65536], min_time=0.001)
    table = report.transfer_table(doc)
    assert "h2d pinned GB/s" in table and "64 KiB" in table
    report.write_transfer_csv(doc, tmp_path / "t.csv")
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0].startswith("bytes,direction,memory,kind") and len(rows) == 1 + 8
    report.plot_transfer(doc, tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_device_loader_synchronous_move_in_the_simulation(sim):
    data = [{"x": torch.randn(4, 3), "y": torch.arange(4)} for _ in range(3)]
    out = list(torchferry.DeviceLoader(data, "cuda", prefetch=0))
    assert [b["x"].device.type for b in out] == ["cuda"] * 3
    assert torch.equal(out[2]["y"].cpu(), data[2]["y"])


def test_device_loader_prefetch_in_the_simulation(sim):
    data = [{"x": torch.randn(4, 3), "y": torch.arange(4) + i} for i in range(5)]
    loader = torchferry.DeviceLoader(data, "cuda", prefetch=2)
    for _epoch in range(2):  # re-iterable, the real CUDA operations throughout
        out = list(loader)
        assert [b["x"].device.type for b in out] == ["cuda"] * 5
        assert all(torch.equal(b["y"].cpu(), d["y"]) for b, d in zip(out, data, strict=True))
    it = iter(loader)
    next(it)
    del it  # an abandoned epoch
    assert len(list(loader)) == 5


def test_device_loader_stream_operations_in_the_simulation(sim):
    """The real CUDA stream operations DeviceLoader uses, called as it calls them."""
    from torchferry.loader import _CudaStreamOps, _stream_ops

    dev = torchferry.DeviceLoader([], "cuda").device
    ops = _stream_ops(dev)
    assert isinstance(ops, _CudaStreamOps)
    side = ops.new_stream(dev)
    host = ops.pin(torch.ones(4))
    assert host.is_pinned()
    with ops.on(side):
        moved = torchferry.to(host, dev)
        event = ops.record(side)
    current = ops.current_stream(dev)
    assert current != side
    ops.wait(current, event)
    ops.sync(ops.mark(current))
    assert moved.device.type == "cuda" and torch.equal(moved.cpu(), torch.ones(4))
