"""``ferry run``: run a script or module as python would, optionally on a simulated GPU.

Does not import torch at import time.
"""

from __future__ import annotations

import argparse
from typing import Any

from torchferry.errors import UsageError
from torchferry.sim import device_kind, kind_names


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _memory(text: str) -> int:
    from torchferry._internal.sizes import parse_size

    try:
        return parse_size(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_PARSER: Any = None  # the `ferry run` parser, for split_script_args


def split_script_args(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """Split ``ferry run`` arguments (``argv[0] == "run"``) after SCRIPT: (what ferry
    parses, up to and including SCRIPT; the script's own arguments, verbatim), or
    ``(argv, None)`` when there is none (``--help``, an error).  With ``-m MODULE``
    the split is after MODULE.

    argparse would drop the first ``--`` after SCRIPT (``ferry run s.py -- --x`` gave
    the script ``['--x']``); python passes it on, so must we.
    """
    actions = _PARSER._option_string_actions if _PARSER is not None else {}
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            i += 1
            break
        if token.startswith("-") and token != "-":
            if token.startswith("-m"):  # -m MODULE [ARGS], or -mMODULE [ARGS]
                end = i + 1 if len(token) > 2 else i + 2
                return (argv[:end], argv[end:]) if end <= len(argv) else (argv, None)
            action = actions.get(token.split("=", 1)[0])
            if action is None:
                return argv, None  # an unknown option: let argparse say so
            takes_value = action.nargs != 0 and "=" not in token
            i += 2 if takes_value else 1
            continue
        break
    if i >= len(argv):
        return argv, None
    return argv[: i + 1], argv[i + 1 :]


def _die_by_sigint() -> None:
    """End the process as python does after an uncaught KeyboardInterrupt: killed by
    SIGINT (exit status -2 to a parent, 130 in a shell), not a plain exit."""
    import os
    import signal
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - dying anyway
            pass
    if hasattr(signal, "SIGINT") and hasattr(os, "kill"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    raise SystemExit(130)  # pragma: no cover - where signals cannot be raised


def register(sub: Any) -> None:
    """Add ``ferry run`` to the subcommands ``sub``."""
    global _PARSER
    p = sub.add_parser(
        "run",
        help="run a script like python does, optionally on a simulated GPU",
        description=(
            "Run SCRIPT (or -m MODULE) as 'python SCRIPT ARGS' would: __name__ is '__main__', "
            "sys.argv is [SCRIPT, *ARGS], the script's directory is first on sys.path. With "
            "--simulate KIND it runs on a simulated accelerator: torch.cuda.is_available() is "
            "True, tensors report and print their GPU device, and device mistakes raise "
            "PyTorch's own errors; the numbers are computed on the CPU. Exit status: the "
            "script's (1 after an uncaught exception); 2 for a missing script or a bad option."
        ),
    )
    _simulation_arguments(p)
    _diagnosis_arguments(p)
    _script_arguments(p)
    _PARSER = p
    p.set_defaults(handler=_run)


def _simulation_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry run`` for the simulated accelerator and the ranks."""
    kinds = kind_names()  # the simulation's registry (torchferry.sim.kinds)
    p.add_argument(
        "--simulate",
        choices=kinds,
        metavar="KIND",
        help=f"simulate an accelerator of this kind: {', '.join(kinds)}",
    )
    p.add_argument(
        "--device-count",
        type=_count,
        default=None,
        metavar="N",
        help="number of simulated devices (default 1, LOCAL_WORLD_SIZE under torchrun; "
        "needs --simulate)",
    )
    p.add_argument(
        "--memory",
        type=_memory,
        default=None,
        metavar="SIZE",
        help="memory of each simulated device, e.g. 24GiB, 16G, 80GB (default 80 GiB): what "
        "torch.cuda.mem_get_info() and get_device_properties().total_memory report; needs "
        "--simulate",
    )
    p.add_argument(
        "--nproc-per-node",
        type=_count,
        default=None,
        metavar="N",
        help="start N ranks through torch's own launcher (torchrun --standalone), each "
        "running the script; with --simulate each rank has its own simulated devices, "
        "N per node unless --device-count (under torchrun, ferry run --simulate defaults "
        "to LOCAL_WORLD_SIZE devices)",
    )


def _diagnosis_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry run`` for its diagnostics (:mod:`torchferry.diagnose`), and the
    epilog that tells what follows a device error."""
    p.add_argument(
        "--report",
        metavar="FILE",
        default=None,
        help="also write a JSON report: the explained device error (or null) and the trips",
    )
    p.add_argument(
        "--trips",
        action="store_true",
        help="count host<->device copies, host syncs and module moves per line of the "
        "script; print the table, most costly first, at the end",
    )
    p.epilog = (
        "A device error (tensors on different devices, .numpy() of a GPU tensor, a GPU "
        "checkpoint without map_location, ...) is followed, after the traceback, by an "
        "explanation: the operand of your line on the odd device, where it was created, the "
        "fix and the 'ferry check' rule."
    )


def _script_arguments(p: argparse.ArgumentParser) -> None:
    """What ``ferry run`` runs: ``-m MODULE`` or ``SCRIPT``, and the arguments passed on."""
    p.add_argument(
        "-m",
        dest="module",
        nargs=argparse.REMAINDER,
        metavar="MODULE [ARGS]",
        help="run a module, as python -m does (everything after it goes to the module)",
    )
    p.add_argument("target", nargs="?", metavar="SCRIPT", help="the script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")


def _run(args: argparse.Namespace) -> int:
    if args.device_count is not None and args.simulate is None:
        raise UsageError("--device-count needs --simulate KIND")
    if args.memory is not None and args.simulate is None:
        raise UsageError("--memory needs --simulate KIND")
    if args.module is not None:
        if args.target is not None:
            raise UsageError("give either SCRIPT or -m MODULE, not both")
        if not args.module:
            raise UsageError("-m needs a MODULE name")
        target, module, argv = args.module[0], True, list(args.module[1:])
    else:
        if args.target is None:
            raise UsageError("give a SCRIPT to run, or -m MODULE")
        target, module, argv = args.target, False, list(args.args)
    from torchferry.sim.launcher import default_count, launch

    if args.nproc_per_node is not None:
        if args.report is not None:
            raise UsageError("--report cannot be combined with --nproc-per-node (one file, N ranks)")
        return launch(target, argv, module=module, simulate=args.simulate,
                      count=args.device_count, nproc_per_node=args.nproc_per_node,
                      trips=args.trips, memory=args.memory)
    # diagnostics (torchferry.diagnose): device errors are explained after the
    # traceback; --trips / --report add the trip table and the JSON report
    from torchferry.diagnose.run import run_diagnosed

    try:
        return run_diagnosed(
            target,
            argv,
            module=module,
            simulate=args.simulate,
            count=args.device_count or _default_count(args.simulate, default_count),
            report=args.report,
            show_trips=args.trips,
            memory=args.memory,
        )
    except KeyboardInterrupt:  # the traceback is printed, the simulation and report closed
        _die_by_sigint()
        raise


def _default_count(kind: str | None, per_rank: Any) -> int:
    """Simulated devices without ``--device-count``: ``per_rank()`` (the launcher's, one per
    torchrun rank) for a kind a machine can have several of, else 1."""
    spec = device_kind(kind) if kind is not None else None
    if spec is None or spec.max_count is not None:
        return 1
    return int(per_rank())
