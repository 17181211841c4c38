"""Runtime diagnostics: name the tensor that missed the ferry, and count the ferry rides.

* :class:`explain` (``torchferry.explain()``): after a device error inside the
  block, print which operand of which line of your code is on the odd device,
  where it was made, the fix and the ``ferry check`` rule.
* :class:`trips` (``torchferry.trips()``): count host/device copies, host syncs
  and module moves per line of your code, flagging those that run on every
  iteration of a loop.
* ``ferry run --report FILE`` / ``--trips`` and ``%load_ext torchferry`` use both.

Importing this package imports neither torch nor anything that patches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchferry._internal.lazy import exports

# the classes live in ``explanation`` and ``tripcount`` (module names that do not collide
# with ``torchferry.explain`` / ``torchferry.trips``, the public names of the classes)
_LAZY = {
    "explain": "torchferry.diagnose.explanation",
    "trips": "torchferry.diagnose.tripcount",
    "restore_excepthook": "torchferry.diagnose.explanation",
    "explain_exception": "torchferry.diagnose.explanation",
    "format_report": "torchferry.diagnose.explanation",
    "load_ipython_extension": "torchferry.diagnose.ipython",
    "unload_ipython_extension": "torchferry.diagnose.ipython",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = exports("torchferry.diagnose", _LAZY, globals())


if TYPE_CHECKING:  # pragma: no cover
    from torchferry.diagnose.explanation import (  # noqa: F401
        explain,
        explain_exception,
        format_report,
        restore_excepthook,
    )
    from torchferry.diagnose.ipython import (  # noqa: F401
        load_ipython_extension,
        unload_ipython_extension,
    )
    from torchferry.diagnose.tripcount import trips  # noqa: F401
