"""The prediction model behind ``ferry bench``'s predicted columns.

For an ``n x n`` by ``n x n`` matrix product in a dtype of ``e`` bytes:

* compute (inputs already on the device)::

      launch_latency + max(2 n^3 / peak_flops[dtype],  3 n^2 e / mem_bandwidth)

  (a roofline: the slower of doing the arithmetic and reading both inputs and
  writing the result once);
* with the ferry rides (inputs shipped host-to-device, result shipped back)::

      compute + sum over the three copies of
                (bytes / (link_bandwidth * pageable_fraction) + sync_latency)

  (the inputs and the result live in ordinary pageable host memory, which the
  driver stages through a pinned buffer: such copies reach only a fraction of
  the link's datasheet bandwidth; see ``profiles.py`` for where it comes from)

A dtype the profile has no datasheet rate for gives ``None`` (not predicted), and
so does a problem whose three matrices do not fit in the card's memory (``"oom"``).
Pure Python: no torch needed.
"""

from __future__ import annotations

from torchferry.bench.profiles import DeviceProfile

__all__ = ["matmul_flops", "matmul_bytes", "predict_matmul", "predict_copy"]

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}


def matmul_flops(n: int) -> float:
    """Floating-point operations of an n x n by n x n product (a multiply and an add each)."""
    return 2.0 * n**3


def matmul_bytes(n: int, dtype: str) -> float:
    """Bytes one product must move at least: read two n x n matrices, write one."""
    return 3.0 * n * n * DTYPE_BYTES[dtype]


def predict_copy(nbytes: float, profile: DeviceProfile, *, pageable: bool = True) -> float:
    """Seconds for one blocking host<->device copy of ``nbytes`` (from pageable memory
    by default; ``pageable=False``: pinned, at the link's full datasheet rate)."""
    bandwidth = profile.link_bandwidth * (profile.pageable_fraction if pageable else 1.0)
    return nbytes / bandwidth + profile.sync_latency


def predict_matmul(n: int, dtype: str, profile: DeviceProfile) -> dict[str, float | str | None]:
    """Predicted seconds for ``mode`` ``resident`` and ``rides``, or None / ``"oom"``.

    >>> from torchferry.bench.profiles import PROFILES
    >>> p = predict_matmul(4000, "float32", PROFILES["t4"])
    >>> round(p["resident"] * 1e3, 2)  # 128 GFLOP at 8.1 TFLOP/s, plus the launch
    15.82
    """
    if n * n * DTYPE_BYTES[dtype] * 3 > profile.memory:
        return {"resident": "oom", "rides": "oom"}
    peak = profile.peak_flops.get(dtype)
    if peak is None:
        return {"resident": None, "rides": None}
    compute = profile.launch_latency + max(
        matmul_flops(n) / peak, matmul_bytes(n, dtype) / profile.mem_bandwidth
    )
    one = n * n * DTYPE_BYTES[dtype]
    rides = predict_copy(one, profile) * 2 + predict_copy(one, profile)  # a, b over; c back
    return {"resident": compute, "rides": compute + rides}
