"""What the language server reads and writes in a document's text, with no protocol types:
``# noqa`` comments (the edit that adds one, the code under the cursor) and the rules'
documentation (for hover, and the files the diagnostics link to).

    >>> noqa_code_at("x.cuda()  # noqa: FRY001, FRY002", 29)
    'FRY002'
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from torchferry.check import engine
from torchferry.check.api import Edit, split_lines
from torchferry.check.engine import SYNTAX_ERROR, noqa_codes

__all__ = ["noqa_code_at", "noqa_edit", "rule_link", "rule_markdown"]

SYNTAX_ERROR_MARKDOWN = (
    f"# {SYNTAX_ERROR} ({engine.SYNTAX_ERROR_NAME})\n\nA file that cannot be checked because "
    "Python cannot read it: a syntax error, bytes that are not valid in its encoding, a "
    "notebook that is not valid JSON, or a file over `max-file-size`.\n"
)


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
