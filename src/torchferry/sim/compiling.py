"""``torch.compile`` while a simulation is active.

On a GPU machine ``torch.compile(model)`` only wraps (an ``OptimizedModule``, or a
function wrapper) and compiles at the first call.  In the simulation the wrapping is
torch's own (``torch._dynamo``'s ``OptimizedModule`` with ``_orig_mod``, the same
``state_dict`` keys), and a call runs the model's Python code eagerly on the simulated
device: dynamo's tracing cannot capture a graph through the simulation's function mode
(it breaks the graph at the mode's first storage lookup in every operation), and the
kernels it would generate (inductor, Triton) are GPU code.  The first call says so once,
in one line on stderr.

>>> import torch, torchferry as tf
>>> with tf.simulate("cuda"):
...     m = torch.compile(torch.nn.Linear(2, 2), mode="max-autotune", fullgraph=True)
...     print(type(m).__name__, type(m._orig_mod).__name__)
OptimizedModule Linear
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import torch

from torchferry._internal.patcher import Patch

NOTICE = (
    "torchferry: torch.compile: the simulated GPU runs the compiled model's Python code "
    "eagerly on the CPU; compiled kernels are not what runs (test them on real hardware)\n"
)
# torch/__init__.py compile: the text for mode= and options= together
_MODE_AND_OPTIONS = (
    "Either mode or options can be specified, but both can't be specified at the same time."
)
_KNOWN_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class CompileStandIn:
    """The ``torch.compile`` of one simulation; ``said`` is whether the notice was printed."""

    def __init__(self) -> None:
        self.said = False

    def notice(self) -> None:
        if not self.said:
            self.said = True
            sys.stderr.write(NOTICE)

    def __call__(
        self,
        model: Any = None,
        *,
        fullgraph: bool = False,
        dynamic: bool | None = None,
        backend: Any = "inductor",
        mode: str | None = None,
        options: dict[str, Any] | None = None,
        disable: bool = False,
        **kwargs: Any,
    ) -> Any:
        settings = dict(
            fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
            disable=disable, **kwargs,
        )
        if model is None:  # the decorator form, @torch.compile(mode=...)

            def decorate(fn: Any) -> Any:
                if fn is None:
                    raise RuntimeError("Model can't be None")
                return self(fn, **settings)

            return decorate
        _validate(backend, mode, options, dynamic)
        if disable:
            return model  # torch._dynamo.optimize(disable=True): the model itself
        return _eager_class()(self)(model)


def _validate(backend: Any, mode: str | None, options: Any, dynamic: bool | None) -> None:
    """The checks torch.compile makes when it wraps, with torch's own errors."""
    if mode is not None and options is not None:
        raise RuntimeError(_MODE_AND_OPTIONS)
    if backend == "inductor":
        if mode is not None and mode not in _KNOWN_MODES:
            import torch._inductor

            torch._inductor.list_mode_options(mode, dynamic)  # raises "Unrecognized mode=..."
    elif isinstance(backend, str):
        from torch._dynamo.backends.registry import lookup_backend

        lookup_backend(backend)  # InvalidBackend for a name torch does not know
    elif not callable(backend):
        from torch._dynamo.backends.registry import lookup_backend

        lookup_backend(backend)


@functools.lru_cache(maxsize=1)
def _eager_class() -> type:
    """Made on first use: importing ``torch._dynamo`` costs time a simulation without
    ``torch.compile`` should not pay."""
    from torch._dynamo.eval_frame import DisableContext

    class Eager(DisableContext):
        """dynamo's disabling wrapper (an ``OptimizedModule`` for a module) that prints the
        notice at the first call."""

        def __init__(self, owner: CompileStandIn) -> None:
            super().__init__(msg=None, wrapping=True)
            self.owner = owner

        def __call__(self, fn: Any) -> Any:
            out = super().__call__(fn)
            if isinstance(out, torch.nn.Module) or isinstance(out, type):
                return out
            owner = self.owner

            @functools.wraps(out)
            def run(*args: Any, **kw: Any) -> Any:
                owner.notice()
                return out(*args, **kw)

            return run

    return Eager



