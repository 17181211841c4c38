"""Findings as the protocol's types: positions in the client's encoding (``ferry check``
counts columns in characters, a client in UTF-16 code units unless it negotiated UTF-8 or
UTF-32), diagnostics with their related information, minimal text edits.

No doctests here: importing ``lsprotocol`` costs about half a second of CPU, so the
modules that import it are left out of ``--doctest-modules`` (pyproject.toml);
``tests/server`` tests them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from torchferry.check.api import Edit, split_lines
from torchferry.check.engine import SYNTAX_ERROR
from torchferry.server import text
from torchferry.server.analysis import Item, Place

__all__ = ["FIX_ALL", "Lines", "SOURCE", "diagnostic", "minimal_edit", "severity"]

#: ``Diagnostic.source``: what editors show beside each finding.
SOURCE = "ferry"
FIX_ALL = "source.fixAll.ferry"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}

class Lines:
    """A document's lines and the client's position encoding: converts both ways."""

    def __init__(self, lines: Sequence[str], encoding: str = "utf-16") -> None:
        self.lines = lines
        self.encoding = str(encoding).lower()

    @classmethod
    def of(cls, text: str, encoding: str) -> Lines:
        return cls(split_lines(text), encoding)

    def _units(self, s: str) -> int:
        if s.isascii() or self.encoding == "utf-32":
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s.encode("utf-16-le", "surrogatepass")) // 2

    def position(self, line: int, column: int) -> types.Position:
        """A 1-based line and 0-based character column as a protocol position."""
        line0 = max(line - 1, 0)
        if line0 >= len(self.lines):
            return types.Position(line0, column if line0 == len(self.lines) else 0)
        text = self.lines[line0]
        return types.Position(line0, self._units(text[:column]) + max(column - len(text), 0))

    def column(self, position: types.Position) -> tuple[int, int]:
        """(1-based line, 0-based character column) of a protocol position."""
        if position.line >= len(self.lines):
            return position.line + 1, position.character
        text = self.lines[position.line]
        if text.isascii() or self.encoding == "utf-32":
            return position.line + 1, min(position.character, len(text))
        units = 0
        for i, ch in enumerate(text):
            if units >= position.character:
                return position.line + 1, i
            units += self._units(ch)
        return position.line + 1, len(text)

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(self.position(line, column), self.position(end_line, end_column))

    def text_edit(self, edit: Edit) -> types.TextEdit:
        return types.TextEdit(
            self.range(edit.line, edit.column, edit.end_line, edit.end_column), edit.content
        )


def severity(code: str) -> types.DiagnosticSeverity:
    """The severity of a rule's findings: its level in ``ferry check``'s SARIF output."""
    from torchferry.check.report import level

    return _SEVERITY[level(code)] if code != SYNTAX_ERROR else types.DiagnosticSeverity.Error


def diagnostic(
    item: Item,
    lines: Lines,
    related_location: dict[int, tuple[str, Lines]] | None,
    own_uri: str,
    root: Path,
    template: str | None,
) -> types.Diagnostic:
    """The protocol's diagnostic of a finding; its evidence as ``relatedInformation``
    (``related_location``: a notebook's cells by index, their URI and lines)."""
    f = item.finding
    related = [_related(p, lines, related_location, own_uri, root) for p in item.related]
    link = text.rule_link(f.code, template)
    return types.Diagnostic(
        range=lines.range(f.line, f.column, f.end_line, f.end_column),
        message=f.message,
        severity=severity(f.code),
        code=f.code,
        code_description=types.CodeDescription(href=link) if link else None,
        source=SOURCE,
        related_information=related or None,
    )


def _related(
    p: Place,
    lines: Lines,
    cells: dict[int, tuple[str, Lines]] | None,
    own_uri: str,
    root: Path,
) -> types.DiagnosticRelatedInformation:
    uri, where = own_uri, lines
    if p.path is not None:
        path = Path(p.path)
        uri = (path if path.is_absolute() else root / path).as_uri()
        where = Lines([], lines.encoding)  # another file: columns as characters
    elif p.cell is not None and cells is not None and p.cell in cells:
        uri, where = cells[p.cell]
    pos = where.position(p.line, p.column)
    return types.DiagnosticRelatedInformation(types.Location(uri, types.Range(pos, pos)), p.message)


def minimal_edit(old: str, new: str, lines: Lines) -> types.TextEdit:
    """One edit turning ``old`` into ``new``, covering only what differs (the cursor and
    the editor's marks elsewhere stay put)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    a = _position_at(old, start, lines)
    b = _position_at(old, len(old) - end, lines)
    return types.TextEdit(types.Range(a, b), new[start : len(new) - end])


_BREAK = re.compile(r"\r\n|\r|\n")


def _position_at(text: str, offset: int, lines: Lines) -> types.Position:
    line, line_start = 1, 0
    for m in _BREAK.finditer(text, 0, offset):
        if m.end() > offset:
            break
        line, line_start = line + 1, m.end()
    return lines.position(line, offset - line_start)
