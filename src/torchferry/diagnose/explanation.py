"""Name the tensor that missed the ferry: explain a device error in terms of the user's code.

PyTorch's device errors name two devices, sometimes an argument slot, never the
variable and never where that tensor was made.  :func:`explain_exception` reads
the traceback of such an error and reports

* the innermost line of the user's own code (not torch, not a library);
* each tensor operand of that line as written (``labels``, ``self.scale``,
  ``batch["mask"]``, ``model(x)``) with device, dtype and shape, read without
  re-running anything (see :mod:`torchferry.diagnose.operands`);
* which operand is on the odd device, and where it was created or last moved;
* a one-line fix and the ``ferry check`` rule that finds the mistake statically.

:class:`explain` is the context manager that does this for a block of code,
printing the report on stderr after the normal traceback.

>>> import torch, torchferry as tf
>>> x, w = torch.ones(3, device="meta"), torch.ones(3, device="meta")  # meta: a second device
>>> labels = torch.ones(3)
>>> try:
...     with tf.explain(file=None) as ex:
...         y = x * w + labels
... except RuntimeError:
...     pass
>>> [(o["expr"], o["device"], o["culprit"]) for o in ex.report["operands"]]
[('x', 'meta', False), ('w', 'meta', False), ('labels', 'cpu', True)]
>>> ex.report["fix"]
'labels = labels.to(x.device)  (move it with the others)'
>>> ex.report["rule"] is None  # no `ferry check` rule finds this line (no batch loop)
True
"""

from __future__ import annotations

import ast
import contextlib
import functools
import linecache
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, Literal, TextIO

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry._internal.patcher import Patch
from torchferry._internal.registry import StorageRegistry
from torchferry.diagnose import operands as ops
from torchferry.diagnose._rules import rule_name

__all__ = ["explain", "explain_exception", "format_report", "classify", "restore_excepthook"]

# ------------------------------------------------------------------ kinds
@dataclass(frozen=True)
class ErrorKind:
    """What a device error message says: its kind and the devices it names."""

    name: str
    title: str
    devices: tuple[str, ...] = ()
    odd: str | None = None  # the device of the odd tensor, when the message says it
    arg: str | None = None  # the argument slot the message names (mat1, index, ...)


_DEV = r"([A-Za-z_]+(?::\d+)?)"
_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], ErrorKind]]] = [
    (
        re.compile(
            r"Expected all tensors to be on the same device, but got (\w+) is on "
            + _DEV
            + r", different from other tensors on "
            + _DEV
        ),
        lambda m: ErrorKind(
            "mixed_devices", "tensors on different devices", (m[3], m[2]), odd=m[2], arg=m[1]
        ),
    ),
    (
        re.compile(
            r"Expected all tensors to be on the same device, but found at least two devices, "
            + _DEV + " and " + _DEV + r"!(?: \(when checking arg\w* for argument (\w+))?"
        ),
        lambda m: ErrorKind("mixed_devices", "tensors on different devices", (m[1], m[2]), arg=m[3]),
    ),
    (
        # convolution (aten/src/ATen/native/Convolution.cpp, check_input_same_type_as_parameters)
        re.compile(
            r"Input type \(torch\.(?:(\w+)\.)?\w+\) and (weight|bias) type \(torch\.(?:(\w+)\.)?\w+\) "
            r"should be the same"
        ),
        # the odd one is whichever side is on the CPU: the input, or the module's weights
        lambda m: ErrorKind(
            "mixed_devices", "tensors on different devices", (m[3] or "cpu", m[1] or "cpu"),
            odd="cpu", arg="input" if not m[1] else m[2],
        ),
    ),
    (
        re.compile(
            r"expected self and mask to be on the same device, but got mask on " + _DEV
            + " and self on " + _DEV
        ),
        lambda m: ErrorKind(
            "mixed_devices", "tensors on different devices", (m[2], m[1]), odd=m[1], arg="mask"
        ),
    ),
    (
        re.compile(r"Tensor on device " + _DEV + r" is not on the expected device " + _DEV + "!"),
        lambda m: ErrorKind("mixed_devices", "tensors on different devices", (m[2], m[1])),
    ),
    (
        re.compile(r"Placeholder storage has not been allocated on MPS device!"),
        lambda m: ErrorKind("mixed_devices", "tensors on different devices", ("mps:0", "cpu"), odd="cpu"),
    ),
    (
        re.compile(
            r"indices should be either on cpu or on the same device as the indexed tensor \("
            + _DEV + r"\)"
        ),
        lambda m: ErrorKind("index_device", "index on another device than the indexed tensor", (m[1],)),
    ),
    (
        re.compile(
            r"Input and hidden tensors are not at the same device, found input tensor at "
            + _DEV + " and hidden tensor at " + _DEV
        ),
        lambda m: ErrorKind("rnn_hidden", "RNN input and hidden state on different devices", (m[1], m[2])),
    ),
    (
        re.compile(r"can't convert " + _DEV + r" device type tensor to numpy"),
        lambda m: ErrorKind("numpy_on_device", ".numpy() of a tensor on an accelerator", (m[1],), odd=m[1]),
    ),
    (
        re.compile(
            r"Attempting to deserialize object on (?:a )?(\w+) device(?: (\d+))? but "
            r"torch\.\w+\.(?:is_available\(\) is False|device_count\(\) is (\d+))"
        ),
        lambda m: ErrorKind("checkpoint_map_location", "a GPU checkpoint loaded without map_location", (m[1].lower(),)),
    ),
    (
        re.compile(r"Storage device not recognized: (\w+)"),
        lambda m: ErrorKind("checkpoint_map_location", "a GPU checkpoint loaded without map_location", (m[1],)),
    ),
    (
        re.compile(
            r"Cannot convert a MPS Tensor to float64 dtype|Cannot convert a float64 Tensor to MPS"
        ),
        lambda m: ErrorKind("mps_float64", "float64 on mps (the MPS framework has no float64)", ("mps:0",)),
    ),
    (
        re.compile(r"Torch not compiled with (\w+) enabled"),
        lambda m: ErrorKind("no_device", f"{m[1]} used on a machine without it", (m[1].lower(),)),
    ),
    (
        # the CUDA wheel's text for the same mistake (c10/cuda, in libc10_cuda.so)
        re.compile(r"Found no NVIDIA driver on your system"),
        lambda m: ErrorKind("no_device", "cuda used on a machine without it", ("cuda",)),
    ),
    (
        re.compile(r"Cannot access accelerator device when none is available"),
        lambda m: ErrorKind("no_device", "an accelerator used on a machine without one"),
    ),
    (
        re.compile(r"invalid device ordinal"),
        lambda m: ErrorKind("invalid_ordinal", "a device index past the number of devices"),
    ),
]


