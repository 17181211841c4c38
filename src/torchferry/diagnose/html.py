"""Rich views of torchferry's reports for Jupyter and Colab: HTML there, plain text elsewhere.

Each view is a :class:`Rich` object: IPython's ``display`` shows its
``_repr_html_`` in a notebook front end and its text (``__repr__``) in a
terminal, in ``Jupyter console`` and in anything that keeps only ``text/plain``.

* :func:`explanation_view`: the report of :func:`torchferry.diagnose.explanation.explain_exception`
  (the line, the operands with the culprit marked, where it was created, the fix, the rule);
* :func:`trips_view`: a :class:`torchferry.trips` table with its loop notes (rule and fix);
* :func:`findings_view`: ``ferry check`` findings, each naming its cell and line.

Where a report names a place in the code, ``where(path, line)`` turns it into
what the reader knows: the ``%load_ext torchferry`` extension passes one that
names notebook cells as IPython does (``In [5], line 3``).  Every piece of text
from the user's program is escaped.

>>> view = Rich("plain", "<b>rich</b>")
>>> repr(view), view._repr_html_()
('plain', '<b>rich</b>')

Importing this module imports neither torch nor IPython.
"""

from __future__ import annotations

import html
import linecache
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from torchferry.diagnose._rules import rule_name
from torchferry.diagnose.record import ExplainedOperand, Explanation

__all__ = ["Rich", "Where", "explanation_view", "trips_view", "findings_view", "default_where"]

#: ``where(path, line)``: how a place in the code is named for the reader.
Where = Callable[[str, int], str]

_BOX = "border-left:4px solid {color};padding:4px 10px;margin:6px 0;font-size:13px;line-height:1.45"
_RED, _AMBER, _BLUE = "#d9534f", "#e0a030", "#4a7fbf"
_CELL = "padding:1px 8px;text-align:left;vertical-align:top;border:none"
_HILITE = "background:rgba(217,83,79,0.16)"
_CODE = "font-family:monospace"


class Rich:
    """Text with an HTML rendering: ``display(view)`` picks the one the front end shows.

    >>> v = Rich("a < b", "<i>a &lt; b</i>")
    >>> str(v), v._repr_mimebundle_()["text/html"]
    ('a < b', '<i>a &lt; b</i>')
    """

    def __init__(self, text: str, html: str) -> None:
        self.text = text
        self.html = html

    def _repr_html_(self) -> str:
        return self.html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": self.html}

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text)

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def default_where(path: str, line: int) -> str:
    """``path:line`` with the path relative to the working directory when below it.

    >>> default_where(os.path.join(os.getcwd(), "train.py"), 3)
    'train.py:3'
    """
    if not path.startswith("<"):
        try:
            rel = os.path.relpath(path)
        except ValueError:
            rel = path
        if not rel.startswith(os.pardir):
            path = rel
    return f"{path}:{line}"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _code(text: str) -> str:
    return f'<code style="{_CODE}">{_e(text)}</code>'


def _source(path: str, line: int) -> str:
    return linecache.getline(path, line).strip()


_FIX = re.compile(r"^(?P<code>.*?)\s{2,}\((?P<why>.*)\)$")


def _fix_html(fix: str) -> str:
    """``code  (why)`` as the code in monospace and the reason after it."""
    m = _FIX.match(fix)
    if m is None:
        return _code(fix)
    return f"{_code(m['code'])} ({_e(m['why'])})"


