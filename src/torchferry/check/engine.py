"""The engine of ``ferry check``: parse once, run the selected rules, honour ``# noqa``, fix.

Everything here works on source text; reading files, notebooks, caching and
printing live in the other modules of this package.  Nothing imports torch::

    >>> from torchferry.check.engine import check_source, apply_fixes
    >>> check_source("x = (", "bad.py")[0].code
    'FRY000'
    >>> apply_fixes("x = 1\\n", [])
    'x = 1\\n'
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

from torchferry.check.api import Context, Finding, Fix, RuleSet, Selected, Selector, split_lines
from torchferry.errors import InternalError, UsageError

if TYPE_CHECKING:
    from torchferry.check.flow import Project

__all__ = [
    "SYNTAX_ERROR",
    "InternalError",
    "FixResult",
    "check_source",
    "check_tree",
    "check_cells",
    "CellFinding",
    "apply_fixes",
    "fix_source",
    "resolve_rules",
    "validate_selectors",
]

#: The code of the pseudo-rule reporting a file that cannot be parsed.
SYNTAX_ERROR = "FRY000"
SYNTAX_ERROR_NAME = "syntax-error"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)



# ---------------------------------------------------------------- selection
def _all_rules() -> tuple[ModuleType, ...]:
    from torchferry.check.rules import all_rules

    return all_rules()


def _specificity(selector: Selector, rule: ModuleType) -> int:
    """How specifically ``selector`` names ``rule``: -1 not at all, 0 for ALL, longer prefixes
    more; the default rule set selects its rules as their codes would."""
    if isinstance(selector, RuleSet):
        from torchferry.check.rules import is_default

        return 100 if is_default(rule.CODE) else -1
    if selector == "ALL":
        return 0
    if selector == rule.CODE:
        return 100
    if selector.lower() == rule.NAME:
        return 100
    if rule.CODE.startswith(selector):
        return len(selector)
    return -1


def _normalise(selectors: Iterable[Selector] | None) -> tuple[Selector, ...] | None:
    if selectors is None:
        return None
    if isinstance(selectors, str):
        selectors = [selectors]
    out: list[Selector] = []
    for sel in selectors:
        if isinstance(sel, RuleSet):
            out.append(sel)
            continue
        for part in str(sel).split(","):
            part = part.strip()
            if part:
                out.append(part if "-" in part else part.upper())
    return tuple(out)


def validate_selectors(selectors: Iterable[Selector] | None, origin: str = "--select") -> None:
    """Raise :class:`UsageError` (one line) if a selector names no rule.

    A selector is ``ALL``, a code (``FRY002``), a prefix of codes (``FRY00``) or
    a rule name (``discarded-move``).
    """
    sels = _normalise(selectors) or ()
    rules = _all_rules()
    for sel in sels:
        if isinstance(sel, RuleSet) or sel == "ALL" or sel == SYNTAX_ERROR or sel == SYNTAX_ERROR_NAME:
            continue
        if SYNTAX_ERROR.startswith(sel) and sel.startswith("FRY"):
            continue
        if not any(_specificity(sel, r) >= 0 for r in rules):
            known = ", ".join(r.CODE for r in rules) or "none installed"
            raise UsageError(
                f"unknown rule selector {sel!r} in {origin} "
                f"(use a code, a prefix of codes or ALL; known: {known}; see 'ferry rules')"
            )


def default_selection() -> tuple[Selector, ...]:
    """The selectors in force when nothing selects rules: the default rule set.

    >>> default_selection()
    (<RuleSet.DEFAULT: 'the default rule set'>,)
    """
    return (RuleSet.DEFAULT,)


#: rule modules with how the run selects each, sorted by code
Resolved = tuple[tuple[ModuleType, Selected], ...]


@lru_cache(maxsize=64)
def _resolve(select: tuple[Selector, ...] | None, ignore: tuple[Selector, ...]) -> Resolved:
    selectors = default_selection() if select is None else select
    named = [s for s in selectors if not isinstance(s, RuleSet)]
    sets = [s for s in selectors if isinstance(s, RuleSet)]
    chosen = []
    for rule in _all_rules():
        best_named = max((_specificity(s, rule) for s in named), default=-1)
        best_set = max((_specificity(s, rule) for s in sets), default=-1)
        best_ignore = max((_specificity(s, rule) for s in ignore), default=-1)
        # The more specific selector wins; on a tie, ignore wins (as in ruff).
        if best_named >= 0 and best_named > best_ignore:
            chosen.append((rule, Selected.NAMED))
        elif best_set >= 0 and best_set > best_ignore:
            chosen.append((rule, Selected.BY_DEFAULT))
    return tuple(chosen)


def resolve_selection(
    select: Sequence[Selector] | None = None, ignore: Sequence[Selector] | None = None
) -> Resolved:
    """The rule modules that ``select``/``ignore`` enable, sorted by code, each with how it
    is selected: :attr:`Selected.NAMED` where a selector names it, else (the default rule
    set alone selects it) :attr:`Selected.BY_DEFAULT`.

    >>> [(m.CODE, s.name) for m, s in resolve_selection(None, ["FRY0"])
    ...  if m.CODE == "FRY013"]
    [('FRY013', 'BY_DEFAULT')]
    >>> [(m.CODE, s.name) for m, s in resolve_selection(["FRY013"])]
    [('FRY013', 'NAMED')]
    """
    return _resolve(_normalise(select), _normalise(ignore) or ())


def resolve_rules(
    select: Sequence[Selector] | None = None, ignore: Sequence[Selector] | None = None
) -> tuple[ModuleType, ...]:
    """The rule modules that ``select``/``ignore`` enable, sorted by code.

    ``select=None`` means the default rule set (:func:`default_selection`), ``["ALL"]``
    every rule.  When a code matches both lists, the more
    specific selector wins (``ignore=["FRY00"], select=["FRY001"]`` keeps FRY001)."""
    return tuple(m for m, _ in resolve_selection(select, ignore))


def _reports_syntax_errors(ignore: tuple[Selector, ...] | None) -> bool:
    return not ignore or (SYNTAX_ERROR not in ignore and SYNTAX_ERROR_NAME not in ignore)


# ---------------------------------------------------------------- checking
def syntax_error_finding(source: str, exc: BaseException) -> Finding:
    """FRY000 for a source that does not parse, at the position Python reports."""
    lines = split_lines(source)
    if isinstance(exc, SyntaxError):
        line = exc.lineno or 1
        col = (exc.offset or 1) - 1
        msg = exc.msg or "invalid syntax"
        message = f"SyntaxError: {msg}"
    elif isinstance(exc, (RecursionError, MemoryError)):
        line, col = 1, 0
        message = "SyntaxError: too deeply nested to parse"
    else:
        line, col = 1, 0
        message = f"SyntaxError: {exc}"
    line = min(max(line, 1), max(len(lines), 1))
    text = lines[line - 1] if lines else ""
    col = min(max(col, 0), len(text))
    return Finding(SYNTAX_ERROR, message, line, col, line, col)


#: Set by the command line (:func:`manage_gc`): freeze each parsed tree.
_MANAGE_GC = False
#: Above this many frozen objects something keeps trees alive: thaw and collect (where the
#: process's resident size cannot be read).
_FREEZE_LIMIT = 3_000_000
#: Frozen objects are freed by reference counting only: an analysis that was alive when a
#: tree was frozen (another file's, kept for the calls that reach it) and has cycles stays
#: after it is dropped.  When the process has grown by this much since the last look, the
#: frozen objects are thawed and collected.  Most of the growth is the analyses kept for
#: calls (:data:`~torchferry.check.flow.project.KEEP_FILES`), which a collection cannot
#: free: on diffusers 0.42.1 with two workers, 512 MiB made each worker collect once, at
#: about 3.4 million frozen objects (2.1-2.3 s of CPU, 15% of the worker's time), for 35 MB
#: given back; at 1 GiB neither collects and the largest worker peaks at 745 MB instead of
#: 697 MB.
_GROWTH_LIMIT = 1024 * 2**20
#: The safety valve looks every this many parses.  It reads the resident size (cheap);
#: ``gc.get_freeze_count()``, its fallback, walks the whole permanent generation.
_FREEZE_CHECK_EVERY = 64
_rss_base: int | None = None
_frozen_base: int | None = None
_parses = 0
#: Whether the permanent generation held objects before :func:`manage_gc` was turned on.
_host_froze = False
#: The youngest generation's threshold while :func:`manage_gc` is on (CPython's default:
#: 700 allocations).  The analysis makes many short-lived containers, and the collection
#: before each parse frees a file's cycles anyway: on timm, 1,260 collections took 0.22 s
#: CPU, 268 (nearly all of them those before a parse) 0.13 s.
_GEN0_THRESHOLD = 20_000
#: The collector's thresholds before :func:`manage_gc` was turned on (restored after).
_host_threshold: tuple[int, int, int] | None = None


def manage_gc(enable: bool = True) -> None:
    """Make the cyclic garbage collector skip the syntax trees (for a command-line run).

    A tree is hundreds of thousands of objects that hold no reference cycles: the
    collector would traverse them again and again while the per-file analysis runs
    (this saved about 9% of a cold run's CPU time on timm).  With this on, each parse is
    preceded by a collection (so no garbage gets frozen) and followed by
    ``gc.freeze()``; a tree is still freed by reference counting once the file is
    done.  If frozen objects pile up anyway, they are thawed and collected.  The youngest
    generation is collected less often (:data:`_GEN0_THRESHOLD`).

    Turning it off thaws the frozen objects only if nothing was frozen when it was
    turned on: a host process that froze its own objects (``gc.freeze()`` before
    forking workers, a test runner) keeps them frozen.
    """
    import gc

    global _MANAGE_GC, _frozen_base, _rss_base, _host_froze, _host_threshold
    if enable and not _MANAGE_GC:
        _host_froze = gc.get_freeze_count() > 0
        _host_threshold = gc.get_threshold()
        first, *older = _host_threshold
        gc.set_threshold(max(first, _GEN0_THRESHOLD), *older)
    elif not enable and _MANAGE_GC:
        if _host_threshold is not None:
            gc.set_threshold(*_host_threshold)
        if not _host_froze:
            gc.unfreeze()
    _MANAGE_GC = enable
    _frozen_base = _rss_base = None  # measured at the first look of the safety valve


def _parse(source: str, path: str) -> ast.Module:
    """``ast.parse`` without the warnings the parser may emit about the checked code
    (invalid escape sequences: a SyntaxWarning printed on stderr since Python 3.12, or
    a SyntaxError under ``-W error``)."""
    if _MANAGE_GC:
        return _parse_frozen(source, path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


def parse_nested(source: str, path: str) -> ast.Module:
    """:func:`_parse` for another file of the run, read while a file is being analysed (a
    call reached it): the file's own analysis is alive, so no collection runs first."""
    if _MANAGE_GC:
        return _parse_frozen(source, path, collect=False)
    return _parse(source, path)


def _tree(source: str, path: str, project: Project | None) -> ast.Module:
    """The syntax tree of a checked file: the one an earlier call into it parsed, when the
    run's analysis kept it (:meth:`~torchferry.check.flow.project.Project.tree_of`), else
    :func:`_parse`'s."""
    if project is not None:
        kept = project.tree_of(os.path.abspath(path), source)
        if kept is not None:
            if _MANAGE_GC:
                import gc

                gc.collect()  # as before a parse: the previous file's analysis
            return kept
    return _parse(source, path)


def _resident() -> int | None:
    """The process's resident size in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _safety_valve() -> None:
    """Thaw and collect the frozen objects when they pile up (see :data:`_GROWTH_LIMIT`)."""
    import gc

    global _frozen_base, _rss_base
    rss = _resident()
    if rss is not None:
        if _rss_base is None or rss < _rss_base:
            _rss_base = rss
            return
        if rss - _rss_base <= _GROWTH_LIMIT:
            return
    else:
        frozen = gc.get_freeze_count()
        if _frozen_base is None:
            _frozen_base = frozen
            return
        if frozen - _frozen_base <= _FREEZE_LIMIT:
            return
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _rss_base = _resident()


def _parse_frozen(source: str, path: str, collect: bool = True) -> ast.Module:
    import gc

    global _parses
    _parses += 1
    if _parses % _FREEZE_CHECK_EVERY == 0:
        _safety_valve()
    if collect:
        gc.collect()  # the previous file's analysis (it holds cycles), before freezing
    enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=path)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def check_source(
    source: str,
    path: str = "<stdin>",
    *,
    select: Sequence[Selector] | None = None,
    ignore: Sequence[Selector] | None = None,
    noqa: bool = True,
    target_torch_version: tuple[int, int, int] | None = None,
    module_classes: frozenset[str] = frozenset(),
    cell_starts: tuple[int, ...] = (),
    verify_fixes: bool = True,
    project: Project | None = None,
) -> list[Finding]:
    """Check Python source text and return its findings, sorted by position.

    A syntax error becomes one FRY000 finding; findings on a line with ``# noqa``
    (or ``# noqa: FRY001,FRY002`` naming their code) are dropped unless
    ``noqa=False``.  Raises :class:`InternalError` only if a rule itself crashes.
    ``cell_starts``: for a notebook's joined code cells, the line each cell starts on.
    ``verify_fixes=False`` keeps fixes without checking that the fixed text still parses
    (a second parse; the language server verifies a fix when it is asked for one).

    >>> check_source("import torch\\nx = (\\n")[0]
    Finding(code='FRY000', message="SyntaxError: '(' was never closed", line=2, column=4, \
end_line=2, end_column=4, fix=None, evidence=())
    """
    sel = _normalise(select)
    ign = _normalise(ignore) or ()
    try:
        tree = _tree(source, path, project)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        if _reports_syntax_errors(ign):
            return [syntax_error_finding(source, exc)]
        return []
    rules = _resolve(sel, ign)
    ctx = Context(path, source, tree, target_torch_version=target_torch_version,
                  module_classes=module_classes, cell_starts=cell_starts, project=project,
                  selection={m.CODE: how for m, how in rules})
    findings = _run_rules(ctx, rules, noqa)
    return _applicable(source, path, findings) if verify_fixes else findings


def _applicable(source: str, path: str, findings: list[Finding]) -> list[Finding]:
    """The findings, without the fixes that would leave ``source`` unparsable: a fix that
    cannot be applied is not advertised (and cannot make ``--fix`` drop the file's other
    fixes).  All fixes are tried together first; only if that fails, one by one."""
    fixable = [f for f in findings if f.fix is not None]
    if not fixable:
        return findings

    def parses(text: str) -> bool:
        try:
            _parse(text, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return True

    if parses(_apply(source, fixable, True)[0]):
        return findings
    return [f if f.fix is None or parses(_apply(source, [f], True)[0]) else
            replace(f, fix=None)
            for f in findings]


def check_tree(
    tree: ast.Module,
    source: str,
    path: str = "<stdin>",
    *,
    select: Sequence[Selector] | None = None,
    ignore: Sequence[Selector] | None = None,
    noqa: bool = True,
    target_torch_version: tuple[int, int, int] | None = None,
    module_classes: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Like :func:`check_source` for a tree already parsed from ``source`` (flake8 has one)."""
    rules = _resolve(_normalise(select), _normalise(ignore) or ())
    ctx = Context(path, source, tree, target_torch_version=target_torch_version,
                  module_classes=module_classes, selection={m.CODE: how for m, how in rules})
    return _run_rules(ctx, rules, noqa)


@dataclass(frozen=True)
class CellFinding:
    """A finding in one of the cells given to :func:`check_cells`."""

    cell: int  #: index of the cell in the sequence given (0-based)
    finding: Finding  #: lines counted from 1 within that cell, columns 0-based; fix edits too


def check_cells(
    cells: Sequence[str],
    *,
    select: Sequence[Selector] | None = None,
    ignore: Sequence[Selector] | None = None,
    noqa: bool = True,
    path: str = "<cells>",
    target_torch_version: tuple[int, int, int] | None = None,
) -> list[CellFinding]:
    """Check notebook code cells, in the order a kernel ran them, as one program.

    Names flow from cell to cell, and IPython syntax (``%magic``, ``!shell``,
    ``x = !ls``, ``obj?``, cell magics other than ``%%time``/``%%timeit``/
    ``%%capture``/``%%prun``) is blanked first, exactly as ``ferry check`` reads a
    ``.ipynb``.  Each finding is located by the index of its cell in ``cells`` and
    the line within that cell; its fix, when it has one, edits that cell only.
    ``select``/``ignore``/``noqa`` mean what they mean for :func:`check_source`; a
    syntax error is one FRY000 finding.  Never raises for bad input.

    >>> found = check_cells(["import torch", "%matplotlib inline",
    ...                      "x = torch.ones(2)\\nx.to('cpu')\\nprint(x)"])
    >>> [(c.cell, c.finding.line, c.finding.code) for c in found]
    [(2, 2, 'FRY002')]
    >>> found[0].finding.fix.edits[0]
    Edit(line=2, column=0, end_line=2, end_column=0, content='x = ')
    """
    from torchferry.check.notebook import from_cells, relocate

    nb = from_cells(list(cells))
    findings = check_source(
        nb.source,
        path,
        select=select,
        ignore=ignore,
        noqa=noqa,
        target_torch_version=target_torch_version,
        cell_starts=nb.cell_starts,
    )
    out = []
    for f in findings:
        number, g = relocate(nb, f)
        out.append(CellFinding(number - 1, g))
    return out


def _run_rules(ctx: Context, rules: Resolved, noqa: bool) -> list[Finding]:
    findings: list[Finding] = []
    for rule, _ in rules:
        try:
            findings.extend(rule.check(ctx))
        except Exception as exc:  # a bug in a rule: name it, never hide it
            raise InternalError(
                f"rule {rule.CODE} crashed on {ctx.path}: {type(exc).__name__}: {exc}"
            ) from exc
    if not findings:
        return findings
    findings = _on_paths_taken(findings, ctx)
    if noqa:
        findings = _drop_noqa(findings, ctx)
    findings = list(dict.fromkeys(findings))
    findings.sort(key=lambda f: (f.line, f.column, f.code, f.end_line, f.end_column, f.message))
    return findings


def _on_paths_taken(findings: list[Finding], ctx: Context) -> list[Finding]:
    """The findings, without those of the default rules inside an arm of a function that
    no call of the run takes (:func:`~torchferry.check.flow.untaken.untaken_arm`: a test
    decided by parameters every call leaves at their defaults): what they say holds only
    on a path the run's own code never reaches, so a default rule is unsure there.  The
    opt-in rules still report such a line: a user may pass the other value (a timing arm
    behind ``test=False``, flipped by hand, is a reported mistake), and so does a rule on by
    default only in part where a selector names it (it reports every finding then)."""
    from torchferry.check.flow.untaken import untaken_arm

    if "flow" not in ctx.__dict__:
        return findings  # (no rule asked the analysis: none of its findings rests on it)
    if not any(_held_to_default(ctx, f.code) for f in findings):
        return findings
    for _ in ctx.flow.results():  # (every call site of the file known)
        pass
    return [
        f
        for f in findings
        if not _held_to_default(ctx, f.code)
        or untaken_arm(ctx.flow, ctx.tree, f.line, f.column) is None
    ]


def _held_to_default(ctx: Context, code: str) -> bool:
    """Whether a finding of the rule ``code`` is reported as the default set's (only on a
    path the run's code takes): a default rule's, unless the rule is on by default only in
    part and a selector names it."""
    from torchferry.check.rules import default_part, is_default

    if code == SYNTAX_ERROR or not is_default(code):
        return False
    return default_part(code) is None or ctx.selected(code) is Selected.BY_DEFAULT


def _comment_columns(source: str) -> dict[int, int] | None:
    """{line: column of the first comment's '#'} or None if tokenizing fails."""
    import io
    import tokenize

    cols: dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and tok.start[0] not in cols:
                cols[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return cols


def noqa_codes(text: str, start: int = 0) -> frozenset[str] | None:
    """The codes a ``# noqa`` comment in ``text`` names; empty set for a bare ``# noqa``;
    None when there is none."""
    codes: set[str] = set()
    found = False
    for m in _NOQA.finditer(text, start):
        found = True
        if m.group("codes") is None:
            return frozenset()
        codes.update(c.upper() for c in _CODE.findall(m.group("codes")))
    return frozenset(codes) if found else None


def _drop_noqa(findings: list[Finding], ctx: Context) -> list[Finding]:
    lines = ctx.lines
    comment_cols: dict[int, int] | None = None
    computed = False  # comment_cols is computed on the first line that mentions noqa
    per_line: dict[int, frozenset[str] | None] = {}
    kept = []
    for f in findings:
        if f.line not in per_line:
            text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
            if "noqa" not in text.lower():
                per_line[f.line] = None
            else:
                if not computed:
                    comment_cols, computed = _comment_columns(ctx.source), True
                if comment_cols is None:  # could not tokenize: trust the text
                    per_line[f.line] = noqa_codes(text)
                elif f.line in comment_cols:
                    per_line[f.line] = noqa_codes(text, comment_cols[f.line])
                else:  # "noqa" only inside a string
                    per_line[f.line] = None
        codes = per_line[f.line]
        if codes is None:
            kept.append(f)
        elif codes and not any(f.code.startswith(c) for c in codes):
            kept.append(f)
    return kept


# ---------------------------------------------------------------- fixing
def _line_starts(source: str) -> tuple[list[int], list[int]]:
    """Offsets where each line starts, and each line's length without its line break."""
    starts = [0]
    lengths = []
    for m in _LINE_BREAK.finditer(source):
        lengths.append(m.start() - starts[-1])
        starts.append(m.end())
    lengths.append(len(source) - starts[-1])
    return starts, lengths


def _offset(starts: list[int], lengths: list[int], line: int, col: int) -> int | None:
    if line < 1 or line > len(starts) or col < 0 or col > lengths[line - 1]:
        return None
    return starts[line - 1] + col


def _newline_of(source: str) -> str:
    m = _LINE_BREAK.search(source)
    return m.group() if m else "\n"


def choose_fixes(
    source: str, findings: Iterable[Finding], *, unsafe: bool = False
) -> list[tuple[Fix, list[tuple[int, int, str]]]]:
    """The fixes to apply in one pass, with their edits as (start, end, text) offsets.

    Safe fixes always, unsafe ones only with ``unsafe=True``.  A fix is skipped
    when an edit lies outside the source, when its own edits overlap, or when its
    span touches or overlaps the span of a fix already chosen (earlier position
    first); a later pass picks it up."""
    starts, lengths = _line_starts(source)
    newline = _newline_of(source)
    candidates: list[tuple[int, int, Fix, list[tuple[int, int, str]]]] = []
    for f in findings:
        fix = f.fix
        if fix is None or not fix.edits or not (fix.safe or unsafe):
            continue
        spans = []
        for e in fix.edits:
            lo = _offset(starts, lengths, e.line, e.column)
            hi = _offset(starts, lengths, e.end_line, e.end_column)
            if lo is None or hi is None or hi < lo:
                break
            text = e.content if newline == "\n" else e.content.replace("\n", newline)
            spans.append((lo, hi, text))
        else:
            spans.sort()
            pairs = zip(spans, spans[1:], strict=False)
            if all(a[1] <= b[0] and a[:2] != b[:2] for a, b in pairs):
                candidates.append((spans[0][0], max(s[1] for s in spans), fix, spans))
    candidates.sort(key=lambda c: (c[0], c[1]))
    chosen: list[tuple[Fix, list[tuple[int, int, str]]]] = []
    last_end = -1
    for lo, hi, fix, spans in candidates:
        if lo > last_end or not chosen:
            chosen.append((fix, spans))
            last_end = hi
    return chosen


def _splice(source: str, spans: list[tuple[int, int, str]]) -> str:
    out = []
    pos = 0
    for lo, hi, text in sorted(spans):
        out.append(source[pos:lo])
        out.append(text)
        pos = hi
    out.append(source[pos:])
    return "".join(out)


def _apply(source: str, findings: Iterable[Finding], unsafe: bool) -> tuple[str, int]:
    chosen = choose_fixes(source, findings, unsafe=unsafe)
    if not chosen:
        return source, 0
    spans = [span for _fix, fix_spans in chosen for span in fix_spans]
    return _splice(source, spans), len(chosen)


def apply_fixes(source: str, findings: Iterable[Finding], *, unsafe: bool = False) -> str:
    """Apply the non-overlapping edits of the findings' fixes (one pass).

    Safe fixes are applied; unsafe ones too when ``unsafe=True``.  Text outside
    the edits is kept byte for byte; newlines inside an edit follow the
    source's own line endings.  Call again on the result (with fresh findings)
    to apply fixes skipped for overlapping -- :func:`fix_source` does that.

    >>> from torchferry.check.api import Edit
    >>> f = Finding("FRY002", "m", 1, 0, 1, 1, Fix((Edit(1, 0, 1, 1, "y"),), True, "rename"))
    >>> apply_fixes("x = 1\\r\\n", [f])
    'y = 1\\r\\n'
    """
    return _apply(source, findings, unsafe)[0]


@dataclass
class FixResult:
    """The outcome of :func:`fix_source`."""

    source: str  #: the fixed text (the original when ``error`` is set)
    fixed: int  #: how many fixes were applied
    findings: list[Finding]  #: what remains in ``source``
    error: str | None = None  #: why the fixes were abandoned, if they were
    passes: int = 0
    applied: list[Fix] = field(default_factory=list)


def fix_source(
    source: str,
    path: str = "<stdin>",
    *,
    select: Sequence[Selector] | None = None,
    ignore: Sequence[Selector] | None = None,
    unsafe: bool = False,
    max_passes: int = 10,
    check=None,
    target_torch_version: tuple[int, int, int] | None = None,
    module_classes: frozenset[str] = frozenset(),
    project: Project | None = None,
) -> FixResult:
    """Check and fix ``source`` until nothing more can be fixed (at most ``max_passes``).

    If the fixed text no longer parses, the fixes are abandoned: ``source`` is
    returned unchanged with ``error`` saying so.  ``check`` replaces
    :func:`check_source` (notebooks pass their own).

    >>> fix_source("x = 1\\n").fixed
    0
    """
    if check is None:

        def check(text: str) -> list[Finding]:
            return check_source(
                text, path, select=select, ignore=ignore, target_torch_version=target_torch_version,
                module_classes=module_classes, project=project,
            )

    current = source
    findings = check(current)
    fixed = 0
    passes = 0
    applied: list[Fix] = []
    while passes < max_passes:
        chosen = choose_fixes(current, findings, unsafe=unsafe)
        if not chosen:
            break
        passes += 1
        new = _splice(current, [span for _fix, spans in chosen for span in spans])
        if new == current:
            break
        new_findings = check(new)
        bad = _new_syntax_error(findings, new_findings)
        if bad is not None:
            codes = sorted({_code_of(fx, findings) for fx, _ in chosen})
            return _abandoned(source, check(source), codes, bad, passes)
        fixed += len(chosen)
        applied.extend(fx for fx, _ in chosen)
        current, findings = new, new_findings
    return FixResult(current, fixed, findings, passes=passes, applied=applied)


def _new_syntax_error(findings: list[Finding], new_findings: list[Finding]) -> Finding | None:
    """The syntax error of the fixed text (``new_findings``) when the text before the fixes
    (``findings``) had none; None otherwise."""
    if any(f.code == SYNTAX_ERROR for f in new_findings) and not any(
        f.code == SYNTAX_ERROR for f in findings
    ):
        return next(f for f in new_findings if f.code == SYNTAX_ERROR)
    return None


def _abandoned(source: str, findings: list[Finding], codes: list[str], bad: Finding,
               passes: int) -> FixResult:
    """The outcome of fixes (by the rules ``codes``) abandoned as they would make the file
    invalid (``bad``, the syntax error): ``source`` unchanged, with its ``findings``."""
    return FixResult(
        source,
        0,
        findings,
        error=(
            f"fixes by {', '.join(codes)} "
            f"would make the file invalid ({bad.message} at line {bad.line}); "
            "left it unchanged"
        ),
        passes=passes,
    )


def _code_of(fix: Fix, findings: Iterable[Finding]) -> str:
    for f in findings:
        if f.fix is fix:
            return f.code
    return "?"
