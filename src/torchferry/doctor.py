"""Why ``torch.cuda.is_available()`` agrees or disagrees with the hardware: ``ferry doctor``.

:func:`examine` gathers facts (torch's build, the accelerators torch sees, the
NVIDIA driver, ``CUDA_VISIBLE_DEVICES``, MPS) and turns the usual mismatches into
plain-words problems, each with its fix; :func:`format_report` prints them::

    from torchferry.doctor import examine, format_report
    print(format_report(examine()))
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import torch

from torchferry import devices as _devices
from torchferry.devices import ENV_VAR, PREFERENCE
from torchferry.errors import DeviceUnavailableError

__all__ = ["examine", "format_report", "gather_facts", "analyze"]


def _selection_reason() -> tuple[str | None, str]:
    """The device :func:`device` would pick here, and why (for ``ferry doctor``)."""
    try:
        dev = _devices.device()
    except DeviceUnavailableError as exc:
        return None, str(exc)
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        why = f"{ENV_VAR}={env}"
    elif os.environ.get("LOCAL_RANK", "").strip() and dev.type != "cpu":
        why = f"LOCAL_RANK={os.environ['LOCAL_RANK']} under torchrun"
    elif dev.type == "cpu":
        why = "no accelerator is available to torch"
    else:
        why = f"first available of {', '.join(PREFERENCE)}"
    return str(dev), why


def _run(cmd: list[str], timeout: float = 10.0) -> str | None:
    exe = shutil.which(cmd[0])
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, *cmd[1:]], capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def _driver_facts() -> dict[str, Any]:
    """Is an NVIDIA driver installed, which version, which CUDA it supports, which GPUs."""
    facts: dict[str, Any] = {
        "present": False, "version": None, "cuda": None, "gpus": [], "source": None,
    }
    proc = Path("/proc/driver/nvidia/version")
    if proc.exists():
        facts["present"] = True
        facts["source"] = str(proc)
        m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", proc.read_text(errors="replace"))
        if m:
            facts["version"] = m.group(1)
    smi = _run(["nvidia-smi"])
    if smi is not None:
        facts["present"] = True
        facts["source"] = "nvidia-smi"
        m = re.search(r"Driver Version:\s*([\d.]+)", smi)
        if m:
            facts["version"] = m.group(1)
        m = re.search(r"CUDA Version:\s*([\d.]+)", smi)
        if m:
            facts["cuda"] = m.group(1)
        q = _run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"])
        if q:
            facts["gpus"] = [line.strip() for line in q.splitlines() if line.strip()]
    return facts


def _cuda_warnings() -> list[str]:
    """The reason torch gives (as a warning) when CUDA fails to initialise."""
    if not torch.backends.cuda.is_built():
        return []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.is_available()
        try:
            torch.cuda.device_count()
        except Exception as exc:  # pragma: no cover - depends on a broken driver
            return [str(exc)]
    return [str(w.message) for w in caught]


def gather_facts() -> dict[str, Any]:
    """Everything ``ferry doctor`` looks at, as plain data."""
    build = _build_facts()
    accelerators = _accelerator_facts()
    mps_backend = getattr(torch.backends, "mps", None)
    mps = {
        "built": bool(mps_backend and mps_backend.is_built()),
        "available": _devices._is_available("mps"),
    }
    if mps["available"]:
        accelerators.append({"device": "mps", "name": "Apple GPU (MPS)", "memory_gib": None,
                             "capability": None})
    selected, why = _selection_reason()
    return {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "torch": torch.__version__,
        "build": build,
        "cuda_available": _devices._is_available("cuda"),
        "cuda_init_warnings": _cuda_warnings(),
        "accelerators": accelerators,
        "driver": _driver_facts(),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "mps": mps,
        "selected_device": selected,
        "selected_because": why,
    }


def _build_facts() -> dict[str, Any]:
    """The torch build: its kind (cuda, rocm, xpu, cpu-only), versions and architectures."""
    build: dict[str, Any] = {
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "xpu": getattr(torch.version, "xpu", None),
        "cudnn": None,
        "arch_list": [],
    }
    if build["cuda"] or build["hip"]:
        try:
            build["cudnn"] = torch.backends.cudnn.version()
        except Exception:
            pass
        try:
            build["arch_list"] = list(torch.cuda.get_arch_list())
        except Exception:
            pass
    build["kind"] = (
        "cuda" if build["cuda"] else "rocm" if build["hip"] else "xpu" if build["xpu"] else "cpu-only"
    )
    return build


def _accelerator_facts() -> list[dict[str, Any]]:
    """The CUDA and XPU devices torch sees: device, name, memory, compute capability."""
    accelerators: list[dict[str, Any]] = []
    if _devices._is_available("cuda"):
        for i in range(_devices._count("cuda")):
            p = torch.cuda.get_device_properties(i)
            accelerators.append({
                "device": f"cuda:{i}",
                "name": p.name,
                "memory_gib": round(p.total_memory / 2**30, 1),
                "capability": f"{p.major}.{p.minor}",
            })
    if _devices._is_available("xpu"):
        for i in range(_devices._count("xpu")):
            xp = torch.xpu.get_device_properties(i)
            accelerators.append({
                "device": f"xpu:{i}", "name": xp.name,
                "memory_gib": round(getattr(xp, "total_memory", 0) / 2**30, 1),
                "capability": None,
            })
    return accelerators


def _version_tuple(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        return tuple(int(p) for p in text.split(".")[:2])
    except ValueError:
        return None


def _wheel_tag(cuda: str | None) -> str:
    v = _version_tuple(cuda)
    if v is None:
        return "cu126"
    return f"cu{v[0]}{v[1] if len(v) > 1 else 0}"


def analyze(facts: dict[str, Any]) -> list[dict[str, str]]:
    """Turn :func:`gather_facts` output into problems, each ``{"id", "problem", "fix"}``."""
    problems = _build_problems(facts)
    problems += _hidden_gpus(facts)
    problems += _cuda_init_failed(facts, problems)
    problems += _unsupported_architectures(facts)
    if facts["selected_device"] is None:
        problems.append(_device_override(facts))
    return problems


def _build_problems(facts: dict[str, Any]) -> list[dict[str, str]]:
    """A torch build that cannot use the machine's NVIDIA driver: a CPU-only wheel beside a
    driver, or a CUDA build newer than the driver supports."""
    problems: list[dict[str, str]] = []
    build, driver = facts["build"], facts["driver"]
    gpus = driver.get("gpus") or []

    if build["kind"] == "cpu-only" and driver["present"]:
        tag = _wheel_tag(driver.get("cuda"))
        problems.append({
            "id": "cpu-only-wheel",
            "problem": (
                f"torch {facts['torch']} is a CPU-only build, but this machine has an NVIDIA "
                f"driver ({driver.get('version') or 'version unknown'}"
                + (f", {len(gpus)} GPU(s)" if gpus else "")
                + "): torch.cuda.is_available() will always be False."
            ),
            "fix": (
                "install a CUDA build of torch matching the driver, e.g. "
                f"pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{tag}"
            ),
        })

    if build["kind"] == "cuda" and driver["present"]:
        have, need = _version_tuple(driver.get("cuda")), _version_tuple(build["cuda"])
        if have and need and have[0] < need[0]:
            problems.append({
                "id": "driver-too-old",
                "problem": (
                    f"torch was built for CUDA {build['cuda']}, but the NVIDIA driver "
                    f"({driver.get('version')}) supports CUDA up to {driver['cuda']}: "
                    "CUDA cannot initialise."
                ),
                "fix": (
                    f"update the NVIDIA driver to one supporting CUDA {build['cuda']}, or install "
                    f"a torch built for CUDA {driver['cuda']} or older: pip install torch "
                    f"--index-url https://download.pytorch.org/whl/{_wheel_tag(driver['cuda'])}"
                ),
            })
    return problems


def _hidden_gpus(facts: dict[str, Any]) -> list[dict[str, str]]:
    """``CUDA_VISIBLE_DEVICES`` hiding every GPU from a CUDA build that finds none."""
    problems: list[dict[str, str]] = []
    build, driver = facts["build"], facts["driver"]
    cvd = facts.get("cuda_visible_devices")
    gpus = driver.get("gpus") or []
    if cvd is not None and not facts["cuda_available"] and build["kind"] == "cuda":
        visible = [d.strip() for d in cvd.split(",") if d.strip()]
        hides_all = not visible or visible[0] in ("-1", "none", "NoDevFiles")
        if not hides_all and gpus and all(d.isdigit() and int(d) >= len(gpus) for d in visible):
            hides_all = True
        if hides_all and (driver["present"] or not visible):
            problems.append({
                "id": "cuda-visible-devices",
                "problem": (
                    f"CUDA_VISIBLE_DEVICES={cvd!r} hides every GPU from this process"
                    + (f" (the machine has {len(gpus)})" if gpus else "") + "."
                ),
                "fix": "unset CUDA_VISIBLE_DEVICES, or set it to the GPU indices to use, e.g. 0",
            })
    return problems


def _cuda_init_failed(facts: dict[str, Any], found: list[dict[str, str]]) -> list[dict[str, str]]:
    """CUDA failing to initialise beside a driver, for a CUDA build, where no problem
    ``found`` so far explains it."""
    problems: list[dict[str, str]] = []
    build, driver = facts["build"], facts["driver"]
    if (build["kind"] == "cuda" and driver["present"] and not facts["cuda_available"]
            and not found):
        reason = "; ".join(facts.get("cuda_init_warnings") or []) or "no reason given by torch"
        problems.append({
            "id": "cuda-init-failed",
            "problem": f"an NVIDIA driver is present but CUDA failed to initialise: {reason}",
            "fix": (
                "check that nvidia-smi works in this environment (in a container, run it with "
                "the NVIDIA runtime: docker run --gpus all ...), then reinstall torch for the "
                "driver's CUDA version"
            ),
        })
    return problems


def _unsupported_architectures(facts: dict[str, Any]) -> list[dict[str, str]]:
    """Each CUDA device whose compute capability the torch build has no kernels (nor PTX)
    for."""
    problems: list[dict[str, str]] = []
    arch = facts["build"].get("arch_list") or []
    for acc in facts["accelerators"]:
        cap = acc.get("capability")
        if not (cap and arch and acc["device"].startswith("cuda")):
            continue
        sm = "sm_" + cap.replace(".", "")
        ptx_ok = any(a.startswith("compute_") and a[8:] <= cap.replace(".", "") for a in arch)
        if sm not in arch and not ptx_ok:
            problems.append({
                "id": "arch-not-supported",
                "problem": (
                    f"{acc['device']} ({acc['name']}, compute capability {cap}) is not in this "
                    f"torch build's architectures ({' '.join(arch)}): kernels will fail with "
                    "'no kernel image is available for execution on the device'."
                ),
                "fix": "install a torch build that supports this GPU (a newer CUDA wheel)",
            })
    return problems


def _device_override(facts: dict[str, Any]) -> dict[str, str]:
    """The device override that failed: the problem and the fix its error names."""
    # the error names its own fix ("... Fix: unset ..."): say it once, as the fix
    problem, _, fix = facts["selected_because"].partition(" Fix: ")
    fix = fix.split("; 'ferry doctor'")[0].rstrip(".") or f"fix or unset {ENV_VAR}"
    return {"id": "device-override", "problem": problem, "fix": fix}


def examine() -> dict[str, Any]:
    """Facts plus problems: what ``ferry doctor --json`` prints.

    >>> report = examine()
    >>> sorted(k for k in ("python", "torch", "problems") if k in report)
    ['problems', 'python', 'torch']
    """
    facts = gather_facts()
    facts["problems"] = analyze(facts)
    return facts


def format_report(report: dict[str, Any]) -> str:
    """The human-readable ``ferry doctor`` report."""
    b, d = report["build"], report["driver"]
    lines = [
        f"python        {report['python']} ({report['platform']}, {sys.executable})",
        f"torch         {report['torch']}",
        f"build         {_build_text(b)}",
    ]
    if b["arch_list"]:
        lines.append(f"archs         {' '.join(b['arch_list'])}")
    lines.append(f"driver        {_driver_text(d)}")
    for g in d.get("gpus") or []:
        lines.append(f"  gpu         {g}")
    cvd = report["cuda_visible_devices"]
    lines.append(f"CUDA_VISIBLE_DEVICES  {'(not set)' if cvd is None else repr(cvd)}")
    lines.append(f"cuda          is_available() = {report['cuda_available']}")
    mps = report["mps"]
    lines.append(f"mps           built = {mps['built']}, available = {mps['available']}")
    lines += _accelerator_lines(report["accelerators"])
    sel = report["selected_device"]
    lines.append(
        f"selected      {sel} ({report['selected_because']})" if sel
        else "selected      none: the device asked for cannot be used (see the problem below)"
    )
    lines.append("")
    lines += _verdict_lines(report["problems"], report["accelerators"])
    return "\n".join(lines)


def _build_text(b: dict[str, Any]) -> str:
    """What the torch build ``b`` computes with: CUDA (and cuDNN), ROCm, XPU or the CPU only."""
    if b["kind"] == "cuda":
        return f"CUDA {b['cuda']}" + (f", cuDNN {b['cudnn']}" if b["cudnn"] else "")
    if b["kind"] == "rocm":
        return f"ROCm/HIP {b['hip']}"
    if b["kind"] == "xpu":
        return f"XPU {b['xpu']}"
    return "CPU-only (no CUDA, no ROCm)"


def _driver_text(d: dict[str, Any]) -> str:
    """The NVIDIA driver ``d``: its version, the CUDA it supports and where that was read."""
    if not d["present"]:
        return "none found (no nvidia-smi, no /proc/driver/nvidia)"
    drv = f"NVIDIA {d['version'] or '(version unknown)'}"
    if d["cuda"]:
        drv += f", supports CUDA up to {d['cuda']}"
    return drv + f" (from {d['source']})"


def _accelerator_lines(accelerators: list[dict[str, Any]]) -> list[str]:
    """The report's lines of the accelerators torch sees: device, name, memory, capability."""
    if not accelerators:
        return ["accelerators  none visible to torch"]
    lines = ["accelerators"]
    for a in accelerators:
        extra = []
        if a.get("memory_gib"):
            extra.append(f"{a['memory_gib']} GiB")
        if a.get("capability"):
            extra.append(f"capability {a['capability']}")
        lines.append(f"  {a['device']:<11} {a['name']}" + (f" ({', '.join(extra)})" if extra else ""))
    return lines


def _verdict_lines(problems: list[dict[str, str]], accelerators: list[dict[str, Any]]) -> list[str]:
    """The report's closing lines: each problem with its fix, or that there are none."""
    if not problems:
        if accelerators:
            return ["No problems found: torch sees the accelerators this machine has."]
        return [
            "No problems found: this machine has no GPU torch could use, and torch agrees "
            "(the portable pattern runs here on the CPU)."
        ]
    lines = [f"{len(problems)} problem(s) found:"]
    for p in problems:
        lines.append(f"  - {p['problem']}")
        lines.append(f"    fix: {p['fix']}")
    return lines
