"""Per-storage device tags: which simulated device each storage lives on.

The data of a simulated-device tensor stays in CPU memory.  What makes it a
"cuda:0" tensor is an entry in ``TAGS`` (the dict of a
:class:`~torchferry._internal.registry.StorageRegistry`), keyed by the storage's ``_cdata``
(the StorageImpl address), so views, ``.data``, ``nn.Parameter`` wrapping and
``.detach()`` share the tag for free.  Each entry holds a weak reference to the
StorageImpl (so its address cannot be reused while the entry exists), the
device, the byte size and where the storage was created (code object, line).

An untagged storage is a CPU storage.  Dead entries are swept from time to time
(amortised), and whenever memory statistics are read.

Pinned (page-locked) host memory is a fact about a storage too: ``PINNED``, a
second registry of the same kind, holds the CPU storages that ``pin_memory()``
made inside the simulation (:func:`pin`, :func:`is_pinned`), swept the same way,
so a loop that pins every batch keeps only the live ones.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import torch

from torchferry._internal import frames as _frames
from torchferry._internal.registry import StorageRegistry

_expired = torch.UntypedStorage._expired
_free_weak_ref = torch.UntypedStorage._free_weak_ref

class Tag:
    """One storage's tag: ``ref`` (weak reference to the StorageImpl), ``device`` (the
    simulated device), ``nbytes`` and ``site`` (``(code, line)`` of the user code that made
    or last moved it, or None).

    The one record type of the simulation's tags; the registry reads item 0 (its record
    protocol: the weak reference first), everything else reads the attributes.
    """

    __slots__ = ("ref", "device", "nbytes", "site")

    def __init__(self, ref: Any, device: torch.device, nbytes: int, site: Any) -> None:
        self.ref = ref
        self.device = device
        self.nbytes = nbytes
        self.site = site

    def __getitem__(self, i: int) -> Any:  # StorageRegistry's protocol: item 0 is the ref
        if i != 0:
            raise IndexError(i)
        return self.ref

    def __repr__(self) -> str:
        return f"Tag(device={self.device}, nbytes={self.nbytes})"


# key -> Tag; TAGS is the registry's dict, read and written directly on the hot path
# (sim/modes.py)
REGISTRY: StorageRegistry[Tag] = StorageRegistry(_expired, _free_weak_ref)
TAGS = REGISTRY.entries

# Sweep soon after storages die: a weak reference keeps the dead StorageImpl object
# allocated, and many such shells fragment the heap so that freed tensor memory is not
# reused (measured: allocating and freeing a 128 KiB tensor 5x slower).  A sweep costs
# one check per live entry, so sweeping every 16 new tags adds about one per tag per
# 16 live entries.
_SWEEP_EVERY = 16
sweep_at = _SWEEP_EVERY
# per-device peak bytes observed at sweeps and statistic reads
PEAK: dict[torch.device, int] = {}

# The innermost frame of user code (torchferry._internal.frames), as (code, line): where a
# storage was created.  Called on the hot path with sys._getframe's depth.
site = _frames.user_site


_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_unwrap = torch._C._functorch.get_unwrapped


# the storage address, without making a Python storage object (not in torch's type stubs)
_sid: Callable[[torch.Tensor], int] = torch._C._storage_id  # type: ignore[attr-defined]


# The dense components of a sparse tensor, by layout: a sparse tensor has no storage of
# its own, its device is that of its components (as in ATen, where a sparse tensor's
# indices and values live on its device), so the tag rides on their storages.  ``.values()``,
# ``.indices()``, ``.crow_indices()`` ... return views of them and share the tag for free.
_COMPONENTS: dict[torch.layout, tuple[str, ...]] = {
    torch.sparse_coo: ("_indices", "_values"),
    torch.sparse_csr: ("crow_indices", "col_indices", "values"),
    torch.sparse_csc: ("ccol_indices", "row_indices", "values"),
    torch.sparse_bsr: ("crow_indices", "col_indices", "values"),
    torch.sparse_bsc: ("ccol_indices", "row_indices", "values"),
}
_DisableTorchFunction = torch._C.DisableTorchFunction


def components(t: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The dense tensors (indices, values) a sparse ``t`` is made of; () for other layouts.

    Read with ``__torch_function__`` off, so it may be called inside or outside the
    simulation's mode.  The values come last.
    """
    with _DisableTorchFunction():
        names = _COMPONENTS.get(t.layout)
        if names is None:
            return ()
        return tuple(getattr(torch._C.TensorBase, n)(t) for n in names)


def tag(t: torch.Tensor, dev: torch.device) -> None:
    """Mark ``t``'s storage as living on ``dev`` unless it already has a tag.

    Looks through functorch wrappers; a sparse tensor's components are tagged; a
    nested tensor (no storage) is left alone.
    """
    try:
        key = _sid(t)
    except (RuntimeError, NotImplementedError):
        while _is_wrapped(t):
            t = _unwrap(t)
        try:
            key = _sid(t)
        except (RuntimeError, NotImplementedError):
            for c in components(t):
                tag(c, dev)
            return
    if key not in TAGS:
        st = t.untyped_storage()
        TAGS[key] = Tag(st._weak_ref(), dev, st.nbytes(), site(2))
        if len(TAGS) > sweep_at:
            sweep()


