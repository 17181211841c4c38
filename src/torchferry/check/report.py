"""Output formats of ``ferry check``: text, json, sarif (2.1.0) and github annotations.

Columns are printed 1-based (the :class:`~torchferry.check.api.Finding` columns
are 0-based characters); ``end_column`` is the column just past the span, as in
ruff's JSON.  Notebook findings carry ``cell`` (1-based over all cells) and a
``line`` counted within that cell.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from torchferry.check.api import Evidence
    from torchferry.check.runner import Diagnostic

__all__ = [
    "Progress", "use_color", "excerpt", "text_report", "summary", "statistics", "json_report",
    "sarif_report", "github_report",
]  # fmt: skip

#: Characters of a long line shown before a finding's column, and at most in all
#: (like ruff, a long line is shown as a window around the finding, cut with "…").
EXCERPT_BEFORE = 40
EXCERPT_WIDTH = 120
ELLIPSIS = "\u2026"

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

#: The SARIF level (and GitHub annotation kind) by what a rule's finding costs:
#: "error" for code that crashes or computes wrong results on some device (the
#: default), "warning" for slow loops, misleading timings and unsafe loading,
#: "note" for a one-off cost.  A rule module may set ``LEVEL`` itself.
LEVELS: dict[str, str] = {
    "FRY005": "warning",  # unsafe-load: a security risk, not a device bug
    "FRY006": "warning",  # unsynchronized-timing: a wrong measurement
    "FRY007": "warning",  # sync-in-loop: performance
    "FRY008": "warning",  # move-in-loop: performance
    "FRY009": "note",  # create-then-move: a one-off copy
}
_GITHUB_KIND = {"error": "error", "warning": "warning", "note": "notice"}


def level(code: str) -> str:
    """``error``, ``warning`` or ``note`` for a rule code.

    >>> level("FRY001"), level("FRY007"), level("FRY009")
    ('error', 'warning', 'note')
    """
    from torchferry.check.engine import _all_rules

    for mod in _all_rules():
        if mod.CODE == code:
            own = getattr(mod, "LEVEL", None)
            if own in _GITHUB_KIND:
                return str(own)
            break
    return LEVELS.get(code, "error")


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, never with ``NO_COLOR`` set; ``FORCE_COLOR`` forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text


def excerpt(line: str, column: int, end_column: int, offset: int = 0) -> tuple[str, int]:
    """A window of ``line`` around ``column``..``end_column``: (text, offset).

    ``offset`` is the column (in the whole line) of the text's first character, so
    a column ``c`` of the line is at ``c - offset`` in the text; a cut is marked
    with "…" (one column, counted in ``offset``).  Short lines come back whole.
    ``line`` may itself be a window at ``offset``.

    >>> excerpt("x = 1", 4, 5)
    ('x = 1', 0)
    >>> text, off = excerpt("a" * 200 + "BAD" + "b" * 200, 200, 203)
    >>> len(text), text[200 - off : 203 - off], text[0], text[-1]
    (122, 'BAD', '…', '…')
    """
    if len(line) <= EXCERPT_WIDTH + 2:  # short, or already a window (two "…" added)
        return line, offset
    start = max(0, column - offset - EXCERPT_BEFORE)
    stop = min(len(line), start + EXCERPT_WIDTH)
    text = line[start:stop]
    new_offset = offset + start
    if start > 0:
        text = ELLIPSIS + text
        new_offset -= 1
    if stop < len(line):
        text += ELLIPSIS
    return text, new_offset


class Progress:
    """``ferry check: 120/4031 files`` on one line of ``stream``, redrawn at most ten
    times a second, shown only when ``stream`` is a terminal and once the run has
    taken ``after`` seconds (a quick check prints nothing); :meth:`close` erases it."""

    def __init__(
        self, stream: TextIO, *, after: float = 1.0, clock: Any = None, enabled: bool | None = None
    ) -> None:
        import time

        self.stream = stream
        self.clock = clock or time.monotonic
        self.start = self.clock()
        self.after = after
        self.last = -1.0
        self.shown = False
        self.drawn: tuple[int, int] | None = None
        if enabled is None:
            try:
                enabled = stream.isatty() and os.environ.get("TERM") != "dumb"
            except (AttributeError, ValueError):
                enabled = False
        self.enabled = enabled

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.after or (now - self.last < 0.1 and done < total):
            return
        if self.shown and self.drawn == (done, total):
            return  # the same line again (the workers' tick while a big file is checked)
        self.last, self.drawn = now, (done, total)
        self.stream.write(f"\rferry check: {done}/{total} files")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False


def fixable(d: Diagnostic, unsafe: bool) -> bool:
    return d.fix is not None and (d.fix.safe or unsafe)


def location(d: Diagnostic) -> str:
    if d.cell is not None:
        return f"{d.path}:cell {d.cell}:{d.line}:{d.column + 1}"
    return f"{d.path}:{d.line}:{d.column + 1}"


def evidence_location(d: Diagnostic, e: Evidence) -> str:
    """Where a step of ``d``'s evidence is, as :func:`location` writes a finding's place.

    >>> from torchferry.check.api import Evidence
    >>> from torchferry.check.runner import Diagnostic
    >>> d = Diagnostic("t.py", "FRY013", "partial-batch-move", "m", 9, 4, 9, 10)
    >>> evidence_location(d, Evidence("made", 3, 0)), evidence_location(d, Evidence("x", 2, 4, "u.py"))
    ('t.py:3:1', 'u.py:2:5')
    """
    path = e.path if e.path is not None else d.path
    if e.cell is not None:
        return f"{path}:cell {e.cell}:{e.line}:{e.column + 1}"
    return f"{path}:{e.line}:{e.column + 1}"


def text_report(
    diagnostics: Sequence[Diagnostic], *, color: bool = False, unsafe: bool = False,
    show_source: bool = True,
) -> str:  # fmt: skip
    """``path:line:col: CODE [*] message``, then the source line and a caret under the span."""
    s = _Style(color)
    out: list[str] = []
    for d in diagnostics:
        mark = s("[*] ", "36") if fixable(d, unsafe) else ""
        out.append(f"{s(location(d), '1')}: {s(d.code, '1;31')} {mark}{d.message}")
        if show_source and d.source_line.strip():
            line, offset = excerpt(d.source_line, d.column, d.end_column, d.source_offset)
            column = min(max(d.column - offset, 0), len(line))
            text = line.replace("\t", "    ")
            start = len(line[:column].replace("\t", "    "))
            if d.end_line == d.line and d.end_column > d.column:
                stop = len(line[: max(d.end_column - offset, column)].replace("\t", "    "))
            else:
                stop = len(text.rstrip())
            width = max(1, stop - start)
            gutter = str(d.line)
            pad = " " * len(gutter)
            out.append(f"  {s(gutter, '34')} {s('|', '34')} {text.rstrip()}")
            out.append(f"  {pad} {s('|', '34')} {' ' * start}{s('^' * width, '1;31')}")
            for e in d.evidence:
                out.append(f"  {pad} {s('=', '34')} note: {evidence_location(d, e)}: {e.message}")
            if d.fix is not None:
                kind = "safe fix" if d.fix.safe else "unsafe fix"
                out.append(f"  {pad} {s('=', '34')} {kind}: {d.fix.message}")
            out.append("")
    return "\n".join(out) + ("\n" if out else "")


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}{'es' if word.endswith(('x', 's')) else 's'}"


def summary(
    diagnostics: Sequence[Diagnostic], *, fixed: int = 0, unsafe: bool = False,
    color: bool = False,
) -> str:  # fmt: skip
    """The closing lines, like ruff's: counts, what was fixed, what ``--fix`` would fix."""
    s = _Style(color)
    n = len(diagnostics)
    if n == 0:
        if fixed:
            return f"Found {plural(fixed, 'finding')} ({fixed} fixed, 0 remaining).\n"
        return s("All checks passed!", "1;32") + "\n"
    head = f"Found {plural(n + fixed, 'finding')}"
    head += f" ({fixed} fixed, {n} remaining)." if fixed else "."
    lines = [head]
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.safe)
    hidden = sum(1 for d in diagnostics if d.fix is not None and not d.fix.safe)
    if unsafe and safe + hidden:
        lines.append(f"{s('[*]', '36')} {safe + hidden} fixable with `--fix --unsafe-fixes`.")
    elif safe or hidden:
        if safe:
            line = f"{s('[*]', '36')} {safe} fixable with the `--fix` option"
        else:
            line = "No fixes available"
        if hidden:
            line += (
                f" ({plural(hidden, 'hidden fix')} can be enabled with the "
                "`--unsafe-fixes` option)"
            )
        lines.append(line + ".")
    return "\n".join(lines) + "\n"