class CompileImports(importlib.abc.MetaPathFinder):
    """What the simulation does to torch's compiler modules when they are imported.

    * ``torch._inductor.cudagraph_trees`` picks its CUDA half at import time by
      ``torch.backends.cuda.is_built()`` (True in the simulation) and then imports the CUDA
      allocator's C names, which the CPU wheel lacks (``ImportError: cannot import name
      '_cuda_CUDAAllocator_AllocatorState'``); ``torch._dynamo.reset()`` (which
      ``torch._dynamo.explain`` calls, and test suites call between tests) imports it
      whenever ``torch.cuda.is_available()``.  Imported inside a simulation it runs with the
      real ``is_built`` (False here) and takes the CPU build's branch, as it would have
      without the simulation.  CUDA graphs, its only users of those names, are refused.
    * ``torch._dynamo`` imported inside the simulation is imported with the simulation's
      stand-ins suspended (``suspend``, the simulation's ``Patch.suspended``), as if it had
      been imported before: its import keeps torch's classes and functions in tables it
      looks values up in by type or identity (``common_constant_types`` holds
      ``torch.device``; the context managers, streams and constant-folded functions it
      knows), and with the stand-ins there a real ``torch.device`` (``x.device``) was a
      type it could not wrap: ``explain`` split a model at each ``.device`` into graphs
      with no break reason.
    * ``torch._dynamo.explain`` is replaced (:func:`explain`) while the simulation runs,
      patched when ``torch._dynamo`` is imported (at once if it already was: it is heavy,
      and a simulation that never compiles should not import it).

    ``install()`` at the simulation's start, ``uninstall()`` at its end (the finder goes,
    ``explain`` is put back by :attr:`patch`, a :class:`~torchferry._internal.patcher.Patch`).
    """

    CPU_BUILD = frozenset({"torch._inductor.cudagraph_trees"})
    DYNAMO = "torch._dynamo"

    def __init__(self, name: str = "simulate",
                 suspend: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext) -> None:
        self._busy = False
        self.suspend = suspend
        self.patch = Patch(f"{name}: torch._dynamo.explain", self._plan)

    def _plan(self) -> list[tuple[Any, str, Any]]:
        dynamo = sys.modules[self.DYNAMO]
        return [(dynamo, "explain", _explain_standin(dynamo.explain))]

    def install(self) -> None:
        sys.meta_path.insert(0, self)
        if self.DYNAMO in sys.modules:
            self.patch.acquire()

    def uninstall(self) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        while self.patch.active:
            self.patch.release()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if self._busy or (fullname not in self.CPU_BUILD and fullname != self.DYNAMO):
            return None
        self._busy = True  # the real finders do the finding
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy = False
        if spec is not None and spec.loader is not None:
            spec.loader = _Exec(spec.loader, self)
        return spec


class _Exec(importlib.abc.Loader):
    def __init__(self, loader: Any, owner: CompileImports) -> None:
        self.loader, self.owner = loader, owner

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        if module.__name__ == CompileImports.DYNAMO:
            with self.owner.suspend():
                self.loader.exec_module(module)
            if not self.owner.patch.active:
                self.owner.patch.acquire()
            return
        backend = torch.backends.cuda
        standin = backend.is_built
        backend.is_built = lambda: torch._C._has_cuda  # torch/backends/cuda/__init__.py's
        try:
            self.loader.exec_module(module)
        finally:
            backend.is_built = standin


@contextlib.contextmanager
def _without_simulation_mode() -> Any:
    """The torch-function mode stack without the simulation's mode, for the block."""
    from torchferry.sim.modes import SimMode

    stack = [torch._C._pop_torch_function_stack()
             for _ in range(torch._C._len_torch_function_stack())][::-1]
    kept = [m for m in stack if not isinstance(m, SimMode)]
    for m in kept:
        torch._C._push_on_torch_function_stack(m)
    try:
        yield
    finally:
        for _ in range(torch._C._len_torch_function_stack()):
            torch._C._pop_torch_function_stack()
        for m in stack:
            torch._C._push_on_torch_function_stack(m)


_EXPLAIN_DEPRECATED = (
    "explain(f, *args, **kwargs) is deprecated, use explain(f)(*args, **kwargs) instead.  "
    "If you don't migrate, we may break your explain call in the future if your user defined "
    "kwargs conflict with future kwargs added to explain(f)."
)


def _explain_standin(real: Any) -> Any:
    """``torch._dynamo.explain`` in the simulation: dynamo's own analysis, of the call as the
    CPU runs it.

    Traced through the simulation's function mode, dynamo would break the graph in every
    operation (the mode's storage lookup), so its graph and break counts would be the
    simulation's, not the program's.  The call is analysed with the mode paused: the tensors
    are the CPU tensors the simulation keeps, dynamo's graphs, graph breaks, break reasons
    and guards are what it finds for them (so guards name ``cpu``, and code that branches on
    the device is analysed on its CPU path), and ``torch.cuda.is_available()`` still answers
    as the simulation does.  The explained call's own results are discarded, as dynamo does.
    """

    @functools.wraps(real)
    def explain(f: Any, *extra_args: Any, **extra_kwargs: Any) -> Any:
        inner = real(f)

        @functools.wraps(inner)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _without_simulation_mode():
                out = inner(*args, **kwargs)
            # Where in dynamo each guard was made (a CapturedTraceback, shown only when a
            # guard fails to build) is dropped: freed at interpreter exit, such tracebacks
            # deadlock torch (freeDeadCapturedTracebackFrames frees a traced function's code
            # with its mutex held; the code's weak references free guards whose traceback
            # takes the same mutex), seen for `e = explain(lambda t: ...)(x)` in a script.
            for guard in out.out_guards or ():
                guard.stack = None
            return out

        if extra_args or extra_kwargs:
            import warnings

            warnings.warn(_EXPLAIN_DEPRECATED, FutureWarning, stacklevel=2)
            return run(*extra_args, **extra_kwargs)
        return run

    return explain
