"""The IPython / Jupyter / Colab extension: ``%load_ext torchferry``.

* Every cell runs with :class:`~torchferry.diagnose.explanation.explain` active: a
  device error is followed, under IPython's own traceback, by the report that
  names the tensor that missed the ferry.
* ``%ferry_check`` runs ``ferry check`` on the notebook's code cells and shows
  the findings inline.  Which cells: ``%ferry_check PATH`` checks that file or
  notebook; without a path, the notebook file the kernel belongs to when
  Jupyter says (``JPY_SESSION_NAME``, VS Code's ``__vsc_ipynb_file__``), else
  the cells run so far in this session (``In``), numbered as IPython shows them.
* ``%unload_ext torchferry`` removes both.

Importing this module imports neither torch nor IPython.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = ["load_ipython_extension", "unload_ipython_extension", "check_cells"]

_STATE: dict[int, dict[str, Any]] = {}


def _device_exception_types() -> tuple[type[BaseException], ...]:
    return (RuntimeError, TypeError, AssertionError, ValueError, NotImplementedError)


def load_ipython_extension(ipython: Any) -> None:
    """Install the explanation for every cell and the ``%ferry_check`` magic.

    >>> class Shell:  # any object with IPython's InteractiveShell methods used here
    ...     def __init__(self): self.events, self.magics = Events(), {}
    ...     def set_custom_exc(self, types, handler): self.custom = (types, handler)
    ...     def register_magic_function(self, fn, magic_kind, magic_name): self.magics[magic_name] = fn
    >>> class Events:
    ...     def __init__(self): self.cbs = []
    ...     def register(self, name, cb): self.cbs.append((name, cb))
    ...     def unregister(self, name, cb): self.cbs.remove((name, cb))
    >>> shell = Shell(); load_ipython_extension(shell)
    >>> sorted(shell.magics), [n for n, _ in shell.events.cbs]
    (['ferry_check'], ['pre_run_cell', 'post_run_cell'])
    >>> unload_ipython_extension(shell)
    """
    key = id(ipython)
    if key in _STATE:
        return
    from torchferry.diagnose.explanation import explain

    state: dict[str, Any] = {"ctx": None}

    def pre_run_cell(*_: Any) -> None:
        if state["ctx"] is None:
            ctx = explain(file=None)
            ctx.__enter__()
            state["ctx"] = ctx

    def post_run_cell(*_: Any) -> None:
        ctx = state["ctx"]
        if ctx is not None:
            state["ctx"] = None
            ctx.__exit__(None, None, None)

    def custom_exc(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> Any:
        # IPython's own traceback first, then the report
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        try:
            from torchferry.diagnose.explanation import explain_exception, format_report

            report = explain_exception(value)
        except Exception as e:  # never hide the user's error behind ours
            print(f"torchferry explain: could not explain this error ({type(e).__name__}: {e})",
                  file=sys.stderr)
            return None
        if report is not None:
            print(format_report(report), file=sys.stderr)
        return None

    state["pre"], state["post"], state["exc"] = pre_run_cell, post_run_cell, custom_exc
    ipython.events.register("pre_run_cell", pre_run_cell)
    ipython.events.register("post_run_cell", post_run_cell)
    ipython.set_custom_exc(_device_exception_types(), custom_exc)
    ipython.register_magic_function(
        _make_ferry_check(ipython), magic_kind="line", magic_name="ferry_check"
    )
    _STATE[key] = state


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` installed."""
    state = _STATE.pop(id(ipython), None)
    if state is None:
        return
    state["post"]()  # leave an explain block a failed cell may have left open
    for name in ("pre_run_cell", "post_run_cell"):
        try:
            ipython.events.unregister(name, state["pre" if name == "pre_run_cell" else "post"])
        except ValueError:
            pass
    ipython.set_custom_exc((), None)
    magics = getattr(getattr(ipython, "magics_manager", None), "magics", None)
    if isinstance(magics, dict):
        magics.get("line", {}).pop("ferry_check", None)


# ------------------------------------------------------------------ %ferry_check
def _notebook_path(ipython: Any) -> Path | None:
    ns = getattr(ipython, "user_ns", {}) or {}
    for candidate in (ns.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if candidate and str(candidate).endswith(".ipynb") and os.path.isfile(str(candidate)):
            return Path(str(candidate))
    return None


def check_cells(cells: list[tuple[int, str]], display: str = "<notebook>") -> list[Any]:
    """Run ``ferry check`` over code cells given as (cell number, source); findings by cell.

    >>> ds = check_cells([(1, "import torch"), (2, "x = torch.load('m.pt')")])
    >>> [(d.cell, d.line, d.code) for d in ds if d.code == "FRY004"]
    [(2, 1, 'FRY004')]
    """
    from torchferry.check.config import load_config
    from torchferry.check.runner import Options, check_text

    numbered: list[dict[str, Any]] = []
    for number, source in cells:
        while len(numbered) < number - 1:
            numbered.append({"cell_type": "markdown", "metadata": {}, "source": ""})
        numbered.append({"cell_type": "code", "metadata": {}, "source": source,
                         "outputs": [], "execution_count": None})
    nb = {"cells": numbered, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    cfg = load_config(Path.cwd())
    opts = Options(root=cfg.root, select=tuple(cfg.select) if cfg.select else None,
                   ignore=tuple(cfg.ignore), prefilter=False)
    outcome, _ = check_text(json.dumps(nb), display if display.endswith(".ipynb") else display + ".ipynb", opts)
    if outcome.error:
        raise ValueError(outcome.error)
    return list(outcome.diagnostics)


def _make_ferry_check(ipython: Any) -> Any:
    def ferry_check(line: str = "") -> None:
        """%ferry_check [PATH]: run `ferry check` on this notebook's code cells (or PATH)."""
        from torchferry.check.report import text_report

        try:
            args = shlex.split(line)
        except ValueError as e:
            print(f"%ferry_check: {e}", file=sys.stderr)
            return None
        if len(args) > 1:
            print("%ferry_check: give at most one PATH", file=sys.stderr)
            return None
        if args:
            from torchferry.cli import main

            main(["check", args[0]])
            return None
        path = _notebook_path(ipython)
        if path is not None:
            from torchferry.cli import main

            main(["check", str(path)])
            return None
        hist = list((getattr(ipython, "user_ns", {}) or {}).get("In", []) or [])
        cells = [(i, src) for i, src in enumerate(hist) if i > 0 and src and src.strip()]
        try:
            diags = check_cells(cells, "this session")
        except ValueError as e:
            print(f"%ferry_check: {e}", file=sys.stderr)
            return None
        if not diags:
            print(f"ferry check: {len(cells)} cell(s) of this session checked: no device mistakes found")
            return None
        text = re.sub(r"this session\.ipynb:cell (\d+):(\d+):(\d+):", r"In [\1] line \2:\3:",
                      text_report(diags))
        print(text.rstrip())
        print(f"ferry check: {len(diags)} finding(s) in {len(cells)} cell(s) of this session")
        return None

    return ferry_check
