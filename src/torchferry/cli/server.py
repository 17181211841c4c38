"""The ``ferry server`` subcommand: the checker as a Language Server over stdio."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "server",
        help="run the checker as a language server (LSP over stdio) for editors",
        description=(
            "Speak the Language Server Protocol on stdin/stdout: 'ferry check' findings "
            "as you type in Python files and notebooks, quick fixes, '# noqa' actions, rule "
            "docs on hover.  Started by the editor's LSP client (docs/editor.md)."
        ),
    )
    p.set_defaults(handler=run_server)


def run_server(args: argparse.Namespace) -> int:
    from torchferry.server.main import serve

    return serve()
