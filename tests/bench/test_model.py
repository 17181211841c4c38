"""The prediction model, the profiles' citations, and the crossover arithmetic."""

from __future__ import annotations

import math

import pytest

from torchferry.bench import matmul
from torchferry.bench.model import matmul_bytes, matmul_flops, predict_matmul
from torchferry.bench.profiles import PROFILES, profile_for_device_name


def test_compute_bound_prediction_is_flops_over_peak_plus_launch():
    t4 = PROFILES["t4"]
    p = predict_matmul(4000, "float32", t4)
    assert p["resident"] == pytest.approx(t4.launch_latency + 2 * 4000**3 / 8.1e12)
    one = 4000 * 4000 * 4
    rides = 3 * (one / (t4.link_bandwidth * t4.pageable_fraction) + t4.sync_latency)
    assert p["rides"] == pytest.approx(p["resident"] + rides)


def test_memory_bound_regime_uses_bandwidth():
    h200 = PROFILES["h200"]
    n = 64  # tiny fp16 product on a huge tensor-core rate: bytes dominate
    assert matmul_bytes(n, "float16") / h200.mem_bandwidth > matmul_flops(n) / h200.peak_flops["float16"]
    p = predict_matmul(n, "float16", h200)
    assert p["resident"] == pytest.approx(h200.launch_latency + matmul_bytes(n, "float16") / 4.8e12)


def test_missing_rate_and_too_big_are_not_predicted():
    assert predict_matmul(100, "bfloat16", PROFILES["t4"]) == {"resident": None, "rides": None}
    assert predict_matmul(200_000, "float32", PROFILES["t4"]) == {"resident": "oom", "rides": "oom"}


@pytest.mark.parametrize("key", sorted(PROFILES))
def test_every_profile_cites_its_figures(key):
    prof = PROFILES[key]
    for what in ("peak_flops", "mem_bandwidth", "link_bandwidth", "latency"):
        assert prof.sources.get(what), f"{key}: no source for {what}"
    assert "https://" in prof.sources["peak_flops"]
    assert "assumption" in prof.sources["latency"]
    assert prof.peak_flops["float32"] > 1e12 and prof.mem_bandwidth > 1e10
    assert prof.to_dict()["key"] == key


def test_pcie_per_direction_rates():
    assert PROFILES["t4"].link_bandwidth == pytest.approx(15.75e9, rel=1e-3)
    assert PROFILES["a100"].link_bandwidth == pytest.approx(31.5e9, rel=1e-3)
    assert PROFILES["h200"].link_bandwidth == pytest.approx(63.0e9, rel=1e-3)


@pytest.mark.parametrize("name,key", [
    ("NVIDIA H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100"), ("NVIDIA A100-SXM4-80GB", "a100"),
    ("Tesla T4", "t4"), ("NVIDIA GeForce RTX 4090", "rtx4090"), ("Apple M2 (mps)", "m2"),
    ("NVIDIA L4", None), ("NVIDIA GeForce RTX 4090 D", "rtx4090"), ("Apple M2 Max", None),
])
def test_profile_for_device_name(name, key):
    prof = profile_for_device_name(name)
    assert (prof.key if prof else None) == key


# ------------------------------------------------------------------ crossovers
def _recs(cpu, acc, sizes, mode="resident"):
    out = []
    for n, c, a in zip(sizes, cpu, acc, strict=True):
        out.append({"size": n, "device": "cpu", "mode": "compute", "kind": "measured", "seconds": c})
        out.append({"size": n, "device": "gpu", "mode": mode, "kind": "measured", "seconds": a})
    return out


SIZES = [50, 100, 200, 400]
CONTENDER = [("gpu", "GPU", "measured")]


