"""A family's handler: how a device error is recognised and explained.

:class:`Handler` is the base of every entry of
:data:`torchferry.diagnose.families.HANDLERS`: its ``forms`` recognise PyTorch's
texts (giving an :class:`ErrorKind`, what the message says), then ``culprits``
marks the operands to blame, ``fix`` writes the fix (from a :class:`FixContext`)
and ``reason`` says why a culprit is marked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import ClassVar

from torchferry._internal import frames as _frames
from torchferry.diagnose import operands as ops
from torchferry.diagnose.record import CodeLine, Explanation, Family

__all__ = ["ErrorKind", "Form", "Handler", "Fix", "FixContext", "code_line", "without_operands"]

Fix = tuple[str | None, str | None]  # (the fix's text, the ferry check rule)


@dataclass(frozen=True)
class ErrorKind:
    """What a device error message says: its family, title and the devices it names."""

    family: Family
    title: str
    devices: tuple[str, ...] = ()
    odd: str | None = None  # the device of the odd tensor, when the message says it
    arg: str | None = None  # the argument slot the message names (mat1, index, ...)
    groups: tuple[str, ...] = ()  # what else the message says (ranks, devices)


@dataclass(frozen=True)
class Form:
    """One of PyTorch's texts for a family, and how to read its devices."""

    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], ErrorKind]


_DEVICE_EXCEPTIONS = (RuntimeError, TypeError, AssertionError, ValueError, NotImplementedError)


_DEVICE_EXCEPTIONS = (RuntimeError, TypeError, AssertionError, ValueError, NotImplementedError)


class Handler:
    """How one family is recognised and explained; the defaults mark no culprit."""

    family: ClassVar[Family]
    forms: ClassVar[tuple[Form, ...]] = ()
    chain: ClassVar[bool] = True  # also read the exceptions this one was raised from
    reads_operands: ClassVar[bool] = True  # explained by the failing line's operands
    operands_expected: ClassVar[bool] = False  # say so when none could be read

    def match(self, exc: BaseException) -> ErrorKind | None:
        if not isinstance(exc, _DEVICE_EXCEPTIONS):
            return None
        text = str(exc)
        for form in self.forms:
            m = form.pattern.search(text)
            if m:
                return form.read(m)
        return None

    def culprits(self, kind: ErrorKind, operands: list[ops.Operand],
                 frame: FrameType | None) -> tuple[str | None, str | None]:
        """Mark the culprits among ``operands``; return (odd device, good device)."""
        return None, None

    def fix(self, ctx: FixContext) -> Fix:
        """The fix's text and the ``ferry check`` rule (either may be None)."""
        return None, None

    def reason(self, op: ops.Operand, others: list[str]) -> str | None:
        """Why the culprit ``op`` is marked (``others``: the other operands' devices)."""
        return None


@dataclass(frozen=True)
class FixContext:
    """What a family's fix may read: the message, the operands, the failing line."""

    kind: ErrorKind
    operands: list[ops.Operand]
    focus: ast.AST | None = None  # the failing expression
    frame: FrameType | None = None
    good: str | None = None  # the device the culprits should be on
    tree: ast.Module | None = None  # the failing file
    line: int = 0

    @property
    def culprit(self) -> ops.Operand | None:
        return next((o for o in self.operands if o.culprit), None)


def code_line(frame: FrameType, line: int) -> CodeLine:
    """``line`` of ``frame``'s file, with its source."""
    path = frame.f_code.co_filename
    return CodeLine(path, line, _frames.source_line(path, line, frame.f_globals))


def without_operands(handler: Handler, err: BaseException, kind: ErrorKind) -> Explanation:
    """The explanation read from the message alone: the family's title and fix, at the
    innermost line of the user's code when the traceback has one (no operands)."""
    last = None
    for tb in ops.traceback_entries(err.__traceback__):
        if _frames.is_user_code(tb.tb_frame.f_code):
            last = tb
    fix, rule = handler.fix(FixContext(kind, []))
    return Explanation(
        kind.family, kind.title, type(err).__name__, str(err),
        at=code_line(last.tb_frame, last.tb_lineno) if last is not None else None,
        fix=fix, rule=rule, operands_unread=handler.operands_expected,
    )
