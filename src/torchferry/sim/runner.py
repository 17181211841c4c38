"""Run a script or module exactly as ``python SCRIPT ARGS`` / ``python -m MODULE ARGS`` would,
optionally inside a simulated accelerator.  The building block of ``ferry run``."""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import os
import runpy
import sys
import traceback
import types
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
# the hooks that run inside the script's own calls (the trip counter's listener on an
# ``.item()``, the factory recorder, the stack walk they share, the storage registry's
# sweep of dead storages that the recorder and the device tags run): a Ctrl-C that lands
# in one is the script's, and python would show the script's frame
_PACKAGE = os.path.dirname(_SIM_DIR[:-1])
_HOOKS = tuple(os.path.join(_PACKAGE, *p) for p in (
    ("diagnose", "tripcount.py"), ("diagnose", "sites.py"), ("_internal", "frames.py"),
    ("_internal", "registry.py")))
_RUNPY = os.path.abspath(runpy.__file__)


def _foreign(f: traceback.FrameSummary) -> bool:
    """A frame python's own traceback would not show: the simulation's, runpy's (the
    ``<frozen runpy>`` frames a syntax error in the script starts with), the hooks'
    (``--trips``'s counter, the factory recorder), and torch's ``handle_torch_function``,
    which is only on the stack because the simulation's torch-function mode is (a GPU run
    calls the operator directly)."""
    return foreign_frame(f.filename, f.name)


def foreign_frame(filename: str, function: str) -> bool:
    """:func:`_foreign` for a frame's file name and function name (the pytest plugin's
    tracebacks drop the same frames)."""
    if filename.startswith("<frozen runpy>"):
        return True
    path = os.path.abspath(filename)
    if path.startswith(_SIM_DIR) or path == _RUNPY or path in _HOOKS or \
            function == _frames.SIMULATION_CALL:
        return True  # the mode's call made as from its caller's frame (sim/modes.py)
    return function == "handle_torch_function" and path.endswith(
        os.path.join("torch", "overrides.py"))


def _filter(te: traceback.TracebackException, seen: set[int]) -> None:
    """Drop the frames of :func:`_foreign`: the traceback reads as it would on a GPU."""
    if id(te) in seen:
        return
    seen.add(id(te))
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _foreign(f)])
    for nxt in (te.__cause__, te.__context__):
        if nxt is not None:
            _filter(nxt, seen)


def _from_script(tb: types.TracebackType | None, first_user_file: str | None):
    """``tb`` from the script's own frame down (all of it when that frame is not in it)."""
    if first_user_file is not None:
        t = tb
        while t is not None and os.path.abspath(t.tb_frame.f_code.co_filename) != first_user_file:
            t = t.tb_next
        if t is not None:
            return t
    return tb


def _print_traceback(exc: BaseException, first_user_file: str | None) -> None:
    """Print the traceback as python would: from the script's frame down."""
    te = traceback.TracebackException(type(exc), exc, _from_script(exc.__traceback__, first_user_file))
    _filter(te, set())
    print("".join(te.format()), end="", file=sys.stderr)


def _user_traceback(tb: types.TracebackType | None, first_user_file: str | None):
    """``tb`` as python would have made it: from the script's frame down, without the
    frames of :func:`_foreign` (a new chain of traceback objects; ``tb`` is not changed)."""
    tb = _from_script(tb, first_user_file)
    kept = []
    while tb is not None:
        f = tb.tb_frame
        summary = traceback.FrameSummary(f.f_code.co_filename, tb.tb_lineno, f.f_code.co_name,
                                         lookup_line=False)  # fmt: skip
        if not _foreign(summary):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


@contextlib.contextmanager
def _as_python_made_them(exc: BaseException, first_user_file: str | None):
    """The tracebacks of ``exc`` and the exceptions chained to it as python would have
    made them, for a hook of the script's to read; restored afterwards."""
    saved: list[tuple[BaseException, Any]] = []
    todo, seen = [exc], set()
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        saved.append((e, e.__traceback__))
        e.__traceback__ = _user_traceback(e.__traceback__, first_user_file if e is exc else None)
        todo += [c for c in (e.__cause__, e.__context__) if c is not None]
    try:
        yield
    finally:
        for e, tb in saved:
            e.__traceback__ = tb


