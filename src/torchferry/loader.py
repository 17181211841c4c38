"""Hide the per-batch ferry ride behind compute: :class:`DeviceLoader`.

Shipping every batch to the GPU on the compute stream makes the GPU wait for
each copy: a step costs copy + compute.  ``DeviceLoader`` copies the *next*
batches on a side stream, from pinned host memory, while the current batch
computes, so a step costs about max(copy, compute).

Design (the NVIDIA apex ``data_prefetcher`` / TorchTNT ``CudaDataPrefetcher``
pattern, with their lifetime hazards closed):

* up to ``prefetch`` batches are in flight: each one is taken from the wrapped
  loader, its CPU tensors are pinned (``tree_map(pin_memory)``; tensors the
  DataLoader already pinned are left alone), and it is moved with
  :func:`torchferry.to` inside ``torch.cuda.stream(side)``; an event recorded on
  the side stream marks the end of its copy;
* a batch is handed out only after the consumer's current stream has been made
  to wait on that event (``current_stream.wait_event``), so kernels queued on the
  batch can never read a half-copied tensor; the host never blocks;
* memory: the device tensors were allocated on the side stream.  When the
  consumer drops them, the caching allocator would hand the block to the next
  side-stream allocation (the next prefetch copy) at once, even though kernels
  queued on the compute stream may still be reading it.  ``record_stream(current)``
  on every device tensor of the batch tells the allocator to wait for the work
  queued on the compute stream *at the time the tensor is freed* before reusing
  the block.  We chose it over "hold a reference and release it after an event"
  because we cannot know when the consumer is done with a batch (it may keep it
  for several steps, or store it); ``record_stream`` is correct whenever the
  consumer frees it.  Its cost, memory held until the compute stream catches up
  (pytorch#147168), is bounded here: the host never runs more than ``prefetch + 1``
  batches ahead of the compute stream (beyond that it waits on an event recorded on
  the compute stream at each hand-out), so at most about ``2 * prefetch + 2``
  batches are on the device at once.  The pinned host
  copies need no care from us: the pinned-memory allocator records an event for
  every non-blocking copy that reads a pinned block and does not reuse the block
  before that event completes;
* a batch holding objects with their own ``.to()`` (``PackedSequence``,
  ``TensorDict``), whose tensors we cannot reach to ``record_stream`` them, is
  moved on the consumer's stream when handed out instead: correct, not overlapped;
* exceptions raised by the wrapped loader (or while moving a batch) are raised
  unchanged (the very same exception object), at the point where the plain loop
  would have raised them: the batches fetched before it are handed out first;
* everything is plain generator state: no threads, so a partially consumed epoch
  followed by a new ``iter()`` cannot deadlock, and dropping the old iterator
  frees its queued batches and the wrapped loader's iterator.

On the CPU the loader is a pass-through (no copies); on mps (and other
accelerators) each batch is moved synchronously with :func:`torchferry.to`.

Example::

    >>> import torch, torchferry as tf
    >>> data = [(torch.randn(4, 3), torch.arange(4)) for _ in range(3)]
    >>> loader = tf.DeviceLoader(data, "cpu")
    >>> len(loader), [x.shape[0] for x, y in loader]
    (3, [4, 4, 4])
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator
from typing import Any

import torch

__all__ = ["DeviceLoader"]


class _CudaStreamOps:
    """The stream/event/pinning operations the prefetching pipeline uses (CUDA)."""

    def new_stream(self, device: torch.device) -> Any:
        return torch.cuda.Stream(device=device)

    def on(self, stream: Any) -> Any:
        return torch.cuda.stream(stream)

    def record(self, stream: Any) -> Any:
        event = torch.cuda.Event()
        event.record(stream)
        return event

    def mark(self, stream: Any) -> Any:
        """An event on the consumer's stream: everything queued there so far."""
        event = torch.cuda.Event()
        event.record(stream)
        return event

    def sync(self, event: Any) -> None:
        event.synchronize()

    def current_stream(self, device: torch.device) -> Any:
        return torch.cuda.current_stream(device)

    def wait(self, stream: Any, event: Any) -> None:
        stream.wait_event(event)

    def record_stream(self, tensor: torch.Tensor, stream: Any) -> None:
        tensor.record_stream(stream)

    def pin(self, tensor: torch.Tensor) -> torch.Tensor:
        if tensor.device.type != "cpu" or tensor.is_pinned():
            return tensor
        try:
            return tensor.pin_memory()
        except RuntimeError:  # e.g. a layout that cannot be pinned: copy from pageable memory
            return tensor


