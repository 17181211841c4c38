"""The TorchFunctionMode at the heart of the simulation.

Hot path (every torch call inside ``simulate``): look up each tensor
argument's storage tag in a dict, call the real CPU function, and tag a new
output storage with the one device all inputs share.  Special functions
(``.device``, ``.to``, ``.numpy``, ``.item``, printing, ...) have handlers in
``HANDLERS``.  Calls that mix devices go to :mod:`torchferry.sim.aten_check`.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
import threading
import types
import warnings
from collections.abc import Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from torchferry._internal import frames as _frames
from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import events as _events
from torchferry.sim import tags as _tags
from torchferry.sim.aten_check import AtenDeviceChecker, SparseKernelChecker, type_name
from torchferry.sim.state import SimState

Tensor = torch.Tensor
TensorBase = torch._C.TensorBase
_VF = torch._C._VariableFunctions
_TENSOR_PY = torch._tensor.__file__
_TAGS = _tags.TAGS
_Tag = _tags.Tag
_tag = _tags.tag
_CPU = torch.device("cpu")
_STRIDED = torch.strided
_EMPTY: dict[str, Any] = {}
_LISTENERS = _events.LISTENERS

# the running simulation's state (sim/state.py), set by ``activated`` while it runs
ACTIVE: SimState | None = None


def _active() -> SimState:
    """The running simulation's state (only called while one runs)."""
    s = ACTIVE
    assert s is not None, "no simulation is running"
    return s


@contextlib.contextmanager
def activated(state: SimState) -> Iterator[SimState]:
    """``state`` is the one the mode and its handlers read inside the block; the previous
    one (None outside any simulation) comes back after it."""
    global ACTIVE
    saved = ACTIVE
    ACTIVE = state
    try:
        yield state
    finally:
        ACTIVE = saved



def _numpy_error(dev: torch.device) -> TypeError:
    return TypeError(
        f"can't convert {dev} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        "to host memory first."
    )


MPS_F64 = (
    "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
    "Please use float32 instead."
)


# the simulated device of a tensor, or None when it is a CPU tensor
dev_of = _tags.sim_device

# what ``UnsupportedFeatureError`` says for a layout the simulation cannot tag
_NO_STORAGE = (
    "{} tensors cannot be placed on the simulated GPU (torchferry.simulate tags storages, "
    "and these have none); test this part on real hardware"
)


def no_storage_error(t: Tensor) -> UnsupportedFeatureError:
    """The refusal of a tensor the simulation cannot tag (nested, mkldnn) on a simulated
    device.  Sparse tensors are tagged through their components (:func:`tag_storageless`)."""
    return UnsupportedFeatureError(_NO_STORAGE.format(
        "nested" if t.is_nested else str(t.layout).replace("torch.", "")))


def tag_storageless(out: Tensor, dev: torch.device) -> Tensor:
    """Put ``out``, a tensor without a storage of its own, on ``dev``: a sparse tensor's
    indices and values are tagged (:func:`torchferry.sim.tags.components`); anything else
    is refused."""
    if not _tags.components(out):
        raise no_storage_error(out)
    if out.dtype is _F64 and _refuses_f64(dev):
        raise TypeError(MPS_F64)
    _tag(out, dev)
    return out


def _site_tuple() -> tuple[str, int, str] | None:
    s = _tags.site(3)
    return None if s is None else (s[0].co_filename, s[1], s[0].co_name)


# ------------------------------------------------------------------ syncs
def sync(op: str, dev: torch.device) -> None:
    """A host sync on ``dev``: honour set_sync_debug_mode, tell listeners."""
    s = ACTIVE
    assert s is not None
    if s.quiet:
        return
    if s.sync_mode and s.spec.sync_debug:
        if s.sync_mode == 2:
            raise RuntimeError("called a synchronizing CUDA operation")
        warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=3)
    if _LISTENERS:
        _events.emit(_events.SimEvent("sync", op, str(dev), site=_site_tuple()))


def transfer(op: str, src: torch.device, dst: torch.device, nbytes: int, blocking: bool) -> None:
    s = ACTIVE
    assert s is not None
    if s.quiet:
        return
    if blocking and s.sync_mode and s.spec.sync_debug and src.type == "cpu" and dst.type != "cpu":
        if s.sync_mode == 2:
            raise RuntimeError("called a synchronizing CUDA operation")
        warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=3)
    if _LISTENERS:
        direction = (
            "d2d"
            if src.type != "cpu" and dst.type != "cpu"
            else ("h2d" if src.type == "cpu" else "d2h")
        )
        _events.emit(
            _events.SimEvent(
                "transfer",
                op,
                str(dst if dst.type != "cpu" else src),
                direction=direction,
                nbytes=nbytes,
                site=_site_tuple(),
            )
        )


