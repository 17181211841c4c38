"""The environment a simulation gives the Python processes it starts (see ``sim/inherit.py``).

``TORCHFERRY_SIMULATE=KIND:COUNT:MEMORY`` and ``PYTHONPATH`` starting with the folder of
the ``sitecustomize`` that starts the simulation in a child.  Imports neither torch nor
the simulation.
"""

from __future__ import annotations

import os
from typing import Any

ENV = "TORCHFERRY_SIMULATE"
CHILD_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child")


def encode(kind: str, count: int, memory: int) -> str:
    """The environment value for a simulation.

    >>> encode("cuda", 2, 1024)
    'cuda:2:1024'
    """
    return f"{kind}:{count}:{memory}"


def decode(value: str) -> tuple[str, int, int]:
    """``(kind, count, memory)`` from :func:`encode`'s value; ValueError if malformed.

    >>> decode("cuda:2:1024")
    ('cuda', 2, 1024)
    """
    kind, count, memory = value.split(":")
    return kind, int(count), int(memory)


def child_environment(environ: Any, value: str) -> dict[str, str | None]:
    """Set the variables children inherit in ``environ``; return what they were before
    (None: unset), for :func:`restore`."""
    before = {ENV: environ.get(ENV), "PYTHONPATH": environ.get("PYTHONPATH")}
    environ[ENV] = value
    rest = [p for p in (before["PYTHONPATH"] or "").split(os.pathsep) if p and p != CHILD_DIR]
    environ["PYTHONPATH"] = os.pathsep.join([CHILD_DIR, *rest])
    return before


def restore(environ: Any, before: dict[str, str | None]) -> None:
    for name, value in before.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