def retag(t: torch.Tensor, dev: torch.device | None) -> None:
    """Force ``t``'s storage (a sparse tensor's components') onto ``dev`` (``None``: CPU,
    i.e. untagged)."""
    parts = components(t) or (t,)
    for p in parts:
        st = p.untyped_storage()
        REGISTRY.pop(st._cdata)
        if dev is not None:
            TAGS[st._cdata] = Tag(st._weak_ref(), dev, st.nbytes(), site(2))


def tag_storage(st: Any, dev: torch.device) -> None:
    st = getattr(st, "_untyped_storage", st)  # TypedStorage -> UntypedStorage
    key = st._cdata
    if key not in TAGS:
        TAGS[key] = Tag(st._weak_ref(), dev, st.nbytes(), site(2))


def storage_device(st: Any) -> torch.device | None:
    st = getattr(st, "_untyped_storage", st)
    e = TAGS.get(st._cdata)
    return None if e is None else e.device


def storage_key(t: torch.Tensor) -> int | None:
    """The storage key of ``t``, looking through functorch wrappers: a sparse tensor's is
    its values'; None without storage (nested)."""
    while _is_wrapped(t):
        t = _unwrap(t)
    try:
        return _sid(t)
    except (RuntimeError, NotImplementedError):
        parts = components(t)
        return _sid(parts[-1]) if parts else None


def entry(t: torch.Tensor) -> Tag | None:
    """The tag entry of ``t``'s storage (None: a CPU tensor, or one without storage)."""
    try:
        return TAGS.get(_sid(t))
    except (RuntimeError, NotImplementedError):
        k = storage_key(t)
        return TAGS.get(k) if k is not None else None


def sim_device(t: torch.Tensor) -> torch.device | None:
    """The simulated device of ``t``, or None when it is a CPU tensor."""
    try:
        e = TAGS.get(_sid(t))
    except (RuntimeError, NotImplementedError):
        k = storage_key(t)
        e = TAGS.get(k) if k is not None else None
    return None if e is None else e.device


_real_device = torch._C.TensorBase.device.__get__


def device_of(t: torch.Tensor) -> torch.device:
    """The device ``t`` is on: its simulated device if tagged, else its real one.

    The one "device of a tensor" of torchferry: outside a simulation (no tags)
    it is the real device, read without dispatching through function modes.

    >>> import torch, torchferry as tf
    >>> from torchferry.sim import device_of
    >>> with tf.simulate("cuda"):
    ...     x = torch.ones(2, device="cuda")
    ...     str(device_of(x)), str(device_of(torch.ones(2)))
    ('cuda:0', 'cpu')
    >>> str(device_of(torch.ones(2, device="meta")))
    'meta'
    """
    if TAGS:
        d = sim_device(t)
        if d is not None:
            return d
    return _real_device(t)


def created_at(t: torch.Tensor) -> tuple[str, int, str] | None:
    """Where ``t``'s simulated-device storage was created or last moved: (path, line, function).

    The innermost frame of user code (:mod:`torchferry._internal.frames`) at
    that moment.  ``None`` for CPU tensors and when no frame was user code.

    >>> import torch, torchferry as tf
    >>> from torchferry.sim import created_at
    >>> with tf.simulate("cuda"):
    ...     x = torch.ones(2).to("cuda")
    ...     path, line, function = created_at(x)
    ...     created_at(torch.ones(2)) is None
    True
    >>> function
    '<module>'
    """
    e = entry(t)
    if e is None or e.site is None:
        return None
    code, line = e.site
    return (code.co_filename, line, code.co_name)


# Pinned host storages: key -> [weak_ref].  Written from the DataLoader's pin-memory thread
# too, so pin() holds a lock (the sweep iterates the dict).
PINNED: StorageRegistry[list[Any]] = StorageRegistry(_expired, _free_weak_ref)
_pinned_sweep_at = _SWEEP_EVERY
_pinned_lock = threading.Lock()


def pin(t: torch.Tensor) -> None:
    """Record ``t``'s storage (a CPU tensor's) as pinned host memory, until the storage dies."""
    global _pinned_sweep_at
    st = t.untyped_storage()
    with _pinned_lock:
        PINNED.put(st._cdata, st._weak_ref())
        if len(PINNED) > _pinned_sweep_at:
            _pinned_sweep_at = len(PINNED.sweep()) + _SWEEP_EVERY


def is_pinned(t: torch.Tensor) -> bool:
    """True when ``t``'s storage was pinned by :func:`pin` and is alive (views share it)."""
    return PINNED.live(t.untyped_storage()._cdata) is not None


def sweep() -> None:
    """Drop entries whose storage has died; update the peaks (one pass)."""
    global sweep_at
    live: dict[torch.device, int] = {}
    for e in REGISTRY.sweep():
        live[e.device] = live.get(e.device, 0) + e.nbytes
    for dev, n in live.items():
        if n > PEAK.get(dev, 0):
            PEAK[dev] = n
    sweep_at = len(TAGS) + _SWEEP_EVERY


def live_bytes() -> dict[torch.device, int]:
    out: dict[torch.device, int] = {}
    for e in TAGS.values():
        if REGISTRY.is_alive(e):
            out[e.device] = out.get(e.device, 0) + e.nbytes
    return out


def clear() -> None:
    """Forget every tag and every pinned storage (on leaving the simulation)."""
    global _pinned_sweep_at
    REGISTRY.clear()
    PEAK.clear()
    with _pinned_lock:
        PINNED.clear()
        _pinned_sweep_at = _SWEEP_EVERY
