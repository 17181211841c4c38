"""Source encodings that a project's declared dependency registers.

A file may declare an encoding that Python does not know by itself: FCGF's
``# -*- coding: future_fstrings -*-`` names the codec that the ``future-fstrings``
distribution registers when it is installed (its ``.pth`` file runs at start-up).  On
Python 3.6 and later that codec decodes plain UTF-8 (it rewrites f-strings only for older
Pythons), so in the environment the project declares, the file reads as UTF-8.  Where the
project's root does not declare the distribution (``requirements*.txt``, ``setup.py``,
``setup.cfg``, ``pyproject.toml``, read as :mod:`torchferry.check.torch_version` reads the
torch requirement), the declaration stays an unknown encoding: a FRY000.

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> declared_codecs(d)
frozenset()
>>> _ = (d / "requirements.txt").write_text("numpy\\nfuture-fstrings\\n")
>>> sorted(declared_codecs(d))
['future_fstrings']
>>> cookie(b"# -*- coding: future-fstrings -*-\\nx = 1\\n")
'future_fstrings'
"""

from __future__ import annotations

import re
from pathlib import Path

from torchferry.check.torch_version import declarations

#: codec (as a cookie names it, normalised) -> the distribution that registers it, whose
#: decoding on the Pythons torch supports is UTF-8's
UTF8_CODECS = {"future_fstrings": "future-fstrings"}

#: PEP 263's cookie, on one of the first two lines
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def declared_codecs(root: Path) -> frozenset[str]:
    """The codecs of :data:`UTF8_CODECS` whose distribution the project at ``root`` declares."""
    return frozenset(c for c, dist in UTF8_CODECS.items() if declarations(root, dist))


def cookie(data: bytes) -> str | None:
    """The encoding the first two lines of ``data`` declare, normalised (``future_fstrings``)."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    m = _COOKIE.search(data if second < 0 else data[:second])
    return m.group(1).decode("ascii", "replace").lower().replace("-", "_") if m else None