def classify(exc: BaseException) -> ErrorKind | None:
    """The device-error kind of ``exc`` (by PyTorch's exact message), or None.

    >>> classify(RuntimeError("Expected all tensors to be on the same device, but found "
    ...                       "at least two devices, cuda:0 and cpu!")).devices
    ('cuda:0', 'cpu')
    """
    if not isinstance(exc, (RuntimeError, TypeError, AssertionError, ValueError, NotImplementedError)):
        return None
    text = str(exc)
    for pat, make in _PATTERNS:
        m = pat.search(text)
        if m:
            return make(m)
    return None


def _device_error(exc: BaseException) -> tuple[BaseException, ErrorKind] | None:
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        k = classify(e)
        if k is not None:
            return e, k
        e = e.__cause__ or e.__context__
    return None


# ------------------------------------------------------------ tensor facts
def _module_device(m: Any) -> tuple[Any, Any] | None:
    for t in m.parameters():
        return sim.device_of(t), t.dtype
    for t in m.buffers():
        return sim.device_of(t), t.dtype
    return None


def _describe(op: ops.Operand, value: Any) -> None:
    torch = sys.modules.get("torch")
    if torch is None or value is ops.UNKNOWN:
        return
    op.value = value
    if isinstance(value, ops._IndexedView):
        t = value.base
        op.kind, op.device, op.dtype = "tensor", str(sim.device_of(t)), _dtype(t.dtype)
        op.note = "indexed: device and dtype of the tensor indexed"
        op.value = t
        return
    if isinstance(value, torch.Tensor):
        op.kind = "tensor"
        op.device, op.dtype, op.shape = str(sim.device_of(value)), _dtype(value.dtype), list(value.shape)
    elif isinstance(value, torch.nn.Module):
        md = _module_device(value)
        if md is not None:
            op.kind = "module"
            op.device, op.dtype = str(md[0]), _dtype(md[1])
            op.note = f"{type(value).__name__}: its parameters"


def _dtype(d: Any) -> str:
    return str(d).replace("torch.", "")


# ------------------------------------------------------------ creation sites
class _Recorder:
    """While active, torch's factory functions note where each new tensor was made.

    Only the factories (``torch.zeros``, ``torch.randint``, ``torch.tensor``,
    ``torch.stack`` as a DataLoader's collate uses it, ...) are wrapped: every
    other op runs untouched, so the cost is one Python call per *creation*.
    Keys are storages, so views and ``.detach()`` share their base's site.
    """

    NAMES = tuple(sorted(ops.FACTORIES | {"stack"}))

    def __init__(self) -> None:
        # made with the first wrapper (torch loaded)
        self._registry: StorageRegistry[list[Any]] | None = None
        self._sweep_at = 4096
        self.patch = Patch("explain", self._plan)

    @property
    def sites(self) -> dict[int, list[Any]]:
        """storage key -> [weak ref, path, line, call]."""
        return self.registry().entries

    def registry(self) -> StorageRegistry[list[Any]]:
        if self._registry is None:
            import torch

            self._registry = StorageRegistry(torch.UntypedStorage._expired,
                                             torch.UntypedStorage._free_weak_ref)
        return self._registry

    @property
    def depth(self) -> int:
        return self.patch.depth

    def _plan(self) -> list[tuple[Any, str, Any]]:
        import torch
        from torch.utils._device import _device_constructors

        # torch caches torch.<factory> objects on first use (set_default_device,
        # `with torch.device(...)`): fill it with the builtins, not our wrappers
        _device_constructors()
        out = []
        for name in self.NAMES:
            orig = getattr(torch, name, None)
            if orig is None or getattr(orig, "__ferry_site__", False):
                continue
            out.append((torch, name, self._wrap(name, orig)))
        return out

    def enter(self) -> None:
        self.patch.acquire()

    def exit(self) -> None:
        self.patch.release()

    def _wrap(self, name: str, orig: Callable[..., Any]) -> Callable[..., Any]:
        import torch

        # everything the hot path needs, bound once (a wrapped factory call costs a few µs)
        registry = self.registry()
        put = registry.put
        tensor_type = torch.Tensor
        is_compiling = torch.compiler.is_compiling
        user_frame = _frames.user_frame
        plain = f"torch.{name}(...)"
        no_device = f"torch.{name}(...) (always on the CPU)" if name == "from_numpy" else None
        without = f"torch.{name}(...) without device=" if name in ops.FACTORIES else plain
        recorder = self
        patch = self.patch

        @functools.wraps(orig)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            out = orig(*args, **kwargs)
            if not isinstance(out, tensor_type):
                return out
            try:  # never let bookkeeping break the user's code
                if not patch.active or is_compiling():
                    return out
                f = user_frame(1)
                if f is None:
                    return out
                call = no_device or (without if kwargs.get("device") is None else plain)
                st = out.untyped_storage()
                put(st._cdata, st._weak_ref(), f.f_code.co_filename, f.f_lineno, call)
                if len(registry) > recorder._sweep_at:
                    recorder.sweep()
            except Exception:
                pass
            return out

        wrapper.__ferry_site__ = True  # type: ignore[attr-defined]
        return wrapper

    def sweep(self) -> None:
        live = self.registry().sweep()
        self._sweep_at = max(4096, 2 * len(live))

    def site_of(self, t: Any) -> tuple[str, int, str] | None:
        try:
            st = t.untyped_storage()
        except (RuntimeError, NotImplementedError):
            return None
        e = self.registry().live(st._cdata)
        if e is None:
            return None
        return e[1], e[2], e[3]