# ------------------------------------------------------------------ the mode
class SimMode(TorchFunctionMode):
    """Tags outputs with their inputs' simulated device; see the module docstring.

    The hot path is this one method: look up each tensor argument's storage
    tag, run the CPU function, tag a new output storage with the inputs' device.
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        __tracebackhide__ = True  # noqa: F841 - pytest and IPython leave this frame out
        if types is not _RAW:
            for t in types:
                if t not in _TENSOR_TYPES:
                    if not issubclass(t, Tensor):
                        return _foreign_call(func, types, args, kwargs or _EMPTY)
                    _TENSOR_TYPES.add(t)
            h = HANDLERS.get(func)
            if h is not None:
                return h(func, args, kwargs or _EMPTY)
        if kwargs:
            if "device" in kwargs or kwargs.get("pin_memory"):
                return _factory(func, args, kwargs)
        else:
            kwargs = _EMPTY
        get = _TAGS.get
        common = None
        cpu_seen = False
        mixed = False
        # The same tag test is written out four times (positional / keyword arguments, each
        # plain or in a list): this loop runs for every op, and a helper call or an
        # itertools.chain per op is measurable on small-op models (benchmarks/sim_overhead.py (c)).
        try:
            for a in args:
                if isinstance(a, Tensor):
                    e = get(_sid(a))
                    if e is None:
                        cpu_seen = True
                    elif common is None:
                        common = e.device
                    elif e.device is not common:
                        mixed = True
                elif type(a) is list or type(a) is tuple:
                    for b in a:
                        if isinstance(b, Tensor):
                            e = get(_sid(b))
                            if e is None:
                                cpu_seen = True
                            elif common is None:
                                common = e.device
                            elif e.device is not common:
                                mixed = True
            if kwargs:
                for a in kwargs.values():
                    if isinstance(a, Tensor):
                        e = get(_sid(a))
                        if e is None:
                            cpu_seen = True
                        elif common is None:
                            common = e.device
                        elif e.device is not common:
                            mixed = True
                    elif type(a) is list or type(a) is tuple:
                        for b in a:
                            if isinstance(b, Tensor):
                                e = get(_sid(b))
                                if e is None:
                                    cpu_seen = True
                                elif common is None:
                                    common = e.device
                                elif e.device is not common:
                                    mixed = True
        except (RuntimeError, NotImplementedError):
            # a functorch wrapper (vmap, grad) or a tensor without storage (sparse, nested)
            return _robust_call(func, args, kwargs)
        if common is None:
            dd = ACTIVE.default_device
            if dd is not None and func in _constructors():
                return _factory(func, args, {**kwargs, "device": dd})
            return _as_caller(_getframe(1))(func, args, kwargs)
        if type(func) in _OP_TYPES:
            _custom_op_check(func)
        if mixed or (cpu_seen and not ACTIVE.in_backward):
            return _checked(func, args, kwargs)
        out = _as_caller(_getframe(1))(func, args, kwargs)
        if isinstance(out, Tensor):
            if args and out is args[0]:
                return out  # in-place: already on its device
            try:
                key = _sid(out)
            except NotImplementedError:  # a sparse result of device tensors
                return tag_storageless(out, common)
            if key not in _TAGS:
                if out.dtype is _F64 and ACTIVE.spec.refuses_float64:
                    raise TypeError(MPS_F64)
                st = out.untyped_storage()
                _TAGS[key] = _Tag(st._weak_ref(), common, st.nbytes(), _site(2))
                if len(_TAGS) > _tags.sweep_at:
                    _tags.sweep()
        elif isinstance(out, (tuple, list)):
            for o in out:
                if isinstance(o, Tensor):
                    _tag(o, common)
        return out


_RAW = object()  # ``types`` value that skips the handler lookup
_getframe = sys._getframe


# ------------------------------------------------------------------ warnings' frame
# Without the simulation, a warning torch raises in C++ during a call is attributed to the
# Python frame that made the call (torch's own code, or the user's), and ``warnings.warn(...,
# stacklevel=2)`` in a Python torch function to that function's caller: that frame's module
# is what ``warnings.filterwarnings(module=...)`` matches, its file and line what is shown,
# its ``__warningregistry__`` what "default"/"once" remember.  The mode calls the function
# itself, so the frame would be the mode's.  It calls it through a one-line function made
# for the calling frame instead: that frame's globals, file and line.
_TRAMPOLINE_SRC = (
    f"def {_frames.SIMULATION_CALL}(func, args, kwargs): "
    "__tracebackhide__ = True; return func(*args, **kwargs)\n"
)
_TRAMPOLINES: dict[tuple[Any, int], Any] = {}  # (code, instruction offset) -> function
_HTF_CODE = torch.overrides.handle_torch_function.__code__


def _as_caller(f: Any) -> Any:
    """The function that calls ``func(*args, **kwargs)`` as if from frame ``f``.

    ``f`` is the frame that called the mode: the caller of a C function, or torch's
    ``handle_torch_function`` for a Python one, whose caller's caller is then the frame.
    """
    if f.f_code is _HTF_CODE and f.f_back is not None and f.f_back.f_back is not None:
        f = f.f_back.f_back
    code = f.f_code
    key = (code, f.f_lasti)  # the call's instruction: cheaper to read than its line
    fn = _TRAMPOLINES.get(key)
    if fn is None or fn.__globals__ is not f.f_globals:
        if len(_TRAMPOLINES) > 4096:
            _TRAMPOLINES.clear()
        line = f.f_lineno or 1
        mod = compile("\n" * (line - 1) + _TRAMPOLINE_SRC, code.co_filename, "exec")
        body = next(c for c in mod.co_consts if isinstance(c, types.CodeType))
        fn = _TRAMPOLINES[key] = types.FunctionType(body, f.f_globals)
    return fn


# the storage's address without making a Python storage object (which would then live as
# long as the storage and slow later frees); equal to ``t.untyped_storage()._cdata``
_sid = torch._C._storage_id  # type: ignore[attr-defined]
_MODE = SimMode()
_F64 = torch.float64


def _refuses_f64(dev: torch.device) -> bool:
    """Float64 tensors cannot live on ``dev`` (a simulated device of a kind that refuses them)."""
    s = ACTIVE
    return s is not None and s.spec.refuses_float64 and dev.type == s.kind
_site = _tags.site


# Tensor and the Tensor subclasses seen in ``types`` (the test for a foreign class is one
# set lookup per type)
_TENSOR_TYPES: set[type] = {Tensor, torch.nn.Parameter}


def _foreign_call(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """A call with an argument of a non-Tensor class that has ``__torch_function__`` (a tensor
    wrapper): its handler runs with the simulation's mode on, as torch runs it after the mode
    returns, so the torch calls it makes on the tensors it wraps are simulated."""
    if not torch._C._is_torch_function_enabled():  # DisableTorchFunctionSubclass: not called
        return _generic_call(func, args, kwargs)
    for t in types:
        if issubclass(t, Tensor):
            continue
        with SimMode():
            out = t.__torch_function__(func, types, args, dict(kwargs))
        if out is not NotImplemented:
            return out
    return func(*args, **kwargs)


def _generic_call(func: Any, args: tuple, kwargs: dict) -> Any:
    """The hot path without the handler lookup (for handlers that add to it)."""
    return SimMode.__torch_function__(_MODE, func, _RAW, args, kwargs)


_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_unwrap = torch._C._functorch.get_unwrapped


_storage_key = _tags.storage_key


def _robust_call(func: Any, args: tuple, kwargs: dict) -> Any:
    """The hot path's logic for calls with functorch-wrapped or storage-less tensors."""
    tensors: list[Tensor] = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            tensors.append(a)
        elif type(a) is list or type(a) is tuple:
            tensors.extend(b for b in a if isinstance(b, Tensor))
    common = None
    cpu_seen = mixed = False
    for t in tensors:
        k = _storage_key(t)
        e = _TAGS.get(k) if k is not None else None
        if e is None:
            if k is not None:
                cpu_seen = True
        elif common is None:
            common = e.device
        elif e.device is not common:
            mixed = True
    if common is None:
        return func(*args, **kwargs)
    if cpu_seen or mixed:
        return _checked(func, args, kwargs)
    if any(t.layout is not _STRIDED for t in tensors):
        out = _sparse_call(func, args, kwargs)
    else:
        out = func(*args, **kwargs)
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if isinstance(o, Tensor):
            while _is_wrapped(o):
                o = _unwrap(o)
            try:
                _tag(o, common)
            except (RuntimeError, NotImplementedError):
                pass
    return out


def _checked(func: Any, args: tuple, kwargs: dict) -> Any:
    """A call that mixes devices: run it under the per-ATen-operator checker."""
    __tracebackhide__ = True  # noqa: F841 - pytest and IPython leave this frame out
    try:
        with AtenDeviceChecker():
            return func(*args, **kwargs)
    except Exception as exc:
        if getattr(exc, "_ferry_device_check", False):
            # as on a GPU: the error comes from the user's call, not our internals
            raise exc.with_traceback(None) from None
        raise


def _sparse_call(func: Any, args: tuple, kwargs: dict) -> Any:
    """A call on sparse device tensors: run it under the sparse kernel checker, which raises
    the dispatcher's error where the device has no sparse kernel for an operator."""
    __tracebackhide__ = True  # noqa: F841 - pytest and IPython leave this frame out
    try:
        with SparseKernelChecker():
            return func(*args, **kwargs)
    except Exception as exc:
        if getattr(exc, "_ferry_device_check", False):
            raise exc.with_traceback(None) from None
        raise


_OP_TYPES = (torch._ops.OpOverload, torch._ops.OpOverloadPacket)


@functools.lru_cache(maxsize=1)
def _constructors() -> frozenset[Any]:
    """The factory functions ``torch.set_default_device`` applies to, as the builtins.

    torch's own ``_device_constructors()`` collects ``torch.<name>`` once and caches it:
    filled while something wraps those names (``torchferry.explain`` records factories),
    it holds the wrappers, never the builtins this mode sees.  Look the builtins up.
    """
    from torch.utils._device import _device_constructors

    names = {getattr(f, "__name__", None) for f in _device_constructors.__wrapped__()}
    vf = torch._C._VariableFunctions
    return frozenset(getattr(vf, n) for n in names if n and hasattr(vf, n))


