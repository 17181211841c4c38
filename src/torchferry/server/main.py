"""The entry point of ``ferry server``: a :class:`FerryServer` with every feature, on stdio."""

from __future__ import annotations

import sys

from torchferry.server import features
from torchferry.server.protocol import FerryServer

__all__ = ["build", "serve"]


def build() -> FerryServer:
    """A server with every handler registered (not yet started)."""
    ls = FerryServer()
    features.register(ls)
    return ls


def serve() -> int:
    """Speak LSP on stdin/stdout until the client exits; 0 after a clean shutdown, 1 when
    the client went away without one (the protocol's rule for ``exit``)."""
    import gc

    ls = build()
    from torchferry.check.engine import resolve_rules

    resolve_rules()  # import every rule now, not on the first keystroke
    gc.freeze()  # what startup imported lives to the end: collections skip it
    ls.start_io()
    if not getattr(ls.protocol, "_shutdown", False):
        print("ferry server: the client disconnected without a shutdown request", file=sys.stderr)
        return 1
    return 0
