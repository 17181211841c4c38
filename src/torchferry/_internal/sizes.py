"""Memory sizes as people write them: ``24GiB``, ``16G``, ``80GB``, ``512MiB``, ``1073741824``.

Binary units (``KiB``, ``MiB``, ``GiB``, ``TiB``; ``K``, ``M``, ``G``, ``T`` alone mean the
same, as ``docker --shm-size`` reads them) and decimal ones (``kB``/``KB``, ``MB``, ``GB``,
``TB``); no unit or ``B`` is bytes.  Case-insensitive, an optional space before the unit.

>>> parse_size("24GiB") == 24 * 1024**3 and parse_size("16g") == 16 * 1024**3
True
>>> parse_size("80GB")
80000000000
>>> format_size(24 * 1024**3)
'24 GiB'
"""

from __future__ import annotations

import re

from torchferry.errors import UsageError

_UNITS = {
    "": 1, "b": 1,
    "k": 1024, "kib": 1024, "kb": 1000,
    "m": 1024**2, "mib": 1024**2, "mb": 1000**2,
    "g": 1024**3, "gib": 1024**3, "gb": 1000**3,
    "t": 1024**4, "tib": 1024**4, "tb": 1000**4,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes in ``text``; :class:`UsageError` (one line) for anything else or for zero."""
    m = _SIZE.fullmatch(text)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS:
        raise UsageError(
            f"invalid memory size {text!r}: give a number of bytes or one with a unit, "
            "e.g. 24GiB, 16G, 80GB, 512MiB"
        )
    size = int(float(m.group(1)) * _UNITS[unit])
    if size <= 0:
        raise UsageError(f"invalid memory size {text!r}: must be more than 0 bytes")
    return size


def format_size(size: int) -> str:
    """The largest binary unit that writes ``size`` exactly (``24 GiB``, ``1536 MiB``)."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        n = _UNITS[unit.lower()]
        if size % n == 0:
            return f"{size // n} {unit}"
    return f"{size} B"