_CPU_KEYS = ("CPU", "CompositeImplicitAutograd", "CompositeExplicitAutograd")


def _custom_op_check(func: Any) -> None:
    """A custom operator with a CUDA kernel and no CPU one cannot run in the simulation."""
    if isinstance(func, torch._ops.OpOverloadPacket):
        name = func._qualified_op_name
    else:
        name = (
            func._name
            if not func._overloadname or func._overloadname == "default"
            else (f"{func._name}.{func._overloadname}")
        )
    if name.startswith(("aten::", "prims::")):
        return
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    try:
        if any(has(name, k) for k in _CPU_KEYS):
            return
        cuda_only = has(name, "CUDA") or has(name, _active().spec.backend)
    except RuntimeError:
        return
    if cuda_only:
        raise UnsupportedFeatureError(
            f"custom {_active().kind.upper()} kernel '{name}' cannot run in the simulated GPU "
            "(torchferry.simulate computes on the CPU and this operator has no CPU kernel); "
            "test it on real hardware or register a CPU implementation"
        )


def _tag_out(out: Any, dev: torch.device | None) -> Any:
    if dev is None:
        return out
    if isinstance(out, Tensor):
        if out.dtype is torch.float64 and _refuses_f64(dev):
            raise TypeError(MPS_F64)
        _tag(out, dev)
    elif isinstance(out, (tuple, list)):
        for o in out:
            _tag_out(o, dev)
    return out


# ------------------------------------------------------------------ devices
def resolve(spec: Any) -> Any:
    """A device argument -> simulated device, None (cpu), or NotImplemented (not ours)."""
    s = _active()
    if spec is None:
        return None
    if isinstance(spec, int) and not isinstance(spec, bool):
        d = torch.device(s.kind, spec)
    elif isinstance(spec, torch.device):
        d = spec
    elif isinstance(spec, str):
        d = torch.device(spec)
    else:
        return NotImplemented
    if d.type == "cpu":
        return None
    if d.type != s.kind:
        return NotImplemented
    idx = s.current if d.index is None else d.index
    if idx >= s.count or idx < 0:
        raise s.ordinal_error()
    return s.devices[idx]


def _factory(func: Any, args: tuple, kwargs: dict) -> Any:
    """A call with ``device=``: run it on the CPU, then tag the result."""
    spec = kwargs.get("device")
    dd = _active().default_device
    if spec is None and dd is not None and func in _constructors():
        spec = dd  # as torch.set_default_device's mode does
    dev = resolve(spec)
    if dev is NotImplemented:
        return func(*args, **kwargs)
    kw = dict(kwargs)
    kw["device"] = _CPU
    # pinned host memory (pin_memory=True), which a GPU build allocates: the CPU build has
    # no allocator for it, so the tensor is made and then recorded as pinned, as .pin_memory()
    pinned = dev is None and bool(kw.get("pin_memory"))
    if pinned:
        kw["pin_memory"] = False
    gen = kw.get("generator")
    if gen is not None:
        gdev = getattr(gen, "_ferry_device", None)
        gtype = gdev.type if gdev is not None else "cpu"
        want = dev.type if dev is not None else "cpu"
        if gtype != want:
            raise RuntimeError(f"Expected a '{want}' device type for generator but found '{gtype}'")
    if dev is not None and kw.get("dtype") is torch.float64 and _refuses_f64(dev):
        raise TypeError(MPS_F64)
    out = func(*args, **kw)
    if pinned and isinstance(out, Tensor):
        _tags.pin(out)
        return out
    if not isinstance(out, Tensor):
        return _tag_out(out, dev)
    try:
        key = _sid(out)
    except (RuntimeError, NotImplementedError):
        return _place_sparse(out, dev, args)
    e = _TAGS.get(key)
    if e is not None and e.device is dev:
        return out  # as_tensor(x, device=x.device) returns x itself
    shares = (
        e is not None
        or (dev is not None and func in _MAY_SHARE)
        or any(isinstance(a, Tensor) and _storage_key(a) == key for a in args)
    )
    if shares:
        out = out.clone()
    if dev is not None and func in _COPIES_IN:
        transfer(
            getattr(func, "__name__", "tensor"),
            _CPU,
            dev,
            out.nelement() * out.element_size(),
            False,
        )
    return _tag_out(out, dev)


def _place_sparse(out: Tensor, dev: torch.device | None, args: tuple) -> Tensor:
    """A factory's sparse result (made on the CPU) put on ``dev`` (None: the CPU).

    ``sparse_coo_tensor(indices, values, device=...)`` keeps its arguments as its
    components when they are already on the device; the CPU run keeps them always, so a
    result whose components are another device's, or (for a device result) the CPU
    arguments themselves, is copied first, as the device's constructor copies them.
    """
    parts = _tags.components(out)
    if not parts:
        if dev is None:
            return out
        raise no_storage_error(out)
    given = {_storage_key(a) for a in args if isinstance(a, Tensor)}
    for p in parts:
        e = _TAGS.get(_sid(p))
        if (e is not None and e.device is not dev) or (
            e is None and dev is not None and _sid(p) in given
        ):
            out = out.clone()
            break
    return out if dev is None else tag_storageless(out, dev)


# the builtins the mode receives (torch.<name> may be a wrapper: explain, trips)
_MAY_SHARE = {_VF.as_tensor, _VF.asarray}
_COPIES_IN = {_VF.tensor, _VF.as_tensor, _VF.asarray}


# ------------------------------------------------------------------ handlers
HANDLERS: dict[Any, Any] = {}
# name -> torch's own Tensor method, for each Tensor method a handler is keyed on
OWN_METHODS: dict[str, Any] = {}


def _own(name: str) -> Any:
    """torch's own ``Tensor.<name>``, even while something has replaced it on the class.

    The mode receives the method as ``torch.Tensor`` holds it at call time (for a C method,
    ``handle_torch_function`` looks the name up on the class; a Python one in
    ``torch/_tensor.py`` passes ``Tensor.<name>``), so a handler is keyed on torch's own
    object: read ``Tensor.<name>`` instead, and an import of this module while ``trips`` or a
    user has wrapped the method would key the handler on their wrapper, which the mode never
    sees again once they restore the method.  A wrapper that keeps ``__wrapped__`` (trips',
    ``functools.wraps``) is looked through; a C method is read on ``TensorBase``, which
    nobody patches by assigning ``torch.Tensor.<name>``.
    """
    f = vars(Tensor).get(name)
    while f is not None and getattr(getattr(f, "__code__", None), "co_filename", None) != _TENSOR_PY:
        f = getattr(f, "__wrapped__", None)
    if f is None:
        f = vars(TensorBase).get(name)
    if f is None:
        f = getattr(Tensor, name)  # replaced without a way back to torch's own: the best we know
    OWN_METHODS[name] = f
    return f


def alias_replaced_methods() -> list[Any]:
    """Key the handlers also on the Tensor methods replaced on the class right now.

    Called when a simulation starts: while a user's (or a test's) replacement of, say,
    ``Tensor.to`` is in place, the mode receives *it* when the replacement calls torch's
    method; its handler then runs with torch's own method, so the replacement runs once,
    as without the simulation.  Returns the keys added, for :func:`drop_aliases`.
    """
    added = []
    for name, own in OWN_METHODS.items():
        now = getattr(Tensor, name, None)
        if now is None or now is own or now in HANDLERS:
            continue
        h = HANDLERS.get(own)
        if h is None:  # a method only another kind's simulation handles (kind_handlers)
            continue
        HANDLERS[now] = lambda func, args, kwargs, _h=h, _own=own: _h(_own, args, kwargs)
        added.append(now)
    return added