def _report_uncaught(exc: BaseException, first_user_file: str | None, hook: Any) -> None:
    """What python does with an uncaught exception: call ``sys.excepthook`` when the
    script installed its own (``hook`` is the one there before it ran), else print the
    traceback.  The hook sees the traceback python would give it (torch.distributed's
    hook, which prefixes ``[rankN]:``, prints no frame of the simulation).  A hook that
    fails is reported as python reports it."""
    current = sys.excepthook
    if current is hook or current is sys.__excepthook__:
        _print_traceback(exc, first_user_file)
        return
    try:
        with _as_python_made_them(exc, first_user_file):
            current(type(exc), exc, exc.__traceback__)
    except BaseException as err:  # noqa: BLE001 - python's own wording
        print("Error in sys.excepthook:", file=sys.stderr)
        _print_traceback(err, None)
        print("\nOriginal exception was:", file=sys.stderr)
        _print_traceback(exc, first_user_file)


def _script_path(target: str) -> str:
    """The script's ``__file__`` as python makes it: absolute, but not normalised
    (``lnk/../train.py`` stays so: the kernel resolves ``..`` after the symlink)."""
    return target if os.path.isabs(target) else os.path.join(os.getcwd(), target)


def zipfile_like(path: str) -> bool:
    """Whether ``path`` is a regular file that is a zip archive (python runs its
    ``__main__.py``); a pipe is never tested (that would read it dry)."""
    import zipfile

    return os.path.isfile(path) and zipfile.is_zipfile(path)


def _run_file(path: str) -> None:
    """Run the script at ``path`` (absolute) as ``__main__`` as ``python SCRIPT`` does:
    read once (``/dev/stdin`` and ``<(cmd)`` pipes work: ``runpy.run_path`` first tries
    a path as a zip archive, which reads a pipe dry, and then runs nothing), compiled
    under its absolute name, ``__file__`` absolute, ``sys.argv[0]`` left as given."""
    import importlib.machinery

    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    loader = (
        importlib.machinery.SourceFileLoader("__main__", path) if os.path.isfile(path) else None
    )
    main = types.ModuleType("__main__")
    # __builtins__ is the module in __main__, as python gives it (a dict elsewhere)
    main.__dict__.update(__file__=path, __cached__=None, __loader__=loader, __package__=None,
                         __spec__=None, __builtins__=builtins)  # fmt: skip
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def notebook_cells(path: str) -> list[tuple[str, str]]:
    """The code cells of the notebook at ``path`` as ``ferry run`` runs them: (a file
    name for tracebacks, ``x.ipynb:cell 3``; the cell's source).

    A notebook that is not valid, not Python, or holds IPython syntax (``%pip``,
    ``!ls``) that plain Python cannot run is a :class:`UsageError` naming the cell.
    """
    from torchferry.check.notebook import NotebookError, language, parse_notebook

    try:
        with open(path, encoding="utf-8") as fh:
            nb = parse_notebook(fh.read())
    except (OSError, UnicodeDecodeError, NotebookError) as exc:
        raise UsageError(f"{path}: cannot run it as a notebook: {exc}") from None
    lang = language(nb)
    if lang is not None:
        raise UsageError(f"{path}: the notebook's language is {lang}; ferry run runs Python")
    if nb.blanked:
        cell, line = nb.locate(min(nb.blanked))
        text = nb.texts[cell].splitlines()[line - 1].strip()
        raise UsageError(
            f"{path}: cell {cell}, line {line} is IPython syntax ({text[:40]}), which python "
            "cannot run; run the notebook in Jupyter with '%load_ext torchferry', or convert "
            "it first: jupyter nbconvert --to script"
        )
    name = os.path.abspath(path)
    return [(f"{name}:cell {c}", nb.texts[c]) for c in sorted(nb.texts)]


