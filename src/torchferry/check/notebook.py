"""Jupyter notebooks for ``ferry check``: code cells joined, IPython syntax blanked.

The code cells are joined into one source so that names flow between cells as
they do in a kernel.  Lines that are IPython rather than Python (``%magic``,
``!shell``, ``x = !ls``, ``obj?``) become ``pass`` at the same indentation, and a
cell that starts with a cell magic (``%%bash``) is blanked whole, except
``%%time``/``%%timeit``/``%%capture``/``%%prun``/``%%ferry_trips``, whose body is Python.  A
magic or shell line continued with a trailing backslash (``!pip install a \\`` over
several lines) is blanked to its end, as IPython reads it.  A cell whose only line
IPython runs as a magic without its ``%`` (automagic: ``pip install x``, the alias
``ls logs/``; see :mod:`torchferry.check.automagic`) is blanked where that line is not
Python; the same line in a cell of several lines is Python to IPython too, and stays
(a syntax error).  A cell whose every line
shares a leading indent is dedented first, as IPython's ``leading_indent`` transformer
does (``textwrap.dedent`` of the cell).  Line numbers are kept, so a finding maps back
to (cell, line), with cells counted from 1 over *all* cells, as Jupyter shows them::

    >>> nb = parse_notebook('{"cells": [{"cell_type": "code", "source": ["%pip install x\\\\n", '
    ...                     '"import torch"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    >>> nb.source
    'pass\\nimport torch\\n'
    >>> nb.locate(2)
    (1, 2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from torchferry.check.api import Edit, Evidence, Finding
from torchferry.check.automagic import Automagic
from torchferry.errors import NotebookError

__all__ = ["NotebookError", "Notebook", "parse_notebook", "from_cells", "language"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# a line magic, a shell escape (alone or assigned), or help: ``?obj``, and ``obj?`` /
# ``obj??`` with IPython's own name pattern (``torch.*Tensor?`` searches, ``a[0]?``)
_LINE_MAGIC = re.compile(
    r"^(\s*)(?:%|!|[\w.]+\s*=\s*[%!]|\?+[\w.*]|[\w*]+(?:\.[\w*]+|\[-?[0-9]+\])*\?\??\s*$)"
)
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "ferry_trips"}



def _cell_text(cell: dict[str, Any], number: int) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    raise NotebookError(f"cell {number}: 'source' must be a string or a list of strings")


def _split(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _blank(lines: list[str]) -> tuple[list[str], set[int]]:
    """The cell's lines with IPython syntax replaced, and the indices replaced."""
    out = list(lines)
    blanked: set[int] = set()
    first = next((i for i, text in enumerate(lines) if text.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(None, 1)
        name = magic[0] if magic else ""
        span = range(first, first + 1) if name in _PYTHON_CELL_MAGICS else range(len(lines))
        for i in span:
            out[i] = ""
            blanked.add(i)
    # a line is IPython only where a statement may start: not inside brackets,
    # a string or after a backslash (``% x`` continuing a formatting expression)
    depth, quote, backslash, continued = 0, "", False, False
    for i, text in enumerate(out):
        if i in blanked:
            continue
        if continued:  # a magic or shell line continued with a backslash
            out[i] = ""
            blanked.add(i)
            continued = text.endswith("\\")
            continue
        if depth == 0 and not quote and not backslash:
            m = _LINE_MAGIC.match(text)
            if m:
                out[i] = f"{m.group(1)}pass"
                blanked.add(i)
                # IPython reads the command on to the first line without a trailing
                # backslash (``find_end_of_continued_line``)
                continued = text.endswith("\\")
                continue
        depth, quote, backslash = _scan(text, depth, quote)
    return out, blanked


def _blank_automagic(lines: list[str], blanked: set[int], magic: Automagic) -> None:
    """Blank the line of a cell that IPython runs as a magic without its ``%``: the cell's
    only line once its leading blank lines are dropped (IPython's prefilter reads no
    other cell)."""
    first = next((i for i, text in enumerate(lines) if text.strip()), len(lines))
    if first != len(lines) - 1 or first in blanked or not magic.blanks(lines[first]):
        return
    lines[first] = "pass"
    blanked.add(first)


def _margin(lines: list[str]) -> str:
    """The whitespace every non-blank line starts with, which IPython's ``leading_indent``
    cleanup (``textwrap.dedent`` of the cell) removes before running the cell.

    >>> _margin(["  x = 1", "", "  if x:", "      y = 2"])
    '  '
    >>> _margin(["x = 1", "  y = 2"])
    ''
    """
    margin: str | None = None
    for text in lines:
        if not text.strip(" \t"):
            continue  # whitespace-only lines do not count (dedent empties them)
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        if margin is None or indent.startswith(margin):
            margin = indent if margin is None else margin
        elif margin.startswith(indent):
            margin = indent
        else:
            n = 0
            while n < min(len(margin), len(indent)) and margin[n] == indent[n]:
                n += 1
            margin = margin[:n]
        if not margin:
            return ""
    return margin or ""


def _scan(text: str, depth: int, quote: str) -> tuple[int, str, bool]:
    """Bracket depth and open string quote after ``text``, and whether it ends with ``\\``."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif c == "#":
            break
        elif c in "\"'":
            triple = c * 3
            quote = triple if text.startswith(triple, i) else c
            i += len(quote)
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    if quote in ("'", '"'):  # a one-quote string cannot span lines without a backslash
        return depth, ("" if not text.endswith("\\") else quote), text.endswith("\\")
    return depth, quote, text.endswith("\\") and not quote


@dataclass
class Notebook:
    data: dict[str, Any]  #: the notebook's JSON
    source: str  #: the code cells joined, IPython syntax blanked
    line_map: list[tuple[int, int]] = field(default_factory=list)  #: joined line-1 -> (cell, line)
    blanked: set[int] = field(default_factory=set)  #: joined lines (1-based) replaced
    texts: dict[int, str] = field(default_factory=dict)  #: cell number -> original text
    starts: dict[int, int] = field(default_factory=dict)  #: cell number -> first joined line
    #: cell number -> the common leading indent (characters) removed from its lines
    margins: dict[int, int] = field(default_factory=dict)

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line within the cell) for a line of the joined source."""
        if not self.line_map:
            return (1, 1)
        idx = min(max(line, 1), len(self.line_map)) - 1
        cell, cell_line = self.line_map[idx]
        if line > len(self.line_map):  # past the end (e.g. an unclosed bracket at EOF)
            cell_line += line - len(self.line_map)
        return cell, cell_line

    @property
    def cell_starts(self) -> tuple[int, ...]:
        """The joined source's line on which each code cell starts, ascending."""
        return tuple(sorted(self.starts.values()))

    def cell_lines(self, cell: int) -> list[str]:
        return _split(self.texts.get(cell, ""))

    def cell_line_text(self, cell: int, line: int) -> str:
        lines = self.cell_lines(cell)
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def cell_column(self, cell: int, line: int, column: int) -> int:
        """A column of the joined source's line as a column of the cell's own line (they
        differ by the indent removed from a dedented cell; whitespace-only lines were
        emptied, so nothing is added there)."""
        margin = self.margins.get(cell, 0)
        if margin and self.cell_line_text(cell, line).strip(" \t"):
            return column + margin
        return column

    def edits_by_cell(self, edits: list[Edit]) -> dict[int, list[Edit]] | None:
        """Map edits of the joined source to edits of cells; None if one crosses a cell
        boundary or touches a blanked line."""
        out: dict[int, list[Edit]] = {}
        for e in edits:
            if e.line in self.blanked or e.end_line in self.blanked:
                return None
            if not (0 < e.line <= len(self.line_map) and 0 < e.end_line <= len(self.line_map)):
                return None
            cell, line = self.line_map[e.line - 1]
            end_cell, end_line = self.line_map[e.end_line - 1]
            if cell != end_cell:
                return None
            if cell in self.margins and "\n" in e.content:
                return None  # new lines would carry the dedented cell's indentation
            column = self.cell_column(cell, line, e.column)
            end_column = self.cell_column(cell, end_line, e.end_column)
            out.setdefault(cell, []).append(Edit(line, column, end_line, end_column, e.content))
        return out

    def with_cells(self, texts: dict[int, str]) -> Notebook:
        """A copy whose code cells ``texts`` (by number) have new source."""
        data = dict(self.data)
        cells = list(data["cells"])
        for number, text in texts.items():
            cell = dict(cells[number - 1])
            old = cell.get("source", "")
            cell["source"] = text.splitlines(keepends=True) if isinstance(old, list) else text
            cells[number - 1] = cell
        data["cells"] = cells
        return _from_data(data)

    def patched(self, original: str, texts: dict[int, str]) -> str:
        """``original`` (this notebook's JSON text) with the source of the cells ``texts``
        (by number) replaced, and nothing else touched: indentation, key order, number
        spelling (``1.10``, ``1E-5``), escapes and line endings outside those values stay
        byte for byte.  A new source keeps the old one's form (a string, or a list of
        lines laid out as the old list was)."""
        spans = _source_spans(original)
        ensure_ascii = original.isascii() and "\\u" in original
        out, last = [], 0
        for number in sorted(texts):
            start, end = spans[number]
            out.append(original[last:start])
            out.append(_encode_source(original[start:end], texts[number], ensure_ascii))
            last = end
        out.append(original[last:])
        return "".join(out)

    def dumps(self, original: str) -> str:
        """The notebook as JSON in the layout of ``original`` (indent, escaping, final newline)."""
        indent = 1
        m = re.search(r"\{\r?\n( +)\"", original)
        if m:
            indent = len(m.group(1))
        ensure_ascii = original.isascii() and "\\u" in original
        text = json.dumps(self.data, indent=indent, ensure_ascii=ensure_ascii)
        if original.endswith("\n"):
            text += "\n"
        if "\r\n" in original:
            text = text.replace("\n", "\r\n")
        return text


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _ws(text: str, i: int) -> int:
    """The index of the first non-whitespace character at or after ``i``."""
    m = _WS.match(text, i)
    return m.end() if m else i


def _members(text: str, i: int, close: str) -> Any:
    """(key or index, value start, value end) of the object or array whose opening
    bracket is at ``text[i]``; ``close`` is ``}`` or ``]``."""
    i = _ws(text, i + 1)
    if text[i] == close:
        return
    index = 0
    while True:
        key: Any = index
        if close == "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _ws(text, _ws(text, i) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, i)
        yield key, i, end
        i = _ws(text, end)
        if text[i] != ",":
            return
        i = _ws(text, i + 1)
        index += 1


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Cell number -> (start, end) of its ``source`` value in the notebook's JSON text."""
    start = _ws(text, 0)
    spans: dict[int, tuple[int, int]] = {}
    for key, vstart, _ in _members(text, start, "}"):
        if key != "cells":
            continue
        for index, cstart, _ in _members(text, vstart, "]"):
            if text[cstart] != "{":
                continue
            for ckey, sstart, send in _members(text, cstart, "}"):
                if ckey == "source":
                    spans[index + 1] = (sstart, send)
    return spans


def _encode_source(old: str, new: str, ensure_ascii: bool) -> str:
    """``new`` cell text as JSON in the form of ``old`` (its JSON text)."""
    if not old.startswith("["):
        return json.dumps(new, ensure_ascii=ensure_ascii)
    items = [(s, e) for _, s, e in _members(old, 0, "]")]
    if items:
        opening = old[1 : items[0][0]]
        closing = old[items[-1][1] : -1]
    else:
        opening = closing = ""
    if len(items) >= 2:
        sep = old[items[0][1] : items[1][0]]
    elif "\n" in opening:
        sep = "," + opening
    else:
        sep = "," if opening == "" else ", "
    lines = new.splitlines(keepends=True)
    if not lines:
        return "[]"
    if not items and lines:  # was empty: lay it out as JSON would on one line
        return "[" + ", ".join(json.dumps(x, ensure_ascii=ensure_ascii) for x in lines) + "]"
    body = sep.join(_relaid([old[s:e] for s, e in items], new, ensure_ascii))
    return "[" + opening + body + closing + "]"


def _relaid(old_items: list[str], new: str, ensure_ascii: bool) -> list[str]:
    """The JSON items of a list source for ``new``: the old items (their JSON text, byte for
    byte) before and after the edited part stay as they were; an edited item stays one
    item, an edit across several is split into lines anew."""
    values = [json.loads(x) for x in old_items]
    old = "".join(values)
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    head, pos = 0, 0  # old items wholly inside the common prefix
    while head < len(values) and pos + len(values[head]) <= prefix:
        pos += len(values[head])
        head += 1
    kept_start = pos
    tail, end = len(values), len(old)  # old items wholly inside the common suffix
    while tail > head and end - len(values[tail - 1]) >= len(old) - suffix:
        end -= len(values[tail - 1])
        tail -= 1
    middle = new[kept_start: len(new) - (len(old) - end)]
    # one old item edited stays one item; several are laid out one line per item
    parts = [middle] if tail - head == 1 and middle else middle.splitlines(keepends=True)
    made = [json.dumps(x, ensure_ascii=ensure_ascii) for x in parts]
    return [*old_items[:head], *made, *old_items[tail:]]


def _from_data(data: Any) -> Notebook:
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        if isinstance(data, dict) and "worksheets" in data:
            raise NotebookError("nbformat 3 notebooks are not supported (convert with nbconvert)")
        raise NotebookError("not a Jupyter notebook: no 'cells' list")
    nb = Notebook(data=data, source="")
    joined: list[str] = []
    magic = Automagic()
    for number, cell in enumerate(data["cells"], start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not an object")
        if cell.get("cell_type") != "code":
            continue
        text = _cell_text(cell, number)
        nb.texts[number] = text
        written = _split(text)
        margin = _margin(written)
        if margin:  # IPython's ``leading_indent``: the cell runs dedented
            nb.margins[number] = len(margin)
            written = [line[len(margin):] if line.strip(" \t") else "" for line in written]
        lines, blanked = _blank(written)
        _blank_automagic(lines, blanked, magic)
        magic.seen(written, lines, blanked)
        nb.starts[number] = len(joined) + 1
        for i, line in enumerate(lines):
            joined.append(line)
            nb.line_map.append((number, i + 1))
            if i in blanked:
                nb.blanked.add(len(joined))
    nb.source = "".join(line + "\n" for line in joined)
    return nb


def parse_notebook(text: str) -> Notebook:
    """Parse a notebook's JSON text; :class:`NotebookError` if it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NotebookError(f"invalid notebook JSON: {exc}") from None
    except RecursionError:  # json recurses once per nested array or object
        raise NotebookError("invalid notebook: JSON nested too deeply") from None
    return _from_data(data)


def language(nb: Notebook) -> str | None:
    """The notebook's language when its metadata names one other than Python
    (``language_info.name``, else the kernelspec's ``language``): such a notebook (an R or
    Julia kernel's) is skipped, as ruff skips it.  None for Python or when unsaid.

    >>> language(parse_notebook('{"cells": [], "metadata": {"language_info": {"name": "R"}}}'))
    'R'
    """
    meta = nb.data.get("metadata")
    if not isinstance(meta, dict):
        return None
    for key, field_name in (("language_info", "name"), ("kernelspec", "language")):
        info = meta.get(key)
        name = info.get(field_name) if isinstance(info, dict) else None
        if isinstance(name, str) and name.strip():
            return None if name.strip().lower() in ("python", "python3") else name.strip()
    return None


def from_cells(sources: Sequence[str]) -> Notebook:
    """A notebook of code cells (numbered from 1) holding ``sources``, as a kernel ran them.

    >>> from_cells(["%time x = 1", "y = x"]).source
    'pass\\ny = x\\n'
    """
    return _from_data({"cells": [{"cell_type": "code", "source": s} for s in sources]})


def relocate(nb: Notebook, f: Finding) -> tuple[int, Finding]:
    """(cell, the finding with lines counted within that cell; fix edits too)."""
    from torchferry.check.api import Fix

    cell, line = nb.locate(f.line)
    end_cell, end_line = nb.locate(f.end_line)
    column = nb.cell_column(cell, line, f.column)
    end_column = nb.cell_column(end_cell, end_line, f.end_column)
    if end_cell != cell:  # a span running into the next cell: cut at the end of the line
        end_line = line
        end_column = max(len(nb.cell_line_text(cell, line)), column)
    fix = f.fix
    if fix is not None:
        per_cell = nb.edits_by_cell(list(fix.edits))
        if per_cell is not None and set(per_cell) == {cell}:
            fix = Fix(tuple(per_cell[cell]), fix.safe, fix.message)
        else:
            fix = None
    evidence = tuple(_relocate_evidence(nb, e) for e in f.evidence)
    return cell, Finding(f.code, f.message, line, column, end_line, end_column, fix, evidence)


def _relocate_evidence(nb: Notebook, e: Evidence) -> Evidence:
    """``e`` with its line counted within its cell (evidence in other files is kept)."""
    if e.path is not None or e.cell is not None:
        return e
    cell, line = nb.locate(e.line)
    return Evidence(e.message, line, nb.cell_column(cell, line, e.column), None, cell)