def drop_aliases(keys: list[Any]) -> None:
    """Remove the keys :func:`alias_replaced_methods` added."""
    for k in keys:
        HANDLERS.pop(k, None)



def handles(*funcs: Any):
    def deco(fn):
        for f in funcs:
            HANDLERS[f] = fn
        return fn

    return deco


@handles(TensorBase.device.__get__)
def _h_device(func, args, kwargs):
    d = dev_of(args[0])
    return func(*args) if d is None else d


def _flag(typ: str):
    def h(func, args, kwargs):
        d = dev_of(args[0])
        if d is None:
            return func(*args) if typ != "cpu" else True
        return d.type == typ

    return h


def _getter(name: str) -> Any:
    """The C getter of ``TensorBase.name`` (what the mode receives for the attribute)."""
    return getattr(TensorBase, name).__get__


def _setter(name: str) -> Any:
    return getattr(TensorBase, name).__set__


HANDLERS[_getter("is_cpu")] = lambda func, args, kwargs: (
    func(*args) if dev_of(args[0]) is None else False
)


@handles(_getter("grad"))
def _h_grad(func, args, kwargs):
    g = func(*args)
    if g is None:
        return g
    try:
        key = _sid(g)
    except (RuntimeError, NotImplementedError):  # a sparse gradient: its values' key
        key = _storage_key(g)
    if _TAGS.get(key) is None:
        # gradients are made by the autograd engine: they land on the parameter's device
        d = dev_of(args[0])
        if d is not None:
            _tag(g, d)
    return g


@handles(_setter("data"), _setter("grad"), _getter("data"))
def _h_passthrough(func, args, kwargs):
    return func(*args, **kwargs)


@handles(_own("get_device"))
def _h_get_device(func, args, kwargs):
    d = dev_of(args[0])
    return func(*args) if d is None else d.index


def _copy_to(t: Tensor, src, dst, dtype, non_blocking: bool, memory_format, op: str) -> Tensor:
    kw: dict[str, Any] = {"copy": True}
    if dtype is not None:
        kw["dtype"] = dtype
    if memory_format is not None:
        kw["memory_format"] = memory_format
    if dst is not None and (dtype or t.dtype) is torch.float64 and _refuses_f64(dst):
        raise TypeError(MPS_F64)
    if dst is not None and (t.is_nested or (t.layout is not torch.strided
                                            and not _tags.components(t))):
        raise no_storage_error(t)
    blocking = not non_blocking
    if src is not None and dst is None:
        sync(op, src) if blocking else None
    transfer(op, src or _CPU, dst or _CPU, _nbytes(t), blocking)
    out = TensorBase.to(t, **kw)
    if dst is not None:
        _tags.retag(out, dst)
    return out


def _nbytes(t: Tensor) -> int:
    """The bytes a move of ``t`` copies; read without a subclass's ``__torch_function__``
    (a lazy module's ``UninitializedParameter`` refuses ``numel`` but may be moved)."""
    if type(t) is Tensor and t.layout is _STRIDED:
        return t.nelement() * t.element_size()
    parts = _tags.components(t)  # a sparse tensor: its indices and values
    if parts:
        return sum(p.nelement() * p.element_size() for p in parts)
    with torch._C.DisableTorchFunctionSubclass():
        return t.nelement() * t.element_size()


@handles(_own("to"))
def _h_to(func, args, kwargs):
    t = args[0]
    rest = args[1:]
    other = kwargs.get("other")
    if rest and isinstance(rest[0], Tensor):
        other = rest[0]
    src = dev_of(t)
    if other is not None:
        dst = dev_of(other)
        dtype = other.dtype
        non_blocking = bool(rest[1] if len(rest) > 1 else kwargs.get("non_blocking", False))
        memory_format = None
        copy = bool(kwargs.get("copy", False))
    else:
        kw = {k: v for k, v in kwargs.items() if k != "copy"}
        device, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*rest, **kw)[:4]
        copy = bool(kwargs.get("copy", False))
        if device is None:
            out = func(*args, **kwargs)
            return _tag_out(out, src)
        dst = resolve(device)
        if dst is NotImplemented or (dst is None and src is None and not t.is_cpu):
            # not ours: a device the simulation does not make, or a real non-CPU tensor
            # (meta) going to the CPU, which torch itself copies (or refuses)
            return func(*args, **kwargs)
    if dst is src:
        kw2: dict[str, Any] = {}
        if dtype is not None:
            kw2["dtype"] = dtype
        if memory_format is not None:
            kw2["memory_format"] = memory_format
        if copy:
            kw2["copy"] = True
        out = TensorBase.to(t, **kw2)
        return _tag_out(out, src)
    return _copy_to(t, src, dst, dtype, non_blocking, memory_format, "to")


@handles(_own("type_as"))
def _h_type_as(func, args, kwargs):
    # ATen's type_as is ``self.to(other.options())``: the device (with its index) and the
    # dtype of ``other``; a tracked move like ``.to(other)``
    t = args[0]
    other = args[1] if len(args) > 1 else kwargs.get("other")
    if not isinstance(other, Tensor) or (dev_of(t) is None and dev_of(other) is None):
        return func(*args, **kwargs)
    return _h_to(func, (t, other), _EMPTY)


# the class of torch's legacy tensor types (torch.FloatTensor, torch.cuda.FloatTensor, ...)
_TENSORTYPE: Any = type(getattr(torch.FloatTensor, "_ferry_orig", torch.FloatTensor))


def _legacy_type_name(spec: Any) -> str | None:
    """The name ``Tensor.type(spec)`` looks up (torch's THPVariable_type), None for a dtype."""
    spec = getattr(spec, "_ferry_orig", spec)  # the simulation's stand-in (sim/cuda_api.py)
    if isinstance(spec, str):
        return spec
    if spec is Tensor:
        return "torch.Tensor"
    if isinstance(spec, _TENSORTYPE):  # its C type's tp_name: "torch.cuda.FloatTensor"
        return f"{spec.__module__}.{spec.__name__}"
    return None


@handles(_own("type"))
def _h_type(func, args, kwargs):
    t = args[0]
    d = dev_of(t)
    spec = args[1] if len(args) > 1 else kwargs.get("dtype")
    if spec is None:
        return type_name(t, d) if d is not None else func(*args, **kwargs)
    name = _legacy_type_name(spec)
    if name is None:  # a dtype (or what torch refuses): the device stays
        out = func(*args, **kwargs)
        return out if isinstance(out, str) else _tag_out(out, d)
    non_blocking = bool(args[2] if len(args) > 2 else kwargs.get("non_blocking", False))
    memory_format = kwargs.get("memory_format")
    s = _active()
    prefix = f"torch.{s.kind}."
    # torch/csrc/utils/tensor_types.cpp options_from_string: "torch.cuda.*" ("torch.xpu.*")
    # names that device type (the kind's spec says whether its names are known); the move
    # keeps a tensor already there on its device, else goes to the current one
    if s.spec.type_names and name.startswith(prefix):
        try:
            probe = TensorBase.type(torch.empty(0), "torch." + name[len(prefix):])
        except ValueError:
            raise ValueError(f"invalid type: '{name}'") from None
        if probe.layout is not torch.strided:
            raise UnsupportedFeatureError(_NO_STORAGE.format(str(probe.layout)[6:]))
        dst = d if d is not None and d.type == s.kind else resolve(s.kind)
    elif d is None:
        return func(t, name, *args[2:], **{k: v for k, v in kwargs.items() if k != "dtype"})
    else:  # a CPU type's name on a simulated tensor: to the host, as on a GPU
        probe = TensorBase.type(torch.empty(0), name)  # torch's own error for a bad name
        if probe.layout is not torch.strided:
            host = _copy_to(t, d, None, None, non_blocking, None, "to")
            return TensorBase.type(host, name)
        dst = None
    if dst is d:
        if probe.dtype is t.dtype and memory_format is None:
            return t
        kw = {"dtype": probe.dtype}
        if memory_format is not None:
            kw["memory_format"] = memory_format
        return _tag_out(TensorBase.to(t, **kw), d)
    return _copy_to(t, d, dst, probe.dtype, non_blocking, memory_format, "to")


