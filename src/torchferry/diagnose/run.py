"""``ferry run --report FILE`` and ``ferry run --trips``: the diagnostics around a run.

The run itself is :func:`torchferry.sim.run_path`'s (same ``__main__``,
``sys.argv``, exit codes, traceback).  This module only adds: inside the
simulation (when asked for) it enters :class:`~torchferry.diagnose.explanation.explain`'s
creation-site recording and :class:`~torchferry.diagnose.tripcount.trips`, explains a
device error right after the runner printed its traceback (through ``run_path``'s
``on_exception`` hook: still inside the simulation, while the tensors' simulated
devices are known), prints the trips
table at the end, and writes the JSON report.  The exit code is the run's.

Does not import torch at import time.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry.diagnose.record import Explanation
from torchferry.errors import UsageError

__all__ = ["run_diagnosed", "check_report_path", "ERROR_KEYS", "OPERAND_KEYS"]

ERROR_KEYS = ("type", "message", "path", "line", "source", "operands", "fix", "rule", "kind")
OPERAND_KEYS = ("expr", "device", "dtype", "shape", "created_at", "culprit")


def check_report_path(path: str) -> str:
    """Fail early (usage error, exit 2) when the report could not be written."""
    if not path:
        raise UsageError("--report needs a file name")
    if os.path.isdir(path):
        raise UsageError(f"--report {path}: is a directory; give a file name")
    if os.path.exists(path):  # a file, a symlink to one, /dev/stdout: written into
        if not os.access(path, os.W_OK):
            raise UsageError(f"--report {path}: the file is not writable")
        return path
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"--report {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"--report {path}: directory {parent} is not writable")
    return path


def error_json(report: Explanation | None) -> dict[str, Any] | None:
    """The ``"error"`` object of the JSON report (schema keys only, plus ``kind``)."""
    if report is None:
        return None
    full = report.to_dict()
    out = {k: full[k] for k in ERROR_KEYS}
    out["operands"] = [{k: o[k] for k in OPERAND_KEYS} for o in full["operands"]]
    return out


def plain_error(exc: BaseException) -> dict[str, Any]:
    """The report's ``"error"`` for an exception that is not a device error (kind null)."""
    out: dict[str, Any] = {k: None for k in ERROR_KEYS}
    out.update(type=type(exc).__name__, message=str(exc), operands=[])
    tb = exc.__traceback__
    last = None
    while tb is not None:
        if _frames.is_user_code(tb.tb_frame.f_code):
            last = tb
        tb = tb.tb_next
    if last is not None:
        path = last.tb_frame.f_code.co_filename
        out.update(path=path, line=last.tb_lineno,
                   source=_frames.source_line(path, last.tb_lineno, last.tb_frame.f_globals))
    return out


def _write_json(path: str, data: dict[str, Any]) -> None:
    from torchferry._internal.atomic import write_text

    write_text(path, json.dumps(data, indent=2) + "\n")


def run_diagnosed(
    target: str,
    argv: Sequence[str] = (),
    *,
    module: bool = False,
    simulate: str | None = None,
    count: int = 1,
    report: str | None = None,
    show_trips: bool = False,
    memory: int | None = None,
) -> int:
    """Run like ``run_path`` with the explanation, trip counting and JSON report added.

    Trips are counted when ``show_trips`` or ``report`` is set (the report holds
    them); the table is printed on stderr at the end only with ``show_trips``.
    """
    if report is not None:
        report = os.path.abspath(check_report_path(report))  # the script may chdir
    from torchferry.diagnose.explanation import explain, explain_exception, format_report
    from torchferry.diagnose.tripcount import trips

    state: dict[str, Any] = {"error": None}

    def explain_after_traceback(exc: BaseException) -> None:
        # Called by the runner right after it printed the traceback, still inside the
        # simulation, while the tensors' simulated devices are known.
        try:
            explained = explain_exception(exc)
        except Exception as e:  # never mask the script's own error
            print(f"torchferry explain: could not explain this error ({type(e).__name__}: {e})",
                  file=sys.stderr)
            return
        if explained is not None:
            print(format_report(explained), file=sys.stderr)
            state["error"] = error_json(explained)
        else:
            state["error"] = plain_error(exc)

    sim_ctx: Any = contextlib.nullcontext()
    if simulate is not None:
        sim_ctx = sim.simulate(simulate, count, memory=memory)
    counting = show_trips or report is not None
    counter = trips() if counting else None
    interrupted: KeyboardInterrupt | None = None
    code = 130
    try:
        with sim_ctx:
            with explain(file=None), counter if counter is not None else contextlib.nullcontext():
                code = sim.run_path(target, argv, module=module, simulate=None,
                                    on_exception=explain_after_traceback)
    except KeyboardInterrupt as exc:  # Ctrl-C: what was counted is still shown and written,
        interrupted = exc  # as pytest prints its summary when interrupted
        state["error"] = plain_error(exc)
    if counter is not None and show_trips:
        print(counter.format(), file=sys.stderr)
    if report is not None:
        data = {
            "error": state["error"],
            "trips": counter.rows if counter is not None else [],
        }
        try:
            _write_json(report, data)
        except OSError as e:
            print(f"ferry run: could not write the report {report}: {e}", file=sys.stderr)
            code = code or 1
    if interrupted is not None:
        raise interrupted
    return code
