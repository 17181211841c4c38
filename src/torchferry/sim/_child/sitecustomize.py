"""Run at the startup of a Python process started by a simulated program (PYTHONPATH).

Installs the inherited simulation (``torchferry.sim.inherit``), then runs the
``sitecustomize`` this one shadows, if there is one, and leaves ``sys.path`` as it was
without this folder.
"""

import os
import sys


def _torchferry_inherit() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    value = os.environ.get("TORCHFERRY_SIMULATE")
    if value:
        try:
            from torchferry.sim import inherit
        except ImportError:  # another interpreter, without torchferry: nothing to simulate
            inherit = None  # type: ignore[assignment]
        if inherit is not None:
            try:
                inherit.install(value)
            except Exception as exc:  # never stop the child from starting
                sys.stderr.write(
                    f"torchferry: the simulation inherited from the parent process did not "
                    f"start ({type(exc).__name__}: {exc})\n"
                )
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    me = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # type: ignore[import-not-found]  # noqa: F401 - the one shadowed
    except ImportError as exc:
        sys.modules["sitecustomize"] = me  # importlib pops it back after this file runs
        if exc.name != "sitecustomize":
            raise


if __name__ == "sitecustomize":  # not when imported as torchferry.sim._child.sitecustomize
    _torchferry_inherit()
