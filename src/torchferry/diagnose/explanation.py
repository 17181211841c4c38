"""Name the tensor that missed the ferry: explain a device error in terms of the user's code.

PyTorch's device errors name two devices, sometimes an argument slot, never the
variable and never where that tensor was made.  :func:`explain_exception` reads
the traceback of such an error and reports

* the innermost line of the user's own code (not torch, not a library);
* each tensor operand of that line as written (``labels``, ``self.scale``,
  ``batch["mask"]``, ``model(x)``) with device, dtype and shape, read without
  re-running anything (see :mod:`torchferry.diagnose.operands`);
* which operand is on the odd device, and where it was created or last moved;
* a one-line fix and the ``ferry check`` rule that finds the mistake statically.

The report is an :class:`~torchferry.diagnose.record.Explanation`; which family the
error belongs to, its culprits and its fix are its handler's
(:mod:`torchferry.diagnose.families`).  :class:`explain` is the context manager that does this for a block of code,
printing the report on stderr after the normal traceback.

>>> import torch, torchferry as tf
>>> x, w = torch.ones(3, device="meta"), torch.ones(3, device="meta")  # meta: a second device
>>> labels = torch.ones(3)
>>> try:
...     with tf.explain(file=None) as ex:
...         y = x * w + labels
... except RuntimeError:
...     pass
>>> [(o.expr, o.device, o.culprit) for o in ex.report.operands]
[('x', 'meta', False), ('w', 'meta', False), ('labels', 'cpu', True)]
>>> ex.report.fix
'labels = labels.to(x.device)  (move it with the others)'
>>> ex.report.rule is None  # no `ferry check` rule finds this line (no batch loop)
True
"""

from __future__ import annotations

import ast
import contextlib
import linecache
import os
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, Literal, TextIO

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry._internal.patcher import Patch
from torchferry.diagnose import operands as ops
from torchferry.diagnose._rules import rule_name
from torchferry.diagnose.families import classify, identify
from torchferry.diagnose.handler import ErrorKind, FixContext, Handler, code_line, without_operands
from torchferry.diagnose.record import ExplainedOperand, Explanation, Site
from torchferry.diagnose.sites import RECORDER, created_at

__all__ = ["explain", "explain_exception", "format_report", "classify", "restore_excepthook", "Explanation"]

# ------------------------------------------------------------ tensor facts
def _module_device(m: Any) -> tuple[Any, Any] | None:
    for t in m.parameters():
        return sim.device_of(t), t.dtype
    for t in m.buffers():
        return sim.device_of(t), t.dtype
    return None


def _describe(op: ops.Operand, value: Any) -> None:
    torch = sys.modules.get("torch")
    if torch is None or value is ops.UNKNOWN:
        return
    op.value = value
    if isinstance(value, ops._IndexedView):
        t = value.base
        op.kind, op.device, op.dtype = ops.OperandKind.TENSOR, str(sim.device_of(t)), _dtype(t.dtype)
        op.note = "indexed: device and dtype of the tensor indexed"
        op.value = t
        return
    if isinstance(value, torch.Tensor):
        op.kind = ops.OperandKind.TENSOR
        op.device, op.dtype, op.shape = str(sim.device_of(value)), _dtype(value.dtype), list(value.shape)
    elif isinstance(value, torch.nn.Module):
        md = _module_device(value)
        if md is not None:
            op.kind = ops.OperandKind.MODULE
            op.device, op.dtype = str(md[0]), _dtype(md[1])
            op.note = f"{type(value).__name__}: its parameters"


def _dtype(d: Any) -> str:
    return str(d).replace("torch.", "")


# ------------------------------------------------------------ the report
def explain_exception(exc: BaseException) -> Explanation | None:
    """The explanation of a device error (an :class:`Explanation`), or None for any other error.

    The family is found by PyTorch's exact text in ``exc`` or an exception it was
    raised from (:data:`torchferry.diagnose.families.HANDLERS`).  ``.to_dict()`` gives
    it as JSON types.  Call it while the tensors are alive (the traceback keeps them)
    and, in a simulation, before leaving it.
    """
    found = identify(exc)
    if found is None:
        return None
    handler, err, kind = found
    entries = ops.traceback_entries(err.__traceback__)
    user = [i for i, e in enumerate(entries) if _frames.is_user_code(e.tb_frame.f_code)]
    if not handler.reads_operands or not user:
        return without_operands(handler, err, kind)
    return _explain_line(handler, err, kind, entries, user)


