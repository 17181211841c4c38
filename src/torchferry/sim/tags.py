"""Per-storage device tags: which simulated device each storage lives on.

The data of a simulated-device tensor stays in CPU memory.  What makes it a
"cuda:0" tensor is an entry in ``TAGS``, keyed by the storage's ``_cdata``
(the StorageImpl address), so views, ``.data``, ``nn.Parameter`` wrapping and
``.detach()`` share the tag for free.  Each entry holds a weak reference to the
StorageImpl (so its address cannot be reused while the entry exists), the
device, the byte size and where the storage was created (code object, line).

An untagged storage is a CPU storage.  Dead entries are swept from time to time
(amortised), and whenever memory statistics are read.
"""

from __future__ import annotations

import os
import sys
from types import CodeType
from typing import Any

import torch

# key -> [weak_ref, device, nbytes, (code, lineno) | None]
TAGS: dict[int, list[Any]] = {}
_WREF, _DEV, _NBYTES, _SITE = 0, 1, 2, 3

_expired = torch.UntypedStorage._expired
_free_weak_ref = torch.UntypedStorage._free_weak_ref

# Sweep soon after storages die: a weak reference keeps the dead StorageImpl object
# allocated, and many such shells fragment the heap so that freed tensor memory is not
# reused (measured: allocating and freeing a 128 KiB tensor 5x slower).  A sweep costs
# one check per live entry, so sweeping every 16 new tags adds about one per tag per
# 16 live entries.
_SWEEP_EVERY = 16
sweep_at = _SWEEP_EVERY
# per-device peak bytes observed at sweeps and statistic reads
PEAK: dict[torch.device, int] = {}

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FERRY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# id(code) -> (code, is internal); keyed by id because hashing a code object hashes its
# bytecode (slow), and holding the code object keeps its id from being reused
_internal_code: dict[int, tuple[CodeType, bool]] = {}


def _is_internal(code: CodeType) -> bool:
    fn = code.co_filename
    r = fn.startswith(_TORCH_DIR) or fn.startswith(_FERRY_DIR) or fn.startswith("<frozen")
    _internal_code[id(code)] = (code, r)
    return r


def site(depth: int = 2) -> tuple[CodeType, int] | None:
    """The innermost frame outside torch and torchferry, as (code, line)."""
    f = sys._getframe(depth)
    get = _internal_code.get
    while f is not None:
        code = f.f_code
        e = get(id(code))
        if e is not None and e[0] is code:
            r = e[1]
        else:
            r = _is_internal(code)
        if not r:
            return (code, f.f_lineno)
        f = f.f_back
    return None


_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_unwrap = torch._C._functorch.get_unwrapped


_sid = torch._C._storage_id  # the storage address, without making a Python storage object


def tag(t: torch.Tensor, dev: torch.device) -> None:
    """Mark ``t``'s storage as living on ``dev`` unless it already has a tag.

    Looks through functorch wrappers; a tensor without storage (sparse, nested)
    is left alone.
    """
    try:
        key = _sid(t)
    except (RuntimeError, NotImplementedError):
        while _is_wrapped(t):
            t = _unwrap(t)
        try:
            key = _sid(t)
        except (RuntimeError, NotImplementedError):
            return
    if key not in TAGS:
        st = t.untyped_storage()
        TAGS[key] = [st._weak_ref(), dev, st.nbytes(), site(2)]
        if len(TAGS) > sweep_at:
            sweep()


def retag(t: torch.Tensor, dev: torch.device | None) -> None:
    """Force ``t``'s storage onto ``dev`` (``None``: CPU, i.e. untagged)."""
    st = t.untyped_storage()
    key = st._cdata
    old = TAGS.pop(key, None)
    if old is not None:
        _free_weak_ref(old[_WREF])
    if dev is not None:
        TAGS[key] = [st._weak_ref(), dev, st.nbytes(), site(2)]


def tag_storage(st: Any, dev: torch.device) -> None:
    st = getattr(st, "_untyped_storage", st)  # TypedStorage -> UntypedStorage
    key = st._cdata
    if key not in TAGS:
        TAGS[key] = [st._weak_ref(), dev, st.nbytes(), site(2)]


def storage_device(st: Any) -> torch.device | None:
    st = getattr(st, "_untyped_storage", st)
    e = TAGS.get(st._cdata)
    return None if e is None else e[_DEV]


def device_or_none(t: torch.Tensor) -> torch.device | None:
    e = TAGS.get(_sid(t))
    return None if e is None else e[_DEV]


def entry(t: torch.Tensor) -> list[Any] | None:
    return TAGS.get(_sid(t))


def sweep() -> None:
    """Drop entries whose storage has died; update the peaks (one pass)."""
    global sweep_at
    live: dict[torch.device, int] = {}
    dead = []
    for k, e in TAGS.items():
        if _expired(e[_WREF]):
            dead.append(k)
        else:
            live[e[_DEV]] = live.get(e[_DEV], 0) + e[_NBYTES]
    for k in dead:
        _free_weak_ref(TAGS.pop(k)[_WREF])
    for dev, n in live.items():
        if n > PEAK.get(dev, 0):
            PEAK[dev] = n
    sweep_at = len(TAGS) + _SWEEP_EVERY


def live_bytes() -> dict[torch.device, int]:
    out: dict[torch.device, int] = {}
    for e in TAGS.values():
        if not _expired(e[_WREF]):
            out[e[_DEV]] = out.get(e[_DEV], 0) + e[_NBYTES]
    return out


def clear() -> None:
    """Forget every tag (on leaving the simulation)."""
    for e in TAGS.values():
        _free_weak_ref(e[_WREF])
    TAGS.clear()
    PEAK.clear()
