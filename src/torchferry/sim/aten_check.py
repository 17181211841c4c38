"""The slow path: exact device rules, checked per ATen operator.

The function mode (``modes.py``) only notices that a call mixes devices.  It
then re-runs that one call under :class:`AtenDeviceChecker`, a
TorchDispatchMode that sees every ATen operator the call decomposes into and
applies the rule the real CUDA build applies to that operator:

* operators marked ``device_check: NoCheck`` in ``native_functions.yaml`` go
  through TensorIterator: the common device is the first non-CPU operand
  (outputs first), CPU 0-dim inputs mix freely, and a mismatch raises
  ``Expected all tensors to be on the same device, but found at least two
  devices, {common} and {other}!``;
* every other operator gets the code-generated check of its backend wrapper:
  the first tensor argument in schema order sets the device and the first
  mismatching one raises ``... but got {arg} is on {dev}, different from other
  tensors on {common} (when checking argument in method wrapper_CUDA_{name})``;
* indexing, ``masked_fill``, convolution and copies have their own rules.

Calls that mix devices legally (``cuda_t[cpu_idx]``, ``x.expand_as(cpu)``,
``cpu_t[0:2] = cuda_t``) run to completion under the checker, which tags each
operator's outputs with the device that operator produced them on.  The
checker never runs on the hot path.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchferry.sim import kinds as _kinds
from torchferry.sim import tags as _tags

_CPU = torch.device("cpu")


@functools.lru_cache(maxsize=1)
def _yaml_info() -> dict[str, tuple[bool, bool, bool]]:
    """name.overload -> (no_check, structured, has a CUDA kernel), from native_functions.yaml."""
    info: dict[str, tuple[bool, bool, bool]] = {}
    try:
        import torchgen  # type: ignore[import-untyped]

        path = os.path.join(
            os.path.dirname(torchgen.__file__),
            "packaged",
            "ATen",
            "native",
            "native_functions.yaml",
        )
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (ImportError, OSError):  # pragma: no cover - torchgen ships with torch wheels
        return info
    for block in re.split(r"\n(?=- func:)", text):
        m = re.match(r"- func: ([\w.]+)\(", block)
        if not m:
            continue
        no_check = "device_check: NoCheck" in block
        structured = "structured: True" in block or "structured_delegate:" in block
        has_kernel = structured or re.search(r"^\s+[\w, ]*\bCUDA\b[\w, ]*:", block, re.M)
        info[m.group(1)] = (no_check, structured, bool(has_kernel))
    return info


@functools.lru_cache(maxsize=1)
def _dispatch_keys() -> dict[str, frozenset[str]]:
    """name.overload -> the dispatch keys its ``dispatch:`` section in native_functions.yaml
    names (``SparseCUDA``, ``CompositeExplicitAutograd``, ...); an ``autogen`` operator gets
    ``CompositeExplicitAutograd`` (torchgen's generated kernel), one without a ``dispatch:``
    or ``structured_delegate:`` line ``CompositeImplicitAutograd``."""
    out: dict[str, frozenset[str]] = {}
    try:
        import torchgen

        path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                            "native_functions.yaml")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (ImportError, OSError):  # pragma: no cover - torchgen ships with torch wheels
        return out
    for block in re.split(r"\n(?=- func:)", text):
        m = re.match(r"- func: ([\w.]+)\(", block)
        if not m:
            continue
        d = re.search(r"^  dispatch:\n((?:    .*\n?)*)", block, re.M)
        keys: set[str] = set()
        if d is not None:
            for line in re.findall(r"^    ([\w, ]+):", d.group(1), re.M):
                keys.update(re.split(r",\s*", line.strip()))
        elif "structured_delegate:" not in block:
            keys.add("CompositeImplicitAutograd")
        out[m.group(1)] = frozenset(keys)
        for gen in re.findall(r"^  autogen: (.*)$", block, re.M):
            for name in re.split(r",\s*", gen.strip()):
                out[name] = frozenset({"CompositeExplicitAutograd"})
    return out


_COMPOSITE = frozenset({"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
                        "CompositeImplicitAutograd"})
_NO_KERNEL = (
    "Could not run '{op}' with arguments from the '{key}' backend. This could be because the "
    "operator doesn't exist for this backend, or was omitted during the selective/custom build "
    "process (if using custom build). If you are a Facebook employee using PyTorch on mobile, "
    "please visit https://fburl.com/ptmfixes for possible resolutions."
)


def sparse_kernel_check(func: Any, targs: list[tuple[str, torch.Tensor, bool]],
                        devs: list[torch.device]) -> None:
    """Raise the dispatcher's ``NotImplementedError`` for an operator on a sparse tensor
    whose simulated device's sparse dispatch key (``SparseCUDA``, ``SparseCsrCUDA``) has no
    kernel in native_functions.yaml (``_sparse_mm_reduce_impl``: ``SparseCsrCPU`` only).

    The text is the first part of the dispatcher's; the list of backends it goes on with is
    the real build's and is left out.
    """
    accel = _accel(devs)
    if accel.type == "cpu":
        return
    func_key = _sparse_functionality(targs)
    if func_key is None:
        return
    name, overload = _op_key(func)
    if not func._schema.name.startswith("aten::"):
        return
    keys = _dispatch_keys().get(f"{name}.{overload}" if overload else name)
    key = func_key + _backend(accel)
    if keys is None or key in keys or keys & _COMPOSITE:
        return
    raise NotImplementedError(_NO_KERNEL.format(op=func._schema.name, key=key))


# a CompositeExplicitAutograd operator on sparse tensors -> the operator whose generated
# sparse wrapper checks the devices (``_sparse_addmm`` is ``at::addmm`` plus its backward)
_SPARSE_CALLS = {"_sparse_addmm": "addmm"}


def _sparse_functionality(targs: list[tuple[str, torch.Tensor, bool]]) -> str | None:
    """The sparse functionality of the dispatch key the tensors select: ``SparseCsr`` (it
    outranks ``Sparse``) for a compressed layout, ``Sparse`` for COO, None if all dense."""
    found = None
    for _, t, _ in targs:
        layout = t.layout
        if layout is torch.sparse_coo:
            found = found or "Sparse"
        elif layout is not torch.strided and layout in _tags._COMPONENTS:
            return "SparseCsr"
    return found


def _sparse_check(name: str, overload: str, targs: list[tuple[str, torch.Tensor, bool]],
                  devs: list[torch.device]) -> torch.device | None:
    """The generated device check of a sparse backend's wrapper (``wrapper_SparseCUDA__addmm``),
    when the operator has a kernel for it; None otherwise (the dense rules apply)."""
    func = _sparse_functionality(targs)
    if func is None:
        return None
    name = _SPARSE_CALLS.get(name, name)
    key = func + _backend(_accel(devs))
    full = f"{name}.{overload}" if overload else name
    if key not in _dispatch_keys().get(full, ()):
        return None
    info = _yaml_info().get(full)
    if info is None or info[0]:
        # device_check: NoCheck: the sparse kernel checks by itself (its texts vary; the
        # dense rules below stand in for them)
        return None
    common = devs[0]
    for (argname, _t, _w), d in zip(targs, devs, strict=False):
        if d != common:
            raise codegen_error(argname, d, common, f"wrapper_{key}_{overload}_{name}")
    return common


def _op_key(func: Any) -> tuple[str, str]:
    name = func._schema.name.split("::", 1)[-1]
    overload = func._schema.overload_name
    return name, overload


def _backend(dev: torch.device) -> str:
    return _kinds.backend_of(dev.type)


_dev = _tags.device_of  # the simulated device if tagged, else the real one


def _is_cpu_scalar(t: torch.Tensor, d: torch.device) -> bool:
    return d.type == "cpu" and t.dim() == 0


def _tensor_args(func: Any, args: tuple, kwargs: dict) -> list[tuple[str, torch.Tensor, bool]]:
    """(argument name, tensor, is written to) in schema order."""
    out: list[tuple[str, torch.Tensor, bool]] = []
    schema_args = func._schema.arguments
    for i, a in enumerate(schema_args):
        if i < len(args) and not a.kwarg_only:
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        else:
            continue
        written = a.alias_info is not None and a.alias_info.is_write
        if isinstance(v, torch.Tensor):
            out.append((a.name, v, written))
        elif isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, torch.Tensor):
                    out.append((a.name, x, written))
    return out


def _accel(devs: list[torch.device]) -> torch.device:
    for d in devs:
        if d.type != "cpu":
            return d
    return _CPU


def ti_error(common: torch.device, other: torch.device) -> RuntimeError:
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{common} and {other}!"
    )


def codegen_error(arg: str, dev: torch.device, common: torch.device, wrapper: str) -> RuntimeError:
    return RuntimeError(
        f"Expected all tensors to be on the same device, but got {arg} is on {dev}, "
        f"different from other tensors on {common} (when checking argument in method {wrapper})"
    )


def type_name(t: torch.Tensor, d: torch.device) -> str:
    """``torch.cuda.FloatTensor`` style names, as ``Tensor.type()`` prints them."""
    base = t.type()
    if d.type == "cpu":
        return base
    return base.replace("torch.", f"torch.{d.type}.", 1)


_VIEWLIKE_COPY = {"copy_", "_copy_from", "_copy_from_and_resize", "set_", "_to_copy", "lift_fresh"}


def check_op(func: Any, args: tuple, kwargs: dict) -> torch.device:
    """Raise what the real backend raises for this ATen op, or return its output device."""
    name, overload = _op_key(func)
    targs = _tensor_args(func, args, kwargs)
    if not targs:
        return _CPU
    devs = [_dev(t) for _, t, _ in targs]
    sparse_kernel_check(func, targs, devs)
    first = devs[0]
    if all(d == first for d in devs):
        return first
    if name in _VIEWLIKE_COPY:
        if name == "_to_copy" and "device" in kwargs and kwargs["device"] is not None:
            return torch.device(kwargs["device"])
        return first
    if name in ("index", "_unsafe_index"):
        self_dev = first
        for (argname, _t, _), d in zip(targs, devs, strict=False):
            if argname == "indices" and d.type != "cpu" and d != self_dev:
                raise RuntimeError(
                    "indices should be either on cpu or on the same device as the indexed "
                    f"tensor ({self_dev})"
                )
        return self_dev
    if name in ("index_put_", "index_put", "_index_put_impl_", "_unsafe_index_put"):
        self_dev = first
        for (argname, t, _), d in zip(targs, devs, strict=False):
            if argname == "values" and d != self_dev and not _is_cpu_scalar(t, d):
                common = self_dev if self_dev.type != "cpu" else d
                raise ti_error(common, self_dev if common == d else d)
        return self_dev
    if name in ("masked_fill_", "masked_fill"):
        named = {n: (t, d) for (n, t, _), d in zip(targs, devs, strict=False)}
        if "mask" in named and named["mask"][1] != named["self"][1]:
            raise RuntimeError(
                "expected self and mask to be on the same device, but got mask on "
                f"{named['mask'][1]} and self on {named['self'][1]}"
            )
    if name in ("convolution", "_convolution", "convolution_overrideable"):
        named = {n: (t, d) for (n, t, _), d in zip(targs, devs, strict=False)}
        inp, din = named["input"]
        for pname in ("weight", "bias"):
            if pname not in named:
                continue
            p, dp = named[pname]
            if dp == din:
                continue
            if din.type != "cpu":
                depthwise = _cuda_depthwise_kernel(args, named)
                if depthwise is not None:
                    raise codegen_error(pname, dp, din, depthwise.format(B=_backend(din)))
                raise RuntimeError(
                    f"Input type ({type_name(inp, din)}) and {pname} type ({type_name(p, dp)}) "
                    "should be the same"
                )
            raise _conv_cpu_input_error(func, args, kwargs, named, pname, dp, din)
    by_name = {n: d for (n, _t, _w), d in zip(targs, devs, strict=False)}
    if name == "mv" and by_name.get("self") != by_name.get("vec"):
        # CUDA mv allocates its result like vec, then runs addmv_(result, mat, vec)
        raise codegen_error(
            "mat", by_name["self"], by_name["vec"], f"wrapper_{_backend(_accel(devs))}_addmv_"
        )
    if name == "embedding" and by_name.get("weight") != by_name.get("indices"):
        raise codegen_error(
            "index",
            by_name["indices"],
            by_name["weight"],
            f"wrapper_{_backend(_accel(devs))}__index_select",
        )
    if name == "stack":
        name, overload = "cat", ""
    sparse = _sparse_check(name, overload, targs, devs)
    if sparse is not None:
        return sparse
    info = _yaml_info().get(f"{name}.{overload}" if overload else name)
    no_check, structured, has_kernel = info if info is not None else (True, False, False)
    if no_check or not has_kernel:
        # TensorIterator: outputs first, common = first non-CPU device
        order = [(t, d, w) for (_, t, w), d in zip(targs, devs, strict=False) if w] + [
            (t, d, w) for (_, t, w), d in zip(targs, devs, strict=False) if not w
        ]
        common = _CPU
        for _t, d, _w in order:
            if d.type != "cpu":
                common = d
                break
        for t, d, w in order:
            if d == common:
                continue
            if common.type != "cpu" and not w and _is_cpu_scalar(t, d):
                continue
            raise ti_error(common, d)
        return common
    common = first
    for (argname, _t, _w), d in zip(targs, devs, strict=False):
        if d != common:
            accel = d if d.type != "cpu" else common
            if structured:
                wname = f"{name}_{overload}" if overload else name
                wrapper = f"wrapper_{_backend(accel)}_{wname}"
            else:
                wrapper = f"wrapper_{_backend(accel)}_{overload}_{name}"
            raise codegen_error(argname, d, common, wrapper)
    return common


# Backends _convolution may pick for a CPU input (aten/src/ATen/native/Convolution.cpp,
# _select_conv_backend) -> the operator it then calls, whose generated CUDA wrapper
# checks devices (the weight's CUDA dispatch key wins); wrapper names per torchgen.
_CONV_KERNELS = {
    "Slow2d": "wrapper_{B}___slow_conv2d_forward",
    "SlowDilated2d": "wrapper_{B}__slow_conv_dilated2d",
    "SlowDilated3d": "wrapper_{B}__slow_conv_dilated3d",
    "Slow3d": "wrapper_{B}__slow_conv3d_forward",
    "SlowTranspose2d": "wrapper_{B}_slow_conv_transpose2d",
    "SlowTranspose3d": "wrapper_{B}__slow_conv_transpose3d",
}


def _conv_cpu_input_error(
    func: Any,
    args: tuple,
    kwargs: dict,
    named: dict[str, tuple[torch.Tensor, torch.device]],
    pname: str,
    dp: torch.device,
    din: torch.device,
) -> RuntimeError:
    """A CPU input into a convolution whose weight/bias is on the device.

    The real CUDA build picks the backend from the (CPU) input exactly as the CPU build
    does, so asking this build's ``torch._C._select_conv_backend`` with the same tensors
    gives the same answer: oneDNN (Mkldnn) for most real shapes (batch >= 2, kernels
    larger than 1x1), whose type check says "... or input should be a MKLDNN tensor ..."
    (``check_input_same_type_as_parameters`` in Convolution.cpp); the slow kernels'
    generated wrappers otherwise.
    """
    inp = named["input"][0]
    p = named[pname][0]
    backend = None
    if name_of(func) in ("convolution", "_convolution"):
        a = list(args) + [None] * 9
        weight, bias = named["weight"][0], named.get("bias", (None,))[0]
        stride, padding, dilation, transposed, output_padding, groups = a[3:9]
        try:
            backend = torch._C._select_conv_backend(
                inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups
            ).name
        except (RuntimeError, TypeError, AttributeError):  # pragma: no cover - older torch
            backend = None
    if backend in ("Mkldnn", "MkldnnTranspose"):
        return RuntimeError(
            f"Input type ({type_name(inp, din)}) and {pname} type ({type_name(p, dp)}) should be "
            f"the same or input should be a MKLDNN tensor and {pname} is a dense tensor"
        )
    wrapper = _CONV_KERNELS.get(
        backend or "", "wrapper_{B}___slow_conv2d_forward" if inp.dim() <= 4 else _CONV_KERNELS["Slow3d"]
    )
    return codegen_error(pname, dp, din, wrapper.format(B=_backend(dp)))


def _cuda_depthwise_kernel(
    args: tuple, named: dict[str, tuple[torch.Tensor, torch.device]]
) -> str | None:
    """The native depthwise kernel a GPU input selects (no cuDNN type check before it).

    Convolution.cpp: ``is_depthwise`` (device input, not transposed, 4-d/5-d, channels ==
    groups > 1, out channels a multiple) and not ``use_cudnn_depthwise`` (which, for
    contiguous float32/float64 input, is false) -> CudaDepthwise2d/3d, calling
    ``_conv_depthwise2d`` / ``conv_depthwise3d`` whose generated wrapper checks devices.
    """
    if "weight" not in named or len(args) < 9:
        return None
    inp, weight = named["input"][0], named["weight"][0]
    transposed, groups = args[6], args[8]
    if transposed or inp.dim() not in (4, 5) or not isinstance(groups, int) or groups <= 1:
        return None
    if inp.size(1) != groups or weight.size(0) % inp.size(1) != 0:
        return None
    if inp.dtype not in (torch.float32, torch.float64) or not inp.is_contiguous():
        return None  # half / channels-last: cuDNN depthwise, whose type check is the generic one
    return "wrapper_{B}___conv_depthwise2d" if inp.dim() == 4 else "wrapper_{B}__conv_depthwise3d"


def name_of(func: Any) -> str:
    return _op_key(func)[0]


class AtenDeviceChecker(TorchDispatchMode):
    """Checks and tags every ATen operator of one mixed-device call."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            dev = check_op(func, args, kwargs)
        except Exception as exc:
            exc._ferry_device_check = True
            raise
        out = func(*args, **kwargs)
        if dev.type != "cpu":
            _tag_outputs(out, dev)
        return out


class SparseKernelChecker(TorchDispatchMode):
    """Runs one call on sparse device tensors, raising what the dispatcher raises for an
    operator the device's sparse backend has no kernel for (:func:`sparse_kernel_check`)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        targs = _tensor_args(func, args, kwargs)
        try:
            sparse_kernel_check(func, targs, [_dev(t) for _, t, _ in targs])
        except NotImplementedError as exc:
            exc._ferry_device_check = True
            raise
        return func(*args, **kwargs)


def _tag_outputs(out: Any, dev: torch.device) -> None:
    if isinstance(out, torch.Tensor):
        try:
            _tags.tag(out, dev)
        except (RuntimeError, NotImplementedError):
            pass
    elif isinstance(out, (list, tuple)):
        for o in out:
            _tag_outputs(o, dev)
