"""Run a language server, passing stdin and stdout through unchanged, and copy each
stream to a file: ``python lsp_tee.py PREFIX COMMAND...`` writes PREFIX.in (what the
editor sent) and PREFIX.out (what the server answered), the LSP frames as they came.
Shows the traffic of an editor that keeps it to itself (Kate)."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import BinaryIO


def _pump(src: BinaryIO, dst: BinaryIO, copy: BinaryIO) -> None:
    while chunk := src.read1(65536):  # type: ignore[attr-defined]
        dst.write(chunk)
        dst.flush()
        copy.write(chunk)
        copy.flush()
    dst.close()


def main() -> int:
    prefix, command = sys.argv[1], sys.argv[2:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    with open(prefix + ".in", "wb") as sent, open(prefix + ".out", "wb") as answered:
        threading.Thread(target=_pump, args=(sys.stdin.buffer, server.stdin, sent),
                         daemon=True).start()
        _pump(server.stdout, sys.stdout.buffer, answered)
    return server.wait()


if __name__ == "__main__":
    sys.exit(main())