RECORDER = _Recorder()


def _sim_created_at(t: Any) -> tuple[str, int, str] | None:
    if not sim.is_active():
        return None
    try:
        return sim.created_at(t)
    except Exception:
        return None


def _static_site(op: ops.Operand, frame: FrameType, tree: ast.Module | None,
                 line: int, outer: list[tuple[FrameType, int]]) -> dict[str, Any] | None:
    """Where the operand's name was last assigned before the failing line (no recording)."""
    node = op.node
    path = frame.f_code.co_filename
    if node is None:
        return None
    # self.attr: the class's `self.attr = ...`
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        obj = frame.f_locals.get("self")
        if obj is not None:
            return _attr_assignment(type(obj), node.attr)
    name = ops.root_name(node)
    if name is None or tree is None:
        return None
    fn = _function_node(tree, frame.f_code.co_firstlineno) if frame.f_code.co_name != "<module>" else tree
    if fn is None:
        return None
    code = frame.f_code
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    best = None
    for stmt in ast.walk(fn):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) and stmt is not fn:
            continue
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, ast.withitem) and stmt.optional_vars is not None:
            targets = [stmt.optional_vars]
        for t in targets:
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(t)):
                ln = getattr(stmt, "lineno", None) or t.lineno
                if ln <= line and (best is None or ln > best):
                    best = ln
    if best is None and fn is not tree and name not in frame.f_locals:
        for stmt in tree.body:  # a global: its module-level assignment
            for sub in ast.walk(stmt):
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    break
                tg: list[ast.expr]
                if isinstance(sub, ast.Assign):
                    tg = sub.targets
                elif isinstance(sub, (ast.AnnAssign, ast.For, ast.AugAssign)):
                    tg = [sub.target]
                else:
                    continue
                if any(isinstance(n, ast.Name) and n.id == name for t in tg for n in ast.walk(t)):
                    best = sub.lineno
    if best is not None:
        return {"path": path, "line": best, "call": _frames.source_line(path, best, frame.f_globals)}
    if name in params and outer:
        f, ln = outer[-1]
        src = _frames.source_line(f.f_code.co_filename, ln, f.f_globals)
        return {"path": f.f_code.co_filename, "line": ln, "call": f"{src} (passed in as {name!r})"}
    return None


def _function_node(tree: ast.Module, firstlineno: int) -> ast.AST | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start == firstlineno or node.lineno == firstlineno:
                return node
    return None


def _attr_assignment(cls: type, attr: str) -> dict[str, Any] | None:
    import inspect
    import linecache

    for klass in cls.__mro__:
        try:
            path = inspect.getsourcefile(klass)
            _, start = inspect.getsourcelines(klass)
        except (OSError, TypeError):
            continue
        if path is None or not _frames.is_user_file(path):
            continue
        try:
            tree = ast.parse("".join(linecache.getlines(path)))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == klass.__name__:
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                        tg = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                        for t in tg:
                            if (isinstance(t, ast.Attribute) and t.attr == attr
                                    and isinstance(t.value, ast.Name) and t.value.id == "self"):
                                return {"path": path, "line": sub.lineno,
                                        "call": _frames.source_line(path, sub.lineno)}
    return None


def _created_at(op: ops.Operand, frame: FrameType, tree: ast.Module | None, line: int,
                outer: list[tuple[FrameType, int]]) -> dict[str, Any] | None:
    torch = sys.modules.get("torch")
    t = op.value
    if torch is not None and isinstance(t, torch.nn.Module):
        t = None
    site = None
    if torch is not None and isinstance(t, torch.Tensor):
        rec = RECORDER.site_of(t)
        sim = _sim_created_at(t)
        if sim is not None and _frames.is_user_file(sim[0]):
            call = _frames.source_line(sim[0], sim[1])
            if rec is not None and (rec[0], rec[1]) == (sim[0], sim[1]):
                call = rec[2]
            site = {"path": sim[0], "line": sim[1], "call": call}
        elif rec is not None:
            site = {"path": rec[0], "line": rec[1], "call": rec[2]}
    if site is None:
        site = _static_site(op, frame, tree, line, outer)
    return site


# ------------------------------------------------------------ culprits, fixes
def _is_accel(dev: str) -> bool:
    return dev.split(":")[0] != "cpu"


def _votes(cands: list[ops.Operand]) -> dict[str, int]:
    v: dict[str, int] = {}
    for o in cands:
        assert o.device is not None
        v[o.device] = v.get(o.device, 0) + 1
    return v


def _same_dev(a: str, b: str) -> bool:
    if a == b:
        return True
    return a.split(":")[0] == b.split(":")[0] and (":" not in a or ":" not in b)


