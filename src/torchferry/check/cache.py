"""The results cache of ``ferry check``: a warm run re-parses nothing.

One JSON file per configuration under ``<project root>/.ferry_cache/``; its name
hashes the torchferry version, a fingerprint of the checker's own source files,
the enabled rules and the configuration.  Inside, each file's absolute path maps
to the hash of its bytes and its diagnostics.  A corrupt or unreadable cache is
ignored; a cache that cannot be written is skipped silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from torchferry.check.api import Edit, Fix

__all__ = ["Cache", "content_hash", "settings_key"]

try:  # the builtin module: hashlib would load OpenSSL first, slower to start
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b as _blake2b

CACHE_DIR = ".ferry_cache"
_FORMAT = 1


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
    for d in (here, here / "rules"):
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


#: Cache files (one per configuration) kept in ``.ferry_cache/``.
KEEP = 8


class Cache:
    """``get``/``put`` diagnostics (as JSON-able lists) by path and content hash."""

    def __init__(self, root: Path, key: str) -> None:
        self.dir = root / CACHE_DIR
        self.file = self.dir / f"{key}.json"
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False
        try:
            with open(self.file, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict):
                self.entries = data
        except (OSError, ValueError):
            pass

    def get(self, path: str, digest: str) -> list[Any] | None:
        entry = self.entries.get(path)
        if entry is not None and entry[0] == digest:
            return entry[1]
        return None

    def put(self, path: str, digest: str, diagnostics: list[Any]) -> None:
        self.entries[path] = [digest, diagnostics]
        self.dirty = True

    def save(self) -> None:
        """Write the cache (atomically), dropping entries of files that no longer exist and
        all but the :data:`KEEP` most recent cache files of other configurations."""
        if not self.dirty:
            return
        self.entries = {p: e for p, e in self.entries.items() if os.path.exists(p)}
        try:
            self.dir.mkdir(exist_ok=True)
            self._prune()
            ignore = self.dir / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Automatically created by ferry check.\n*\n")
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(self.entries, fh, separators=(",", ":"))
                os.replace(tmp, self.file)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass  # a read-only project: run without a cache
        self.dirty = False

    def _prune(self) -> None:
        others = [p for p in self.dir.glob("*.json") if p != self.file]
        if len(others) < KEEP:
            return
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[KEEP - 1 :]:
            try:
                old.unlink()
            except OSError:
                pass
