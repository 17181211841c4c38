"""The ``ferry`` command: parse, call the library, print.

Kept thin and torch-free at import time: ``ferry check`` must start in far less
time than ``import torch`` takes, so every subcommand imports what it needs
inside its handler.

Subcommands live next to the code they drive.  Each module named in
``COMMAND_MODULES`` defines ``register(subparsers)``, which adds its parser and
sets ``handler=`` to a function ``(args) -> exit code``.  Those modules must not
import torch at module level either.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence

from torchferry._version import __version__
from torchferry.errors import FerryError, UsageError

# Subcommand modules, in the order ``ferry --help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "torchferry.bench.command",
    "torchferry.check.command",
    "torchferry.sim.command",
)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``ferry run: error: ... (see --help)``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="ferry",
        description="Make PyTorch code device-portable, and prove it.",
        epilog="Run 'ferry COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"torchferry {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    _register_doctor(sub)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args) or 0)
    except UsageError as exc:
        print(f"ferry {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except FerryError as exc:
        print(f"ferry {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"ferry {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `ferry ... | head`
        return 0
    except Exception as exc:  # a bug of ours: one line, unless asked for the traceback
        if os.environ.get("FERRY_DEBUG"):
            raise
        print(
            f"ferry {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(rerun with FERRY_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return 2


# --------------------------------------------------------------------- doctor
def _register_doctor(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="explain why torch.cuda.is_available() agrees or disagrees with the hardware",
        description=(
            "Report Python, torch and its build, the accelerators torch sees, the NVIDIA "
            "driver, CUDA_VISIBLE_DEVICES and MPS; diagnose mismatches with their fixes. "
            "Exit 0 when nothing is wrong, 1 when a problem was found."
        ),
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from torchferry.devices import diagnose, format_diagnosis

    report = diagnose()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_diagnosis(report))
    return 1 if report["problems"] else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
