"""Moving nested data between devices, and bringing it home.

One tree walker (:func:`tree_map`) serves every nested-structure job in
torchferry: :func:`to` (ship a batch to the device), :func:`numpy` (bring it
home as NumPy), :func:`pyvalue` (as plain Python numbers), checkpoint saving,
pinning in :class:`torchferry.DeviceLoader`.

What the walker understands, in the order it tests them:

* tensors (the leaves ``fn`` is applied to);
* plain ``list`` / ``tuple`` / ``dict`` (fast path, exact type);
* atoms that can hold no tensor (``str``, numbers, ``None``, ``bytes``, NumPy arrays): returned as is;
* ``nn.Module``: an error, because moving a module is in place and belongs outside the loop;
* any other ``Mapping`` (``OrderedDict``, ``defaultdict`` with its factory, ``UserDict``,
  a tokenizer's ``BatchEncoding``, HF ``ModelOutput``): shallow-copied and refilled, so its
  type, attributes and default factory survive and the input is never mutated; a mapping
  that cannot be copied that way is rebuilt as its own type, else as a ``dict``;
* objects with their own ``.to()`` (only when moving; e.g. ``PackedSequence``, ``TensorDict``):
  their ``.to`` decides; if it returns ``None`` the object stays itself;
* namedtuples (type kept), other ``list``/``tuple`` subclasses;
* dataclasses, frozen ones included: shallow copy with the changed fields set, nothing deep-copied;
* ``set``/``frozenset``: left alone unless they hold tensors.

Anything else is a leaf and comes back untouched.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any, TypeVar

import numpy as np
import torch
from torch import Tensor

from torchferry._internal.vocabulary import ASYNC_COPY_KINDS
from torchferry.errors import NestingError

__all__ = ["tree_map", "to", "numpy", "pyvalue"]

T = TypeVar("T")

_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), np.ndarray, range, slice})
# Copies that may overlap compute: host-to-device copies to these (the vocabulary's).
_ASYNC_TARGETS = ASYNC_COPY_KINDS


def auto_non_blocking(device: torch.device) -> bool:
    """What ``non_blocking="auto"`` means for copies to ``device`` (used by :func:`to`)."""
    return device.type in _ASYNC_TARGETS


def _no_opaque(obj: Any) -> Any:
    return obj


def tree_map(
    fn: Callable[[Tensor], Any],
    obj: T,
    *,
    skip_keys: str | Iterable[str] | None = None,
    opaque: Callable[[Any], Any] | None = None,
) -> T:
    """Apply ``fn`` to every tensor inside ``obj``, rebuilding every container around it.

    ``skip_keys`` names mapping keys whose values are left untouched, at any depth.
    ``opaque`` is called on objects the walker does not look inside (it gets the
    chance to handle, e.g., objects with their own ``.to()``); by default they are
    returned as they are.  The input is never mutated.

    >>> import torch
    >>> tree_map(lambda t: t * 2, {"x": torch.ones(2), "n": 3})
    {'x': tensor([2., 2.]), 'n': 3}
    """
    if skip_keys is None:
        skip: frozenset[Any] = frozenset()
    elif isinstance(skip_keys, str):
        skip = frozenset((skip_keys,))
    else:
        skip = frozenset(skip_keys)
    try:
        return _walk(obj, fn, skip, opaque or _no_opaque)
    except RecursionError:
        err = nesting_error(obj)
        if err is None:
            raise
        raise err from None


def _walk(obj: Any, fn: Callable, skip: frozenset, opaque: Callable) -> Any:
    # Hot path first: tensors, then the exact builtin containers (tensor elements are
    # handled inline, saving a call per leaf), then atoms.
    if isinstance(obj, Tensor):
        return fn(obj)
    cls = obj.__class__
    if cls is dict:
        if skip:
            return {k: (v if k in skip else _walk(v, fn, skip, opaque)) for k, v in obj.items()}
        return {
            k: fn(v) if isinstance(v, Tensor) else _walk(v, fn, skip, opaque)
            for k, v in obj.items()
        }
    if cls is list:
        return [fn(v) if isinstance(v, Tensor) else _walk(v, fn, skip, opaque) for v in obj]
    if cls is tuple:
        return tuple([fn(v) if isinstance(v, Tensor) else _walk(v, fn, skip, opaque) for v in obj])
    if cls in _ATOMS:
        return obj
    return _walk_other(obj, cls, fn, skip, opaque)


def _walk_other(obj: Any, cls: type, fn: Callable, skip: frozenset, opaque: Callable) -> Any:
    if isinstance(obj, torch.nn.Module):
        raise TypeError(
            f"found a module ({cls.__name__}) inside the data: moving a module is in place "
            "and happens once, outside the loop (model.to(device) before training); "
            "pass only tensors and containers of tensors here"
        )
    if isinstance(obj, Mapping):
        return _rebuild_mapping(obj, cls, fn, skip, opaque)
    if opaque is not _no_opaque and callable(getattr(obj, "to", None)):
        return opaque(obj)
    if isinstance(obj, tuple):
        values = [_walk(v, fn, skip, opaque) for v in obj]
        if hasattr(cls, "_fields"):  # namedtuple
            return cls(*values)
        return _rebuild_sequence(obj, cls, values)
    if isinstance(obj, list):
        return _rebuild_sequence(obj, cls, [_walk(v, fn, skip, opaque) for v in obj])
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _rebuild_dataclass(obj, fn, skip, opaque)
    if isinstance(obj, (set, frozenset)):
        if not any(isinstance(v, Tensor) for v in obj):
            return obj
        return cls(_walk(v, fn, skip, opaque) for v in obj)
    return obj


def _rebuild_mapping(obj: Mapping, cls: type, fn: Callable, skip: frozenset, opaque: Callable):
    pairs = list(obj.items())
    items = {k: (v if k in skip else _walk(v, fn, skip, opaque)) for k, v in pairs}
    trusted = isinstance(obj, dict) or getattr(cls, "__copy__", None) is not None
    try:
        # copy.copy keeps the type, its attributes and a defaultdict's factory; assigning
        # the new values into the copy leaves the input untouched (torch's pin_memory does
        # the same).  A dict subclass's copy has its own storage and a class with its own
        # __copy__ (UserDict, BatchEncoding) says how; any other mapping may keep its data
        # in an attribute the shallow copy shares, so those containers are copied too and
        # the input is checked afterwards.
        new = copy.copy(obj) if trusted else _unshared_copy(obj)
        for k, v in items.items():
            new[k] = v  # type: ignore[index]
    except Exception:  # read-only or exotic mappings
        pass
    else:
        if trusted or _unchanged(obj, pairs):
            return new
    try:
        return cls(items)
    except Exception:
        return items


def _unshared_copy(obj: Any) -> Any:
    """``copy.copy(obj)`` whose mutable containers held in attributes are copies too."""
    new = copy.copy(obj)
    state = getattr(new, "__dict__", None)
    old_state = getattr(obj, "__dict__", None)
    if isinstance(state, dict) and isinstance(old_state, dict) and state is not old_state:
        for name, value in list(state.items()):
            if _mutable_container(value) and old_state.get(name) is value:
                state[name] = copy.copy(value)
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__dict__", "__weakref__"):
                continue
            value = getattr(obj, name, None)
            if _mutable_container(value) and getattr(new, name, None) is value:
                object.__setattr__(new, name, copy.copy(value))
    return new


def _mutable_container(value: Any) -> bool:
    return isinstance(value, (dict, list, set, bytearray, MutableMapping))


def _unchanged(obj: Mapping, pairs: list) -> bool:
    """Whether ``obj`` still holds ``pairs``; if filling its copy wrote into it, put the
    old values back (best effort) and say so."""
    try:
        if all(obj[k] is v for k, v in pairs):
            return True
    except Exception:
        pass
    try:
        for k, v in pairs:
            obj[k] = v  # type: ignore[index]
    except Exception:
        pass
    return False


def _rebuild_sequence(obj: Any, cls: type, values: list) -> Any:
    try:
        return cls(values)
    except Exception:
        return list(values) if isinstance(obj, list) else tuple(values)


def _rebuild_dataclass(obj: Any, fn: Callable, skip: frozenset, opaque: Callable) -> Any:
    changes = {}
    for f in dataclasses.fields(obj):
        try:
            value = getattr(obj, f.name)
        except AttributeError:  # init=False field never set
            continue
        new = _walk(value, fn, skip, opaque)
        if new is not value:
            changes[f.name] = new
    if not changes:
        return obj
    # A shallow copy with the changed fields set works for frozen dataclasses and
    # init=False fields alike, runs no __post_init__, and deep-copies nothing.
    new_obj = copy.copy(obj)
    for name, value in changes.items():
        object.__setattr__(new_obj, name, value)
    return new_obj


_DEVICES: dict[Any, torch.device] = {}


def _as_device(device: Any) -> torch.device:
    if device.__class__ is torch.device:
        return device
    try:
        return _DEVICES[device]
    except (KeyError, TypeError):
        pass
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        # the error torchferry.device() gives for the same value
        from torchferry.devices import _not_a_device

        raise _not_a_device(device, "device argument of torchferry.to") from None
    if isinstance(device, str) and len(_DEVICES) < 64:
        _DEVICES[device] = dev
    return dev


# Keyed by (device, non_blocking, its class): 1 == True, but non_blocking=1 is an error.
_MOVERS: dict[tuple[torch.device, Any, type], tuple[bool, Callable, Callable]] = {}


def _movers(dev: torch.device, non_blocking: Any) -> tuple[bool, Callable, Callable]:
    """(non_blocking, leaf mover, opaque-object mover) for one device and non_blocking
    argument, built once: ``to`` is called every step, so its fixed cost matters."""
    if non_blocking is True or non_blocking is False:
        nb = non_blocking
    elif isinstance(non_blocking, str) and non_blocking == "auto":
        nb = auto_non_blocking(dev)
    else:  # a list, a number, "yes": one error for every wrong value, hashable or not
        raise ValueError(f"non_blocking must be True, False or 'auto', not {non_blocking!r}")
    key = (dev, non_blocking, non_blocking.__class__)
    try:
        return _MOVERS[key]
    except KeyError:
        pass

    if nb:
        def leaf(t: Tensor) -> Tensor:
            return t.to(dev, non_blocking=True)
    else:
        def leaf(t: Tensor) -> Tensor:
            return t.to(dev)

    def opaque(o: Any) -> Any:
        try:
            moved = o.to(dev, non_blocking=nb) if nb else o.to(dev)
        except TypeError:
            if not nb:
                raise
            moved = o.to(dev)  # its .to() takes no non_blocking
        return o if moved is None else moved  # an in-place .to() that returns None

    _MOVERS[key] = (nb, leaf, opaque)
    return nb, leaf, opaque


def to(
    obj: T,
    device: torch.device | str | int,
    *,
    non_blocking: bool | str = "auto",
    skip_keys: str | Iterable[str] | None = None,
) -> T:
    """Return ``obj`` with every tensor inside it on ``device``.

    Works through any nesting of lists, tuples, namedtuples, dicts and other
    mappings (types kept), dataclasses (frozen too) and objects with their own
    ``.to()``; other leaves come back untouched.  The input is never mutated:
    tensors are copied, as ``Tensor.to`` does, so assign the result.

    ``non_blocking="auto"`` is True only for copies to cuda/xpu (host-to-device
    copies may overlap compute), and False for copies to cpu or mps, where an
    unsynchronised non-blocking copy can be read before it has landed.

    >>> import torch, torchferry
    >>> batch = {"input_ids": torch.ones(2, 3), "label": torch.zeros(2), "id": "a"}
    >>> moved = torchferry.to(batch, "cpu")
    >>> moved["input_ids"].device, moved["id"]
    (device(type='cpu'), 'a')
    """
    dev = device if device.__class__ is torch.device else _as_device(device)
    try:
        nb, leaf, opaque = _MOVERS[dev, non_blocking, non_blocking.__class__]
    except (KeyError, TypeError):
        nb, leaf, opaque = _movers(dev, non_blocking)  # validates non_blocking
    try:
        if isinstance(obj, Tensor):  # the common single-tensor call, without the walker
            return obj.to(dev, non_blocking=True) if nb else obj.to(dev)  # type: ignore[return-value]
        return _walk(obj, leaf, _skip_set(skip_keys) if skip_keys else _NO_SKIP, opaque)
    except RecursionError:
        err = nesting_error(obj)
        if err is None:
            raise
        raise err from None
    except (AssertionError, RuntimeError):  # torch's "Torch not compiled with CUDA enabled"
        unavailable = _unavailable(dev, device)
        if unavailable is None:
            raise
        raise unavailable from None


def _unavailable(dev: torch.device, asked: Any) -> Exception | None:
    """:func:`torchferry.device`'s error for ``dev`` if torch cannot use it here, else None."""
    if dev.type in ("cpu", "meta"):
        return None
    from torchferry.devices import _resolve
    from torchferry.errors import DeviceUnavailableError

    try:
        _resolve(dev if isinstance(asked, int) else asked, "device argument of torchferry.to")
    except DeviceUnavailableError as err:
        return err
    return None