# ------------------------------------------------------------------ explanations
def explanation_view(report: Explanation, text: str, where: Where | None = None) -> Rich:
    """The explanation of a device error as HTML; ``text`` is its plain-text form.

    >>> from torchferry.diagnose.record import ExplainedOperand, Explanation, Family, CodeLine
    >>> report = Explanation(
    ...     Family.MIXED_DEVICES, "tensors on different devices", "RuntimeError", "...",
    ...     at=CodeLine("<cell>", 2, "y = x + labels"),
    ...     fix="labels = labels.to(x.device)  (move it)", rule="FRY013",
    ...     operands=(ExplainedOperand("x", "cuda:0", "float32", (3,)),
    ...               ExplainedOperand("labels", "cpu", "int64", (3,), culprit=True)))
    >>> page = explanation_view(report, "text").html
    >>> "<code style=\\"font-family:monospace\\">labels</code>" in page, "FRY013 partial-batch-move" in page
    (True, True)
    """
    where = where or default_where
    parts = [f'<div class="torchferry-explain" style="{_BOX.format(color=_RED)}">']
    parts.append(f"<div><b>torchferry explain:</b> {_e(report.title)} ({_e(report.type)})</div>")
    parts += _where_html(report, where)
    if report.operands:
        parts.append(_operand_table(report.operands))
        parts += _sites_html(report.culprits, where)
    elif report.operands_unread:
        parts.append("<div>(no tensor operand of this line could be read without re-running code)</div>")
    if report.argument and len(report.culprits) == 1:
        parts.append(f"<div>(PyTorch's message calls it {_code(report.argument)})</div>")
    if report.fix:
        parts.append(f"<div><b>fix:</b> {_fix_html(report.fix)}</div>")
    if report.rule:
        r = report.rule
        found = "<code>ferry check</code> finds this before you run; " if report.found_statically else ""
        parts.append(
            f"<div><b>rule:</b> {_e(r)} {_e(rule_name(r))} ({found}<code>ferry rule {_e(r)}</code> explains)</div>"
        )
    for note in report.notebook_notes:
        parts.append(f"<div><i>{_e(note)}</i></div>")
    parts.append("</div>")
    return Rich(text, "\n".join(parts))


def _where_html(report: Explanation, where: Where) -> list[str]:
    at = report.at
    if at is None:
        return ["<div>(no line of your own code in the traceback)</div>"]
    parts = [f"<div>at <b>{_e(where(at.path, at.line))}</b>: {_code(at.source or '')}</div>"]
    for v in reversed(report.via):
        parts.append(f"<div>called from {_e(where(v.path, v.line))}: {_code(v.source or '')}</div>")
    return parts


def _operand_table(operands: tuple[ExplainedOperand, ...]) -> str:
    heads = ("", "operand", "device", "dtype", "shape", "")
    rows = ["<tr>" + "".join(f'<th style="{_CELL}">{h}</th>' for h in heads) + "</tr>"]
    for o in operands:
        shape = "" if o.shape is None else "[" + ", ".join(map(str, o.shape)) + "]"
        why = [o.reason] if o.reason else []
        if o.note:
            why.append(f"({o.note})")
        style = f' style="{_HILITE}"' if o.culprit else ""
        mark = "&#9654;" if o.culprit else ""
        rows.append(
            f"<tr{style}><td style=\"{_CELL}\">{mark}</td><td style=\"{_CELL}\">{_code(o.expr)}</td>"
            f"<td style=\"{_CELL}\"><b>{_e(o.device or '?')}</b></td>"
            f"<td style=\"{_CELL}\">{_e(o.dtype or '')}</td><td style=\"{_CELL}\">{_e(shape)}</td>"
            f"<td style=\"{_CELL}\">{_e('  '.join(why))}</td></tr>"
        )
    return '<table style="border-collapse:collapse;margin:4px 0">' + "".join(rows) + "</table>"


def _sites_html(culprits: tuple[ExplainedOperand, ...], where: Where) -> list[str]:
    parts = []
    for o in culprits:
        site = o.created_at
        if site:
            src = _source(site.path, site.line)
            call = site.call or ""
            extra = f" ({_e(call)})" if call and call != src and call not in src else ""
            parts.append(
                f"<div>{_code(o.expr)} was created at <b>{_e(where(site.path, site.line))}</b>: "
                f"{_code(src) if src else ''}{extra}</div>"
            )
        elif not o.expr.endswith(")"):
            parts.append(f"<div>{_code(o.expr)}: where it was created is not known</div>")
    return parts


# ------------------------------------------------------------------ trips
def _bytes(n: int) -> str:
    if n == 0:
        return "0"
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


_NOTES_HEAD = "rides repeated on every iteration of a loop:"


