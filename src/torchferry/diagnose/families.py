"""The families of device errors the explanation knows, one handler each, in one table.

A family (:class:`~torchferry.diagnose.record.Family`) is recognised by PyTorch's
exact texts (its handler's ``forms``, tried in :data:`HANDLERS`' order, the first
match wins).  Its handler says which operands of the failing line are the culprits,
what the fix is, and why a culprit is marked.  Adding a family is one handler class
and one entry in :data:`HANDLERS`, with its fixture in ``tests/diagnose/test_families.py``.

=========================  =====================================================  ==========
family                     PyTorch's text (forms)                                 culprit
=========================  =====================================================  ==========
mixed_devices              ``Expected all tensors to be on the same device``      odd device
                           (both forms), conv's ``Input type ... and weight
                           type ... should be the same``, the RNNs' ``Input and
                           parameter tensors are not at the same device``,
                           ``expected self and mask to be on the same device``,
                           ``Tensor on device A is not on the expected device
                           B!``, MPS's ``Placeholder storage has not been
                           allocated``
index_device               ``indices should be either on cpu or on the same      odd device
                           device as the indexed tensor``
rnn_hidden                 ``Input and hidden tensors are not at the same        odd device
                           device``
numpy_on_device            ``can't convert cuda:0 device type tensor to numpy``  on the accelerator
checkpoint_map_location    ``Attempting to deserialize object on a CUDA          none
                           device ...``, ``Storage device not recognized``
mps_float64                ``Cannot convert a MPS Tensor to float64 dtype``      the float64 one
no_device                  ``Torch not compiled with CUDA enabled``, ``Found no  none
                           NVIDIA driver``, ``Cannot access accelerator device``
invalid_ordinal            ``invalid device ordinal``                             none
=========================  =====================================================  ==========

The torchrun / DDP / NCCL families are in :mod:`torchferry.diagnose.distributed`,
first in the table.

>>> kind = classify(RuntimeError("Expected all tensors to be on the same device, but found "
...                              "at least two devices, cuda:0 and cpu!"))
>>> kind.family.value, kind.devices
('mixed_devices', ('cuda:0', 'cpu'))
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator
from types import FrameType

from torchferry.diagnose import mismatch
from torchferry.diagnose import operands as ops
from torchferry.diagnose.distributed import HANDLERS as DISTRIBUTED
from torchferry.diagnose.handler import ErrorKind, Fix, FixContext, Form, Handler
from torchferry.diagnose.record import Family

__all__ = ["ErrorKind", "Form", "Handler", "HANDLERS", "classify", "identify", "handler_for"]


_DEV = r"([A-Za-z_]+(?::\d+)?)"
_MIXED = "tensors on different devices"


def _form(pattern: str, read: Callable[[re.Match[str]], ErrorKind]) -> Form:
    return Form(re.compile(pattern), read)


# ------------------------------------------------------------------ device mismatches
class _Mismatch(Handler):
    """Operands of one op on different devices: the one on the odd device is the culprit."""

    operands_expected = True

    def culprits(self, kind: ErrorKind, operands: list[ops.Operand],
                 frame: FrameType | None) -> tuple[str | None, str | None]:
        return mismatch.culprits(kind, operands, frame, self.tie_break, self.fallback)

    def tie_break(self, kind: ErrorKind, lows: list[str]) -> str | None:
        """The odd device among ``lows``, devices with equally few operands (None: the CPU)."""
        return None

    def fallback(self, kind: ErrorKind) -> str | None:
        """The odd device when no operand on it could be read."""
        return kind.devices[1] if len(kind.devices) == 2 else None

    def fix(self, ctx: FixContext) -> Fix:
        return mismatch.fix(ctx)

    def reason(self, op: ops.Operand, others: list[str]) -> str | None:
        return f"on {op.device} while the others are on {', '.join(others)}" if others else None


def _mixed(devices: tuple[str, ...], odd: str | None = None, arg: str | None = None) -> ErrorKind:
    return ErrorKind(Family.MIXED_DEVICES, _MIXED, devices, odd=odd, arg=arg)


class MixedDevices(_Mismatch):
    family = Family.MIXED_DEVICES
    forms = (
        _form(r"Expected all tensors to be on the same device, but got (\w+) is on " + _DEV
              + r", different from other tensors on " + _DEV,
              lambda m: _mixed((m[3], m[2]), odd=m[2], arg=m[1])),
        _form(r"Expected all tensors to be on the same device, but found at least two devices, "
              + _DEV + " and " + _DEV + r"!(?: \(when checking arg\w* for argument (\w+))?",
              lambda m: _mixed((m[1], m[2]), arg=m[3])),
        # convolution (aten/src/ATen/native/Convolution.cpp, check_input_same_type_as_parameters):
        # the odd one is whichever side is on the CPU, the input or the module's weights
        _form(r"Input type \(torch\.(?:(\w+)\.)?\w+\) and (weight|bias) type \(torch\.(?:(\w+)\.)?\w+\) "
              r"should be the same",
              lambda m: _mixed((m[3] or "cpu", m[1] or "cpu"), odd="cpu",
                               arg="input" if not m[1] else m[2])),
        # RNNs (aten/src/ATen/native/RNN.cpp, check_attributes): the input and the module's
        # weights apart; the odd one is whichever side is on the CPU
        _form(r"Input and parameter tensors are not at the same device, found input tensor at "
              + _DEV + " and parameter tensor at " + _DEV,
              lambda m: _mixed((m[2], m[1]), odd="cpu" if "cpu" in (m[1], m[2]) else None,
                               arg="input" if m[1] == "cpu" else "parameter")),
        _form(r"expected self and mask to be on the same device, but got mask on " + _DEV
              + " and self on " + _DEV,
              lambda m: _mixed((m[2], m[1]), odd=m[1], arg="mask")),
        _form(r"Tensor on device " + _DEV + r" is not on the expected device " + _DEV + "!",
              lambda m: _mixed((m[2], m[1]))),
        _form(r"Placeholder storage has not been allocated on MPS device!",
              lambda m: _mixed(("mps:0", "cpu"), odd="cpu")),
    )

    def fallback(self, kind: ErrorKind) -> str | None:
        if len(kind.devices) != 2:
            return None
        first, second = kind.devices
        return second if mismatch.is_accel(first) else first


class IndexDevice(_Mismatch):
    family = Family.INDEX_DEVICE
    forms = (
        _form(r"indices should be either on cpu or on the same device as the indexed tensor \("
              + _DEV + r"\)",
              lambda m: ErrorKind(Family.INDEX_DEVICE, "index on another device than the indexed tensor",
                                  (m[1],))),
    )


class RnnHidden(_Mismatch):
    family = Family.RNN_HIDDEN
    forms = (
        _form(r"Input and hidden tensors are not at the same device, found input tensor at "
              + _DEV + " and hidden tensor at " + _DEV,
              lambda m: ErrorKind(Family.RNN_HIDDEN, "RNN input and hidden state on different devices",
                                  (m[1], m[2]))),
    )

    def tie_break(self, kind: ErrorKind, lows: list[str]) -> str | None:
        # as many operands on each side: the hidden state is the one left behind
        if len(kind.devices) == 2 and kind.devices[1] in lows:
            return kind.devices[1]
        return None


# ------------------------------------------------------------------ the others
def _numpy_call(focus: ast.AST | None) -> ast.Call | None:
    """``x.numpy()`` when that is the failing expression."""
    if isinstance(focus, ast.Call) and isinstance(focus.func, ast.Attribute) and focus.func.attr == "numpy":
        return focus
    return None


class NumpyOnDevice(Handler):
    family = Family.NUMPY_ON_DEVICE
    forms = (
        _form(r"can't convert " + _DEV + r" device type tensor to numpy",
              lambda m: ErrorKind(Family.NUMPY_ON_DEVICE, ".numpy() of a tensor on an accelerator",
                                  (m[1],), odd=m[1])),
    )

    def culprits(self, kind: ErrorKind, operands: list[ops.Operand],
                 frame: FrameType | None) -> tuple[str | None, str | None]:
        for o in operands:
            if o.device is not None and o.kind == ops.OperandKind.TENSOR and mismatch.is_accel(o.device):
                o.culprit = True
        return kind.odd, "cpu"

    def fix(self, ctx: FixContext) -> Fix:
        c, call = ctx.culprit, _numpy_call(ctx.focus)
        if c is None:
            if call is not None and not call.args:
                recv = ast.unparse(call.func.value)  # type: ignore[attr-defined]
                return f"{recv}.cpu().numpy()  (or torchferry.numpy({recv}))", "FRY003"
            return "bring it to the host first: x.cpu().numpy() (or torchferry.numpy(x))", "FRY003"
        torch = sys.modules.get("torch")
        needs_grad = torch is not None and isinstance(c.value, torch.Tensor) and c.value.requires_grad
        host = f"{c.expr}.detach().cpu()" if needs_grad else f"{c.expr}.cpu()"
        if call is not None:
            return f"{host}.numpy()  (or torchferry.numpy({c.expr}))", "FRY003"
        return f"pass {host} instead of {c.expr}  (or torchferry.numpy({c.expr}))", "FRY003"

    def reason(self, op: ops.Operand, others: list[str]) -> str | None:
        return f"on {op.device}: NumPy reads host memory only"


_CHECKPOINT = "a GPU checkpoint loaded without map_location"


class CheckpointMapLocation(Handler):
    family = Family.CHECKPOINT_MAP_LOCATION
    forms = (
        _form(r"Attempting to deserialize object on (?:a )?(\w+) device(?: (\d+))? but "
              r"torch\.\w+\.(?:is_available\(\) is False|device_count\(\) is (\d+))",
              lambda m: ErrorKind(Family.CHECKPOINT_MAP_LOCATION, _CHECKPOINT, (m[1].lower(),))),
        _form(r"Storage device not recognized: (\w+)",
              lambda m: ErrorKind(Family.CHECKPOINT_MAP_LOCATION, _CHECKPOINT, (m[1],))),
    )

    def fix(self, ctx: FixContext) -> Fix:
        call = ctx.focus if isinstance(ctx.focus, ast.Call) else None
        if call is not None and not any(k.arg == "map_location" for k in call.keywords):
            mapped = ast.Call(func=call.func, args=call.args,
                              keywords=[*call.keywords, ast.keyword("map_location", ast.Constant("cpu"))])
            return f"{ast.unparse(mapped)}  (or torchferry.load(...), which maps to the CPU)", "FRY004"
        return 'pass map_location="cpu" to torch.load (or use torchferry.load)', "FRY004"


class MpsFloat64(Handler):
    family = Family.MPS_FLOAT64
    forms = (
        _form(r"Cannot convert a MPS Tensor to float64 dtype|Cannot convert a float64 Tensor to MPS",
              lambda m: ErrorKind(Family.MPS_FLOAT64, "float64 on mps (the MPS framework has no float64)",
                                  ("mps:0",))),
    )

    def culprits(self, kind: ErrorKind, operands: list[ops.Operand],
                 frame: FrameType | None) -> tuple[str | None, str | None]:
        for o in operands:
            if o.device is not None and o.kind == ops.OperandKind.TENSOR and o.dtype == "float64":
                o.culprit = True
        return None, None

    def fix(self, ctx: FixContext) -> Fix:
        c = ctx.culprit
        if c is not None:
            return f"{c.expr} = {c.expr}.float()  (before moving it: MPS has no float64; NumPy arrays are float64)", None
        return "convert to float32 before moving to mps: .float(), or dtype=torch.float32", None

    def reason(self, op: ops.Operand, others: list[str]) -> str | None:
        return "float64: MPS has no float64"


_PICK_ONCE = ('pick the device once: device = "cuda" if torch.cuda.is_available() else "cpu" '
              "(or torchferry.device()), then .to(device)")


class NoDevice(Handler):
    family = Family.NO_DEVICE
    forms = (
        _form(r"Torch not compiled with (\w+) enabled",
              lambda m: ErrorKind(Family.NO_DEVICE, f"{m[1]} used on a machine without it", (m[1].lower(),))),
        # the CUDA wheel's text for the same mistake (c10/cuda, in libc10_cuda.so)
        _form(r"Found no NVIDIA driver on your system",
              lambda m: ErrorKind(Family.NO_DEVICE, "cuda used on a machine without it", ("cuda",))),
        _form(r"Cannot access accelerator device when none is available",
              lambda m: ErrorKind(Family.NO_DEVICE, "an accelerator used on a machine without one")),
    )

    def fix(self, ctx: FixContext) -> Fix:
        return _PICK_ONCE, "FRY001"


class InvalidOrdinal(Handler):
    family = Family.INVALID_ORDINAL
    forms = (
        _form(r"invalid device ordinal",
              lambda m: ErrorKind(Family.INVALID_ORDINAL, "a device index past the number of devices")),
    )

    def fix(self, ctx: FixContext) -> Fix:
        return "use a device index below torch.cuda.device_count(); " + _PICK_ONCE, "FRY001"


HANDLERS: tuple[Handler, ...] = (
    *DISTRIBUTED, MixedDevices(), IndexDevice(), RnnHidden(), NumpyOnDevice(),
    CheckpointMapLocation(), MpsFloat64(), NoDevice(), InvalidOrdinal(),
)
_BY_FAMILY = {h.family: h for h in HANDLERS}


def handler_for(family: Family) -> Handler:
    """The handler of ``family``."""
    return _BY_FAMILY[family]


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or during, innermost last."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def identify(exc: BaseException) -> tuple[Handler, BaseException, ErrorKind] | None:
    """The family of ``exc``: its handler, the exception (of its chain) that says so, what it says.

    The handlers that do not read the chain (the distributed ones) are asked about
    ``exc`` itself first.
    """
    for h in HANDLERS:
        if not h.chain and (kind := h.match(exc)) is not None:
            return h, exc, kind
    for e in _chain(exc):
        kind = classify(e)
        if kind is not None:
            return handler_for(kind.family), e, kind
    return None


def classify(exc: BaseException) -> ErrorKind | None:
    """The device-error kind of ``exc`` (by PyTorch's exact message), or None.

    Only the families read along an exception's chain (the single-process ones).

    >>> classify(RuntimeError("CUDA error: invalid device ordinal")).family
    <Family.INVALID_ORDINAL: 'invalid_ordinal'>
    """
    for h in HANDLERS:
        if h.chain and (kind := h.match(exc)) is not None:
            return kind
    return None
