"""Facts about tensor storages, keyed by storage, forgotten when the storage dies.

The simulation's device tags (``torchferry.sim.tags``) and ``explain``'s
creation sites both keep one record per storage: keyed by the StorageImpl's
address (``torch._C._storage_id(t)`` / ``untyped_storage()._cdata``), so views,
``.data``, ``.detach()`` and ``nn.Parameter`` wrapping share the record, with a
*weak* reference to the StorageImpl as the record's first item.  The weak
reference keeps the address from being reused while the record exists without
keeping the memory alive; :meth:`StorageRegistry.sweep` drops the records of
dead storages.

Torch's weak-reference functions (``UntypedStorage._expired`` and
``_free_weak_ref``) are passed in, so this module imports no torch.  Hot paths
may read and write :attr:`StorageRegistry.entries` (a plain dict) directly,
as long as each value's first item is a weak reference made by
``storage._weak_ref()``.

The registry is generic in its record type: a record is anything whose item 0
is the weak reference (:class:`Record`).  ``StorageRegistry[list[Any]]`` holds
``[weak_ref, *facts]`` lists made by :meth:`StorageRegistry.put`; the
simulation's tags keep their own record class (``StorageRegistry[Tag]``), so
its attributes stay typed through :meth:`~StorageRegistry.sweep` and
:attr:`~StorageRegistry.entries`.

>>> alive = {1: True, 2: False}
>>> freed = []
>>> reg = StorageRegistry(expired=lambda w: not alive[w], free=freed.append)
>>> reg.put(100, 1, "cuda:0")
>>> reg.put(200, 2, "cuda:1")
>>> reg.live(200) is None, reg.live(100)
(True, [1, 'cuda:0'])
>>> [e[1] for e in reg.sweep()], freed, len(reg)
(['cuda:0'], [2], 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["Record", "StorageRegistry"]


class Record(Protocol):
    """A registry record: item 0 is the storage's weak reference (``storage._weak_ref()``)."""

    def __getitem__(self, i: int, /) -> Any: ...


R = TypeVar("R", bound=Record)


class StorageRegistry(Generic[R]):
    """``storage key -> record`` (item 0 the weak reference); see the module docstring."""

    def __init__(self, expired: Callable[[Any], object], free: Callable[[Any], object]) -> None:
        self.entries: dict[int, R] = {}
        self._expired = expired
        self._free = free

    def __len__(self) -> int:
        return len(self.entries)

    def put(self: StorageRegistry[list[Any]], key: int, weak_ref: Any, *facts: Any) -> None:
        """Record ``facts`` for the storage ``key`` (replacing, and freeing, an older record)."""
        old = self.entries.get(key)
        if old is not None:
            self._free(old[0])
        self.entries[key] = [weak_ref, *facts]

    def get(self, key: int) -> R | None:
        """The record of ``key``, dead or alive."""
        return self.entries.get(key)

    def live(self, key: int) -> R | None:
        """The record of ``key`` if its storage is still alive."""
        e = self.entries.get(key)
        return None if e is None or self._expired(e[0]) else e

    def is_alive(self, entry: R) -> bool:
        return not self._expired(entry[0])

    def pop(self, key: int) -> R | None:
        """Forget ``key`` (freeing its weak reference); its record, or None."""
        e = self.entries.pop(key, None)
        if e is not None:
            self._free(e[0])
        return e

    def sweep(self) -> list[R]:
        """Forget the records of dead storages; the live records, in one pass."""
        expired = self._expired
        live: list[R] = []
        dead: list[int] = []
        for k, e in self.entries.items():
            if expired(e[0]):
                dead.append(k)
            else:
                live.append(e)
        for k in dead:
            self._free(self.entries.pop(k)[0])
        return live

    def clear(self) -> None:
        """Forget every record."""
        for e in self.entries.values():
            self._free(e[0])
        self.entries.clear()
