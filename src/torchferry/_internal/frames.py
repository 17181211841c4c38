"""Which frames are the user's own code: the one answer for the whole of torchferry.

Used wherever torchferry points at "your line": where a simulated tensor was
created (``torchferry.sim.created_at``, the simulation's event sites),
``explain``'s failing line, its operands' creation sites, and ``trips``' rows.

The rule: a file is **user code** unless it lies in

* torch or torchferry (wherever they are installed, source checkouts included),
* the standard library (``sysconfig``'s stdlib paths and ``lib/pythonX.Y`` of the
  running and base prefixes),
* an installed package: any ``site-packages`` / ``dist-packages`` directory.

A library that made the tensor (``transformers``, a DataLoader's collate in
torch) is not what the user can change; the line of their own code that called
it is, so the walk goes past the library to that line.

Two exceptions keep that rule from hiding the user's code:

* Source names in angle brackets are user code (``<stdin>``, ``<string>``,
  IPython's ``<ipython-input-...>`` cells), except ``<frozen ...>`` modules.
* A program run with ``python -m PKG`` / ``ferry run -m PKG`` whose package is
  installed into site-packages (a non-editable ``pip install .``): the runner
  calls :func:`add_user_root` with that package's directory, so its files are
  user code even there.  Editable installs (``pip install -e``) keep the
  sources in the project, outside site-packages: user code without help.

Decisions are cached per code object, keyed by ``id(code)`` (hashing a code
object hashes its bytecode: slow on hot paths) with the code object kept alive
so its id cannot be reused; a hot loop costs one dict lookup per frame.

Standard library only: importing this module imports no torch.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from types import CodeType, FrameType
from typing import Any

__all__ = [
    "is_user_file",
    "is_user_code",
    "user_frame",
    "user_site",
    "add_user_root",
    "source_line",
    "display_path",
]

_FERRY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _library_dirs() -> tuple[str, ...]:
    dirs = {_FERRY_DIR}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = paths.get(key)
        if p:
            dirs.add(os.path.abspath(p) + os.sep)
    for p in sys.path:  # site-packages of the running environment (a venv's differ)
        if p and os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages"):
            dirs.add(os.path.abspath(p) + os.sep)
    for base in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        lib = os.path.join(base, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}")
        dirs.add(os.path.abspath(lib) + os.sep)
    torch_dir = _torch_dir()
    if torch_dir is not None:
        dirs.add(torch_dir)
    return tuple(sorted(dirs))


def _torch_dir() -> str | None:
    torch = sys.modules.get("torch")
    f = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.abspath(f)) + os.sep if f else None


_LIB_DIRS: tuple[str, ...] | None = None
_USER_ROOTS: tuple[str, ...] = ()
# id(code) -> (code, is user code)
_USER_CODE: dict[int, tuple[CodeType, bool]] = {}


def add_user_root(path: str) -> None:
    """Treat every file below directory ``path`` (or the file ``path``) as user code.

    Even inside site-packages: the runner calls it for a ``-m`` target installed there.
    """
    global _USER_ROOTS
    d = os.path.abspath(path)
    if os.path.isdir(d):
        d += os.sep
    if d not in _USER_ROOTS:
        _USER_ROOTS = (*_USER_ROOTS, d)
        _USER_CODE.clear()


def is_library_file(filename: str) -> bool:
    """True when ``filename`` lies in torch, torchferry, the stdlib or site-packages."""
    global _LIB_DIRS
    if _LIB_DIRS is None:
        _LIB_DIRS = _library_dirs()
    else:
        torch_dir = _torch_dir()  # torch imported after the first call (a source checkout)
        if torch_dir is not None and torch_dir not in _LIB_DIRS:
            _LIB_DIRS = _library_dirs()
    return os.path.abspath(filename).startswith(_LIB_DIRS)


def is_user_file(filename: str) -> bool:
    """True when ``filename`` holds the user's own code (see the module docstring).

    >>> import os, json
    >>> is_user_file(json.__file__), is_user_file(__file__), is_user_file("<stdin>")
    (False, False, True)
    >>> is_user_file(os.path.join(os.getcwd(), "train.py"))  # (cwd is not site-packages)
    True
    """
    if filename.startswith("<"):
        # <stdin>, <string>, <ipython-input-...>: typed by the user; <frozen ...>: not
        return not filename.startswith("<frozen")
    if _USER_ROOTS and os.path.abspath(filename).startswith(_USER_ROOTS):
        return True
    return not is_library_file(filename)


# The name of the one-line function the simulation's function mode calls an operator
# through, made with the calling frame's file and line (sim/modes.py): not user code,
# although its file is the user's.
SIMULATION_CALL = "_torchferry_call"


def is_user_code(code: CodeType) -> bool:
    """:func:`is_user_file` of ``code.co_filename``, cached per code object."""
    e = _USER_CODE.get(id(code))
    if e is not None and e[0] is code:
        return e[1]
    r = code.co_name != SIMULATION_CALL and is_user_file(code.co_filename)
    _USER_CODE[id(code)] = (code, r)
    return r


def user_frame(depth: int = 1) -> FrameType | None:
    """The innermost live frame of user code, starting ``depth`` frames above the caller."""
    try:
        f: FrameType | None = sys._getframe(depth + 1)
    except ValueError:
        return None
    get = _USER_CODE.get
    while f is not None:
        code = f.f_code
        e = get(id(code))
        r = e[1] if e is not None and e[0] is code else is_user_code(code)
        if r:
            return f
        f = f.f_back
    return None


def user_site(depth: int = 2) -> tuple[CodeType, int] | None:
    """``(code, line)`` of the innermost user frame from ``sys._getframe(depth)`` outwards.

    ``depth`` counts as ``sys._getframe``'s does here (1: this function's
    caller), so the simulation's hot path calls it directly, without a wrapper.
    """
    try:
        f: FrameType | None = sys._getframe(depth)
    except ValueError:
        return None
    get = _USER_CODE.get
    while f is not None:
        code = f.f_code
        e = get(id(code))
        r = e[1] if e is not None and e[0] is code else is_user_code(code)
        if r:
            return (code, f.f_lineno)
        f = f.f_back
    return None


def source_line(path: str, line: int, module_globals: dict[str, Any] | None = None) -> str:
    """The stripped source text of one line ('' when unavailable)."""
    return linecache.getline(path, line, module_globals).strip()


def display_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    if path.startswith("<"):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith(os.pardir) else rel