def trips_view(t: Any, where: Where | None = None, *, title: str = "") -> Rich:
    """A :class:`torchferry.trips` counter's table as HTML (its ``format()`` as the text).

    One row per line of code and kind of ride, most costly first, with the rule a
    row earns (``FRY007`` sync in loop, ``FRY008`` module move in loop) and, under
    the table, the loop notes with the fixes.
    """
    where = where or default_where
    text = t.format()
    rows = t.rows
    head_text = text.splitlines()[0] if text else "torchferry trips"
    parts = [f'<div class="torchferry-trips" style="{_BOX.format(color=_AMBER if rows else _BLUE)}">']
    label = f"{_e(title)}: " if title else ""
    parts.append(f"<div><b>{label}{_e(head_text.rstrip(':'))}</b></div>")
    if rows:
        timed = any(r.get("blocked_s") is not None for r in rows)
        heads = ["where", "source", "kind", "op", "count", "bytes"] + (["blocked"] if timed else []) + ["rule"]
        out = ["<tr>" + "".join(f'<th style="{_CELL}">{h}</th>' for h in heads) + "</tr>"]
        for r in rows:
            rule = r.get("rule")
            cells = [
                _e(where(r["path"], int(r["line"]))),
                _code(r.get("source") or ""),
                _e(r["kind"]),
                _e(r["op"]),
                f"<b>{int(r['count'])}</b>",
                _e(_bytes(int(r["bytes"]))),
            ]
            if timed:
                b = r.get("blocked_s")
                cells.append("" if b is None else _e(f"{b * 1e3:.2f} ms"))
            cells.append(f"<b>{_e(rule)}</b> {_e(rule_name(rule))}" if rule else "")
            style = f' style="{_HILITE}"' if rule else ""
            out.append(f"<tr{style}>" + "".join(f'<td style="{_CELL}">{c}</td>' for c in cells) + "</tr>")
        parts.append('<table style="border-collapse:collapse;margin:4px 0">' + "".join(out) + "</table>")
        lines = text.splitlines()
        if _NOTES_HEAD in lines:
            notes = lines[lines.index(_NOTES_HEAD) + 1 :]
            parts.append(f"<div><b>{_e(_NOTES_HEAD)}</b></div>")
            items: list[str] = []
            for line in notes:
                if line.startswith("    ") and items:
                    items[-1] += "<br>" + _e(line.strip())
                else:
                    items.append(_e(_relabel_note(line.strip(), where)))
            parts.append("<ul style=\"margin:2px 0\">" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
    parts.append("</div>")
    return Rich(text, "\n".join(parts))


def _relabel_note(note: str, where: Where) -> str:
    """A note starts with ``path:line:``; name that place as ``where`` does."""
    m = re.match(r"^(?P<path>.+?):(?P<line>\d+): (?P<rest>.*)$", note)
    if m is None:
        return note
    path = m["path"]
    if not os.path.isabs(path) and not path.startswith("<"):
        path = os.path.abspath(path)
    return f"{where(path, int(m['line']))}: {m['rest']}"


# ------------------------------------------------------------------ ferry check findings
def findings_view(
    diagnostics: Sequence[Any], text: str, place: Callable[[Any], str], summary: str
) -> Rich:
    """``ferry check`` findings as a table: where (cell and line), rule, message, the line.

    ``place(diagnostic)`` names where a finding is (``In [3], line 2``).
    """
    parts = [f'<div class="torchferry-check" style="{_BOX.format(color=_RED if diagnostics else _BLUE)}">']
    parts.append(f"<div><b>{_e(summary)}</b></div>")
    if diagnostics:
        out = [
            "<tr>" + "".join(f'<th style="{_CELL}">{h}</th>' for h in ("where", "rule", "finding", "code")) + "</tr>"
        ]
        for d in diagnostics:
            fix = ""
            if d.fix is not None:
                fix = f"<br><i>{'safe' if d.fix.safe else 'unsafe'} fix: {_e(d.fix.message)}</i>"
            out.append(
                "<tr>"
                f'<td style="{_CELL}"><b>{_e(place(d))}</b></td>'
                f'<td style="{_CELL}"><b>{_e(d.code)}</b> {_e(d.name)}</td>'
                f'<td style="{_CELL}">{_e(d.message)}{fix}</td>'
                f'<td style="{_CELL}">{_code(d.source_line.strip())}</td>'
                "</tr>"
            )
        parts.append('<table style="border-collapse:collapse;margin:4px 0">' + "".join(out) + "</table>")
        parts.append("<div><code>ferry rule CODE</code> explains a rule.</div>")
    parts.append("</div>")
    return Rich(text, "\n".join(parts))
