"""The ``ferry`` command: parse, call the library, print.

Every piece of argparse code of torchferry lives in this package, and nothing
else in torchferry imports it (tests/test_architecture.py enforces both).  It is
the top layer: a subcommand composes the packages below it (``ferry run`` puts
:mod:`torchferry.sim` and :mod:`torchferry.diagnose` together).

Kept thin and torch-free at import time: ``ferry check`` must start in far less
time than ``import torch`` takes, so every subcommand imports what it needs
inside its handler.

Each module named in ``COMMAND_MODULES`` defines ``register(subparsers)``, which
adds its parser and sets ``handler=`` to a function ``(args) -> exit code``.
Those modules must not import torch at module level either.

>>> build_parser().parse_args(["doctor", "--json"]).json
True
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from torchferry._version import __version__
from torchferry.errors import FerryError, TorchMissingError, UsageError

# Subcommand modules, in the order ``ferry --help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "torchferry.cli.doctor",
    "torchferry.cli.bench",
    "torchferry.cli.check",
    "torchferry.cli.run",
    "torchferry.cli.server",
)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``ferry run: error: ... (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser(prog: str = "ferry", command: str | None = None) -> Parser:
    """The ``ferry`` parser with every command; with ``command``, the module of that name
    (``torchferry.cli.check`` for ``check``) is tried first, and when it registers the
    command the parser holds its commands alone: ``ferry check`` imports no other
    command's module (``ferry bench``'s profiles, the simulator), a faster start."""
    own = f"torchferry.cli.{command}"
    if command is not None and own in COMMAND_MODULES:
        parser, sub = _empty_parser(prog)
        importlib.import_module(own).register(sub)
        if command in sub.choices:
            return parser
    parser, sub = _empty_parser(prog)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _empty_parser(prog: str) -> tuple[Parser, Any]:
    """The top-level parser and its (still empty) subcommands action."""
    parser = Parser(
        prog=prog,
        description="Make PyTorch code device-portable, and prove it.",
        epilog="Run 'ferry COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"torchferry {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    return parser, sub


def _command_parser(parser: Parser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``ferry COMMAND`` (``parser`` itself when there is none)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        choices = action.choices
        if isinstance(choices, dict) and command in choices:
            sub: argparse.ArgumentParser = choices[command]
            return sub
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "ferry") -> int:
    """Run the ``ferry`` command line (``prog``: the name usage lines give it)."""
    argv_given = argv
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog, argv[0] if argv else None)
    script_args = None
    if argv[:1] == ["run"]:  # SCRIPT's arguments go to it verbatim, "--" included
        from torchferry.cli.run import split_script_args

        argv, script_args = split_script_args(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's own error ("ferry doctor: ... see 'ferry doctor --help'")
        _command_parser(parser, getattr(args, "command", None)).error(
            f"unrecognized arguments: {' '.join(extra)}")
    if script_args is not None:
        if getattr(args, "module", None) is not None:
            args.module = [*args.module, *script_args]
        else:
            args.args = script_args
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    # argv None: this process is the `ferry` command (console script, python -m
    # torchferry) and ends after the handler; process-wide tuning is ours to do.
    args.whole_process = argv_given is None
    try:
        return int(handler(args) or 0)
    except UsageError as exc:
        print(f"ferry {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # TorchMissingError too (before FerryError: exit 2)
        missing = (exc.name or "").split(".")[0]
        if missing not in ("torch", "numpy"):
            return _internal_error(args.command, exc)
        from torchferry._internal.lazy import missing_heavy

        why = TorchMissingError("this command", missing_heavy(missing))
        print(f"ferry {args.command}: {why}; only 'ferry check' works without it",
              file=sys.stderr)
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
        return _internal_error(args.command, exc)


def _internal_error(command: str, exc: Exception) -> int:
    if os.environ.get("FERRY_DEBUG"):
        raise exc
    print(
        f"ferry {command}: internal error: {type(exc).__name__}: {exc} "
        "(rerun with FERRY_DEBUG=1 for the traceback, and please report it)",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