# ------------------------------------------------------------------ legacy constructors
# torch/csrc/utils/tensor_new.cpp legacy_tensor_generic_ctor_new: torch.FloatTensor(...)
# (and the other legacy types) and Tensor.new(...) accept a tensor only of their own
# device type and dtype, a storage only on their device, and a device= only of their type.
_OPTIONS_TAIL = (
    ", layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
    "memory_format=(nullopt))"
)


@functools.cache
def _cpp_dtype(dtype: torch.dtype) -> str:
    """The name torch prints for ``dtype`` in a TensorOptions (``float``, ``long int``,
    ``c10::Half``), read from torch's own message about a meta tensor of that dtype."""
    ctor = getattr(torch.FloatTensor, "_ferry_orig", torch.FloatTensor)
    try:
        ctor(torch.empty(0, dtype=dtype, device="meta"))
    except TypeError as e:
        m = re.search(r"\(got TensorOptions\(dtype=(.*?), device=meta,", str(e))
        if m:
            return m.group(1)
    return str(dtype).removeprefix("torch.")  # pragma: no cover - torch changed its text


def _options_text(dtype: torch.dtype, device: str) -> str:
    return f"TensorOptions(dtype={_cpp_dtype(dtype)}, device={device}{_OPTIONS_TAIL}"


def _options_error(want_dtype: torch.dtype, want_dev: str, other: Tensor) -> TypeError:
    got = str(dev_of(other) or _CPU)
    return TypeError(
        f"expected {_options_text(want_dtype, want_dev)} (got {_options_text(other.dtype, got)})"
    )


def _storage_error(tensor_dev: Any, storage_dev: Any) -> RuntimeError:
    return RuntimeError(
        f'Attempted to set the storage of a tensor on device "{tensor_dev or _CPU}" to a storage '
        f'on different device "{storage_dev or _CPU}".  This is no longer allowed; the devices '
        "must match."
    )


def _is_storage(a: Any) -> bool:
    return isinstance(a, (torch.UntypedStorage, torch.TypedStorage))


def _dtype_refused(st: Any, dtype: torch.dtype) -> bool:
    """A typed storage of another dtype: torch refuses it before looking at its device."""
    return isinstance(st, torch.TypedStorage) and st.dtype is not dtype


def legacy_ctor(orig: Any, dtype: torch.dtype, args: tuple, kwargs: dict) -> Any:
    """``torch.FloatTensor(...)`` (a CPU legacy type ``orig`` of ``dtype``) while simulating.

    The CPU build aliases a simulated tensor or storage (its data is on the CPU); a GPU build
    refuses a GPU tensor (``TypeError: expected TensorOptions(... device=cpu ...) (got
    ... device=cuda:0 ...)``) and a GPU storage (``RuntimeError: Attempted to set the
    storage of a tensor on device "cpu" ...``).  Sizes, sequences and CPU tensors go to torch.
    """
    if len(args) == 1 and not kwargs:
        a = args[0]
        if isinstance(a, Tensor):
            if dev_of(a) is not None:
                raise _options_error(dtype, "cpu", a)
        elif _is_storage(a):
            sd = _tags.storage_device(a)
            if sd is not None and not _dtype_refused(a, dtype):
                raise _storage_error(None, sd)
    return orig(*args, **kwargs)


# python_tensor.cpp Tensor_new: TORCH_WARN_ONCE for the accelerator types
_ACCEL_CTOR_WARNING = (
    "The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use "
    "methods such as torch.tensor(data, dtype=*, device='cuda') to create tensors."
)
_accel_ctor_warned = False


def _device_arg_type(spec: Any) -> str:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return _active().kind  # an int is the accelerator, as on a GPU build
    return torch.device(spec).type


def _ctor_device_error(want: str, got: str) -> RuntimeError:
    return RuntimeError(
        f"legacy constructor expects device type: {want} but device type: {got} was passed"
    )


def legacy_ctor_device(
    cpu_ctor: Any, dtype: torch.dtype, dev_type: str, args: tuple, kwargs: dict
) -> Any:
    """``torch.cuda.FloatTensor(...)`` while simulating, as a GPU build makes it.

    ``cpu_ctor`` (``torch.FloatTensor``) computes it; the result is tagged with the device:
    ``device=`` (of the accelerator's type only) or the current device.  A tensor argument
    must already be an accelerator tensor of the type's dtype (its alias is returned), a
    storage must be on the current device; torch's texts for the rest.
    """
    global _accel_ctor_warned
    if not _accel_ctor_warned:
        _accel_ctor_warned = True
        warnings.warn(_ACCEL_CTOR_WARNING, UserWarning, stacklevel=3)
    a = args[0] if len(args) == 1 else None
    if isinstance(a, Tensor) or _is_storage(a):
        if kwargs:
            return cpu_ctor(*args, **kwargs)  # torch's refusal of (tensor, device=...)
        if isinstance(a, Tensor):
            od = dev_of(a)
            if od is None or od.type != dev_type or a.dtype is not dtype:
                raise _options_error(dtype, dev_type, a)
            return cpu_ctor(a)  # an alias: its storage keeps its tag
        if not _dtype_refused(a, dtype):
            cur, sd = resolve(dev_type), _tags.storage_device(a)
            if sd is not cur:  # at::empty({}) on the current device, then set_(storage)
                raise _storage_error(cur, sd)
        return cpu_ctor(a)
    spec = kwargs.get("device")
    if spec is not None:
        got = _device_arg_type(spec)
        if got != dev_type:
            raise _ctor_device_error(dev_type, got)
    dst = resolve(spec if spec is not None else dev_type)
    out = cpu_ctor(*args, **{k: v for k, v in kwargs.items() if k != "device"})
    if a is not None and not isinstance(a, (int, torch.Size)):
        # from data (a sequence, an array): a copy to the device, never a view of the data
        if not isinstance(a, (list, tuple)):
            out = out.clone()
        transfer("tensor", _CPU, dst, out.nelement() * out.element_size(), False)
    return _tag_out(out, dst)