def _run_cells(path: str, cells: list[tuple[str, str]]) -> None:
    """Run a notebook's code cells in order in one ``__main__``, as a kernel would."""
    import linecache
    import types

    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __loader__=None, __package__=None,
                         __spec__=None, __builtins__=builtins)  # fmt: skip
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        for name, source in cells:
            lines = source.splitlines(keepends=True)
            linecache.cache[name] = (len(source), None, lines, name)  # tracebacks show it
            exec(compile(source, name, "exec", dont_inherit=True), main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


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
    cells = None
    if module:
        # python -m puts the current directory first on sys.path *before* looking the
        # module up; so must we, or a module next to the user is not found.
        looked_up_with = sys.path[:]
        sys.path.insert(0, os.getcwd())
        try:
            spec = importlib.util.find_spec(target)
            if spec is None:
                raise UsageError(f"no module named {target!r}")
            origin = spec.origin if spec.origin not in (None, "built-in", "frozen") else None
            if spec.submodule_search_locations is not None:  # a package: run its __main__
                # (looking it up imports the package, from the current directory too)
                main_spec = importlib.util.find_spec(f"{target}.__main__")
                if main_spec is None:
                    raise UsageError(f"{target!r} is a package and cannot be directly executed")
                origin = main_spec.origin
        except UsageError:
            raise
        except (ImportError, ValueError) as exc:
            raise UsageError(f"no module named {target!r} ({exc})") from None
        finally:
            sys.path[:] = looked_up_with
        argv0 = origin or target
        path0 = os.getcwd()
        first_user_file = os.path.abspath(origin) if origin else None
        top_name = target.split(".")[0]
        if origin and top_name not in ("torch", "torchferry") and _frames.is_library_file(origin):
            # the program itself is installed (site-packages, or the stdlib's `-m json.tool`):
            # it is still the user's code
            top = importlib.util.find_spec(top_name)
            roots = list(top.submodule_search_locations or ()) if top is not None else []
            for root in roots or [origin]:
                _frames.add_user_root(root)
    else:
        if not os.path.exists(target):
            raise UsageError(f"no such script: {target}")
        if os.path.isdir(target) and not os.path.exists(os.path.join(target, "__main__.py")):
            raise UsageError(f"{target} is a directory without a __main__.py")
        argv0 = target  # sys.argv[0] as given; __file__ absolute, as python makes them
        plain = not os.path.isdir(target) and not zipfile_like(target)
        # sys.path[0]: the directory of the script with its symlinks resolved, as python
        # puts it there ("lnk/../train.py" is the train.py next to the link's target)
        real = os.path.realpath(target)
        path0 = os.path.dirname(real if plain and os.path.exists(real) else os.path.abspath(target))
        main_file = os.path.join(target, "__main__.py") if os.path.isdir(target) else target
        first_user_file = os.path.abspath(main_file)
        cells = notebook_cells(target) if plain and target.endswith(".ipynb") else None

    saved_argv = sys.argv[:]
    saved_path = sys.path[:]
    saved_hook = sys.excepthook
    sys.argv = [argv0, *argv]
    sys.path.insert(0, path0)
    ctx: Any = contextlib.nullcontext()
    if simulate is not None:
        from torchferry.sim.session import simulate as _simulate

        ctx = _simulate(simulate, count)
    try:
        with ctx:
            try:
                # __builtins__ is the module in __main__, as python gives it (a dict elsewhere)
                if module:
                    runpy.run_module(target, run_name="__main__", alter_sys=True,
                                     init_globals={"__builtins__": builtins})
                elif cells is not None:  # a notebook: its code cells, in order
                    _run_cells(os.path.abspath(target), cells)
                elif plain:  # a script file, /dev/stdin, <(cmd): as python runs it
                    _run_file(_script_path(target))
                else:  # a directory or zip archive with a __main__.py
                    runpy.run_path(target, run_name="__main__",
                                   init_globals={"__builtins__": builtins})
            except SystemExit as exc:
                return _exit_code(exc)
            except KeyboardInterrupt as exc:  # python prints it, then dies by SIGINT:
                _report_uncaught(exc, first_user_file, saved_hook)  # the caller re-raises
                raise
            except BaseException as exc:  # noqa: BLE001 - print it as python would
                _report_uncaught(exc, first_user_file, saved_hook)
                if on_exception is not None:
                    on_exception(exc)
                return 1
        return 0
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.argv = saved_argv
        sys.path[:] = saved_path
        sys.excepthook = saved_hook