def statistics(diagnostics: Sequence[Diagnostic], *, unsafe: bool = False,
               color: bool = False, as_json: bool = False) -> str:
    """``--statistics``: one line per rule, most findings first, as ruff prints them:
    the count, the code, ``[*]`` when every finding of it has a fix ``--fix`` applies.

    >>> from torchferry.check.runner import Diagnostic
    >>> d = Diagnostic("t.py", "FRY004", "load-without-map-location", "no map_location", 2, 8, 2, 30)
    >>> print(statistics([d, d]), end="")
    2\tFRY004\t[ ] load-without-map-location
    """
    s = _Style(color)
    by_code: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_code.setdefault(d.code, []).append(d)
    rows = sorted(by_code.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if as_json:  # as ruff's --statistics --output-format json
        return json.dumps([{"code": code, "name": ds[0].name, "count": len(ds),
                            "fixable": all(fixable(d, unsafe) for d in ds)}
                           for code, ds in rows], indent=2) + "\n"
    width = max((len(str(len(ds))) for _, ds in rows), default=1)
    out = []
    for code, ds in rows:
        mark = "[*]" if all(fixable(d, unsafe) for d in ds) else "[ ]"
        out.append(f"{len(ds):>{width}}\t{s(code, '1;31')}\t{mark} {ds[0].name}")
    return "\n".join(out) + ("\n" if out else "")


def _col(c: int) -> int:
    return c + 1


def _fix_json(d: Diagnostic) -> Any:
    if d.fix is None:
        return None
    return {
        "message": d.fix.message,
        "safe": d.fix.safe,
        "edits": [
            {
                "line": e.line,
                "column": _col(e.column),
                "end_line": e.end_line,
                "end_column": _col(e.end_column),
                "content": e.content,
            }
            for e in d.fix.edits
        ],
    }


def _evidence_json(d: Diagnostic, e: Evidence) -> dict[str, Any]:
    item: dict[str, Any] = {"message": e.message, "path": e.path if e.path is not None else d.path}
    if e.cell is not None:
        item["cell"] = e.cell
    item.update(line=e.line, column=_col(e.column))
    return item


def json_report(diagnostics: Sequence[Diagnostic]) -> str:
    """A JSON list, one object per finding."""
    items = []
    for d in diagnostics:
        item: dict[str, Any] = {
            "code": d.code,
            "name": d.name,
            "message": d.message,
            "path": d.path,
        }
        if d.cell is not None:
            item["cell"] = d.cell
        item.update(
            line=d.line,
            column=_col(d.column),
            end_line=d.end_line,
            end_column=_col(d.end_column),
            fix=_fix_json(d),
        )
        if d.evidence:
            item["evidence"] = [_evidence_json(d, e) for e in d.evidence]
        items.append(item)
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def _rule_entries(codes: Sequence[str]) -> list[dict[str, Any]]:
    from torchferry.check.docs import rule_doc, rule_summary
    from torchferry.check.engine import SYNTAX_ERROR, SYNTAX_ERROR_NAME, _all_rules

    by_code = {m.CODE: m for m in _all_rules()}
    entries = []
    for code in codes:
        mod = by_code.get(code)
        if code == SYNTAX_ERROR or mod is None:
            text = "The file cannot be parsed (syntax error, undecodable bytes or broken notebook)."
            name, full, help_md = SYNTAX_ERROR_NAME, text, text
        else:
            name, text, full = mod.NAME, rule_summary(mod), rule_doc(mod)
            help_md = full
        entries.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "help": {"text": full, "markdown": help_md},
                "defaultConfiguration": {"level": level(code)},
                "properties": {"tags": ["torchferry", "pytorch", "device"]},
            }
        )
    return entries


