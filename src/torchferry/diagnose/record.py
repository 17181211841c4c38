"""The explanation of a device error as a typed record: what every view of it reads.

:func:`torchferry.diagnose.explain_exception` returns an :class:`Explanation`;
``ferry run``'s text report, ``torchferry.explain``'s ``.report``, the pytest
plugin's section, the notebook extension's HTML view and ``ferry run --report``'s
JSON ``"error"`` object are all made from it.  :meth:`Explanation.to_dict` gives
the same facts as plain JSON types (the ``"error"`` object's keys and more).

Importing this module imports nothing but the standard library.

>>> e = Explanation(Family.NO_DEVICE, "cuda used on a machine without it", "RuntimeError",
...                 "Found no NVIDIA driver on your system.", fix="pick the device once",
...                 rule="FRY001")
>>> e.to_dict()["kind"], e.to_dict()["operands"], e.culprits
('no_device', [], ())
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Family", "Site", "CodeLine", "ExplainedOperand", "Explanation"]


class Family(enum.Enum):
    """The family of a device error; its value is the report's ``"kind"``."""

    MIXED_DEVICES = "mixed_devices"
    INDEX_DEVICE = "index_device"
    RNN_HIDDEN = "rnn_hidden"
    NUMPY_ON_DEVICE = "numpy_on_device"
    CHECKPOINT_MAP_LOCATION = "checkpoint_map_location"
    MPS_FLOAT64 = "mps_float64"
    NO_DEVICE = "no_device"
    INVALID_ORDINAL = "invalid_ordinal"
    # torchrun / DDP / NCCL (torchferry.diagnose.distributed)
    NCCL_DUPLICATE_GPU = "nccl_duplicate_gpu"
    COLLECTIVE_ON_CPU = "collective_on_cpu"
    COLLECTIVE_DEVICES = "collective_devices"
    NCCL_BOUND_DEVICE = "nccl_bound_device"
    DDP_CPU_MODULE = "ddp_cpu_module"
    DDP_DEVICE_IDS = "ddp_device_ids"
    GLOBAL_RANK_DEVICE = "global_rank_device"


@dataclass(frozen=True)
class Site:
    """Where a tensor was created or last moved; ``call`` is what made it (or the statement)."""

    path: str
    line: int
    call: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "call": self.call}


@dataclass(frozen=True)
class CodeLine:
    """A line of the user's code: the failing one, or one that called it."""

    path: str
    line: int
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "source": self.source}


@dataclass(frozen=True)
class ExplainedOperand:
    """One operand of the failing line as written, with what was read of it.

    ``created_at`` is known for culprits only; ``reason`` says, for a culprit, why it
    is the odd one (``on cpu while the others are on cuda:0``); ``note`` is any other
    remark (``a call result (not re-run)``).
    """

    expr: str
    device: str | None
    dtype: str | None
    shape: tuple[int, ...] | None
    culprit: bool = False
    created_at: Site | None = None
    reason: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's operand object."""
        return {
            "expr": self.expr, "device": self.device, "dtype": self.dtype,
            "shape": None if self.shape is None else list(self.shape),
            "created_at": self.created_at.to_dict() if self.created_at is not None else None,
            "culprit": self.culprit,
        }


@dataclass(frozen=True)
class Explanation:
    """A device error explained in terms of the user's code.

    ``at`` is the innermost line of the user's own code (None when the traceback has
    none) and ``via`` up to three lines that called it, outermost first.  ``fix`` and
    ``rule`` (a ``ferry check`` code) may be None; ``found_statically`` says whether
    ``ferry check`` reports that rule on this line.  ``argument`` is the slot PyTorch's
    message names (``mat1``); ``odd_device`` / ``good_device`` are the devices the
    culprits are on and should be on.  ``operands_unread`` is set when the family
    explains by operands and none could be read.  ``notebook_notes`` are added by the
    notebook extension.
    """

    family: Family
    title: str
    type: str
    message: str
    at: CodeLine | None = None
    via: tuple[CodeLine, ...] = ()
    operands: tuple[ExplainedOperand, ...] = ()
    fix: str | None = None
    rule: str | None = None
    found_statically: bool = True
    argument: str | None = None
    odd_device: str | None = None
    good_device: str | None = None
    operands_unread: bool = False
    notebook_notes: tuple[str, ...] = field(default=())

    @property
    def culprits(self) -> tuple[ExplainedOperand, ...]:
        """The operands on the odd device (or of the odd dtype)."""
        return tuple(o for o in self.operands if o.culprit)

    def to_dict(self) -> dict[str, Any]:
        """The explanation as JSON types: the ``"error"`` object of ``ferry run --report``
        (``type``, ``message``, ``path``, ``line``, ``source``, ``operands``, ``fix``,
        ``rule``, ``kind``) plus ``title``, ``via``, ``found_statically``, ``odd_device``,
        ``good_device``, ``argument``, ``notes`` (operand expression -> note) and
        ``notebook_notes``."""
        at = self.at
        return {
            "type": self.type,
            "message": self.message,
            "path": at.path if at else None,
            "line": at.line if at else None,
            "source": at.source if at else None,
            "operands": [o.to_dict() for o in self.operands],
            "fix": self.fix,
            "rule": self.rule,
            "kind": self.family.value,
            "title": self.title,
            "via": [v.to_dict() for v in self.via],
            "found_statically": self.found_statically,
            "odd_device": self.odd_device,
            "good_device": self.good_device,
            "argument": self.argument,
            "notes": {o.expr: o.note for o in self.operands if o.note},
            "notebook_notes": list(self.notebook_notes),
        }
