"""Explain the torchrun / DDP / NCCL device mistakes in terms of the user's code.

:func:`explain_distributed` recognises, by PyTorch's and NCCL's own texts, the
mistakes a multi-GPU script makes with devices, and says what happened and the
fix.  :func:`torchferry.diagnose.explanation.explain_exception` asks it first.

* ``Duplicate GPU detected : rank 1 and rank 0 both on CUDA device ...`` (NCCL):
  two ranks use one GPU, almost always because nobody called
  ``torch.cuda.set_device(local_rank)`` (so ``"cuda"`` is device 0 on every rank)
  or a tensor was made on another rank's device (``"cuda:0"`` written out);
* ``No backend type associated with device type cpu`` (c10d): a collective on a
  CPU tensor, while the process group has only NCCL;
* ``Tensors must be CUDA and dense`` / ``Tensors must be on the same device``
  (ProcessGroupNCCL): one collective mixes the CPU and GPUs, or two GPUs;
* ``Tensor found on device cuda:0 but backend constrained to cuda:1``: a
  collective away from ``init_process_group(device_id=...)``;
* ``DistributedDataParallel device_ids and output_device arguments only work with
  ... module parameters {device(type='cpu')}``: DDP of a model still on the CPU;
* any error raised inside ``DistributedDataParallel.forward`` whose
  ``device_ids[0]`` is not the module's device: DDP moved the inputs to
  ``device_ids[0]`` and the module is elsewhere.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from torchferry._internal import frames as _frames

__all__ = ["explain_distributed", "SET_DEVICE_FIX"]

SET_DEVICE_FIX = (
    'torch.cuda.set_device(int(os.environ["LOCAL_RANK"])) before init_process_group, and '
    'device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) for the model and the data '
    "(torchferry.device() does both under torchrun)"
)

_PATTERNS: list[tuple[re.Pattern[str], str, str, str]] = [
    (
        re.compile(r"Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device (\w+)"),
        "nccl_duplicate_gpu",
        "two ranks on the same GPU (rank {0} and rank {1}): NCCL needs one GPU per rank",
        SET_DEVICE_FIX + '; not "cuda:0" written out: that is another rank\'s GPU',
    ),
    (
        re.compile(r"No backend type associated with device type cpu"),
        "collective_on_cpu",
        "a collective on a CPU tensor, but the process group has only NCCL (GPU tensors)",
        "move the tensor to this rank's GPU first: t = t.to(device), device = "
        'torch.device("cuda", int(os.environ["LOCAL_RANK"])); or init_process_group('
        '"cpu:gloo,cuda:nccl") to reduce CPU tensors with gloo',
    ),
    (
        re.compile(r"Tensors must be CUDA and dense|Tensors must be on the same device"),
        "collective_devices",
        "one collective mixes tensors on different devices",
        "put every tensor of the collective on this rank's GPU (device = "
        'torch.device("cuda", int(os.environ["LOCAL_RANK"])))',
    ),
    (
        re.compile(r"Tensor found on device (\S+) but backend constrained to (\S+)"),
        "nccl_bound_device",
        "a collective on {0}, but init_process_group(device_id=...) bound this rank to {1}",
        "make the tensor on the device given to init_process_group: t = t.to({1})",
    ),
    (
        re.compile(
            r"DistributedDataParallel device_ids and output_device arguments only work with "
            r".*module parameters \{device\(type='cpu'\)\}",
            re.S,
        ),
        "ddp_cpu_module",
        "DistributedDataParallel(device_ids=...) of a model still on the CPU",
        "model = model.to(device) before DistributedDataParallel(model, device_ids="
        '[local_rank]), device = torch.device("cuda", local_rank)',
    ),
]


def _rank() -> str:
    rank, local = os.environ.get("RANK"), os.environ.get("LOCAL_RANK")
    if rank is None:
        return ""
    return f" [rank {rank}, LOCAL_RANK={local}]" if local is not None else f" [rank {rank}]"


def _ddp_mismatch(exc: BaseException) -> tuple[str, str] | None:
    """An error inside DDP.forward whose device_ids[0] is not the module's device."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    ddp_type = getattr(getattr(torch.nn, "parallel", None), "DistributedDataParallel", None)
    if ddp_type is None:
        return None
    tb = exc.__traceback__
    while tb is not None:
        me = tb.tb_frame.f_locals.get("self")
        if isinstance(me, ddp_type) and me.device_ids:
            from torchferry import sim

            params = list(me.module.parameters())
            if params:
                where = sim.device_of(params[0])
                want = me.device_ids[0]
                if where.type != "cpu" and where.index != want:
                    return (
                        f"DistributedDataParallel(device_ids=[{want}]) moved the inputs to "
                        f"{where.type}:{want}, but the model is on {where}",
                        "DistributedDataParallel(model, device_ids=[local_rank]) with the model "
                        "on cuda:local_rank: device_ids names the model's own device; "
                        + SET_DEVICE_FIX,
                    )
            return None
        tb = tb.tb_next
    return None


def _innermost_user(exc: BaseException) -> tuple[str, int, Any] | None:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        if _frames.is_user_code(tb.tb_frame.f_code):
            last = tb
        tb = tb.tb_next
    if last is None:
        return None
    return last.tb_frame.f_code.co_filename, last.tb_lineno, last.tb_frame.f_globals


def explain_distributed(exc: BaseException) -> dict[str, Any] | None:
    """The report (``explain_exception``'s keys) for a distributed device mistake, or None.

    >>> r = explain_distributed(RuntimeError("No backend type associated with device type cpu"))
    >>> r["kind"], r["fix"].split(":")[0]
    ('collective_on_cpu', "move the tensor to this rank's GPU first")
    """
    found: tuple[str, str, str] | None = None
    text = str(exc)
    for pat, kind, title, fix in _PATTERNS:
        m = pat.search(text)
        if m:
            found = (kind, title.format(*m.groups()), fix.format(*m.groups()))
            break
    if found is None:
        mismatch = _ddp_mismatch(exc)
        if mismatch is None:
            return None
        found = ("ddp_device_ids", mismatch[0], mismatch[1])
    kind, title, fix = found
    report: dict[str, Any] = {
        "type": type(exc).__name__,
        "message": text,
        "path": None,
        "line": None,
        "source": None,
        "operands": [],
        "fix": fix,
        "rule": None,
        "kind": kind,
        "title": title + _rank(),
        "via": [],
    }
    user = _innermost_user(exc)
    if user is not None:
        path, line, globs = user
        report.update(path=path, line=line, source=_frames.source_line(path, line, globs))
    return report
