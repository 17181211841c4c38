"""The results cache of ``ferry check``: a warm run re-parses nothing.

One file per configuration under ``<project root>/.ferry_cache/``; its name
hashes the torchferry version, a fingerprint of the checker's own source files,
the enabled rules and the configuration.  Inside, each file's absolute path maps
to the hash of its bytes and its diagnostics.

The cache trusts only what it wrote itself.  Each cache file starts with a line
``ferry-cache 2 <tag> <mac>``: ``tag`` is a keyed hash of the file's name and
``mac`` of its JSON body, both keyed with a random secret kept outside the
project (``$XDG_CACHE_HOME/torchferry/cache-key``, else ``~/.cache/...``, mode
0600).  A cache file copied from another machine or committed to a repository, an
edited entry, a stale format or a badly shaped entry is therefore a miss, never a
result.  Nothing is cached when the secret cannot be read or created.

The cache only ever touches files it created and can recognise: a symlinked
``.ferry_cache`` (or anything there that is not a directory) disables the cache; a
cache file that is a symlink is neither read nor written; ``.gitignore`` is created
only when absent and never written through a symlink; pruning deletes only cache
files whose tag proves this machine's secret wrote them.  Writes go through
:mod:`torchferry._internal.atomic`.  A cache that cannot be written is skipped
silently.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from torchferry.check.api import Edit, Fix

__all__ = ["Cache", "content_hash", "settings_key"]

try:  # the builtin module: hashlib would load OpenSSL first, slower to start
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b as _blake2b

CACHE_DIR = ".ferry_cache"
_FORMAT = 2
_MAGIC = b"ferry-cache 2 "
_NAME = re.compile(r"[0-9a-f]{24}\.json")
KEY_ENV = "XDG_CACHE_HOME"


def content_hash(data: bytes) -> str:
    """The cache key of a file's bytes (BLAKE2b, 128 bits).

    >>> content_hash(b"import torch\\n") == content_hash(b"import torch\\n") != content_hash(b"")
    True
    """
    return _blake2b(data, digest_size=16).hexdigest()


def _code_fingerprint() -> str:
    """Sizes and mtimes of the checker's own modules, so an edited rule invalidates the cache."""
    here = Path(__file__).parent
    parts = []
    for d in (here, here / "rules", here / "flow"):
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.endswith(".py"):
                st = e.stat()
                parts.append(f"{d.name}/{e.name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


def settings_key(**settings: Any) -> str:
    from torchferry._version import __version__

    blob = json.dumps(
        {"format": _FORMAT, "version": __version__, "code": _code_fingerprint(), **settings},
        sort_keys=True,
        default=str,
    )
    return _blake2b(blob.encode(), digest_size=12).hexdigest()


def fix_to_json(fix: Fix | None) -> Any:
    if fix is None:
        return None
    return [
        fix.message,
        fix.safe,
        [[e.line, e.column, e.end_line, e.end_column, e.content] for e in fix.edits],
    ]


def fix_from_json(data: Any) -> Fix | None:
    if data is None:
        return None
    message, safe, edits = data
    return Fix(tuple(Edit(*e) for e in edits), bool(safe), message)


def _key_file() -> Path:
    base = os.environ.get(KEY_ENV) or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "torchferry" / "cache-key"


def _secret() -> bytes | None:
    """This user's cache secret (created on first use), or None when it cannot be had."""
    path = _key_file()
    try:
        with open(path, "rb") as fh:
            key = fh.read(200).strip()
        if len(key) >= 32:
            return key[:64]
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except FileExistsError:  # another run created it meanwhile (or an unreadable one exists)
        try:
            with open(path, "rb") as fh:
                key = fh.read(200).strip()
            return key[:64] if len(key) >= 32 else None
        except OSError:
            return None
    except OSError:
        return None
    key = os.urandom(32).hex().encode()
    with os.fdopen(fd, "wb") as fh:
        fh.write(key + b"\n")
    return key


def _mac(secret: bytes, what: bytes, data: bytes) -> str:
    return _blake2b(what + b"\0" + data, digest_size=16, key=secret).hexdigest()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _valid_fix(fix: Any) -> bool:
    if fix is None:
        return True
    if not (isinstance(fix, list) and len(fix) == 3):
        return False
    message, safe, edits = fix
    return (
        isinstance(message, str) and isinstance(safe, bool) and isinstance(edits, list)
        and all(
            isinstance(e, list) and len(e) == 5 and all(_is_int(x) for x in e[:4])
            and isinstance(e[4], str)
            for e in edits
        )
    )


def valid_diagnostic(d: Any) -> bool:
    """Whether ``d`` has the shape of a cached diagnostic (``Diagnostic.to_json``).

    >>> valid_diagnostic(["FRY001", "m", 1, 0, 1, 4, None, None, "x"])
    True
    >>> valid_diagnostic(["FRY001", "m", "1", 0, 1, 4, None, None, "x"])
    False
    >>> valid_diagnostic(["FRY001", "m", 1, 0, 1, 4, None, None, "x", 0])  # with source_offset
    True
    >>> valid_diagnostic(["FRY013", "m", 3, 0, 3, 4, None, None, "x", 0, [["made", 1, 0, None, None]]])
    True
    >>> valid_diagnostic(["FRY013", "m", 3, 0, 3, 4, None, None, "x", 0, [["made", "1", 0, None, None]]])
    False
    """
    return (
        isinstance(d, list) and len(d) in (9, 10, 11)
        and isinstance(d[0], str) and isinstance(d[1], str)
        and all(_is_int(x) for x in d[2:6])
        and _valid_fix(d[6])
        and (d[7] is None or _is_int(d[7]))
        and isinstance(d[8], str)
        and (len(d) == 9 or _is_int(d[9]))
        and (len(d) < 11 or _valid_evidence(d[10]))
    )


def _valid_evidence(items: Any) -> bool:
    return isinstance(items, list) and all(
        isinstance(e, list) and len(e) == 5 and isinstance(e[0], str)
        and _is_int(e[1]) and _is_int(e[2])
        and (e[3] is None or isinstance(e[3], str)) and (e[4] is None or _is_int(e[4]))
        for e in items
    )  # fmt: skip


#: Cache files (one per configuration) kept in ``.ferry_cache/``.
KEEP = 8


class Cache:
    """``get``/``put`` diagnostics (as JSON-able lists) by path and content hash."""

    def __init__(self, root: Path, key: str) -> None:
        self.dir = root / CACHE_DIR
        self.file = self.dir / f"{key}.json"
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False
        self.secret = _secret() if self._dir_is_ours() else None
        if self.secret is None:
            return
        data = self._read(self.file)
        if data is not None:
            try:
                entries = json.loads(data)
            except ValueError:
                entries = None
            if isinstance(entries, dict):
                self.entries = entries

    def _dir_is_ours(self) -> bool:
        """``.ferry_cache`` is absent or a real directory (never a symlink to elsewhere)."""
        try:
            st = os.lstat(self.dir)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return stat.S_ISDIR(st.st_mode)

    def _header(self, name: str, body: bytes) -> bytes:
        assert self.secret is not None
        tag = _mac(self.secret, b"name", name.encode())
        return _MAGIC + f"{tag} {_mac(self.secret, b'body', body)}\n".encode()

    def _read(self, path: Path) -> bytes | None:
        """The JSON body of a cache file this machine's secret wrote, else None."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    return None
                data = fh.read()
        except OSError:
            return None
        header, _, body = data.partition(b"\n")
        if header + b"\n" != self._header(path.name, body):
            return None  # foreign, edited, or another format: a miss
        return body

    def _owns(self, path: Path) -> bool:
        """Whether ``path`` is a cache file written with this machine's secret (reads one line)."""
        assert self.secret is not None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    return False
                line = fh.readline(200)
        except OSError:
            return False
        tag = _mac(self.secret, b"name", path.name.encode())
        return line.startswith(_MAGIC + tag.encode() + b" ")

    def get(self, path: str, digest: str) -> list[Any] | None:
        entry = self.entries.get(path)
        if (
            isinstance(entry, list) and len(entry) == 2 and entry[0] == digest
            and isinstance(entry[1], list) and all(valid_diagnostic(d) for d in entry[1])
        ):
            return entry[1]
        return None

    def put(self, path: str, digest: str, diagnostics: list[Any]) -> None:
        self.entries[path] = [digest, diagnostics]
        self.dirty = True

    def save(self) -> None:
        """Write the cache (atomically), dropping entries of files that no longer exist and
        all but the :data:`KEEP` most recent cache files of other configurations."""
        if not self.dirty or self.secret is None:
            return
        from torchferry._internal.atomic import write_bytes

        self.entries = {p: e for p, e in self.entries.items() if os.path.exists(p)}
        try:
            if not self._dir_is_ours():
                return
            self.dir.mkdir(exist_ok=True)
            if not self._dir_is_ours():
                return
            self._prune()
            self._gitignore()
            if os.path.islink(self.file) or (
                os.path.lexists(self.file) and not os.path.isfile(self.file)
            ):
                return  # not ours: leave it alone
            body = json.dumps(self.entries, separators=(",", ":")).encode()
            write_bytes(self.file, self._header(self.file.name, body) + body)
        except OSError:
            pass  # a read-only project: run without a cache
        self.dirty = False

    def _gitignore(self) -> None:
        ignore = self.dir / ".gitignore"
        if os.path.lexists(ignore):
            return  # present (or a symlink): never written through
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(ignore, flags, 0o666)
        except OSError:
            return
        with os.fdopen(fd, "w") as fh:
            fh.write("# Automatically created by ferry check.\n*\n")

    def _prune(self) -> None:
        others: list[tuple[float, Path]] = []
        try:
            names = [e.name for e in os.scandir(self.dir)]
        except OSError:
            return
        for name in names:
            p = self.dir / name
            if p == self.file or not _NAME.fullmatch(name):
                continue
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and self._owns(p):
                others.append((st.st_mtime, p))
        if len(others) < KEEP:
            return
        others.sort(reverse=True)
        for _mtime, old in others[KEEP - 1 :]:
            try:
                old.unlink()
            except OSError:
                pass
