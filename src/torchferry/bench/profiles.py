"""Device profiles: the vendor datasheet figures the prediction model runs on.

Every number that comes from a datasheet carries its source (URL and which
figure) next to it.  Peak rates are the *dense* figures: NVIDIA's tensor-core
tables print rates "with sparsity", which are twice the dense rate, so those are
halved here and the note says so.  float32 uses the plain FP32 (non-tensor) rate,
because PyTorch computes float32 matmuls in full FP32 unless the user opts into
TF32 (``torch.backends.cuda.matmul.allow_tf32`` is False by default).

Link bandwidth is per direction.  PCIe per-direction rates follow from the
standard: Gen3 8 GT/s, Gen4 16 GT/s, Gen5 32 GT/s per lane, 128b/130b encoding,
16 lanes: 15.75, 31.5 and 63.0 GB/s.  NVIDIA datasheets print the bidirectional
sum (32, 64, 128 GB/s).

Three numbers are NOT datasheet figures (no vendor publishes them):
``launch_latency`` (one op from Python to a finished kernel on an idle GPU),
``sync_latency`` (the fixed cost of one blocking copy) and ``pageable_fraction``
(the share of the link's bandwidth that a copy from/to ordinary pageable host
memory reaches: the driver stages it through a pinned buffer with CPU memcpys,
so it depends on the host more than on the link).  For NVIDIA cards they come
from one measurement with this tool, on an NVIDIA H200 (PCIe Gen5 x16, torch
2.11.0+cu130, 2026-11-30, ``benchmarks/gpu/run_all.sh``, results in
``docs/measured/h200-2026-11-30/``): a resident 50 x 50 product took 16.9 µs;
each of the three few-KB blocking copies of the 50 x 50 ride added 13 µs
((56.2 - 16.9) / 3); pageable copies peaked at 14.2 GB/s host-to-device and
15.7 GB/s device-to-host, 23-25% of the 63 GB/s link.  They are assumed for the
other NVIDIA cards (the first version of the model assumed 8-10 µs, 12-15 µs and
pinned-memory bandwidth, and was off by a median 53% (resident) and 73% (rides)
on the H200).  ``ferry bench`` on a machine with the card prints the model's
error against measurement, which is how these assumptions get checked.

This module imports nothing heavy: the CLI validates ``--predict`` with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DeviceProfile", "PROFILES", "DEFAULT_PROFILE", "profile_for_device_name"]

GB = 1e9
TFLOPS = 1e12

# Not datasheet figures: measured once on an NVIDIA H200 with this tool (see above).
NVIDIA_LAUNCH = 17e-6  # s, resident 50 x 50 product, call to finished kernel
NVIDIA_SYNC = 13e-6  # s, fixed cost of one blocking host<->device copy
PAGEABLE_FRACTION = 0.24  # pageable copies reached 14.2-15.7 GB/s of a 63 GB/s link

# PCIe x16, per direction, in bytes/s (PCI-SIG base specifications; 128b/130b encoding).
PCIE3_X16 = 8e9 * 16 * 128 / 130 / 8  # 15.75 GB/s
PCIE4_X16 = 2 * PCIE3_X16  # 31.5 GB/s
PCIE5_X16 = 4 * PCIE3_X16  # 63.0 GB/s


@dataclass(frozen=True)
class DeviceProfile:
    """What the model needs to know about one accelerator."""

    key: str
    name: str
    #: dense peak FLOP/s per dtype name; a dtype absent here has no datasheet figure
    peak_flops: dict[str, float]
    #: device memory bandwidth, bytes/s
    mem_bandwidth: float
    #: host<->device link bandwidth, bytes/s, per direction
    link_bandwidth: float
    #: device memory, bytes
    memory: float
    #: seconds from a Python call to a finished kernel on an idle device (assumption)
    launch_latency: float
    #: fixed seconds of one blocking host<->device copy (assumption)
    sync_latency: float
    link_name: str
    sources: dict[str, str] = field(default_factory=dict)
    #: share of link_bandwidth a copy from/to pageable host memory reaches (assumption)
    pageable_fraction: float = PAGEABLE_FRACTION

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "name": self.name,
            "peak_flops": dict(self.peak_flops),
            "mem_bandwidth": self.mem_bandwidth,
            "link_bandwidth": self.link_bandwidth,
            "link": self.link_name,
            "memory": self.memory,
            "launch_latency": self.launch_latency,
            "sync_latency": self.sync_latency,
            "pageable_fraction": self.pageable_fraction,
            "sources": dict(self.sources),
        }


_LATENCY_NOTE = (
    "assumption, not on any datasheet: launch 17 us, 13 us per blocking copy and pageable "
    "copies at 24% of the link, as measured with 'ferry bench' / 'ferry bench transfer' on an "
    "NVIDIA H200 (torch 2.11.0+cu130, 2026-11-30, docs/measured/h200-2026-11-30/); checked by "
    "'ferry bench' on a machine with the card"
)

PROFILES: dict[str, DeviceProfile] = {
    "t4": DeviceProfile(
        key="t4",
        name="NVIDIA T4",
        peak_flops={
            "float32": 8.1 * TFLOPS,
            "float16": 65 * TFLOPS,
        },
        mem_bandwidth=320 * GB,
        link_bandwidth=PCIE3_X16,
        memory=16 * GB,
        launch_latency=NVIDIA_LAUNCH,
        sync_latency=NVIDIA_SYNC,
        link_name="PCIe Gen3 x16",
        sources={
            "peak_flops": (
                "NVIDIA T4 Tensor Core GPU datasheet, "
                "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
                "t4-tensor-core-datasheet-951643.pdf : 'Single-Precision 8.1 TFLOPS', "
                "'Mixed-Precision (FP16/FP32) 65 TFLOPS'. No bfloat16 or FP64 figure "
                "(Turing has no bf16 tensor cores), so none is predicted."
            ),
            "mem_bandwidth": (
                "NVIDIA T4 product brief (PB-09256-001), Table 2 'Memory Specifications': "
                "'Peak memory bandwidth Up to 320 GBytes/s'; "
                "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
                "t4-tensor-core-product-brief.pdf"
            ),
            "link_bandwidth": (
                "T4 datasheet: 'System Interface x16 PCIe Gen3', 'Interconnect Bandwidth "
                "32 GB/sec' (both directions); per direction 15.75 GB/s (PCIe 3.0 x16)."
            ),
            "latency": _LATENCY_NOTE,
        },
    ),
    "a100": DeviceProfile(
        key="a100",
        name="NVIDIA A100 80GB SXM",
        peak_flops={
            "float32": 19.5 * TFLOPS,
            "float16": 312 * TFLOPS,
            "bfloat16": 312 * TFLOPS,
            "float64": 19.5 * TFLOPS,
        },
        mem_bandwidth=2039 * GB,
        link_bandwidth=PCIE4_X16,
        memory=80 * GB,
        launch_latency=NVIDIA_LAUNCH,
        sync_latency=NVIDIA_SYNC,
        link_name="PCIe Gen4 x16",
        sources={
            "peak_flops": (
                "NVIDIA A100 Tensor Core GPU datasheet, "
                "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf , table 'A100 80GB SXM': "
                "'FP32 19.5 TFLOPS', 'BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*', "
                "'FP16 Tensor Core 312 TFLOPS | 624 TFLOPS*' (*with sparsity; the dense figure "
                "is used), 'FP64 Tensor Core 19.5 TFLOPS'."
            ),
            "mem_bandwidth": "same datasheet, A100 80GB SXM: 'GPU Memory Bandwidth 2,039 GB/s'.",
            "link_bandwidth": (
                "same datasheet, 'Interconnect: PCIe Gen4: 64 GB/s' (both directions); "
                "per direction 31.5 GB/s."
            ),
            "latency": _LATENCY_NOTE,
        },
    ),
    "h100": DeviceProfile(
        key="h100",
        name="NVIDIA H100 SXM",
        peak_flops={
            "float32": 67 * TFLOPS,
            "float16": 1979 / 2 * TFLOPS,
            "bfloat16": 1979 / 2 * TFLOPS,
            "float64": 67 * TFLOPS,
        },
        mem_bandwidth=3.35e12,
        link_bandwidth=PCIE5_X16,
        memory=80 * GB,
        launch_latency=NVIDIA_LAUNCH,
        sync_latency=NVIDIA_SYNC,
        link_name="PCIe Gen5 x16",
        sources={
            "peak_flops": (
                "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/ "
                "('Technical Specifications', H100 SXM column): 'FP32 67 teraFLOPS', "
                "'BF16 Tensor Core 1,979 teraFLOPS*', 'FP16 Tensor Core 1,979 teraFLOPS*' "
                "(*with sparsity: the dense 989.5 is used), 'FP64 Tensor Core 67 teraFLOPS'."
            ),
            "mem_bandwidth": "same table: 'GPU Memory Bandwidth 3.35TB/s'.",
            "link_bandwidth": (
                "same table, 'Interconnect: ... PCIe Gen5: 128GB/s' (both directions); "
                "per direction 63 GB/s."
            ),
            "latency": _LATENCY_NOTE,
        },
    ),
    "h200": DeviceProfile(
        key="h200",
        name="NVIDIA H200 SXM",
        peak_flops={
            "float32": 67 * TFLOPS,
            "float16": 1979 / 2 * TFLOPS,
            "bfloat16": 1979 / 2 * TFLOPS,
            "float64": 67 * TFLOPS,
        },
        mem_bandwidth=4.8e12,
        link_bandwidth=PCIE5_X16,
        memory=141 * GB,
        launch_latency=NVIDIA_LAUNCH,
        sync_latency=NVIDIA_SYNC,
        link_name="PCIe Gen5 x16",
        sources={
            "peak_flops": (
                "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/ "
                "('Specifications', H200 SXM column): 'FP32 67 TFLOPS', "
                "'BFLOAT16 Tensor Core 1,979 TFLOPS*', 'FP16 Tensor Core 1,979 TFLOPS*' "
                "(*with sparsity: the dense 989.5 is used), 'FP64 Tensor Core 67 TFLOPS'."
            ),
            "mem_bandwidth": "same table: 'GPU Memory 141GB', 'GPU Memory Bandwidth 4.8TB/s'.",
            "link_bandwidth": (
                "same table, 'Interconnect: ... PCIe Gen5: 128GB/s' (both directions); "
                "per direction 63 GB/s."
            ),
            "latency": _LATENCY_NOTE,
        },
    ),
    "rtx4090": DeviceProfile(
        key="rtx4090",
        name="NVIDIA GeForce RTX 4090",
        peak_flops={
            "float32": 82.6 * TFLOPS,
            "float16": 165.2 * TFLOPS,
            "bfloat16": 165.2 * TFLOPS,
        },
        mem_bandwidth=1008 * GB,
        link_bandwidth=PCIE4_X16,
        memory=24 * GB,
        launch_latency=NVIDIA_LAUNCH,
        sync_latency=NVIDIA_SYNC,
        link_name="PCIe Gen4 x16",
        sources={
            "peak_flops": (
                "NVIDIA Ada GPU Architecture whitepaper, "
                "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf "
                ", Appendix A table 'GeForce RTX 4090': 'Peak FP32 TFLOPS (non-Tensor) 82.6', "
                "'Peak FP16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4' and the same for BF16 "
                "(dense/sparse; PyTorch accumulates in FP32, dense used)."
            ),
            "mem_bandwidth": "same table: 'Memory Bandwidth 1008 GB/sec'.",
            "link_bandwidth": "PCIe Gen4 x16 host interface; per direction 31.5 GB/s.",
            "latency": _LATENCY_NOTE,
        },
    ),
    "m2": DeviceProfile(
        key="m2",
        name="Apple M2 (10-core GPU)",
        peak_flops={
            "float32": 3.6 * TFLOPS,
            "float16": 3.6 * TFLOPS,
        },
        mem_bandwidth=100 * GB,
        link_bandwidth=50 * GB,
        memory=8 * GB,
        launch_latency=40e-6,
        sync_latency=40e-6,
        pageable_fraction=1.0,
        link_name="unified memory (a copy reads and writes it)",
        sources={
            "peak_flops": (
                "Apple newsroom, 'Apple unveils M2' (2022-06-06), "
                "https://www.apple.com/newsroom/2022/06/apple-unveils-m2-with-breakthrough-"
                "performance-and-capabilities/ : 'up to 10-core GPU'; Apple's WWDC 2022 keynote "
                "slide gave the M2 GPU as 3.6 TFLOPS (FP32). Apple GPUs run FP16 at the FP32 "
                "rate; no bf16/FP64 figure (MPS has no float64)."
            ),
            "mem_bandwidth": "same newsroom page: '100GB/s of unified memory bandwidth'.",
            "link_bandwidth": (
                "derived, not a datasheet figure: .to('mps') copies within unified memory, "
                "reading and writing it, so at most half of 100 GB/s (already a memcpy figure: "
                "pageable_fraction 1)."
            ),
            "latency": (
                "assumption, not on any datasheet and not measured here: 40 us per op and per "
                "copy (MPS commits a command buffer and waits for it)"
            ),
        },
    ),
}

#: the GPU a free Colab notebook gets
DEFAULT_PROFILE = "t4"

# substrings of torch.cuda.get_device_name() -> profile key, most specific first
_NAME_HINTS = (
    ("h200", "h200"),
    ("h100", "h100"),
    ("a100", "a100"),
    ("rtx 4090", "rtx4090"),
    ("t4", "t4"),
)


def profile_for_device_name(name: str) -> DeviceProfile | None:
    """The profile of a card from its name as torch reports it, or None if unknown.

    >>> profile_for_device_name("NVIDIA H200").key
    'h200'
    >>> profile_for_device_name("Tesla T4").key, profile_for_device_name("NVIDIA L4")
    ('t4', None)
    """
    low = name.lower()
    for hint, key in _NAME_HINTS:
        if hint == "t4":
            if "tesla t4" in low or low.strip() in ("t4", "nvidia t4"):
                return PROFILES[key]
            continue
        if hint in low:
            return PROFILES[key]
    if low.startswith("apple m2") and all(x not in low for x in ("pro", "max", "ultra")):
        return PROFILES["m2"]
    return None