_NO_SKIP: frozenset = frozenset()


def _children(obj: Any) -> list[tuple[str, Any]] | None:
    """The parts the walker would look inside ``obj``, each with its step of a path."""
    if isinstance(obj, Tensor) or obj.__class__ in _ATOMS or isinstance(obj, torch.nn.Module):
        return None
    if isinstance(obj, Mapping):
        try:
            return [(f"[{k!r}]", v) for k, v in obj.items()]
        except Exception:
            return None
    if isinstance(obj, (list, tuple)):
        return [(f"[{i}]", v) for i, v in enumerate(obj)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f".{f.name}", getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if hasattr(obj, f.name)]
    return None


def _show_path(path: tuple[str, ...]) -> str:
    if not path:
        return "the top level"
    if len(path) > 12:
        return "".join(path[:5]) + "..." + "".join(path[-5:]) + f" ({len(path)} levels down)"
    return "".join(path)


def nesting_error(obj: Any) -> NestingError | None:
    """Why walking ``obj`` ran out of stack: a cycle, or nesting deeper than a third of the
    recursion limit (the walker uses two frames a level), with the path of keys to it;
    None when neither (the recursion was somewhere else).

    >>> d = {"a": [1]}; d["a"].append(d)
    >>> print(nesting_error(d))
    cyclic or too deeply nested structure at ['a'][1]: that is the structure containing it again (a cycle), which cannot be copied
    """
    limit = sys.getrecursionlimit() // 3
    stack: list[tuple[Any, tuple[str, ...], bool]] = [(obj, (), False)]
    on_path: set[int] = set()
    while stack:
        node, path, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        children = _children(node)
        if children is None:
            continue
        if id(node) in on_path:
            why = "that is the structure containing it again (a cycle), which cannot be copied"
            return NestingError(f"cyclic or too deeply nested structure at {_show_path(path)}: {why}")
        if len(path) >= limit:
            why = (
                f"it is nested more than {limit} levels deep, more than the recursion limit "
                f"({sys.getrecursionlimit()}) lets torchferry walk; flatten it"
            )
            return NestingError(f"cyclic or too deeply nested structure at {_show_path(path)}: {why}")
        on_path.add(id(node))
        stack.append((node, path, True))
        for step, child in reversed(children):
            stack.append((child, path + (step,), False))
    return None


