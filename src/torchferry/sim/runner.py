"""Run a script or module exactly as ``python SCRIPT ARGS`` / ``python -m MODULE ARGS`` would,
optionally inside a simulated accelerator.  The building block of ``ferry run``."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import runpy
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from torchferry._internal import frames as _frames
from torchferry.errors import UsageError

__all__ = ["run_path"]


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


_SIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _filter(te: traceback.TracebackException, seen: set[int]) -> None:
    """Drop the simulation's own frames: the traceback reads as it would on a GPU."""
    if id(te) in seen:
        return
    seen.add(id(te))
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if not os.path.abspath(f.filename).startswith(_SIM_DIR)]
    )
    for nxt in (te.__cause__, te.__context__):
        if nxt is not None:
            _filter(nxt, seen)


def _print_traceback(exc: BaseException, first_user_file: str | None) -> None:
    """Print the traceback as python would: from the script's frame down."""
    tb = exc.__traceback__
    if first_user_file is not None:
        t = tb
        while t is not None and os.path.abspath(t.tb_frame.f_code.co_filename) != first_user_file:
            t = t.tb_next
        if t is not None:
            tb = t
    te = traceback.TracebackException(type(exc), exc, tb)
    _filter(te, set())
    print("".join(te.format()), end="", file=sys.stderr)


def run_path(
    target: str,
    argv: Sequence[str] = (),
    *,
    module: bool = False,
    simulate: str | None = None,
    count: int = 1,
    on_exception: Callable[[BaseException], None] | None = None,
) -> int:
    """Run ``target`` (a script path, or a module name when ``module=True``) as ``__main__``.

    ``sys.argv`` becomes ``[target, *argv]`` and the script's directory (the
    current directory for a module) goes first on ``sys.path``, as with
    ``python``.  With ``simulate="cuda"`` (or ``"mps"``, ``"xpu"``) it runs
    inside :func:`torchferry.simulate` with ``count`` devices.  Returns the exit
    code: 0, ``n`` for ``sys.exit(n)``, 1 after printing the traceback of an
    uncaught exception.  ``on_exception(exc)``, if given, is called right after
    that traceback is printed, still inside the simulation (``ferry run`` explains
    device errors there).  A missing script or module raises
    :class:`~torchferry.errors.UsageError`.

    >>> from torchferry.sim.runner import run_path
    >>> run_path("no_such_script.py")
    Traceback (most recent call last):
    ...
    torchferry.errors.UsageError: no such script: no_such_script.py
    """
    first_user_file: str | None
    if module:
        # python -m puts the current directory first on sys.path *before* looking the
        # module up; so must we, or a module next to the user is not found.
        looked_up_with = sys.path[:]
        sys.path.insert(0, os.getcwd())
        try:
            spec = importlib.util.find_spec(target)
        except (ImportError, ValueError) as exc:
            raise UsageError(f"no module named {target!r} ({exc})") from None
        finally:
            sys.path[:] = looked_up_with
        if spec is None:
            raise UsageError(f"no module named {target!r}")
        origin = spec.origin if spec.origin not in (None, "built-in", "frozen") else None
        if spec.submodule_search_locations is not None:  # a package: run its __main__
            main_spec = importlib.util.find_spec(f"{target}.__main__")
            if main_spec is None:
                raise UsageError(f"{target!r} is a package and cannot be directly executed")
            origin = main_spec.origin
        argv0 = origin or target
        path0 = os.getcwd()
        first_user_file = os.path.abspath(origin) if origin else None
        top_name = target.split(".")[0]
        if (origin and top_name not in ("torch", "torchferry")
                and set(os.path.abspath(origin).split(os.sep)) & {"site-packages", "dist-packages"}):
            # the program itself is installed in site-packages: it is still the user's code
            top = importlib.util.find_spec(top_name)
            roots = list(top.submodule_search_locations or ()) if top is not None else []
            for root in roots or [origin]:
                _frames.add_user_root(root)
    else:
        if not os.path.exists(target):
            raise UsageError(f"no such script: {target}")
        if os.path.isdir(target) and not os.path.exists(os.path.join(target, "__main__.py")):
            raise UsageError(f"{target} is a directory without a __main__.py")
        argv0 = target
        path0 = os.path.dirname(os.path.abspath(target))
        main_file = os.path.join(target, "__main__.py") if os.path.isdir(target) else target
        first_user_file = os.path.abspath(main_file)

    saved_argv = sys.argv[:]
    saved_path = sys.path[:]
    sys.argv = [argv0, *argv]
    sys.path.insert(0, path0)
    ctx: Any = contextlib.nullcontext()
    if simulate is not None:
        from torchferry.sim.session import simulate as _simulate

        ctx = _simulate(simulate, count)
    try:
        with ctx:
            try:
                if module:
                    runpy.run_module(target, run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(target, run_name="__main__")
            except SystemExit as exc:
                return _exit_code(exc)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - print it as python would
                _print_traceback(exc, first_user_file)
                if on_exception is not None:
                    on_exception(exc)
                return 1
        return 0
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.argv = saved_argv
        sys.path[:] = saved_path
