"""The IPython / Jupyter / Colab extension: ``%load_ext torchferry``.

* Every cell runs with :class:`~torchferry.diagnose.explanation.explain` active: a
  device error is followed, under IPython's own traceback, by the report that
  names the tensor that missed the ferry.  In Jupyter and Colab the report is
  shown as HTML (a table of the operands with the culprit marked); in a
  terminal it is the plain-text report on stderr.
* ``%ferry_simulate cuda [--count N]`` / ``mps`` / ``xpu``: the rest of the
  session runs on a simulated accelerator (:class:`torchferry.simulate`), across
  cells, until ``%ferry_simulate off``; ``%ferry_simulate`` alone says what is
  active.  Explanations are made while the simulation is still on, so they see
  the simulated devices.  On a runtime with a real device of that kind nothing
  is simulated: the session uses the real one.
* ``%%ferry_trips`` (first line of a cell): the cell runs, then the table of
  its host/device copies, host syncs and module moves per line
  (:class:`torchferry.trips`), with the ``ferry check`` rules and fixes of the
  rides repeated in a loop.  ``%ferry_trips on`` / ``off``: the same table after
  every cell that rode; ``%ferry_trips`` alone says which.
* ``%ferry_check`` runs ``ferry check`` on the notebook's code cells and shows
  the findings inline, each naming its cell and line.  Which cells:
  ``%ferry_check PATH`` checks that file or notebook; without a path, the
  notebook file the kernel belongs to when Jupyter says (``JPY_SESSION_NAME``,
  VS Code's ``__vsc_ipynb_file__``), else the cells run so far in this session
  (``In``), numbered as IPython shows them.
* ``%unload_ext torchferry`` ends the simulation and removes all of it.

Bad arguments to a magic raise IPython's ``UsageError``: one line, no traceback.
Importing this module imports neither torch nor IPython.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchferry.diagnose.html import Rich

__all__ = ["load_ipython_extension", "unload_ipython_extension"]

_STATE: dict[int, _Session] = {}

_ACCEL = re.compile(r"\b(cuda|mps|xpu)(?::\d+)?\b")
_INPUT_NAME = re.compile(r"<ipython-input-(\d+)-")


def _device_exception_types() -> tuple[type[BaseException], ...]:
    return (RuntimeError, TypeError, AssertionError, ValueError, NotImplementedError)


def _usage_error(message: str) -> BaseException:
    try:
        from IPython.core.error import UsageError
    except ImportError:  # pragma: no cover - only ever called from an IPython shell
        return ValueError(message)
    return UsageError(message)


# ------------------------------------------------------------------ trips counters
class _Counter:
    """A :class:`torchferry.trips` for one cell, in segments.

    The simulation starting or stopping in the middle of a cell changes how rides
    are counted (simulation events vs wrapped calls), so the counter closes its
    segment before the switch and opens a new one after it.
    """

    def __init__(self, always: bool) -> None:
        self.always = always  # show the table even when nothing rode (%%ferry_trips)
        self.segments: list[Any] = []
        self.current: Any = None

    def open(self) -> None:
        from torchferry.diagnose.tripcount import trips

        t = trips()
        t.__enter__()
        self.current = t

    def close(self) -> None:
        t, self.current = self.current, None
        if t is not None:
            t.__exit__(None, None, None)
            self.segments.append(t)

    def views(self, session: _Session, title: str) -> list[Rich]:
        from torchferry.diagnose.html import trips_view

        shown = [t for t in self.segments if t.rows]
        if not shown and self.always and self.segments:
            shown = self.segments[-1:]
        return [trips_view(t, session.where, title=title) for t in shown]


# ------------------------------------------------------------------ the session
class _Session:
    """What the extension keeps for one shell: the cell's explain block, the
    session's simulation, the trips counters, and what to show after the cell."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.depth = 0  # run_cell nesting (a magic may run cells)
        self.ctx: Any = None  # the explain block of the running cell
        self.sim: Any = None  # the session's simulation (%ferry_simulate)
        self.sim_since: int | None = None
        self.trips_on = False
        self.session_counter: _Counter | None = None
        self.counters: list[_Counter] = []  # every open counter (session's, %%ferry_trips')
        self.pending: list[Rich] = []  # shown after the cell

    # -------------------------------------------------------------- output
    @property
    def rich(self) -> bool:
        """A front end that renders HTML: a Jupyter kernel (Jupyter, Colab, VS Code)."""
        return getattr(self.shell, "kernel", None) is not None

    def show(self, view: Rich, *, stream: Any = None) -> None:
        if self.rich:
            from IPython.display import display

            display(view)
        else:
            print(view.text, file=stream or sys.stdout)

    def cell_number(self) -> int:
        """The number IPython shows for the running cell (``In [5]``).

        The highest number IPython has compiled a cell under: the running cell
        was compiled last (``execution_count`` itself is already the next one
        while a cell runs, in IPython 9).
        """
        numbers = getattr(getattr(self.shell, "compile", None), "_filename_map", None)
        if numbers:
            return max(n for n in numbers.values() if isinstance(n, int))
        return int(getattr(self.shell, "execution_count", 0) or 0)

    def where(self, path: str, line: int) -> str:
        """A place in the code as the reader knows it: ``In [5], line 3`` for a cell."""
        compiler = getattr(self.shell, "compile", None)
        number = getattr(compiler, "_filename_map", {}).get(path)
        if not isinstance(number, int):  # IPython 7 (Colab) names cells <ipython-input-N-hash>
            m = _INPUT_NAME.match(path)
            number = int(m[1]) if m else None
        if isinstance(number, int):
            return f"In [{number}], line {line}"
        from torchferry.diagnose.html import default_where

        return default_where(path, line)

    # -------------------------------------------------------------- cell hooks
    def pre_run_cell(self, *_: Any) -> None:
        self.depth += 1
        if self.depth > 1:
            return
        from torchferry.diagnose.explanation import explain

        if self.ctx is None:
            ctx = explain(file=None)
            ctx.__enter__()
            self.ctx = ctx
        if self.trips_on:
            self._open_session_counter(always=False)

    def post_run_cell(self, *_: Any) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth > 0:
            return
        try:
            counter = self.session_counter
            if counter is not None:
                self.session_counter = None
                counter.close()
                if counter in self.counters:
                    self.counters.remove(counter)
                self.pending.extend(counter.views(self, "this cell"))
            pending, self.pending = self.pending, []
            for view in pending:
                self.show(view)
        finally:
            ctx, self.ctx = self.ctx, None
            if ctx is not None:
                ctx.__exit__(None, None, None)

    def _open_session_counter(self, always: bool) -> None:
        if self.session_counter is None:
            c = _Counter(always)
            c.open()
            self.session_counter = c
            self.counters.append(c)
        else:
            self.session_counter.always = self.session_counter.always or always

    # -------------------------------------------------------------- errors
    def custom_exc(self, shell: Any, etype: type, value: BaseException, tb: Any,
                   tb_offset: Any = None) -> Any:
        # IPython's own traceback first, then the report
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        try:
            from torchferry.diagnose.explanation import explain_exception, format_report
            from torchferry.diagnose.html import explanation_view

            report = explain_exception(value)
            if report is None:
                return None
            # the line that ran a cell magic (%%ferry_trips) is IPython's, not the reader's
            via = tuple(v for v in report.via if not v.source.startswith("get_ipython()."))
            notes = self._ended_simulation_notes(report.to_dict())
            report = dataclasses.replace(report, via=via, notebook_notes=tuple(notes))
            text = format_report(report)
            if notes:
                text += "".join(f"\n  note: {n}" for n in notes)
            self.show(explanation_view(report, text, self.where), stream=sys.stderr)
        except Exception as e:  # never hide the user's error behind ours
            print(f"torchferry explain: could not explain this error ({type(e).__name__}: {e})",
                  file=sys.stderr)
        return None

    def _ended_simulation_notes(self, report: dict[str, Any]) -> list[str]:
        """A device error from a simulation that ended before the report was made.

        A cell's ``with torchferry.simulate(...)`` block is left as the error
        propagates, before IPython's handler runs: the tensors made inside report
        ``cpu`` again, so the operands disagree with PyTorch's message.
        """
        if self.sim is not None or _simulation_active():
            return []  # a simulation is on: the devices read are the simulated ones
        named = {m[1] for m in _ACCEL.finditer(str(report.get("message") or ""))}
        seen = {str(o.get("device") or "").split(":")[0] for o in report.get("operands") or []}
        if not named or not seen or named & seen:
            return []
        kind = sorted(named)[0]
        return [
            f"the devices above were read after the simulation ended: this cell's "
            f"`with torchferry.simulate(...)` block closed before the report was made, and its "
            f"tensors report cpu again. Run `%ferry_simulate {kind}` in a cell of its own (the "
            f"simulation then stays on across cells), or put `with torchferry.explain():` inside "
            f"the `with` block."
        ]

    # -------------------------------------------------------------- simulation
    def set_simulation(self, make: Callable[[], Any] | None) -> None:
        """Leave the session's simulation (if any) for ``make()`` (or none).

        ``make`` builds the new simulation (and may raise for a bad kind or count:
        then the old one stays on).  Open trips counters are closed around the
        switch and reopened after it, so each counts the way that matches the
        simulation's state.
        """
        for c in self.counters:
            c.close()
        try:
            new = make() if make is not None else None
            old, self.sim = self.sim, None
            if old is not None:
                old.__exit__(None, None, None)
            if new is not None:
                new.__enter__()  # may raise: then no simulation is on
                self.sim = new
                self.sim_since = self.cell_number()
        finally:
            for c in self.counters:
                c.open()

    def close(self) -> None:
        """Everything off: what ``%unload_ext torchferry`` does."""
        for c in self.counters:
            c.close()
        self.counters.clear()
        self.session_counter = None
        self.trips_on = False
        if self.sim is not None:
            sim, self.sim = self.sim, None
            sim.__exit__(None, None, None)
        ctx, self.ctx = self.ctx, None
        if ctx is not None:
            ctx.__exit__(None, None, None)