@handles(_own("new"))
def _h_new(func, args, kwargs):
    t = args[0]
    d = dev_of(t)
    rest = args[1:]
    spec = kwargs.get("device")
    if len(rest) == 1 and not kwargs:
        a = rest[0]
        if isinstance(a, Tensor):  # new(Tensor other): an alias of a tensor of t's type
            od = dev_of(a)
            if (d is not None or od is not None) and (
                (d.type if d is not None else "cpu") != (od.type if od is not None else "cpu")
                or a.dtype is not t.dtype
            ):
                raise _options_error(t.dtype, d.type if d is not None else "cpu", a)
            return func(*args, **kwargs)
        if _is_storage(a):  # new(Storage): an empty tensor on t's device, set_ to it
            sd = _tags.storage_device(a)
            if sd is not d and not _dtype_refused(a, t.dtype):
                raise _storage_error(d, sd)
            return func(*args, **kwargs)
    if spec is not None and not (len(rest) == 1 and isinstance(rest[0], Tensor)):
        want = d.type if d is not None else "cpu"
        got = _device_arg_type(spec)
        if got != want:
            raise _ctor_device_error(want, got)
        if d is None:
            return func(*args, **kwargs)
        dst = resolve(spec)
        kw = {k: v for k, v in kwargs.items() if k != "device"}
        return _tag_out(func(*args, **kw), dst)
    return _generic_call(func, args, kwargs)


def _mover(kind: str):
    def h(func, args, kwargs):
        t = args[0]
        s = _active()
        if kind != s.kind:
            return func(*args, **kwargs)
        spec = args[1] if len(args) > 1 else kwargs.get("device")
        if spec is None:
            spec = s.current
        elif isinstance(spec, str) or isinstance(spec, torch.device):
            d = torch.device(spec)
            if d.type != kind:
                raise RuntimeError(f"Invalid device, must be {kind} device")
            spec = d.index if d.index is not None else s.current
        dst = resolve(spec)
        src = dev_of(t)
        if dst is src:
            return t
        nb = bool(kwargs.get("non_blocking", args[2] if len(args) > 2 else False))
        return _copy_to(t, src, dst, None, nb, kwargs.get("memory_format"), kind)

    return h


def kind_handlers(kind: str) -> list[Any]:
    """Key the handlers of the simulated kind's own tensor API: ``Tensor.is_<kind>`` and the
    ``Tensor.<kind>()`` move, where torch has them (``is_cuda``, ``.cuda()``; ``is_mps``).
    Called when a simulation starts; returns the keys, removed on exit (:func:`drop_aliases`)."""
    added = []
    if hasattr(TensorBase, f"is_{kind}"):
        added.append(_getter(f"is_{kind}"))
        HANDLERS[added[-1]] = _flag(kind)
    if hasattr(Tensor, kind):
        added.append(_own(kind))
        HANDLERS[added[-1]] = _mover(kind)
    return added


@handles(_own("cpu"))
def _h_cpu(func, args, kwargs):
    t = args[0]
    src = dev_of(t)
    if src is None:
        return func(*args, **kwargs)
    return _copy_to(t, src, None, None, False, kwargs.get("memory_format"), "cpu")


@handles(_own("numpy"), _own("__array__"))
def _h_numpy(func, args, kwargs):
    d = dev_of(args[0])
    if d is not None:
        raise _numpy_error(d)
    return func(*args, **kwargs)


def _syncing(op: str):
    def h(func, args, kwargs):
        d = dev_of(args[0])
        if d is not None:
            sync(op, d)
        return func(*args, **kwargs)

    return h


HANDLERS[_own("item")] = _syncing("item")
HANDLERS[_own("tolist")] = _syncing("tolist")
HANDLERS[_own("__bool__")] = _syncing("bool")
HANDLERS[_own("__float__")] = _syncing("float")
HANDLERS[_own("__int__")] = _syncing("int")
HANDLERS[_own("__index__")] = _syncing("index")
HANDLERS[_own("__complex__")] = _syncing("complex")


def _syncing_generic(op: str):
    def h(func, args, kwargs):
        d = dev_of(args[0])
        if d is not None:
            sync(op, d)
        return _generic_call(func, args, kwargs)

    return h


HANDLERS[_VF.nonzero] = _syncing_generic("nonzero")
HANDLERS[_own("nonzero")] = _syncing_generic("nonzero")
HANDLERS[_VF.masked_select] = _syncing_generic("masked_select")
HANDLERS[_own("masked_select")] = _syncing_generic("masked_select")


def _h_bincount(func, args, kwargs):
    # CUDA's bincount (aten/src/ATen/native/cuda/SummaryOps.cu _bincount_cuda_template) reads
    # the input's min and max on the host to size its output; an empty input returns early
    d = dev_of(args[0])
    if d is not None and args[0].numel() > 0:
        sync("bincount", d)
    return _generic_call(func, args, kwargs)


HANDLERS[_VF.bincount] = _h_bincount
HANDLERS[_own("bincount")] = _h_bincount


def _has_bool_index(idx: Any) -> bool:
    if isinstance(idx, Tensor):
        return idx.dtype is torch.bool
    if isinstance(idx, (tuple, list)):
        return any(isinstance(i, Tensor) and i.dtype is torch.bool for i in idx)
    return False


@handles(_own("__getitem__"))
def _h_getitem(func, args, kwargs):
    d = dev_of(args[0])
    if d is not None and len(args) > 1 and _has_bool_index(args[1]):
        sync("masked_index", d)
    return _generic_call(func, args, kwargs)


@handles(_own("copy_"))
def _h_copy(func, args, kwargs):
    dst, src_t = args[0], args[1]
    ddev, sdev = dev_of(dst), dev_of(src_t)
    if ddev is not sdev:
        nb = bool(args[2] if len(args) > 2 else kwargs.get("non_blocking", False))
        if sdev is not None and ddev is None and not nb:
            sync("copy_", sdev)
        transfer(
            "copy_", sdev or _CPU, ddev or _CPU, _nbytes(src_t), not nb
        )
    return func(*args, **kwargs)


# the sparse constructors -> the position of their ``values`` argument
_SPARSE_CTORS = {
    _VF.sparse_coo_tensor: 1,
    _VF.sparse_csr_tensor: 2,
    _VF.sparse_csc_tensor: 2,
    _VF.sparse_bsr_tensor: 2,
    _VF.sparse_bsc_tensor: 2,
    _VF.sparse_compressed_tensor: 2,
}


@handles(*_SPARSE_CTORS)
def _h_sparse_ctor(func, args, kwargs):
    """``torch.sparse_coo_tensor(indices, values, ...)`` and the compressed constructors.

    torch/csrc/utils/tensor_new.cpp makes ``values`` on ``device=`` (default: where the
    values are), then the indices on the values' device (its "Ensuring sparse values and
    indices match devices"): tensor arguments on another device are copied there, never
    refused.  The copies are made here; the CPU constructor then keeps them as components.
    """
    pos = _SPARSE_CTORS[func]
    values = args[pos] if len(args) > pos else kwargs.get("values")
    spec = kwargs.get("device")
    if spec is not None:
        dev = resolve(spec)
        if dev is NotImplemented:
            return func(*args, **kwargs)
    else:
        dev = dev_of(values) if isinstance(values, Tensor) else None

    def on_dev(a: Any) -> Any:
        src = dev_of(a) if isinstance(a, Tensor) else None
        if not isinstance(a, Tensor) or src is dev:
            return a
        return _copy_to(a, src, dev, None, False, None, "to")

    args = tuple(on_dev(a) for a in args)
    kw = {k: on_dev(v) for k, v in kwargs.items()}
    kw["device"] = _CPU
    out = _as_caller(_getframe(2))(func, args, kw)  # torch's warnings name the user's line
    return out if dev is None else tag_storageless(out, dev)


@handles(_own("new_tensor"))
def _h_new_tensor(func, args, kwargs):
    if "device" in kwargs:
        return _factory(func, args, kwargs)
    out = func(*args, **kwargs)
    return _tag_out(out, dev_of(args[0]))


@handles(_own("__deepcopy__"))
def _h_deepcopy(func, args, kwargs):
    out = func(*args, **kwargs)
    d = dev_of(args[0])
    if d is not None and isinstance(out, Tensor):
        _tags.retag(out, d)
    return out