def sarif_report(diagnostics: Sequence[Diagnostic], *, root: str, enabled: Sequence[str]) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it: every enabled rule with its help
    text, and one result per finding located relative to ``root`` (``%SRCROOT%``)."""
    from torchferry._version import __version__

    codes = sorted({*enabled, *(d.code for d in diagnostics)})
    index = {c: i for i, c in enumerate(codes)}
    results = []
    for d in diagnostics:
        uri = _relative_uri(d.path, root)
        text = d.message
        if d.cell is not None:
            # SARIF regions address lines of the file; a notebook's are JSON lines
            region = {"startLine": 1}
            text = f"cell {d.cell}, line {d.line}, column {d.column + 1}: {d.message}"
        else:
            region = {
                "startLine": d.line,
                "startColumn": d.column + 1,
                "endLine": d.end_line,
                "endColumn": max(d.end_column, d.column) + 1,
            }
        here = {
            "physicalLocation": {
                "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                "region": region,
            }
        }
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": level(d.code),
            "message": {"text": f"{d.code} {text}"},
            "locations": [here],
        }
        if d.evidence:
            links = ", ".join(f"[{i}]({i})" for i in range(1, len(d.evidence) + 1))
            result["message"]["text"] += f" (evidence: {links})"
            result.update(_sarif_evidence(d, root, here))
        results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ferry check",
                        "fullName": "torchferry ferry check",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": _rule_entries(codes),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _sarif_place(d: Diagnostic, e: Evidence, root: str) -> tuple[dict[str, Any], str]:
    """The physical location of one evidence step, and its message (a notebook's cell and
    line go in the message: SARIF regions address the lines of the JSON file)."""
    uri = _relative_uri(e.path if e.path is not None else d.path, root)
    if e.cell is not None:
        region: dict[str, Any] = {"startLine": 1}
        text = f"cell {e.cell}, line {e.line}, column {e.column + 1}: {e.message}"
    else:
        region = {"startLine": e.line, "startColumn": e.column + 1}
        text = e.message
    where = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}, "region": region}
    return where, text


def _sarif_evidence(d: Diagnostic, root: str, here: dict[str, Any]) -> dict[str, Any]:
    """``relatedLocations`` (one per evidence step, linked from the message) and one
    ``codeFlow`` through the steps in order, ending at the finding itself."""
    related, steps = [], []
    for i, e in enumerate(d.evidence, start=1):
        where, text = _sarif_place(d, e, root)
        related.append({"id": i, "message": {"text": text}, "physicalLocation": where})
        steps.append({"location": {"physicalLocation": where, "message": {"text": text}},
                      "importance": "essential"})  # fmt: skip
    steps.append({"location": {**here, "message": {"text": d.message}}, "importance": "essential"})
    return {
        "relatedLocations": related,
        "codeFlows": [{"threadFlows": [{"locations": steps}]}],
    }


def _relative_uri(path: str, root: str) -> str:
    from pathlib import Path
    from urllib.parse import quote

    p = Path(path).resolve()
    try:
        rel = p.relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return p.as_uri()
    return quote(rel)


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github_report(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: ``::error file=...,line=...::message``
    (``::warning``/``::notice`` for the rules whose :func:`level` says so).

    >>> from torchferry.check.runner import Diagnostic
    >>> d = Diagnostic("t.py", "FRY004", "load-without-map-location", "no map_location", 2, 8, 2, 30)
    >>> print(github_report([d]), end="")
    ::error title=ferry (FRY004),file=t.py,line=2,col=9,endLine=2,endColumn=31::t.py:2:9: FRY004 no map_location
    """
    out = []
    for d in diagnostics:
        props = [f"title={_escape_prop(f'ferry ({d.code})')}", f"file={_escape_prop(d.path)}"]
        if d.cell is None:
            props += [
                f"line={d.line}",
                f"col={d.column + 1}",
                f"endLine={d.end_line}",
                f"endColumn={d.end_column + 1}",
            ]
        msg = f"{location(d)}: {d.code} {d.message}"
        msg += "".join(f"\n  note: {evidence_location(d, e)}: {e.message}" for e in d.evidence)
        out.append(f"::{_GITHUB_KIND[level(d.code)]} {','.join(props)}::{_escape_data(msg)}")
    return "\n".join(out) + ("\n" if out else "")