def _simulation_active() -> bool:
    from torchferry.sim import is_active

    return is_active()


# ------------------------------------------------------------------ load / unload
_LINE_MAGICS = ("ferry_check", "ferry_simulate", "ferry_trips")


def load_ipython_extension(ipython: Any) -> None:
    """Install the explanation for every cell and the ``%ferry_*`` magics.

    >>> class Shell:  # any object with IPython's InteractiveShell methods used here
    ...     def __init__(self): self.events, self.magics = Events(), {}
    ...     def set_custom_exc(self, types, handler): self.custom = (types, handler)
    ...     def register_magic_function(self, fn, magic_kind, magic_name):
    ...         self.magics[magic_name] = magic_kind
    >>> class Events:
    ...     def __init__(self): self.cbs = []
    ...     def register(self, name, cb): self.cbs.append((name, cb))
    ...     def unregister(self, name, cb): self.cbs.remove((name, cb))
    >>> shell = Shell(); load_ipython_extension(shell)
    >>> shell.magics, [n for n, _ in shell.events.cbs]
    ({'ferry_check': 'line', 'ferry_simulate': 'line', 'ferry_trips': 'line_cell'}, ['pre_run_cell', 'post_run_cell'])
    >>> unload_ipython_extension(shell)
    """
    key = id(ipython)
    if key in _STATE:
        return
    session = _Session(ipython)
    ipython.events.register("pre_run_cell", session.pre_run_cell)
    ipython.events.register("post_run_cell", session.post_run_cell)
    ipython.set_custom_exc(_device_exception_types(), session.custom_exc)
    ipython.register_magic_function(
        _make_ferry_check(session), magic_kind="line", magic_name="ferry_check"
    )
    ipython.register_magic_function(
        _make_ferry_simulate(session), magic_kind="line", magic_name="ferry_simulate"
    )
    ipython.register_magic_function(
        _make_ferry_trips(session), magic_kind="line_cell", magic_name="ferry_trips"
    )
    _STATE[key] = session


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` installed (and end the simulation)."""
    session = _STATE.pop(id(ipython), None)
    if session is None:
        return
    try:
        session.close()
    finally:
        for name, cb in (("pre_run_cell", session.pre_run_cell),
                         ("post_run_cell", session.post_run_cell)):
            try:
                ipython.events.unregister(name, cb)
            except ValueError:
                pass
        ipython.set_custom_exc((), None)
        magics = getattr(getattr(ipython, "magics_manager", None), "magics", None)
        if isinstance(magics, dict):
            for name in _LINE_MAGICS:
                magics.get("line", {}).pop(name, None)
            magics.get("cell", {}).pop("ferry_trips", None)


# ------------------------------------------------------------------ %ferry_simulate
def _simulate_usage() -> str:
    """The magic's usage line, one entry per simulated kind (torchferry.sim.kinds).

    >>> _simulate_usage()
    'usage: %ferry_simulate [cuda [--count N] | mps | xpu [--count N] | off]'
    """
    from torchferry.sim import device_kind, kind_names

    entries = [k if getattr(device_kind(k), "max_count", None) == 1 else f"{k} [--count N]"
               for k in kind_names()]
    return f"usage: %ferry_simulate [{' | '.join(entries)} | off]"


def _parse_simulate(line: str) -> tuple[str | None, int]:
    """``(kind or "off" or None, count)`` from the magic's line, or a UsageError.

    >>> _parse_simulate("cuda --count 2"), _parse_simulate("--count=2 cuda"), _parse_simulate("")
    (('cuda', 2), ('cuda', 2), (None, 1))
    """
    try:
        args = shlex.split(line)
    except ValueError as e:
        raise _usage_error(f"%ferry_simulate: {e}") from None
    kind: str | None = None
    count: int | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--count" or a.startswith("--count="):
            if a == "--count":
                if i + 1 >= len(args):
                    raise _usage_error(f"%ferry_simulate: --count needs a number; {_simulate_usage()}")
                value = args[i + 1]
                i += 1
            else:
                value = a.split("=", 1)[1]
            try:
                count = int(value)
            except ValueError:
                raise _usage_error(
                    f"%ferry_simulate: --count must be a positive integer, not {value!r}"
                ) from None
            if count < 1:
                raise _usage_error(f"%ferry_simulate: --count must be a positive integer, not {value!r}")
        elif a.startswith("-"):
            raise _usage_error(f"%ferry_simulate: unknown option {a!r}; {_simulate_usage()}")
        elif kind is None:
            kind = a.lower()
        else:
            raise _usage_error(f"%ferry_simulate: one device kind at a time; {_simulate_usage()}")
        i += 1
    if count is not None and kind in (None, "off"):
        raise _usage_error(f"%ferry_simulate: --count goes with a device kind; {_simulate_usage()}")
    return kind, count or 1


def _new_simulation(kind: str, count: int) -> Any:
    """``simulate(kind, count)``, not entered; a bad kind or count is a UsageError."""
    from torchferry.sim import simulate

    try:
        return simulate(kind, count)
    except ValueError as e:
        why = str(e).removeprefix("simulate: ")
        if why.startswith("kind "):
            why += " (or off, to end the simulation)"
        raise _usage_error(f"%ferry_simulate: {why}") from None


def _real_device(kind: str) -> str | None:
    """The name of a real device of this kind, when the runtime has one (no simulation on)."""
    import torch

    from torchferry.sim import device_kind

    spec = device_kind(kind)
    if spec is None or not spec.present():
        return None
    api = getattr(torch, spec.api_module, None) if spec.api_module else None
    name = getattr(api, "get_device_name", None)
    return str(name(0)) if name is not None else f"{spec.backend} device"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _make_ferry_simulate(session: _Session) -> Any:
    def ferry_simulate(line: str = "") -> None:
        """%ferry_simulate [KIND [--count N] | off]: a simulated GPU for the whole session
        (KIND: cuda, mps, xpu, ...: torchferry.sim.kinds)."""
        kind, count = _parse_simulate(line)
        sim = session.sim
        if kind is None:
            if sim is not None:
                since = f" since In [{session.sim_since}]" if session.sim_since else ""
                print(f"torchferry: simulating {sim.kind} ({_plural(sim.count, 'device')}){since}: "
                      f"the numbers are computed on the CPU; `%ferry_simulate off` ends it")
            elif _simulation_active():
                print("torchferry: a simulation is active, entered by the code "
                      "(`with torchferry.simulate(...)`), not by %ferry_simulate")
            else:
                import torch

                print(f"torchferry: no simulated device; this session runs on the real devices "
                      f"(torch.cuda.is_available() is {torch.cuda.is_available()})")
            return None
        if kind == "off":
            if sim is None:
                print("torchferry: no simulation was on")
                return None
            session.set_simulation(None)
            print(f"torchferry: simulated {sim.kind} off; tensors made under it now report cpu "
                  "(their data always was on the CPU)")
            return None
        if sim is not None and sim.kind == kind and sim.count == count:
            print(f"torchferry: simulated {kind} ({_plural(count, 'device')}) is already on")
            return None
        if sim is None and _simulation_active():
            raise _usage_error(
                "%ferry_simulate: a simulation entered by the code (`with torchferry.simulate(...)`) "
                "is active; leave it first"
            )
        if sim is None:
            real = _real_device(kind)
            if real is not None:
                print(f"torchferry: this runtime has a real {kind} device ({real}): the session runs "
                      "on it; nothing is simulated")
                return None
        from torchferry.errors import SimulationError

        try:
            session.set_simulation(lambda: _new_simulation(kind, count))
        except SimulationError as e:
            raise _usage_error(f"%ferry_simulate: {e}") from None
        switched = (f" (simulated {sim.kind} is off: tensors made under it now report cpu)"
                    if sim is not None else "")
        first = f"{kind}:0" if count == 1 else f"{kind}:0 to {kind}:{count - 1}"
        from torchferry.sim import device_kind

        spec = device_kind(kind)
        avail = spec.availability if spec is not None else f"torch.{kind}.is_available()"
        print(f"torchferry: simulated {kind} on for this session ({_plural(count, 'device')}: {first})"
              f"{switched}: {avail} is True, tensors moved there report {kind}:0 and every device rule "
              "is checked; the numbers are computed on the CPU. `%ferry_simulate off` ends it.")
        return None

    return ferry_simulate


# ------------------------------------------------------------------ %ferry_trips / %%ferry_trips
def _run_cell_body(session: _Session, cell: str) -> Any:
    """Run a cell magic's body as IPython runs a cell: same namespace, magics
    allowed, its lines numbered as the cell shows them, the value of a last
    expression returned (and shown as the cell's output).  Errors propagate, so
    the cell fails as it would without the magic."""
    shell = session.shell
    # line 1 is the %%ferry_trips line: keep the cell's line numbers (and show it in tracebacks)
    source = "# %%ferry_trips\n" + shell.transform_cell(cell)
    compiler = shell.compile
    try:
        filename = compiler.cache(source, session.cell_number(), raw_code="%%ferry_trips\n" + cell)
    except TypeError:  # IPython < 7.23: no raw_code
        filename = compiler.cache(source, session.cell_number())
    tree = ast.parse(source, filename=filename)
    last: ast.Expression | None = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    ns_globals, ns_locals = shell.user_global_ns, shell.user_ns
    exec(compiler(tree, filename, "exec"), ns_globals, ns_locals)
    if last is not None:
        return eval(compiler(last, filename, "eval"), ns_globals, ns_locals)
    return None


def _make_ferry_trips(session: _Session) -> Any:
    def ferry_trips(line: str = "", cell: str | None = None) -> Any:
        """%%ferry_trips: the cell's ferry rides after it; %ferry_trips on|off: after every cell."""
        arg = line.strip().lower()
        if cell is not None:
            if arg:
                raise _usage_error("%%ferry_trips takes no arguments (the cell below it is counted)")
            if session.trips_on and session.session_counter is not None:
                session.session_counter.always = True  # the session's table is this cell's
                return _run_cell_body(session, cell)
            counter = _Counter(always=True)
            counter.open()
            session.counters.append(counter)
            try:
                return _run_cell_body(session, cell)
            finally:
                counter.close()
                session.counters.remove(counter)
                session.pending.extend(counter.views(session, "%%ferry_trips"))
        if arg == "":
            state = "on: the table follows every cell that rode" if session.trips_on else (
                "off (`%ferry_trips on` shows the table after every cell; `%%ferry_trips` "
                "as a cell's first line, after that cell)")
            print(f"torchferry trips: {state}")
            return None
        if arg == "on":
            if session.trips_on:
                print("torchferry trips: already on")
                return None
            session.trips_on = True
            if session.depth > 0:
                session._open_session_counter(always=False)  # the rest of this cell counts too
            print("torchferry trips: on; the table of host/device copies, syncs and module moves "
                  "follows every cell that rode (`%ferry_trips off` ends it)")
            return None
        if arg == "off":
            if not session.trips_on:
                print("torchferry trips: already off")
                return None
            session.trips_on = False
            running = session.session_counter
            if running is not None:
                session.session_counter = None
                running.close()
                session.counters.remove(running)
                session.pending.extend(running.views(session, "this cell"))
            print("torchferry trips: off")
            return None
        raise _usage_error(f"%ferry_trips: expected on or off, not {line.strip()!r}")

    return ferry_trips


# ------------------------------------------------------------------ %ferry_check
def _notebook_path(ipython: Any) -> Path | None:
    ns = getattr(ipython, "user_ns", {}) or {}
    for candidate in (ns.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if candidate and str(candidate).endswith(".ipynb") and os.path.isfile(str(candidate)):
            return Path(str(candidate))
    return None


@dataclass(frozen=True)
class _Found:
    """A ``ferry check`` finding in a cell of this session (what the view shows)."""

    cell: int  #: the execution count (``In [N]``)
    line: int
    column: int
    code: str
    name: str
    message: str
    fix: Any
    source_line: str


def _check_session(cells: list[tuple[int, str]], opts: Any) -> list[_Found]:
    """``ferry check`` on the session's cells (as one program), by execution count."""
    from torchferry.check import check_cells
    from torchferry.diagnose._rules import rule_name

    found = check_cells([src for _, src in cells], select=opts.select, ignore=opts.ignore,
                        path="this session")
    out = []
    for hit in found:
        number, text = cells[hit.cell]
        f = hit.finding
        lines = text.splitlines()
        out.append(_Found(number, f.line, f.column, f.code, rule_name(f.code), f.message,
                          f.fix, lines[f.line - 1] if 0 < f.line <= len(lines) else ""))
    return out


def _check_options(start: Path) -> Any:
    """The ``ferry check`` options for ``start``: its project's ``[tool.torchferry]``."""
    from torchferry.check.config import load_config
    from torchferry.check.runner import Options
    from torchferry.errors import UsageError

    try:
        cfg = load_config(start)
    except UsageError as e:
        raise _usage_error(f"%ferry_check: {e}") from None
    opts = Options(root=cfg.root, select=cfg.selection(),
                   ignore=tuple(cfg.ignore), per_file_ignores=cfg.per_file_ignores,
                   prefilter=False)
    return cfg, opts


def _session_cells(ipython: Any) -> list[tuple[int, str]]:
    """The cells run so far, as typed (IPython syntax and all), by execution count."""
    hist = getattr(getattr(ipython, "history_manager", None), "input_hist_raw", None)
    if hist is None:
        hist = (getattr(ipython, "user_ns", {}) or {}).get("In", [])
    return [(i, src) for i, src in enumerate(list(hist or [])) if i > 0 and src and src.strip()]


def _findings_text(diags: list[Any], place: Any, summary: str) -> str:
    out = []
    for d in diags:
        out.append(f"{place(d)}:{d.column + 1}: {d.code} {d.message}")
        if d.source_line.strip():
            out.append(f"    {d.source_line.rstrip()}")
    out.append(summary)
    return "\n".join(out)


def _make_ferry_check(session: _Session) -> Any:
    ipython = session.shell

    def ferry_check(line: str = "") -> None:
        """%ferry_check [PATH]: run `ferry check` on this notebook's code cells (or PATH)."""
        from torchferry.diagnose.html import findings_view

        try:
            args = shlex.split(line)
        except ValueError as e:
            raise _usage_error(f"%ferry_check: {e}") from None
        if len(args) > 1:
            raise _usage_error("%ferry_check: give at most one PATH (a .py file, a notebook or a directory)")
        target = Path(args[0]) if args else _notebook_path(ipython)
        if target is None:
            cells = _session_cells(ipython)
            _cfg, opts = _check_options(Path.cwd())
            diags: list[Any] = _check_session(cells, opts)
            checked = f"{_plural(len(cells), 'cell')} of this session"

            def place(d: Any) -> str:
                return f"In [{d.cell}], line {d.line}"
        else:
            if not target.exists():
                raise _usage_error(f"%ferry_check: {target}: no such file or directory")
            from torchferry.check.files import discover
            from torchferry.check.runner import check_paths

            cfg, opts = _check_options(target)
            files = discover([str(target)], cfg.root, cfg.excludes)
            outcomes = check_paths(files, opts)
            for o in outcomes:
                if o.error:
                    print(f"ferry check: error: {o.display}: {o.error}", file=sys.stderr)
            diags = sorted((d for o in outcomes for d in o.diagnostics),
                           key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.code))
            checked = _plural(len(outcomes), "file")

            def place(d: Any) -> str:
                cell = f", cell {d.cell}" if d.cell is not None else ""
                return f"{d.path}{cell}, line {d.line}"
        if diags:
            summary = f"ferry check: {_plural(len(diags), 'finding')} in {checked}"
        else:
            summary = f"ferry check: {checked} checked: no device mistakes found"
        session.show(findings_view(diags, _findings_text(diags, place, summary), place, summary))
        return None

    return ferry_check