def _skip_set(skip_keys: str | Iterable[str] | None) -> frozenset:
    if not skip_keys:
        return frozenset()
    if isinstance(skip_keys, str):
        return frozenset((skip_keys,))
    try:
        return frozenset(skip_keys)
    except TypeError:  # 5, or an iterable of unhashable things: one clear line
        raise TypeError(
            f"skip_keys must be a key or an iterable of keys (skip_keys=\"labels\" or "
            f"skip_keys=(\"labels\", \"ids\")), not {skip_keys!r}"
        ) from None


# dtypes NumPy has no equivalent for, and what they become on the way home.
def _numpy_dtype(dtype: torch.dtype) -> torch.dtype | None:
    if dtype is torch.bfloat16 or "float8" in str(dtype):
        return torch.float32
    if dtype is torch.complex32:
        return torch.complex64
    return None


def _to_numpy(t: Tensor, copy_: bool) -> np.ndarray:
    fresh = False
    if t.requires_grad:
        t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
        fresh = True
    if t.is_conj():
        t = t.resolve_conj()
        fresh = True
    if t.is_neg():
        t = t.resolve_neg()
        fresh = True
    target = _numpy_dtype(t.dtype)
    if target is not None:
        t = t.to(target)
        fresh = True
    arr = t.numpy()
    if copy_ and not fresh:
        arr = arr.copy()
    return arr


def numpy(obj: Any, *, copy: bool = False) -> Any:
    """Bring tensors home as NumPy arrays: detached, on the CPU, NumPy-typed.

    Works on one tensor or any nesting (see :func:`tree_map`).  bfloat16 and the
    float8 types, which NumPy lacks, become float32; conjugate and negative bits
    are resolved.  Without ``copy`` a CPU tensor's array shares its memory (the
    lessons' ``from_numpy`` aliasing gotcha); ``copy=True`` guarantees it doesn't.

    >>> import torch, torchferry
    >>> torchferry.numpy(torch.ones(2, dtype=torch.bfloat16, requires_grad=True))
    array([1., 1.], dtype=float32)
    """
    return tree_map(lambda t: _to_numpy(t, copy), obj)


def _to_python(t: Tensor) -> Any:
    if t.numel() == 1:
        return t.item()
    return t.tolist()


def pyvalue(obj: Any) -> Any:
    """Turn tensors into plain Python: one element -> a number (``.item()``), more -> lists.

    >>> import torch, torchferry
    >>> torchferry.pyvalue({"loss": torch.tensor(0.5), "acc": torch.tensor([1, 0])})
    {'loss': 0.5, 'acc': [1, 0]}
    """
    return tree_map(_to_python, obj)