@dataclass
class _Failing:
    """The failing line of the user's code, parsed."""

    frame: FrameType
    line: int
    focus: ast.AST | None  # the failing expression
    stmt: ast.stmt | None
    tree: ast.Module | None
    source: str  # the file's text ('' when it cannot be parsed)
    callee: FrameType | None  # the frame that line called, when it is the next one
    outer: list[tuple[FrameType, int]]  # the user's calling lines, outermost first

    @property
    def path(self) -> str:
        return self.frame.f_code.co_filename


def _failing(entries: list[TracebackType], user: list[int]) -> _Failing:
    idx = user[-1]
    tb = entries[idx]
    frame, line = tb.tb_frame, tb.tb_lineno
    focus, stmt, tree = ops.focus_node(frame, line, tb.tb_lasti)
    path = frame.f_code.co_filename
    source = "".join(linecache.getlines(path, frame.f_globals)) if tree is not None else ""
    callee = entries[idx + 1].tb_frame if idx + 1 < len(entries) else None
    outer = [(entries[i].tb_frame, entries[i].tb_lineno) for i in user[:-1]]
    return _Failing(frame, line, focus, stmt, tree, source, callee, outer)


def _operands_of(f: _Failing) -> list[ops.Operand]:
    operands = _collect(f.focus, f.frame, f.callee, f.source)
    stmt = f.stmt
    if (isinstance(stmt, (ast.Assign, ast.AugAssign)) and isinstance(f.focus, ast.Subscript)
            and f.focus in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
        # x[idx] = values: the values are an operand of the store too
        known = {o.expr for o in operands}
        operands += [o for o in _collect(stmt.value, f.frame, None, f.source) if o.expr not in known]
    return operands


def _explain_line(handler: Handler, err: BaseException, kind: ErrorKind,
                  entries: list[TracebackType], user: list[int]) -> Explanation:
    f = _failing(entries, user)
    operands = _operands_of(f)
    odd, good = handler.culprits(kind, operands, f.frame)
    for o in operands:
        if o.culprit:
            o.created_at = created_at(o, f.frame, f.tree, f.line, f.outer)
    fix, rule = handler.fix(FixContext(kind, operands, f.focus, f.frame, good, f.tree, f.line))
    made = [o.created_at["line"] for o in operands if o.culprit and o.created_at
            and _same_file(o.created_at["path"], f.path)]
    rule, found, discarded = _static_rule(rule, f.source, f.path, f.line,
                                          [o.expr for o in operands if o.culprit], made)
    if discarded is not None:
        fix = (f"{fix}  (line {discarded[0]} computes {discarded[1]} and discards the result: "
               ".to() is not in place)")
    return Explanation(
        kind.family, kind.title, type(err).__name__, str(err),
        at=code_line(f.frame, f.line), via=tuple(code_line(fr, ln) for fr, ln in f.outer[-3:]),
        operands=_explained(handler, operands), fix=fix, rule=rule, found_statically=found,
        argument=kind.arg, odd_device=odd, good_device=good,
        operands_unread=handler.operands_expected and not operands,
    )


def _explained(handler: Handler, operands: list[ops.Operand]) -> tuple[ExplainedOperand, ...]:
    others = sorted({o.device for o in operands if not o.culprit and o.device})
    return tuple(
        ExplainedOperand(
            o.expr, o.device, o.dtype, None if o.shape is None else tuple(o.shape), o.culprit,
            created_at=_site(o.created_at) if o.culprit else None,
            reason=handler.reason(o, others) if o.culprit else None,
            note=o.note or None,
        )
        for o in operands
    )


def _static_rule(rule: str | None, source: str, path: str, line: int, culprits: list[str],
                 made: Sequence[int] = ()) -> tuple[str | None, bool, tuple[int, str] | None]:
    """Name the rule ``ferry check`` really reports for this mistake, and whether it does.

    Returns (rule, found by ``ferry check``, (line, text) of a discarded move of a culprit).
    The mistake is found where ``ferry check`` reports the rule on the failing line or on a
    line of ``made`` (where a culprit was created in this file: FRY010 reports the factory).
    A discarded ``x.to(device)`` earlier in the file is FRY002 (found statically), not
    FRY013; FRY013 (partial batch move) is named only where ``ferry check`` reports it
    on this line; other rules keep their name without claiming a static finding.
    """
    if rule is None or not source:
        return rule, False, None
    try:
        from torchferry.check.engine import check_source

        findings = check_source(source, path)
    except Exception:  # the explanation never fails because of the checker
        return (None if rule == "FRY013" else rule), False, None
    if rule == "FRY013":
        discarded = _discarded_move(findings, source.splitlines(), line, culprits)
        if discarded is not None:
            return "FRY002", True, discarded
    found = any(f.code == rule and (f.line == line or f.line in made) for f in findings)
    if rule == "FRY013" and not found:
        return None, False, None
    return rule, found, None


def _same_file(a: str, b: str) -> bool:
    """Do two paths of frames name one file?"""
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _discarded_move(findings: list[Any], lines: list[str], line: int,
                    culprits: list[str]) -> tuple[int, str] | None:
    """A FRY002 finding before ``line`` that moves a culprit and discards the result."""
    for f in findings:
        if f.code != "FRY002" or f.line > line or not (0 < f.line <= len(lines)):
            continue
        text = lines[f.line - 1].strip()
        if any(text.startswith(c + ".to(") or text.startswith(c + ".cuda(") for c in culprits):
            return f.line, text
    return None


def _callee_is(fn: Any, code: Any) -> bool:
    """Is ``code`` the code object that calling ``fn`` runs first?"""
    if fn is ops.UNKNOWN or fn is None:
        return False
    seen = 0
    while seen < 8:
        seen += 1
        if getattr(fn, "__code__", None) is code:
            return True
        inner = getattr(fn, "__func__", None)
        if inner is not None and getattr(inner, "__code__", None) is code:
            return True
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is None:
            break
        fn = wrapped
    call = type(fn).__dict__.get("__call__") or getattr(type(fn), "__call__", None)  # noqa: B004
    if getattr(call, "__code__", None) is code:
        return True
    if isinstance(fn, type):
        init = getattr(fn, "__init__", None)
        return getattr(init, "__code__", None) is code
    return False


def _site(site: dict[str, Any] | None) -> Site | None:
    if site is None:
        return None
    return Site(site["path"], site["line"], site.get("call"))


def _collect(focus: ast.AST | None, frame: FrameType, callee: FrameType | None,
             source: str = "") -> list[ops.Operand]:
    """The operands of ``focus`` as written, each once, with what can be read of them."""
    if focus is None:
        return []
    c = _Collector(frame, source)
    bound: dict[int, Any] = {}
    focus_func = focus.func if isinstance(focus, ast.Call) else None
    if (isinstance(focus, ast.Call) and callee is not None and callee.f_back is frame
            and _callee_is(ops.resolve(focus.func, frame), callee.f_code)):
        bound = ops.bind_call_args(focus, callee)  # the values the called function received
    for node in ops.operand_nodes(focus):
        if node is focus_func:
            c.add_function(node)
        elif id(node) in bound:
            c.add(node, bound[id(node)])
        elif isinstance(node, ast.Call):
            c.add(node, ops.UNKNOWN)
        else:
            c.add(node, ops.resolve(node, frame))
    return c.out


class _Collector:
    """The operands of one expression, in order, each listed once."""

    MAX_LISTED = 8  # tensors listed of a list or tuple of them

    def __init__(self, frame: FrameType, source: str) -> None:
        self.frame, self.source = frame, source
        self.torch = sys.modules.get("torch")
        self.out: list[ops.Operand] = []
        self.seen: set[str] = set()

    def add(self, node: ast.expr, value: Any) -> None:
        expr = ops.text_of(node, self.source)
        if expr in self.seen:
            return
        if self._tensors(value):
            self._add_sequence(node, expr, value)
            return
        op = ops.Operand(expr=expr, node=node)
        _describe(op, value)
        if op.kind in (ops.OperandKind.TENSOR, ops.OperandKind.MODULE):
            self.seen.add(expr)
            self.out.append(op)
        elif isinstance(node, ast.Call) and value is ops.UNKNOWN:
            self.seen.add(expr)
            self._add_call(node, op)

    def add_function(self, node: ast.expr) -> None:
        """The called expression: a module is an operand; a method's receiver is one."""
        fv = ops.resolve(node, self.frame)
        if self.torch is not None and isinstance(fv, self.torch.nn.Module):
            self.add(node, fv)
        elif isinstance(node, ast.Attribute):
            rv = ops.resolve(node.value, self.frame)
            if not isinstance(rv, types.ModuleType):
                self.add(node.value, rv)

    def _tensors(self, value: Any) -> bool:
        torch = self.torch
        return (isinstance(value, (list, tuple)) and torch is not None and bool(value)
                and all(isinstance(v, torch.Tensor) for v in value))

    def _add_sequence(self, node: ast.expr, expr: str, value: list[Any] | tuple[Any, ...]) -> None:
        for i, v in enumerate(value[: self.MAX_LISTED]):
            self.add(ast.Subscript(value=node, slice=ast.Constant(i)), v)
        more = len(value) - self.MAX_LISTED
        if more > 0 and self.out and self.out[-1].expr.startswith(expr + "["):
            self.out[-1].note = f"and {more} more in {expr}, not listed"
        self.seen.add(expr)

    def _add_call(self, node: ast.Call, op: ops.Operand) -> None:
        """A call's result (never re-run): a module's output is where its parameters are; a
        factory's is listed; otherwise its arguments are the operands."""
        op.kind = ops.OperandKind.CALL
        fn = ops.resolve(node.func, self.frame)
        md = _module_device(fn) if self.torch is not None and isinstance(fn, self.torch.nn.Module) else None
        if md is not None:
            op.device, op.dtype = str(md[0]), _dtype(md[1])
            op.note, op.kind = "output of a module whose parameters are here", ops.OperandKind.TENSOR
            self.out.append(op)
            return
        op.note = op.note or "a call result (not re-run)"
        if ops.is_factory_call(node):
            self.out.append(op)
            return
        for a in [*node.args, *(k.value for k in node.keywords)]:
            for leaf in ops._flatten(a):
                self.add(leaf, ops.resolve(leaf, self.frame))


# ------------------------------------------------------------ formatting
def format_report(report: Explanation) -> str:
    """The text report printed after the traceback."""
    lines = [f"torchferry explain: {report.title} ({report.type})"]
    lines += _where(report)
    if report.operands:
        lines.append("  operands:")
        lines += _operand_rows(report.operands)
        lines += _creation_sites(report.culprits)
    elif report.operands_unread:
        lines.append("  (no tensor operand of this line could be read without re-running code)")
    if report.argument and len(report.culprits) == 1:
        lines.append(f"  (PyTorch's message calls it `{report.argument}`)")
    if report.fix:
        lines.append(f"  fix: {report.fix}")
    if report.rule:
        r = report.rule
        found = "`ferry check` finds this before you run; " if report.found_statically else ""
        lines.append(f"  rule: {r} {rule_name(r)}  ({found}`ferry rule {r}` explains)")
    return "\n".join(lines)


def _where(report: Explanation) -> list[str]:
    at = report.at
    if at is None:
        return ["  (no line of your own code in the traceback)"]
    lines = [f"  at {_frames.display_path(at.path)}:{at.line}", f"    {at.source}"]
    for v in reversed(report.via):
        lines.append(f"  called from {_frames.display_path(v.path)}:{v.line}: {v.source}")
    return lines


def _operand_rows(operands: tuple[ExplainedOperand, ...]) -> list[str]:
    w = max(len(o.expr) for o in operands)
    lines = []
    for o in operands:
        shape = "" if o.shape is None else f"[{', '.join(map(str, o.shape))}]"
        mark = "> " if o.culprit else "  "
        row = f"  {mark}{o.expr:<{w}}  {o.device or '?':<7} {o.dtype or '':<8} {shape}"
        extra = [f"<- {o.reason}"] if o.reason else []
        if o.note:
            extra.append(f"({o.note})")
        lines.append((row + "  " + "  ".join(extra)).rstrip())
    return lines


def _creation_sites(culprits: tuple[ExplainedOperand, ...]) -> list[str]:
    lines = []
    shown: set[tuple[str, int]] = set()
    for o in culprits:
        site = o.created_at
        if site is None:
            if not o.expr.endswith(")"):
                lines.append(f"  {o.expr}: where it was created is not known")
            continue
        if (site.path, site.line) in shown:
            continue
        shown.add((site.path, site.line))
        src = _frames.source_line(site.path, site.line)
        call = site.call or ""
        what = src if not call or call == src or call in src else (f"{src}  ({call})" if src else call)
        lines.append(f"  {o.expr} was created at {_frames.display_path(site.path)}:{site.line}: {what}")
    return lines


# ------------------------------------------------------------ excepthook
_PENDING: dict[int, tuple[BaseException, Explanation]] = {}


def _remember(exc: BaseException, report: Explanation) -> None:
    _PENDING[id(exc)] = (exc, report)
    while len(_PENDING) > 8:
        _PENDING.pop(next(iter(_PENDING)))


def pending_report(exc: BaseException) -> Explanation | None:
    """The report made for ``exc`` (or an exception in its chain) by an ``explain`` block."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        entry = _PENDING.get(id(e))
        if entry is not None and entry[0] is e:
            return entry[1]
        e = e.__cause__ or e.__context__
    return None


def _excepthook(typ: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """Python's top-level error printer while an explained error propagates, then not any more."""
    previous = _EXCEPTHOOK.original(sys, "excepthook") if _EXCEPTHOOK.active else sys.__excepthook__
    try:
        previous(typ, value, tb)
        report = pending_report(value)
        if report is not None:
            with contextlib.suppress(Exception):
                print(format_report(report), file=sys.stderr)
    finally:
        restore_excepthook()  # used once: the error it was installed for has reached the top


_EXCEPTHOOK = Patch("explain", lambda: [(sys, "excepthook", _excepthook)])


def _ipython_shell(exc: BaseException) -> str | None:
    """``"extension"`` inside an IPython shell where ``%load_ext torchferry`` is loaded and
    will be handed ``exc``, ``"bare"`` inside any other, None outside IPython (imports nothing)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if get is not None else None
    if shell is None:
        return None
    ext = sys.modules.get("torchferry.diagnose.ipython")
    handled = tuple(getattr(shell, "custom_exceptions", ()) or ())
    if id(shell) in getattr(ext, "_STATE", {}) and handled and isinstance(exc, handled):
        return "extension"
    return "bare"


def _install_excepthook() -> None:
    if not _EXCEPTHOOK.active:
        _EXCEPTHOOK.acquire()


def restore_excepthook() -> None:
    """Put back the ``sys.excepthook`` that was there before an ``explain`` block replaced it.

    An ``explain`` block whose device error propagates installs a hook that
    prints the report after Python's traceback; the hook removes itself once it
    has run.  Call this when the error was caught instead (the hook would
    otherwise wait for the next uncaught error, print it normally and then
    remove itself).  Nothing happens when no hook is installed.
    """
    while _EXCEPTHOOK.active:
        _EXCEPTHOOK.release()


class explain(contextlib.ContextDecorator):
    """Explain device errors raised inside the block, after the normal traceback.

    The exception propagates unchanged (same object, type and message).  The
    report is kept in ``.report`` (an :class:`Explanation`, None when no
    device error happened) and printed on ``file`` (default stderr) after the
    traceback: by ``sys.excepthook`` when the error ends the program (a hook
    installed as the error leaves the block, which puts the previous hook back
    once it has run; :func:`restore_excepthook` does that at once), by
    IPython's traceback handler in a notebook (``%load_ext torchferry``).  In
    IPython without the extension (which never calls ``sys.excepthook`` for a
    cell's error) it is printed at once, before IPython's traceback.  Pass
    ``file=None`` to print nothing.

    While active, torch's factory functions note where each tensor is made
    (``record=False`` turns that off); every other op runs untouched.

    >>> import torch, torchferry as tf
    >>> with tf.explain() as ex:
    ...     y = torch.ones(2) * 2
    >>> ex.report is None
    True
    """

    def __init__(self, *, record: bool = True, file: TextIO | None | str = "stderr") -> None:
        self.record = record
        self.file = file
        self.report: Explanation | None = None
        self._recording = False

    def __enter__(self) -> explain:
        self.report = None
        if self.record:
            RECORDER.enter()
            self._recording = True
        return self

    def __exit__(self, typ: Any, exc: BaseException | None, tb: Any) -> Literal[False]:
        try:
            if exc is not None and not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                try:
                    self.report = explain_exception(exc)
                except Exception as e:  # the explanation must never mask the user's error
                    self.report = None
                    if self.file is not None:
                        print(f"torchferry explain: could not explain this error ({type(e).__name__}: {e})",
                              file=sys.stderr)
                if self.report is not None and self.file is not None:
                    _remember(exc, self.report)
                    shell = _ipython_shell(exc) if isinstance(self.file, str) else None
                    if shell == "extension":
                        pass  # %load_ext torchferry explains it after IPython's traceback
                    elif shell == "bare" or not isinstance(self.file, str):
                        # IPython never calls sys.excepthook for a cell's error: now or never
                        print(format_report(self.report),
                              file=sys.stderr if isinstance(self.file, str) else self.file)
                    else:  # "stderr": after the traceback (excepthook)
                        _install_excepthook()
        finally:
            if self._recording:
                RECORDER.exit()
                self._recording = False
        return False