def test_crossover_from_size_and_loglog_estimate():
    recs = _recs([1, 4, 16, 64], [8, 8, 8, 8], SIZES)
    c = next(x for x in matmul.crossovers(recs, SIZES, CONTENDER) if x["mode"] == "resident")
    assert c["from_size"] == 200 and not c["below_smallest"]
    # ratio 2 at 100 and 0.5 at 200: the log-log line crosses 1 at their geometric mean
    assert c["estimate"] == pytest.approx(math.sqrt(100 * 200))


def test_crossover_never_and_always():
    recs = _recs([1, 1, 1, 1], [2, 2, 2, 2], SIZES)
    c = next(x for x in matmul.crossovers(recs, SIZES, CONTENDER) if x["mode"] == "resident")
    assert c["from_size"] is None
    recs = _recs([5, 5, 5, 5], [1, 1, 1, 1], SIZES)
    c = next(x for x in matmul.crossovers(recs, SIZES, CONTENDER) if x["mode"] == "resident")
    assert c["from_size"] == 50 and c["below_smallest"]


def test_crossover_needs_a_win_at_every_larger_size_and_skips_gaps():
    recs = _recs([1, 4, 16, 64], [8, 2, 20, 8], SIZES)  # wins at 100, loses at 200, wins at 400
    c = next(x for x in matmul.crossovers(recs, SIZES, CONTENDER) if x["mode"] == "resident")
    assert c["from_size"] == 400
    recs = _recs([1, 4, 16, 64], [8, 2, 4, None], SIZES)  # largest size out of memory
    c = next(x for x in matmul.crossovers(recs, SIZES, CONTENDER) if x["mode"] == "resident")
    assert c["from_size"] == 100


def test_winners_and_sentence():
    recs = _recs([1, 4, 16, 64], [8, 8, 8, 8], SIZES)
    w = [x for x in matmul.winners(recs, SIZES, CONTENDER) if x["mode"] == "resident"]
    assert [x["winner"] for x in w] == ["cpu", "cpu", "gpu", "gpu"]
    assert w[-1]["speedup"] == pytest.approx(8.0)
    cross = matmul.crossovers(recs, SIZES, CONTENDER)
    text = matmul.crossover_sentence(cross, 400)[0]
    assert text.startswith("The GPU beats the CPU from 200 x 200")
    assert "when data already lives there" in text
    # no rides records at all: no conclusion for them (it used to say "never")
    assert "cannot be compared when you ship it" in text and "never" not in text


def test_is_oom_recognises_every_flavour():
    import torch

    assert matmul.is_oom(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"))
    assert matmul.is_oom(RuntimeError("MPS backend out of memory (MPS allocated: 1 GB)"))
    assert matmul.is_oom(RuntimeError("[enforce fail at alloc_cpu.cpp] DefaultCPUAllocator: "
                                      "can't allocate memory: you tried to allocate 1 bytes"))
    assert matmul.is_oom(MemoryError())
    assert not matmul.is_oom(RuntimeError("mat1 and mat2 shapes cannot be multiplied"))


def test_the_non_datasheet_numbers_are_the_h200_measurement():
    """Launch 16.9 us, 13 us per copy, pageable at 14.2-15.7 of 63 GB/s (run_all.sh on an H200,
    docs/measured/h200-2026-11-30): the NVIDIA profiles carry them and say so."""
    for key in ("t4", "a100", "h100", "h200", "rtx4090"):
        prof = PROFILES[key]
        assert prof.launch_latency == pytest.approx(17e-6)
        assert prof.sync_latency == pytest.approx(13e-6)
        assert 14.2 / 63 <= prof.pageable_fraction <= 15.7 / 63
        assert "H200" in prof.sources["latency"]
    assert PROFILES["m2"].pageable_fraction == 1.0
    from torchferry.bench.model import predict_copy

    h200 = PROFILES["h200"]
    one_second = h200.link_bandwidth  # bytes the link moves in a second, pinned
    assert predict_copy(one_second, h200, pageable=False) == pytest.approx(1 + h200.sync_latency)
    assert predict_copy(one_second, h200) == pytest.approx(1 / 0.24 + h200.sync_latency)
