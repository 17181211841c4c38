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

import functools
import sys
from typing import Any

import torch

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

