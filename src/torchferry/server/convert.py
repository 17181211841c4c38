"""Findings as the protocol's types: positions in the client's encoding, diagnostics, code
actions (fixes, "disable for this line", fix all) and rule documentation for hover.

``ferry check`` counts columns in characters (code points); a client counts in UTF-16
code units unless it negotiated UTF-8 or UTF-32::

    >>> p = Lines(["é😀x = 1"], "utf-16").position(1, 2)
    >>> p.line, p.character
    (0, 3)
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from torchferry.check import engine
from torchferry.check.api import Edit, split_lines
from torchferry.check.engine import SYNTAX_ERROR, noqa_codes
from torchferry.server.analysis import Item, Place

__all__ = ["Lines", "SOURCE", "diagnostic", "noqa_edit", "rule_markdown", "rule_link", "severity"]

#: ``Diagnostic.source``: what editors show beside each finding.
SOURCE = "ferry"
FIX_ALL = "source.fixAll.ferry"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}

SYNTAX_ERROR_MARKDOWN = (
    f"# {SYNTAX_ERROR} ({engine.SYNTAX_ERROR_NAME})\n\nA file that cannot be checked because "
    "Python cannot read it: a syntax error, bytes that are not valid in its encoding, a "
    "notebook that is not valid JSON, or a file over `max-file-size`.\n"
)


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
    """The severity of a rule's findings: its level in ``ferry check``'s SARIF output.

    >>> severity("FRY001").name, severity("FRY007").name, severity("FRY009").name
    ('Error', 'Warning', 'Information')
    """
    from torchferry.check.report import level

    return _SEVERITY[level(code)] if code != SYNTAX_ERROR else types.DiagnosticSeverity.Error


def rule_markdown(code: str) -> str | None:
    """The documentation of a rule (``ferry rule CODE``), or None for an unknown code."""
    from torchferry.check.docs import rule_doc
    from torchferry.check.rules import rule_by_code

    if code.upper() == SYNTAX_ERROR:
        return SYNTAX_ERROR_MARKDOWN
    mod = rule_by_code(code)
    return rule_doc(mod) if mod is not None else None


def _docs_dir() -> Path:
    from torchferry._version import __version__

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "torchferry" / "rule-docs" / __version__


_LINKS: dict[str, str | None] = {}


def rule_link(code: str, template: str | None) -> str | None:
    """The ``codeDescription`` link of a rule: ``template`` with ``{code}``/``{name}`` filled
    in, else a ``file:`` URI of the rule's documentation written once to the user's cache
    directory (None when that cannot be written)."""
    from torchferry.check.runner import rule_name

    if template:
        return template.replace("{code}", code).replace("{name}", rule_name(code))
    if code in _LINKS:
        return _LINKS[code]
    text = rule_markdown(code)
    link = None
    if text is not None:
        from torchferry._internal.atomic import write_text

        path = _docs_dir() / f"{code}.md"
        try:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_text(path, text)
            link = path.as_uri()
        except OSError:
            link = None
    _LINKS[code] = link
    return link


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
    link = rule_link(f.code, template)
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


# ---------------------------------------------------------------- noqa
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)


def noqa_edit(text: str, line: int, code: str) -> Edit | None:
    """The edit that silences ``code`` on ``line`` of ``text`` with a ``# noqa`` comment
    (adding the code to one already there), or None when no comment can go there (the
    line ends inside a string) or the line is already silenced.

    >>> noqa_edit("x.cuda()\\n", 1, "FRY001")
    Edit(line=1, column=8, end_line=1, end_column=8, content='  # noqa: FRY001')
    >>> noqa_edit("x.cuda()  # noqa: FRY002\\n", 1, "FRY001").content
    ', FRY001'
    >>> noqa_edit("s = '''\\nx.cuda()\\n'''\\n", 2, "FRY001") is None
    True
    """
    from torchferry.check.notebook import from_cells

    lines = split_lines(text)
    if not 0 < line <= len(lines):
        return None
    s = lines[line - 1]
    cols = engine._comment_columns(from_cells([text]).source)  # magics blanked, lines kept
    edit = None
    if cols is not None and line in cols:
        m = _NOQA.search(s, cols[line])
        if m is not None and m.group("codes") is None:
            return None  # a bare noqa silences everything already
        if m is not None:
            end = m.end("codes")
            edit = Edit(line, end, line, end, f", {code}")
    if edit is None:
        end = len(s.rstrip())
        edit = Edit(line, end, line, len(s), f"  # noqa: {code}")
    new = engine.apply_fixes(text, [_as_finding(edit)])
    new_cols = engine._comment_columns(from_cells([new]).source)
    if new_cols is None or line not in new_cols:
        return None
    codes = noqa_codes(split_lines(new)[line - 1], new_cols[line])
    if codes is None or (codes and not any(code.startswith(c) for c in codes)):
        return None
    return edit


def _as_finding(edit: Edit):
    from torchferry.check.api import Finding, Fix

    return Finding("", "", 1, 0, 1, 0, Fix((edit,), True, ""))


def noqa_code_at(line_text: str, column: int) -> str | None:
    """The rule code under ``column`` in a ``# noqa: ...`` comment of ``line_text``.

    >>> noqa_code_at("x.cuda()  # noqa: FRY001, FRY002", 29)
    'FRY002'
    """
    for m in _NOQA.finditer(line_text):
        if m.group("codes") is None:
            continue
        start = m.start("codes")
        for c in re.finditer(r"[A-Z]+[0-9]+", m.group("codes"), re.I):
            if start + c.start() <= column <= start + c.end():
                return c.group().upper()
    return None


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