@handles(_own("__repr__"))
def _h_repr(func, args, kwargs):
    s = _active()
    d = dev_of(args[0])
    if d is not None and not s.quiet:
        sync("print", d)
    # handlers run with the mode popped; printing must see simulated devices
    with s.quieted(), SimMode():
        return torch._tensor_str._str(args[0], tensor_contents=kwargs.get("tensor_contents"))


@handles(_own("__format__"))
def _h_format(func, args, kwargs):
    # torch's Tensor.__format__: a plain 0-dim tensor formats its item, anything else
    # goes through object.__format__, i.e. str(t) (printed as the GPU prints it: with the
    # mode back on, as in _h_repr) or the TypeError a format spec gets
    t = args[0]
    d = dev_of(t)
    if d is None:
        return func(*args, **kwargs)
    if t.dim() == 0 and not t.is_meta and type(t) is Tensor:
        sync("item", d)
        with _active().quieted():
            return t.detach().item().__format__(*args[1:])
    with SimMode():
        return object.__format__(t, *args[1:], **kwargs)


@handles(_own("pin_memory"))
def _h_pin(func, args, kwargs):
    t = args[0]
    d = dev_of(t)
    if d is not None:
        raise RuntimeError(f"cannot pin '{type_name(t, d)}' only dense CPU tensors can be pinned")
    if _tags.is_pinned(t):  # at::native::pin_memory: already pinned -> the tensor itself
        return t
    out = t.clone()
    _tags.pin(out)
    return out


@handles(_own("is_pinned"))
def _h_is_pinned(func, args, kwargs):
    t = args[0]
    if dev_of(t) is not None:
        return False
    return _tags.is_pinned(t)


@handles(_own("register_hook"))
def _h_register_hook(func, args, kwargs):
    t, hook = args[0], args[1]
    d = dev_of(t)
    if d is None:
        return func(*args, **kwargs)

    def tagged_hook(grad, _hook=hook, _d=d):
        if grad is not None:
            _tag(grad, _d)
        return _hook(grad)

    return func(t, tagged_hook)


@handles(_own("backward"), torch.autograd.backward)
def _h_backward(func, args, kwargs):
    if func is Tensor.backward:
        roots = [args[0]]
        grads = [args[1] if len(args) > 1 else kwargs.get("gradient")]
    else:
        t = args[0] if args else kwargs.get("tensors")
        g = args[1] if len(args) > 1 else kwargs.get("grad_tensors")
        roots = [t] if isinstance(t, Tensor) else list(t or [])
        grads = [g] if isinstance(g, Tensor) else list(g or [None] * len(roots))
    for i, (r, g) in enumerate(zip(roots, grads, strict=False)):
        if isinstance(r, Tensor) and isinstance(g, Tensor):
            dr, dg = dev_of(r) or _CPU, dev_of(g) or _CPU
            if dr != dg:
                # the autograd engine's check of the root gradients (validate_outputs)
                raise RuntimeError(
                    f"invalid gradient at index {i} - expected device {dr} but got {dg}"
                )
    # Drop dead tags before (gradients freed by zero_grad) and after (activations freed
    # by backward), so their StorageImpl shells do not linger and fragment the heap for
    # the allocations that follow.
    _tags.sweep()
    out = func(*args, **kwargs)
    _tags.sweep()
    return out