def _intended_device(frame: FrameType) -> str | None:
    """The device the code means to use: a ``device``-like variable in scope, if any."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        for name in _DEVICE_NAMES:
            v = scope.get(name)
            if isinstance(v, (str, torch.device)):
                try:
                    return str(torch.device(v))
                except (RuntimeError, TypeError, ValueError):
                    continue
    return None


_DEVICE_NAMES = ("device", "dev", "DEVICE", "torch_device", "target_device")


def _pick_culprits(kind: ErrorKind, operands: list[ops.Operand],
                   frame: FrameType | None = None) -> tuple[str | None, str | None]:
    """Mark the culprits; return (odd device, good device)."""
    known = [o for o in operands if o.device is not None]
    if kind.name == "numpy_on_device":
        for o in known:
            if o.kind == "tensor" and _is_accel(o.device or "cpu"):
                o.culprit = True
        return kind.odd, "cpu"
    if kind.name == "mps_float64":
        for o in known:
            if o.kind == "tensor" and o.dtype == "float64":
                o.culprit = True
        return None, None
    if kind.name not in ("mixed_devices", "index_device", "rnn_hidden"):
        return None, None
    # 0-dim cpu tensors mix with anything: never the culprit
    cands = [o for o in known if not (o.kind == "tensor" and o.device == "cpu" and o.shape == [])]
    devs = list(kind.devices)
    for o in cands:
        if not any(_same_dev(o.device or "", d) for d in devs) and o.device not in devs:
            devs.append(o.device or "")
    votes = _votes(cands)
    present = [d for d in dict.fromkeys(devs) if votes.get(d)]
    odd: str | None = None
    intent = _intended_device(frame) if frame is not None else None
    wanted = [d for d in present if intent is not None and _same_dev(d, intent)]
    others = [d for d in present if d not in wanted]
    if len(present) >= 2 and len(wanted) == 1 and len(others) == 1:
        # the code names its device (device = "cuda" if ... else "cpu"): off it is the culprit
        odd = others[0]
    elif len(present) == 2 and sum(not _is_accel(d) for d in present) == 1:
        # the CPU against one accelerator: the CPU side missed the ferry, whichever argument
        # PyTorch's message happens to name (it reports against the first tensor's device)
        odd = next(d for d in present if not _is_accel(d))
    elif kind.odd is not None and votes.get(kind.odd):
        odd = kind.odd
    elif len(present) >= 2:
        low = min(votes[d] for d in present)
        lows = [d for d in present if votes[d] == low]
        if len(lows) == 1:
            odd = lows[0]
        else:
            if kind.name == "rnn_hidden" and len(kind.devices) == 2 and kind.devices[1] in lows:
                odd = kind.devices[1]
            else:
                nonacc = [d for d in lows if not _is_accel(d)]
                odd = nonacc[0] if nonacc else lows[-1]
    elif kind.odd is not None:
        odd = kind.odd
    elif len(kind.devices) == 2:
        odd = kind.devices[1] if kind.name != "mixed_devices" or _is_accel(kind.devices[0]) else kind.devices[0]
    good = None
    for d in present:
        if d != odd:
            good = d
            break
    if good is None:
        good = next((d for d in kind.devices if d != odd), None)
    if odd is not None:
        for o in cands:
            if o.device == odd:
                o.culprit = True
    # no operand as written is on the odd device: a factory call on the line made it
    if odd is not None and not any(o.culprit for o in operands):
        for o in operands:
            if o.kind == "call" and o.device is None and isinstance(o.node, ast.Call):
                if ops.is_factory_call(o.node) and not ops.has_device_kw(o.node) and odd == "cpu":
                    o.device, o.culprit = "cpu", True
                    o.note = "created on this line without device= (so on the CPU)"
    return odd, good


def _device_expr(good: str | None, frame: FrameType, operands: list[ops.Operand]) -> str:
    """How the user's code names the good device: a variable, or another operand's .device."""
    if good is None:
        return "device"
    torch = sys.modules.get("torch")
    for scope in (frame.f_locals, frame.f_globals):
        for name in _DEVICE_NAMES:
            v = scope.get(name)
            if v is None:
                continue
            try:
                if torch is not None and isinstance(v, (str, torch.device)) and _same_dev(str(torch.device(v)), good):
                    return name
            except (RuntimeError, TypeError):
                continue
    for o in operands:
        if o.device == good and o.kind == "tensor" and isinstance(o.node, (ast.Name, ast.Attribute)):
            return f"{o.expr}.device"
    for o in operands:
        if o.device == good and o.kind == "module" and isinstance(o.node, (ast.Name, ast.Attribute)):
            return f"next({o.expr}.parameters()).device"
    return "device"


def _argument_device(good: str | None, frame: FrameType, operands: list[ops.Operand]) -> str | None:
    """``x.device`` for a tensor made in a function that receives tensors on ``good``, as
    FRY010 fixes it: another operand of the line when it is a plain local name, else
    the function's first tensor argument (never a global ``device``, which ties the
    function to it)."""
    torch = sys.modules.get("torch")
    code = frame.f_code
    if torch is None or good is None or code.co_name == "<module>":
        return None
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    first = next((p for p in params if isinstance(v := frame.f_locals.get(p), torch.Tensor)
                  and _same_dev(str(sim.device_of(v)), good)), None)
    if first is None:
        return None
    for o in operands:
        if (o.device == good and o.kind == "tensor" and isinstance(o.node, ast.Name)
                and o.node.id in frame.f_locals):
            return f"{o.expr}.device"
    return f"{first}.device"


def _add_device_kw(source: str, dev: str) -> str | None:
    """``labels = torch.randint(0, 10, (64,))`` -> ``... (64,), device=device)``."""
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ops.is_factory_call(node) and not ops.has_device_kw(node):
            if ops.call_name(node).endswith("from_numpy"):
                return None
            node.keywords.append(ast.keyword(arg="device", value=ast.parse(dev, mode="eval").body))
            return ast.unparse(tree)
    return None


def _register_buffer_fix(source: str) -> str | None:
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    stmt = tree.body[0] if tree.body else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return f"self.register_buffer({t.attr!r}, {ast.unparse(stmt.value)})"
    return None


def _unregistered_attr(op: ops.Operand, frame: FrameType) -> bool:
    torch = sys.modules.get("torch")
    node = op.node
    if torch is None or not isinstance(node, ast.Attribute):
        return False
    owner = ops.resolve(node.value, frame)
    if not isinstance(owner, torch.nn.Module):
        return False
    d = object.__getattribute__(owner, "__dict__")
    return node.attr in d and isinstance(d[node.attr], torch.Tensor)


def _fix(kind: ErrorKind, operands: list[ops.Operand], focus: ast.AST | None, frame: FrameType,
         good: str | None, tree: ast.Module | None = None, line: int = 0) -> tuple[str | None, str | None]:
    culprits = [o for o in operands if o.culprit]
    c = culprits[0] if culprits else None
    if kind.name == "numpy_on_device":
        if c is None:
            if (isinstance(focus, ast.Call) and isinstance(focus.func, ast.Attribute)
                    and focus.func.attr == "numpy" and not focus.args):
                recv = ast.unparse(focus.func.value)
                return f"{recv}.cpu().numpy()  (or torchferry.numpy({recv}))", "FRY003"
            return "bring it to the host first: x.cpu().numpy() (or torchferry.numpy(x))", "FRY003"
        torch = sys.modules.get("torch")
        needs_grad = torch is not None and isinstance(c.value, torch.Tensor) and c.value.requires_grad
        host = f"{c.expr}.detach().cpu()" if needs_grad else f"{c.expr}.cpu()"
        if isinstance(focus, ast.Call) and isinstance(focus.func, ast.Attribute) and focus.func.attr == "numpy":
            return f"{host}.numpy()  (or torchferry.numpy({c.expr}))", "FRY003"
        return f"pass {host} instead of {c.expr}  (or torchferry.numpy({c.expr}))", "FRY003"
    if kind.name == "checkpoint_map_location":
        call = focus if isinstance(focus, ast.Call) else None
        if call is not None and not any(k.arg == "map_location" for k in call.keywords):
            mapped = ast.Call(func=call.func, args=call.args,
                              keywords=[*call.keywords, ast.keyword("map_location", ast.Constant("cpu"))])
            return f"{ast.unparse(mapped)}  (or torchferry.load(...), which maps to the CPU)", "FRY004"
        return 'pass map_location="cpu" to torch.load (or use torchferry.load)', "FRY004"
    if kind.name == "mps_float64":
        if c is not None:
            return f"{c.expr} = {c.expr}.float()  (before moving it: MPS has no float64; NumPy arrays are float64)", None
        return "convert to float32 before moving to mps: .float(), or dtype=torch.float32", None
    if kind.name in ("no_device", "invalid_ordinal"):
        base = 'pick the device once: device = "cuda" if torch.cuda.is_available() else "cpu" (or torchferry.device()), then .to(device)'
        if kind.name == "invalid_ordinal":
            return "use a device index below torch.cuda.device_count(); " + base, "FRY001"
        return base, "FRY001"
    # device mismatches
    if c is None:
        return (f"move every operand of this line to one device ({good})" if good else None), None
    dev = _device_expr(good, frame, operands)
    created = c.created_at or {}
    src = str(created.get("call", ""))
    if c.kind == "module":
        return f"{c.expr}.to({dev})  (modules move in place; do it once, before the loop)", None
    if _unregistered_attr(c, frame):
        stmt_src = _frames.source_line(created["path"], created["line"]) if created.get("path") else ""
        fix = _register_buffer_fix(stmt_src) if stmt_src else None
        if fix:
            return f"{fix}  (in __init__: buffers move with model.to(device))", "FRY011"
        attr = c.expr.rsplit(".", 1)[-1]
        return f'self.register_buffer("{attr}", ...) in __init__, so model.to(device) moves it', "FRY011"
    made_dev = _argument_device(good, frame, operands) or dev  # where FRY010's fix puts it
    if c.kind == "call" and isinstance(c.node, ast.Call):  # made on this very line
        new = _add_device_kw(ops.text_of(c.node), made_dev)
        if new:
            return new, "FRY010"
    if created.get("path") and c.kind == "tensor" and c.device == "cpu":  # a factory's default
        stmt_src = _frames.source_line(created["path"], created["line"])
        if ("without device=" in src or _from_factory_stmt(stmt_src)) and _fresh(created, frame, tree, line):
            new = _add_device_kw(stmt_src, made_dev)
            if new:
                return f"{new}  (at {_frames.display_path(created['path'])}:{created['line']})", "FRY010"
    node = c.node
    if isinstance(node, ast.Subscript):
        root = ops.root_name(node)
        if root is not None and isinstance(ops.resolve(ast.Name(root), frame), dict):
            return f"{root} = torchferry.to({root}, {dev})  (moves every tensor in it, {c.expr} included)", "FRY013"
        return f"{c.expr}.to({dev})", "FRY013"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{c.expr} = {c.expr}.to({dev})  (move it with the others)", "FRY013"
    return f"({c.expr}).to({dev})", "FRY013"


_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Loop = ast.For | ast.AsyncFor | ast.While


def _enclosing(tree: ast.AST, line: int) -> tuple[_Function | None, _Loop | None]:
    """The innermost function and the innermost loop around ``line``."""
    fn: _Function | None = None
    loop: _Loop | None = None
    for node in ast.walk(tree):
        if node is tree or not isinstance(node, ast.stmt):  # functions and loops are statements
            continue
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if fn is None or node.lineno >= fn.lineno:
                    fn = node
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.lineno != line:
                if loop is None or node.lineno >= loop.lineno:
                    loop = node
    return fn, loop


def _fresh(created: dict[str, Any], frame: FrameType, tree: ast.Module | None, line: int) -> bool:
    """Was the culprit made close to its use: in the same function, or inside the same loop?"""
    if tree is None or created.get("path") != frame.f_code.co_filename:
        return False
    cl = int(created["line"])
    if cl == line:
        return True
    fn, loop = _enclosing(tree, line)
    if fn is not None and fn.lineno <= cl <= (fn.end_lineno or fn.lineno):
        return True
    return loop is not None and loop.lineno <= cl <= (loop.end_lineno or loop.lineno)


def _from_factory_stmt(src: str) -> bool:
    try:
        tree = ast.parse(src.strip())
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Call) and ops.is_factory_call(n) and not ops.has_device_kw(n)
               for n in ast.walk(tree))


# ------------------------------------------------------------ the report
def explain_exception(exc: BaseException) -> dict[str, Any] | None:
    """The explanation of a device error, as the JSON ``"error"`` object, or None.

    Keys: ``type``, ``message``, ``path``, ``line``, ``source``, ``operands``
    (each ``expr``, ``device``, ``dtype``, ``shape``, ``created_at``,
    ``culprit``), ``fix``, ``rule``; plus ``kind`` (the error kind), ``title``
    and ``via`` (the outer user lines) for the text report.  Call it while the
    tensors are alive (the traceback keeps them) and, in a simulation, before
    leaving it.
    """
    from torchferry.diagnose.distributed import explain_distributed

    special = explain_distributed(exc)  # torchrun / DDP / NCCL mistakes
    if special is not None:
        return special
    found = _device_error(exc)
    if found is None:
        return None
    err, kind = found
    entries = ops.traceback_entries(err.__traceback__)
    user = [(i, e) for i, e in enumerate(entries) if _frames.is_user_code(e.tb_frame.f_code)]
    report: dict[str, Any] = {
        "type": type(err).__name__,
        "message": str(err),
        "path": None,
        "line": None,
        "source": None,
        "operands": [],
        "fix": None,
        "rule": None,
        "kind": kind.name,
        "title": kind.title,
        "via": [],
    }
    if not user:
        fix, rule = _fix(kind, [], None, sys._getframe(), None) if kind.name in (
            "checkpoint_map_location", "no_device", "invalid_ordinal", "numpy_on_device", "mps_float64"
        ) else (None, None)
        report["fix"], report["rule"] = fix, rule
        return report
    idx, tb = user[-1]
    frame, line = tb.tb_frame, tb.tb_lineno
    path = frame.f_code.co_filename
    report["path"], report["line"] = path, line
    report["source"] = _frames.source_line(path, line, frame.f_globals)
    outer = [(e.tb_frame, e.tb_lineno) for _, e in user[:-1]]
    report["via"] = [
        {"path": f.f_code.co_filename, "line": ln, "source": _frames.source_line(f.f_code.co_filename, ln, f.f_globals)}
        for f, ln in outer[-3:]
    ]
    focus, stmt, tree = ops.focus_node(frame, line, tb.tb_lasti)
    source = "".join(linecache.getlines(path, frame.f_globals)) if tree is not None else ""
    operands = _collect(focus, frame, entries[idx + 1].tb_frame if idx + 1 < len(entries) else None,
                        source)
    if (isinstance(stmt, (ast.Assign, ast.AugAssign)) and isinstance(focus, ast.Subscript)
            and focus in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
        # x[idx] = values: the values are an operand of the store too
        known = {o.expr for o in operands}
        operands += [o for o in _collect(stmt.value, frame, None, source) if o.expr not in known]
    odd, good = _pick_culprits(kind, operands, frame)
    for o in operands:
        if o.culprit:
            o.created_at = _created_at(o, frame, tree, line, outer)
    report["fix"], report["rule"] = _fix(kind, operands, focus, frame, good, tree, line)
    report["rule"], report["found_statically"], discarded = _static_rule(
        report["rule"], source, path, line, [o.expr for o in operands if o.culprit])
    if discarded is not None:
        report["fix"] = (f"{report['fix']}  (line {discarded[0]} computes "
                         f"{discarded[1]} and discards the result: .to() is not in place)")
    report["odd_device"], report["good_device"] = odd, good
    report["argument"] = kind.arg
    report["operands"] = [
        {"expr": o.expr, "device": o.device, "dtype": o.dtype, "shape": o.shape,
         "created_at": _site_json(o.created_at) if o.culprit else None, "culprit": o.culprit}
        for o in operands
    ]
    report["notes"] = {o.expr: o.note for o in operands if o.note}
    return report


def _static_rule(rule: str | None, source: str, path: str, line: int,
                 culprits: list[str]) -> tuple[str | None, bool, tuple[int, str] | None]:
    """Name the rule ``ferry check`` really reports for this mistake, and whether it does.

    Returns (rule, found by ``ferry check``, (line, text) of a discarded move of a culprit).
    A discarded ``x.to(device)`` earlier in the file is FRY002 (found statically), not
    FRY013; FRY013 (partial batch move) is named only where ``ferry check`` reports it
    on this line; other rules keep their name without claiming a static finding.
    """
    if rule is None or not source:
        return rule, False, None
    try:
        from torchferry.check.engine import check_source

        findings = check_source(source, path)
    except Exception:  # the explanation never fails because of the checker
        return (None if rule == "FRY013" else rule), False, None
    lines = source.splitlines()
    if rule == "FRY013":
        for f in findings:
            if f.code != "FRY002" or f.line > line or not (0 < f.line <= len(lines)):
                continue
            text = lines[f.line - 1].strip()
            if any(text.startswith(c + ".to(") or text.startswith(c + ".cuda(") for c in culprits):
                return "FRY002", True, (f.line, text)
    found = any(f.code == rule and f.line == line for f in findings)
    if rule == "FRY013" and not found:
        return None, False, None
    return rule, found, None


def _callee_is(fn: Any, code: Any) -> bool:
    """Is ``code`` the code object that calling ``fn`` runs first?"""
    if fn is ops.UNKNOWN or fn is None:
        return False
    seen = 0
    while seen < 8:
        seen += 1
        if getattr(fn, "__code__", None) is code:
            return True
        inner = getattr(fn, "__func__", None)
        if inner is not None and getattr(inner, "__code__", None) is code:
            return True
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is None:
            break
        fn = wrapped
    call = type(fn).__dict__.get("__call__") or getattr(type(fn), "__call__", None)  # noqa: B004
    if getattr(call, "__code__", None) is code:
        return True
    if isinstance(fn, type):
        init = getattr(fn, "__init__", None)
        return getattr(init, "__code__", None) is code
    return False


def _site_json(site: dict[str, Any] | None) -> dict[str, Any] | None:
    if site is None:
        return None
    return {"path": site["path"], "line": site["line"], "call": site.get("call")}


def _collect(focus: ast.AST | None, frame: FrameType, callee: FrameType | None,
             source: str = "") -> list[ops.Operand]:
    if focus is None:
        return []
    torch = sys.modules.get("torch")
    nodes = ops.operand_nodes(focus)
    bound: dict[int, Any] = {}
    focus_func = focus.func if isinstance(focus, ast.Call) else None
    if (isinstance(focus, ast.Call) and callee is not None and callee.f_back is frame
            and _callee_is(ops.resolve(focus.func, frame), callee.f_code)):
        bound = ops.bind_call_args(focus, callee)
    out: list[ops.Operand] = []
    seen: set[str] = set()

    def add(node: ast.expr, value: Any, note: str = "") -> None:
        expr = ops.text_of(node, source)
        if expr in seen:
            return
        op = ops.Operand(expr=expr, node=node)
        if isinstance(value, (list, tuple)) and torch is not None and value and all(
            isinstance(v, torch.Tensor) for v in value
        ):
            for i, v in enumerate(value[:8]):
                sub = ast.Subscript(value=node, slice=ast.Constant(i))
                add(sub, v)
            if len(value) > 8 and out and out[-1].expr.startswith(expr + "["):
                out[-1].note = f"and {len(value) - 8} more in {expr}, not listed"
            seen.add(expr)
            return
        _describe(op, value)
        if note and not op.note:
            op.note = note
        if op.kind in ("tensor", "module"):
            seen.add(expr)
            out.append(op)
        elif isinstance(node, ast.Call) and value is ops.UNKNOWN:
            seen.add(expr)
            op.kind = "call"
            fn = ops.resolve(node.func, frame)
            if torch is not None and isinstance(fn, torch.nn.Module):
                md = _module_device(fn)
                if md is not None:
                    op.device, op.dtype = str(md[0]), _dtype(md[1])
                    op.note = "output of a module whose parameters are here"
                    op.kind = "tensor"
            if op.device is None:
                op.note = op.note or "a call result (not re-run)"
                if ops.is_factory_call(node):
                    out.append(op)
                    return
                for a in [*node.args, *(k.value for k in node.keywords)]:
                    for leaf in ops._flatten(a):
                        add(leaf, ops.resolve(leaf, frame))
                return
            out.append(op)

    for node in nodes:
        if node is focus_func:
            fv = ops.resolve(node, frame)
            if torch is not None and isinstance(fv, torch.nn.Module):
                add(node, fv)
            elif isinstance(node, ast.Attribute):  # a method: its receiver is an operand
                recv = node.value
                rv = ops.resolve(recv, frame)
                if not isinstance(rv, types.ModuleType):
                    add(recv, rv)
            continue
        if id(node) in bound:
            add(node, bound[id(node)])
        elif isinstance(node, ast.Call):
            add(node, ops.UNKNOWN)
        else:
            add(node, ops.resolve(node, frame))
    return out


# ------------------------------------------------------------ formatting
def format_report(report: dict[str, Any]) -> str:
    """The text report printed after the traceback."""
    lines = [f"torchferry explain: {report['title']} ({report['type']})"]
    if report.get("path"):
        lines.append(f"  at {_frames.display_path(report['path'])}:{report['line']}")
        lines.append(f"    {report['source']}")
        for v in reversed(report.get("via") or []):
            lines.append(f"  called from {_frames.display_path(v['path'])}:{v['line']}: {v['source']}")
    else:
        lines.append("  (no line of your own code in the traceback)")
    operands = report.get("operands") or []
    notes = report.get("notes") or {}
    if operands:
        lines.append("  operands:")
        w = max(len(o["expr"]) for o in operands)
        others = sorted({o["device"] for o in operands if not o["culprit"] and o["device"]})
        for o in operands:
            shape = "" if o["shape"] is None else f"[{', '.join(map(str, o['shape']))}]"
            mark = "> " if o["culprit"] else "  "
            row = f"  {mark}{o['expr']:<{w}}  {o['device'] or '?':<7} {o['dtype'] or '':<8} {shape}"
            extra = []
            if o["culprit"] and report["kind"] in ("mixed_devices", "index_device", "rnn_hidden") and others:
                extra.append(f"<- on {o['device']} while the others are on {', '.join(others)}")
            elif o["culprit"] and report["kind"] == "numpy_on_device":
                extra.append(f"<- on {o['device']}: NumPy reads host memory only")
            elif o["culprit"] and report["kind"] == "mps_float64":
                extra.append("<- float64: MPS has no float64")
            if notes.get(o["expr"]):
                extra.append(f"({notes[o['expr']]})")
            lines.append((row + "  " + "  ".join(extra)).rstrip())
        shown_sites: set[tuple[str, int]] = set()
        for o in operands:
            if o["culprit"]:
                site = o["created_at"]
                if site and (site["path"], site["line"]) in shown_sites:
                    continue
                if site:
                    shown_sites.add((site["path"], site["line"]))
                    src = _frames.source_line(site["path"], site["line"])
                    call = site.get("call") or ""
                    what = src if not call or call == src or call in src else (
                        f"{src}  ({call})" if src else call)
                    lines.append(
                        f"  {o['expr']} was created at {_frames.display_path(site['path'])}:{site['line']}: {what}"
                    )
                elif not o["expr"].endswith(")"):
                    lines.append(f"  {o['expr']}: where it was created is not known")
    elif report["kind"] in ("mixed_devices", "index_device", "rnn_hidden"):
        lines.append("  (no tensor operand of this line could be read without re-running code)")
    culprits = [o["expr"] for o in operands if o["culprit"]]
    if report.get("argument") and len(culprits) == 1:
        lines.append(f"  (PyTorch's message calls it `{report['argument']}`)")
    if report.get("fix"):
        lines.append(f"  fix: {report['fix']}")
    if report.get("rule"):
        r = report["rule"]
        if report.get("found_statically", True):
            lines.append(f"  rule: {r} {rule_name(r)}  (`ferry check` finds this before you run; `ferry rule {r}` explains)")
        else:
            lines.append(f"  rule: {r} {rule_name(r)}  (`ferry rule {r}` explains)")
    return "\n".join(lines)


# ------------------------------------------------------------ excepthook
_PENDING: dict[int, tuple[BaseException, dict[str, Any]]] = {}


def _remember(exc: BaseException, report: dict[str, Any]) -> None:
    _PENDING[id(exc)] = (exc, report)
    while len(_PENDING) > 8:
        _PENDING.pop(next(iter(_PENDING)))


def pending_report(exc: BaseException) -> dict[str, Any] | None:
    """The report made for ``exc`` (or an exception in its chain) by an ``explain`` block."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        entry = _PENDING.get(id(e))
        if entry is not None and entry[0] is e:
            return entry[1]
        e = e.__cause__ or e.__context__
    return None


