"""Hook points for tools built on the simulation (``ferry run --report``, trip counters).

``LISTENERS`` is empty unless someone subscribes, so recognising transfers and
host syncs costs one truth test of an empty list on the paths where they
happen, and nothing on any other op.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SimEvent", "subscribe", "subscribed", "LISTENERS"]


@dataclass(frozen=True)
class SimEvent:
    """One transfer or host sync seen inside the simulation.

    ``kind`` is ``"transfer"`` or ``"sync"``.  For transfers ``direction`` is
    ``"h2d"``, ``"d2h"`` or ``"d2d"`` and ``nbytes`` the bytes copied; for syncs
    ``op`` names the operation (``"item"``, ``"tolist"``, ``"cpu"``, ``"bool"``,
    ``"nonzero"``, ``"masked_index"``, ``"print"``, ...).  ``site`` is
    ``(path, line, function)`` of the innermost frame of user code
    (:mod:`torchferry._internal.frames`), or ``None``.
    """

    kind: str
    op: str
    device: str
    direction: str | None = None
    nbytes: int = 0
    site: tuple[str, int, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


LISTENERS: list[Callable[[SimEvent], None]] = []


def subscribe(listener: Callable[[SimEvent], None]) -> Callable[[], None]:
    """Call ``listener(event)`` for every transfer and host sync; returns an unsubscribe function.

    >>> import torchferry as tf
    >>> from torchferry.sim.events import subscribe
    >>> seen = []
    >>> with tf.simulate("cuda"):
    ...     stop = subscribe(seen.append)
    ...     import torch
    ...     x = torch.ones(4).to("cuda")
    ...     _ = x.sum().item()
    ...     stop()
    >>> [(e.kind, e.op) for e in seen]
    [('transfer', 'to'), ('sync', 'item')]
    """
    LISTENERS.append(listener)

    def unsubscribe() -> None:
        try:
            LISTENERS.remove(listener)
        except ValueError:
            pass

    return unsubscribe


@contextlib.contextmanager
def subscribed(listener: Callable[[SimEvent], None]) -> Iterator[None]:
    """``listener`` receives the events of the block (:func:`subscribe` for a ``with``).

    >>> import torch, torchferry as tf
    >>> from torchferry.sim import subscribed
    >>> seen = []
    >>> with tf.simulate("cuda"), subscribed(seen.append):
    ...     _ = torch.ones(4, device="cuda").sum().item()
    >>> [(e.kind, e.op) for e in seen]
    [('sync', 'item')]
    """
    unsubscribe = subscribe(listener)
    try:
        yield
    finally:
        unsubscribe()


def emit(event: SimEvent) -> None:
    for fn in list(LISTENERS):
        fn(event)
