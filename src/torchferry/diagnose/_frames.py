"""Which frames are the user's own code, and where they are.

"User code" is any Python file outside torch, torchferry, the standard library
and installed packages (site-packages), plus interactive sources (``<stdin>``,
IPython cells).  Decisions are cached per code object, so walking a stack on a
hot path costs a dict lookup per frame.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from types import CodeType, FrameType, TracebackType

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
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__file__", None):
        dirs.add(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
    return tuple(sorted(dirs))


_LIB_DIRS: tuple[str, ...] | None = None
_USER_CODE: dict[CodeType, bool] = {}


def is_user_file(filename: str) -> bool:
    """True when ``filename`` holds the user's own code (not a library, not torch)."""
    global _LIB_DIRS
    if filename.startswith("<"):
        # <stdin>, <string>, <ipython-input-...>: typed by the user; <frozen ...>: not
        return not filename.startswith("<frozen")
    if _LIB_DIRS is None or "torch" in sys.modules and not _has_torch_dir():
        _LIB_DIRS = _library_dirs()
    path = os.path.abspath(filename)
    return not path.startswith(_LIB_DIRS)


def _has_torch_dir() -> bool:
    torch = sys.modules.get("torch")
    f = getattr(torch, "__file__", None)
    if not f:
        return True
    d = os.path.dirname(os.path.abspath(f)) + os.sep
    return _LIB_DIRS is not None and d in _LIB_DIRS


def is_user_code(code: CodeType) -> bool:
    r = _USER_CODE.get(code)
    if r is None:
        r = _USER_CODE[code] = is_user_file(code.co_filename)
    return r


def user_frame(depth: int = 1) -> FrameType | None:
    """The innermost live frame of user code, starting ``depth`` frames above the caller."""
    try:
        f: FrameType | None = sys._getframe(depth + 1)
    except ValueError:
        return None
    cache = _USER_CODE
    while f is not None:
        r = cache.get(f.f_code)
        if r is None:
            r = is_user_code(f.f_code)
        if r:
            return f
        f = f.f_back
    return None


def user_frames_of(tb: TracebackType | None) -> list[tuple[FrameType, int, TracebackType]]:
    """The traceback's user frames, outermost first: (frame, line, tb entry)."""
    out = []
    while tb is not None:
        if is_user_code(tb.tb_frame.f_code):
            out.append((tb.tb_frame, tb.tb_lineno, tb))
        tb = tb.tb_next
    return out


def source_line(path: str, line: int, module_globals: dict | None = None) -> str:
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