def _excepthook(typ: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """Python's top-level error printer while an explained error propagates, then not any more."""
    previous = _EXCEPTHOOK.original(sys, "excepthook") if _EXCEPTHOOK.active else sys.__excepthook__
    try:
        previous(typ, value, tb)
        report = pending_report(value)
        if report is not None:
            with contextlib.suppress(Exception):
                print(format_report(report), file=sys.stderr)
    finally:
        restore_excepthook()  # used once: the error it was installed for has reached the top


_EXCEPTHOOK = Patch("explain", lambda: [(sys, "excepthook", _excepthook)])


def _ipython_shell(exc: BaseException) -> str | None:
    """``"extension"`` inside an IPython shell where ``%load_ext torchferry`` is loaded and
    will be handed ``exc``, ``"bare"`` inside any other, None outside IPython (imports nothing)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if get is not None else None
    if shell is None:
        return None
    ext = sys.modules.get("torchferry.diagnose.ipython")
    handled = tuple(getattr(shell, "custom_exceptions", ()) or ())
    if id(shell) in getattr(ext, "_STATE", {}) and handled and isinstance(exc, handled):
        return "extension"
    return "bare"


def _install_excepthook() -> None:
    if not _EXCEPTHOOK.active:
        _EXCEPTHOOK.acquire()


def restore_excepthook() -> None:
    """Put back the ``sys.excepthook`` that was there before an ``explain`` block replaced it.

    An ``explain`` block whose device error propagates installs a hook that
    prints the report after Python's traceback; the hook removes itself once it
    has run.  Call this when the error was caught instead (the hook would
    otherwise wait for the next uncaught error, print it normally and then
    remove itself).  Nothing happens when no hook is installed.
    """
    while _EXCEPTHOOK.active:
        _EXCEPTHOOK.release()


class explain(contextlib.ContextDecorator):
    """Explain device errors raised inside the block, after the normal traceback.

    The exception propagates unchanged (same object, type and message).  The
    report is kept in ``.report`` (the JSON ``"error"`` object, None when no
    device error happened) and printed on ``file`` (default stderr) after the
    traceback: by ``sys.excepthook`` when the error ends the program (a hook
    installed as the error leaves the block, which puts the previous hook back
    once it has run; :func:`restore_excepthook` does that at once), by
    IPython's traceback handler in a notebook (``%load_ext torchferry``).  In
    IPython without the extension (which never calls ``sys.excepthook`` for a
    cell's error) it is printed at once, before IPython's traceback.  Pass
    ``file=None`` to print nothing.

    While active, torch's factory functions note where each tensor is made
    (``record=False`` turns that off); every other op runs untouched.

    >>> import torch, torchferry as tf
    >>> with tf.explain() as ex:
    ...     y = torch.ones(2) * 2
    >>> ex.report is None
    True
    """

    def __init__(self, *, record: bool = True, file: TextIO | None | str = "stderr") -> None:
        self.record = record
        self.file = file
        self.report: dict[str, Any] | None = None
        self._recording = False

    def __enter__(self) -> explain:
        self.report = None
        if self.record:
            RECORDER.enter()
            self._recording = True
        return self

    def __exit__(self, typ: Any, exc: BaseException | None, tb: Any) -> Literal[False]:
        try:
            if exc is not None and not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                try:
                    self.report = explain_exception(exc)
                except Exception as e:  # the explanation must never mask the user's error
                    self.report = None
                    if self.file is not None:
                        print(f"torchferry explain: could not explain this error ({type(e).__name__}: {e})",
                              file=sys.stderr)
                if self.report is not None and self.file is not None:
                    _remember(exc, self.report)
                    shell = _ipython_shell(exc) if isinstance(self.file, str) else None
                    if shell == "extension":
                        pass  # %load_ext torchferry explains it after IPython's traceback
                    elif shell == "bare" or not isinstance(self.file, str):
                        # IPython never calls sys.excepthook for a cell's error: now or never
                        print(format_report(self.report),
                              file=sys.stderr if isinstance(self.file, str) else self.file)
                    else:  # "stderr": after the traceback (excepthook)
                        _install_excepthook()
        finally:
            if self._recording:
                RECORDER.exit()
                self._recording = False
        return False