def _stream_ops(device: torch.device) -> _CudaStreamOps | None:
    """The prefetching operations for ``device``, or None where batches move synchronously."""
    if device.type == "cuda":
        return _CudaStreamOps()
    return None


class DeviceLoader:
    """Wrap any iterable of batches so that each batch arrives on ``device``.

    Args:
        loader: a ``DataLoader`` or any iterable of batches (tensors in any nesting).
        device: where batches go; default :func:`torchferry.device`.
        prefetch: on cuda, how many batches are copied ahead on the side stream
            (``0``: move each batch on the current stream when it is asked for).
        non_blocking: passed to :func:`torchferry.to` (``"auto"``: asynchronous
            only for host-to-cuda/xpu copies).

    ``len()``, ``sampler``, ``batch_size`` and any other attribute are forwarded
    to the wrapped loader; ``set_epoch(n)`` is forwarded to the loader, its
    sampler and its batch sampler's sampler where they have one (so a
    ``DistributedSampler`` under torchrun reshuffles each epoch).  Iterate it
    again for the next epoch.

    Example::

        >>> import torch
        >>> from torch.utils.data import DataLoader, TensorDataset
        >>> import torchferry as tf
        >>> ds = TensorDataset(torch.randn(10, 3), torch.arange(10))
        >>> loader = tf.DeviceLoader(DataLoader(ds, batch_size=4))
        >>> len(loader), loader.batch_size
        (3, 4)
        >>> sum(len(y) for x, y in loader)
        10
    """

    def __init__(
        self,
        loader: Iterable[Any],
        device: torch.device | str | None = None,
        *,
        prefetch: int = 2,
        non_blocking: bool | str = "auto",
    ) -> None:
        from torchferry.devices import _resolve
        from torchferry.devices import device as pick_device

        if isinstance(prefetch, bool) or not isinstance(prefetch, int) or prefetch < 0:
            raise ValueError(f"prefetch must be an int >= 0, got {prefetch!r}")
        # what torchferry.to accepts (1 == True, but to(..., non_blocking=1) is an error: refused
        # here, not at the first batch on an accelerator)
        if not (non_blocking is True or non_blocking is False
                or (isinstance(non_blocking, str) and non_blocking == "auto")):
            raise ValueError(f"non_blocking must be True, False or 'auto', not {non_blocking!r}")
        if not hasattr(loader, "__iter__"):
            raise TypeError(f"DeviceLoader needs an iterable of batches, got {type(loader).__name__}")
        self.loader = loader
        self.device: torch.device = (
            pick_device() if device is None else _resolve(device, "device argument of DeviceLoader")
        )
        self.prefetch = prefetch
        self.non_blocking = non_blocking

    # ------------------------------------------------------------ forwarding
    def __len__(self) -> int:
        return len(self.loader)  # type: ignore[arg-type]

    @property
    def sampler(self) -> Any:
        return self.loader.sampler  # type: ignore[attr-defined]

    @property
    def batch_size(self) -> Any:
        return self.loader.batch_size  # type: ignore[attr-defined]

    def set_epoch(self, epoch: int) -> None:
        """Forward ``set_epoch`` to the loader and its (batch) sampler, where they have it."""
        called: list[Any] = []
        targets = [self.loader, getattr(self.loader, "sampler", None)]
        batch_sampler = getattr(self.loader, "batch_sampler", None)
        targets += [batch_sampler, getattr(batch_sampler, "sampler", None)]
        for obj in targets:
            fn = getattr(obj, "set_epoch", None)
            if obj is None or fn is None or any(obj is c for c in called):
                continue
            fn(epoch)
            called.append(obj)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "loader":
            raise AttributeError(name)
        try:
            loader = self.__dict__["loader"]
        except KeyError:
            raise AttributeError(name) from None
        return getattr(loader, name)

    def __repr__(self) -> str:
        return (
            f"DeviceLoader({self.loader!r}, device={str(self.device)!r}, "
            f"prefetch={self.prefetch}, non_blocking={self.non_blocking!r})"
        )

    # ------------------------------------------------------------- iteration
    def __iter__(self) -> Iterator[Any]:
        if self.device.type == "cpu":
            return iter(self.loader)  # pass-through: no copies, no extra frames
        ops = _stream_ops(self.device)
        if ops is None or self.prefetch == 0:
            return self._synchronous()
        return self._prefetching(ops)

    def _synchronous(self) -> Iterator[Any]:
        from torchferry.move import to

        for batch in self.loader:
            yield to(batch, self.device, non_blocking=self.non_blocking)

    def _prefetching(self, ops: _CudaStreamOps) -> Iterator[Any]:
        from torchferry.move import to, tree_map

        dev = self.device
        it: Iterator[Any] | None = iter(self.loader)
        side = ops.new_stream(dev)
        queue: collections.deque[tuple[Any, Any]] = collections.deque()
        failure: list[BaseException] = []  # an exception to raise once the queue drains

        def load_one() -> bool:
            try:
                batch = next(it)  # type: ignore[arg-type]
            except StopIteration:
                return False
            except Exception as exc:
                failure.append(exc)
                return False
            try:
                opaque: list[Any] = []

                def keep(o: Any) -> Any:
                    opaque.append(o)
                    return o

                host = tree_map(ops.pin, batch, opaque=keep)
                if opaque:
                    # Objects with their own .to() (PackedSequence, TensorDict...) hide
                    # their tensors from us, so we could not record_stream them: such a
                    # batch is moved on the consumer's stream when handed out (correct,
                    # just not overlapped).
                    queue.append((host, None))
                    return True
                with ops.on(side):
                    moved = to(host, dev, non_blocking=self.non_blocking)
                    event = ops.record(side)
            except Exception as exc:
                failure.append(exc)
                return False
            queue.append((moved, event))
            return True

        def keep_alive_for(stream: Any) -> Any:
            def record(t: torch.Tensor) -> torch.Tensor:
                if t.device.type == dev.type:
                    ops.record_stream(t, stream)
                return t

            return record

        marks: collections.deque[Any] = collections.deque()
        try:
            more = True
            for _ in range(self.prefetch):
                if not load_one():
                    more = False
                    break
            first = True
            while queue:
                moved, event = queue.popleft()
                current = ops.current_stream(dev)
                if not first:
                    # The consumer has queued its work on the previous batch by now.  Keep
                    # the host at most prefetch + 1 batches ahead of the compute stream:
                    # record_stream'ed blocks are reusable only once the compute stream
                    # is past them, so an unbounded lead would keep allocating new ones.
                    marks.append(ops.mark(current))
                    while len(marks) > self.prefetch + 1:
                        ops.sync(marks.popleft())
                first = False
                if event is None:
                    try:
                        moved = to(moved, dev, non_blocking=self.non_blocking)
                    except Exception as exc:
                        failure.insert(0, exc)  # it comes before any failure queued later
                        break
                else:
                    ops.wait(current, event)
                    tree_map(keep_alive_for(current), moved)
                if more:
                    more = load_one()  # start the next copy before the consumer queues compute
                yield moved
            if failure:
                pending = failure[0]
                failure.clear()
                raise pending
        finally:
            queue.clear()
            marks.clear()
            it = None  # drop the wrapped loader's iterator (a DataLoader's workers) now
