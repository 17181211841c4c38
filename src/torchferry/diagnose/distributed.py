"""Explain the torchrun / DDP / NCCL device mistakes in terms of the user's code.

:data:`HANDLERS` recognise, by PyTorch's and NCCL's own texts, the mistakes a
multi-GPU script makes with devices, and say what happened and the fix.  They come
first in :data:`torchferry.diagnose.families.HANDLERS`, so
:func:`torchferry.diagnose.explain_exception` asks them first (about the exception
itself, not the ones it was raised from).

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
* ``invalid device ordinal`` in a rank whose global ``RANK`` is not its
  ``LOCAL_RANK`` (a node after the first of a multi-node run) and is past the
  node's ``LOCAL_WORLD_SIZE``: the device was picked by the global rank
  (``torch.cuda.set_device(rank)``), which names a GPU of this node only on node 0;
* any error raised inside ``DistributedDataParallel.forward`` whose
  ``device_ids[0]`` is not the module's device: DDP moved the inputs to
  ``device_ids[0]`` and the module is elsewhere.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from torchferry.diagnose.handler import ErrorKind, Fix, FixContext, Handler, without_operands
from torchferry.diagnose.record import Family

__all__ = ["explain_distributed", "HANDLERS", "SET_DEVICE_FIX"]

SET_DEVICE_FIX = (
    'torch.cuda.set_device(int(os.environ["LOCAL_RANK"])) before init_process_group, and '
    'device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) for the model and the data '
    "(torchferry.device() does both under torchrun)"
)

@dataclass(frozen=True)
class _Text:
    """One distributed mistake known by its text: the title and fix, ``{0}``... its groups."""

    family: Family
    pattern: re.Pattern[str]
    title: str
    fix: str


_TEXTS = (
    _Text(
        Family.NCCL_DUPLICATE_GPU,
        re.compile(r"Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device (\w+)"),
        "two ranks on the same GPU (rank {0} and rank {1}): NCCL needs one GPU per rank",
        SET_DEVICE_FIX + '; not "cuda:0" written out: that is another rank\'s GPU',
    ),
    _Text(
        Family.COLLECTIVE_ON_CPU,
        re.compile(r"No backend type associated with device type cpu"),
        "a collective on a CPU tensor, but the process group has only NCCL (GPU tensors)",
        "move the tensor to this rank's GPU first: t = t.to(device), device = "
        'torch.device("cuda", int(os.environ["LOCAL_RANK"])); or init_process_group('
        '"cpu:gloo,cuda:nccl") to reduce CPU tensors with gloo',
    ),
    _Text(
        Family.COLLECTIVE_DEVICES,
        re.compile(r"Tensors must be CUDA and dense|Tensors must be on the same device"),
        "one collective mixes tensors on different devices",
        "put every tensor of the collective on this rank's GPU (device = "
        'torch.device("cuda", int(os.environ["LOCAL_RANK"])))',
    ),
    _Text(
        Family.NCCL_BOUND_DEVICE,
        re.compile(r"Tensor found on device (\S+) but backend constrained to (\S+)"),
        "a collective on {0}, but init_process_group(device_id=...) bound this rank to {1}",
        "make the tensor on the device given to init_process_group: t = t.to({1})",
    ),
    _Text(
        Family.DDP_CPU_MODULE,
        re.compile(
            r"DistributedDataParallel device_ids and output_device arguments only work with "
            r".*module parameters \{device\(type='cpu'\)\}",
            re.S,
        ),
        "DistributedDataParallel(device_ids=...) of a model still on the CPU",
        "model = model.to(device) before DistributedDataParallel(model, device_ids="
        '[local_rank]), device = torch.device("cuda", local_rank)',
    ),
)


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


def _global_rank_device(text: str, environ: Any = os.environ) -> str | None:
    """The title for an invalid ordinal on a rank whose global RANK is past its node's GPUs.

    >>> env = {"RANK": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "1"}
    >>> _global_rank_device("CUDA error: invalid device ordinal", env).split(":")[0]
    "a device index past this node's GPUs (rank 2 on node 1, LOCAL_RANK=0)"
    """
    if "invalid device ordinal" not in text:
        return None
    try:
        rank, local = int(environ["RANK"]), int(environ["LOCAL_RANK"])
        per_node = int(environ["LOCAL_WORLD_SIZE"])
    except (KeyError, ValueError):
        return None
    if rank == local or rank < per_node:
        return None
    node = environ.get("GROUP_RANK", str(rank // per_node))
    return (f"a device index past this node's GPUs (rank {rank} on node {node}, "
            f"LOCAL_RANK={local}): RANK is the global rank; each node numbers its {per_node} "
            "GPUs from 0")


class GlobalRankDevice(Handler):
    """``invalid device ordinal`` on a later node of a multi-node run, whose global ``RANK`` is
    past the node's GPUs: the device was picked by ``RANK`` instead of ``LOCAL_RANK``."""

    family = Family.GLOBAL_RANK_DEVICE
    chain = False
    reads_operands = False

    def match(self, exc: BaseException) -> ErrorKind | None:
        title = _global_rank_device(str(exc))
        return None if title is None else ErrorKind(self.family, title)

    def fix(self, ctx: FixContext) -> Fix:
        return SET_DEVICE_FIX + "; not RANK, which names a GPU of this node only on the first node", None


class _ByText(Handler):
    """A distributed mistake known by its text; explained by its title and fix (no operands)."""

    chain = False  # the error the collective raised, not what it was raised from
    reads_operands = False

    def __init__(self, text: _Text) -> None:
        self.text = text
        self.family = text.family  # type: ignore[misc]

    def match(self, exc: BaseException) -> ErrorKind | None:
        m = self.text.pattern.search(str(exc))
        if m is None:
            return None
        return ErrorKind(self.family, self.text.title.format(*m.groups()) + _rank(), groups=m.groups())

    def fix(self, ctx: FixContext) -> Fix:
        return self.text.fix.format(*ctx.kind.groups), None


class DdpDeviceIds(Handler):
    """Any error inside ``DistributedDataParallel.forward`` whose ``device_ids[0]`` is not the
    module's device: DDP moved the inputs there."""

    family = Family.DDP_DEVICE_IDS
    chain = False
    reads_operands = False

    def match(self, exc: BaseException) -> ErrorKind | None:
        mismatch = _ddp_mismatch(exc)
        if mismatch is None:
            return None
        return ErrorKind(self.family, mismatch[0] + _rank(), groups=(mismatch[1],))

    def fix(self, ctx: FixContext) -> Fix:
        return ctx.kind.groups[0], None


HANDLERS: tuple[Handler, ...] = (*(_ByText(t) for t in _TEXTS), GlobalRankDevice(), DdpDeviceIds())


def explain_distributed(exc: BaseException) -> dict[str, Any] | None:
    """The explanation of a distributed device mistake as a dict (``Explanation.to_dict()``), or None.

    >>> r = explain_distributed(RuntimeError("No backend type associated with device type cpu"))
    >>> r["kind"], r["fix"].split(":")[0]
    ('collective_on_cpu', "move the tensor to this rank's GPU first")
    """
    for h in HANDLERS:
        kind = h.match(exc)
        if kind is not None:
            return without_operands(h, exc, kind).to_dict()
    return None