def backward_in_simulation(state: SimState, run: Any) -> Any:
    """``torch.autograd``'s ``_engine_run_backward`` with the mode on during the pass.

    ``backward()`` and ``autograd.grad()`` reach the engine from their handlers, where the
    mode is popped: without it, the Python code the engine calls (tensor and module hooks,
    custom ``autograd.Function.backward``, FSDP2's all-gathers and reduce-scatters) would
    make CPU tensors where a GPU run makes device tensors.  The engine's own gradients are
    untagged; while ``state.in_backward`` they take the device of the call they meet.
    """

    def engine_run_backward(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not state.thread:
            return run(*args, **kwargs)
        saved = state.in_backward  # a backward inside a backward (reentrant checkpointing)
        state.in_backward = True
        try:
            with SimMode():
                return run(*args, **kwargs)
        finally:
            state.in_backward = saved

    return engine_run_backward


def function_patches(state: SimState) -> list[tuple[Any, str, Any]]:
    """A custom ``autograd.Function``'s backward gets its gradients on its outputs' devices.

    The engine makes the gradients it passes to ``backward`` untagged; on a GPU each is on
    the device of the output it belongs to (``nn.DataParallel``'s ``Broadcast`` gets one
    per replica's device).  ``Function.apply`` notes its outputs' devices on the node,
    the node's ``apply`` (what the engine calls) tags the gradients with them.
    """
    from torch.autograd import function as fn_mod

    orig_apply = vars(fn_mod.Function)["apply"].__func__
    backward = fn_mod.BackwardCFunction

    def apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
        out = orig_apply(cls, *args, **kwargs)
        if threading.current_thread() is state.thread:
            _note_output_devices(cls, out)
        return out

    def node_apply(self: Any, *grads: Any) -> Any:
        _tag_grads(self, grads)
        return real_node_apply(self, *grads)

    def node_apply_boxed(self: Any, *grads: Any) -> Any:
        _tag_grads(self, grads[0] if len(grads) == 1 and type(grads[0]) is list else grads)
        return real_apply_boxed(self, *grads)

    real_node_apply: Any = vars(backward)["apply"]
    real_apply_boxed: Any = vars(backward).get("apply_boxed")
    out: list[tuple[Any, str, Any]] = [(fn_mod.Function, "apply", classmethod(apply)),
                                       (backward, "apply", node_apply)]
    if real_apply_boxed is not None:
        out.append((backward, "apply_boxed", node_apply_boxed))
    out.append(_saved_tensors_hooks_patch(state))
    return out


def _saved_tensors_hooks_patch(state: SimState) -> tuple[Any, str, Any]:
    """Saved-tensor hooks run with the mode on, in the forward pass as in the backward.

    The engine calls a pack hook from inside the operator that saves the tensor, where the
    mode has popped itself, and the unpack hook from the backward pass, where the mode is
    on (:func:`backward_in_simulation`): without this, non-reentrant checkpointing would
    record ``cpu`` for a tensor at the forward pass and ``cuda:0`` at its recomputation, and
    refuse the difference.
    """
    from torch.autograd import graph

    real_init = graph.saved_tensors_hooks.__init__

    def simulated(hook: Any) -> Any:
        def run(x: Any) -> Any:
            if threading.current_thread() is not state.thread:
                return hook(x)
            with SimMode():
                return hook(x)

        return run

    def init(self: Any, pack_hook: Any, unpack_hook: Any) -> None:
        real_init(self, simulated(pack_hook), simulated(unpack_hook))

    return (graph.saved_tensors_hooks, "__init__", init)


def _note_output_devices(cls: Any, out: Any) -> None:
    outs = out if isinstance(out, tuple) else (out,)
    devices = [dev_of(o) if isinstance(o, Tensor) else None for o in outs]
    if not any(d is not None for d in devices):
        return
    for o in outs:
        node: Any = o.grad_fn if isinstance(o, Tensor) else None
        if node is not None and getattr(node, "_forward_cls", None) is cls:
            node._ferry_devices = devices
            return


def _tag_grads(node: Any, grads: Any) -> None:
    devices = getattr(node, "_ferry_devices", None)
    if devices is None:
        return
    for g, d in zip(grads, devices, strict=False):
        if d is not None and isinstance(g, Tensor) and dev_of(g) is None:
            _tag(g, d)


@handles(torch.autograd.grad)
def _h_autograd_grad(func, args, kwargs):
    inputs = args[1] if len(args) > 1 else kwargs.get("inputs")
    out = func(*args, **kwargs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs or [])
    for i, g in zip(ins, out, strict=False):
        if isinstance(g, Tensor) and isinstance(i, Tensor):
            d = dev_of(i)
            if d is not None:
                _tag(g, d)
    return out


# RNNs: PyTorch checks input, hidden and parameter devices before running
def _rnn_check(input_: Tensor, hx: Any, params: Any) -> None:
    din = dev_of(input_) or _CPU
    hs = [hx] if isinstance(hx, Tensor) else list(hx or [])
    for h in hs:
        dh = dev_of(h) or _CPU
        if dh != din:
            raise RuntimeError(
                "Input and hidden tensors are not at the same device, found input tensor at "
                f"{din} and hidden tensor at {dh}"
            )
    for p in params or []:
        if isinstance(p, Tensor):
            dp = dev_of(p) or _CPU
            if dp != din:
                raise RuntimeError(
                    "Input and parameter tensors are not at the same device, found input tensor "
                    f"at {din} and parameter tensor at {dp}"
                )


def _rnn_handler(func, args, kwargs):
    # (input, hx, params, ...) or (data, batch_sizes, hx, params, ...)
    if (
        len(args) >= 4
        and isinstance(args[1], Tensor)
        and not isinstance(args[2], Tensor)
        and isinstance(args[3], (list, tuple))
        and args[1].dim() == 1
        and args[1].dtype == torch.int64
    ):
        _rnn_check(args[0], args[2], args[3])
    elif len(args) >= 3:
        _rnn_check(args[0], args[1], args[2])
    d = dev_of(args[0])
    return _tag_out(func(*args, **kwargs), d)




# ------------------------------------------------------------------ random numbers
# On a GPU, random ops on device tensors draw from the device's generator, a stream
# independent of the CPU one.  These functions (the ATen operators that take a
# ``Generator?`` in native_functions.yaml, and the composites that call them without one)
# run with the simulated device's generator swapped in as the CPU default generator, so a
# CPU-side shuffle or augmentation sees the same numbers as on a GPU machine, and GPU
# draws stay deterministic per ``torch.cuda.manual_seed``.
_RANDOM_OPS = (
    "_fused_dropout _sample_dirichlet _standard_gamma bernoulli bernoulli_ binomial cauchy_ "
    "exponential_ geometric_ log_normal_ multinomial normal normal_ poisson rand rand_like "
    "randint randint_like randn randn_like random_ randperm rrelu rrelu_ rrelu_with_noise "
    "rrelu_with_noise_ uniform_ dropout dropout_ feature_dropout feature_dropout_ "
    "alpha_dropout alpha_dropout_ feature_alpha_dropout feature_alpha_dropout_ native_dropout"
).split()


def _random_funcs() -> list[Any]:
    import torch.nn.functional as F
    import torch.nn.init as init

    out: list[Any] = []
    for name in _RANDOM_OPS:
        # the builtins the mode receives (torch.<name> is _VF's unless wrapped, e.g. by explain)
        own = _own(name) if hasattr(Tensor, name) else None
        for f in (own, getattr(torch._C._nn, name, None), getattr(_VF, name, None)):
            if f is not None and f not in out:
                out.append(f)
    for name in (
        "dropout dropout1d dropout2d dropout3d alpha_dropout feature_alpha_dropout rrelu "
        "rrelu_ gumbel_softmax scaled_dot_product_attention"
    ).split():
        f = getattr(F, name, None)
        if f is not None and f not in out:
            out.append(f)
    for name in (
        "uniform_ normal_ trunc_normal_ kaiming_uniform_ kaiming_normal_ xavier_uniform_ "
        "xavier_normal_ orthogonal_ sparse_"
    ).split():
        f = getattr(init, name, None)
        if f is not None:
            out.append(f)
    return out


def _random_device(func: Any, args: tuple, kwargs: dict) -> torch.device | None:
    if "device" in kwargs:
        d = resolve(kwargs["device"])
        if d is None or d is NotImplemented:
            return None
        return d
    for a in args:
        if isinstance(a, Tensor):
            return dev_of(a)
    for a in kwargs.values():
        if isinstance(a, Tensor):
            return dev_of(a)
    dd = _active().default_device
    if dd is not None and func in _constructors():
        return dd
    return None


def _on_device_generator(index, run, func, args, kwargs):
    """``run(func, args, kwargs)`` drawing from simulated device ``index``'s generator: the
    CPU kernel draws from torch's default generator, so that one holds the device's state
    for the call and gets its own back after it (a GPU's stream is separate from the CPU's)."""
    g = _active().generators[index]
    cpu = torch.default_generator
    saved = cpu.get_state()
    cpu.set_state(g.get_state())
    try:
        return run(func, args, kwargs)
    finally:
        g.set_state(cpu.get_state())
        cpu.set_state(saved)


def _h_random(func, args, kwargs):
    dev = _random_device(func, args, kwargs) if kwargs.get("generator") is None else None
    run = _factory if "device" in kwargs else _generic_call
    if dev is None:
        return run(func, args, kwargs)
    return _on_device_generator(dev.index, run, func, args, kwargs)


for _f in _random_funcs():
    HANDLERS.setdefault(_f, _h_random)
del _f


def _rnn_random(func, args, kwargs):
    d = dev_of(args[0]) if args and isinstance(args[0], Tensor) else None
    if d is None:
        return _rnn_handler(func, args, kwargs)
    return _on_device_generator(d.index, _rnn_handler, func, args, kwargs)


for _name in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
    for _owner in (torch._VF, torch):
        _f = getattr(_owner, _name, None)
        if _f is not None:
            HANDLERS[_f] = _rnn_random  # dropout between layers draws on the device
del _name, _owner, _f


# ------------------------------------------------------------------ TorchScript
def script_call(orig: Any, fn: Any, args: tuple, kwargs: dict) -> Any:
    """A TorchScript function or method call: the interpreter bypasses the function mode,
    so tag its results here with the device its tensor arguments share (a call that mixes
    devices runs under the per-operator checker, which sees the interpreter's operators)."""
    s = ACTIVE
    if s is None or s.thread is not _current_thread():
        return orig(fn, *args, **kwargs)
    common = None
    cpu_seen = mixed = False
    for a in (*args, *kwargs.values()):
        items = a if type(a) is list or type(a) is tuple else (a,)
        for b in items:
            if isinstance(b, Tensor):
                d = dev_of(b)
                if d is None:
                    cpu_seen = True
                elif common is None:
                    common = d
                elif d is not common:
                    mixed = True
    if common is None:
        return orig(fn, *args, **kwargs)
    if cpu_seen or mixed:
        return _checked(orig, (fn, *args), kwargs)
    return _tag_tree(orig(fn, *args, **kwargs), common)


def _tag_tree(out: Any, dev: torch.device) -> Any:
    if isinstance(out, Tensor):
        try:
            _tag(out, dev)
        except (RuntimeError, NotImplementedError):
            pass
    elif isinstance(out, (tuple, list)):
        for o in out:
            _tag_tree(o, dev)
    elif isinstance(out, dict):
        for o in out.values():
            _tag_tree(o, dev)
    return out


def _current_thread() -> Any:
    import threading

    return threading.current_thread()
