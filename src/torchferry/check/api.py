"""The contract between the checker's engine and its rules.

A rule is one module in ``torchferry/check/rules/`` named ``fryNNN_<name>.py``
that defines:

* ``CODE``  -- e.g. ``"FRY002"``; part of the interface, never renumbered;
* ``NAME``  -- e.g. ``"discarded-move"``;
* ``FIX``   -- ``"safe"``, ``"unsafe"`` or ``"none"``: the best fix it can offer;
* a module docstring with the sections ``## What it does``, ``## Why is this bad``,
  ``## Example``, ``## Use instead``, ``## Fix safety`` and ``## Known limits``
  (``docs/rules.md`` and ``ferry rule CODE`` are generated from it);
* ``check(ctx: Context) -> Iterable[Finding]``.

Positions: lines are 1-based; columns are 0-based *character* offsets into the
line (``ast`` gives UTF-8 byte offsets; ``Context.span`` converts).  Reporters
print columns 1-based, as ruff does.
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the analysis never imports this module: no cycle
    from torchferry.check.flow import FileFlow, Project
    from torchferry.check.scopes import Walker
    from torchferry.check.training_loops import Loops

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


_PARSER_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(source: str) -> list[str]:
    """The lines of ``source`` as Python counts them: only ``\\r\\n``, ``\\r`` and ``\\n``
    end a line (``str.splitlines`` also splits on form feeds, ``\\x1c``-``\\x1e``, ``\\x85``
    and ``\\u2028``/``\\u2029``, which would shift every line after them).

    >>> split_lines("a\\r\\nb\\x0cc\\n")
    ['a', 'b\\x0cc']
    """
    if source.isascii():
        if not any(c in source for c in "\x0b\x0c\x1c\x1d\x1e"):
            return source.splitlines()  # the fast path: no other separator occurs
    elif _OTHER_BREAKS.search(source) is None:
        return source.splitlines()
    lines = _LINE_BREAK.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between two positions (end exclusive) with ``content``."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """A fix: edits applied together, ``safe`` ones by ``--fix``, others by ``--unsafe-fixes``."""

    edits: tuple[Edit, ...]
    safe: bool
    message: str


@dataclass(frozen=True)
class Evidence:
    """One step of the chain that supports a finding: where a value was made, moved or met.

    ``path`` is None for the finding's own file.  Lines are 1-based, columns 0-based
    characters, as for findings; in a notebook ``cell`` is set (1-based) and ``line``
    counts within that cell, as for a notebook's findings.

    >>> Evidence("`labels` comes from the batch here and is never moved", 40, 4)
    Evidence(message='`labels` comes from the batch here and is never moved', line=40, column=4, path=None, cell=None)
    """

    message: str
    line: int
    column: int
    path: str | None = None
    cell: int | None = None


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    fix: Fix | None = None
    evidence: tuple[Evidence, ...] = ()


def walk(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` in :func:`ast.walk`'s order (breadth first, the fields in
    order), as a list: the same walk in about half the time (no generators, no
    ``iter_fields`` pairs; the list grows while it is read)."""
    out = [tree]
    add = out.append
    node_type = ast.AST
    for node in out:
        for name in node._fields:
            v = getattr(node, name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, node_type):
                        add(x)
            elif isinstance(v, node_type):
                add(v)
    return out


class Selected(enum.Enum):
    """How a run selects a rule: a rule on by default only in part (``PARTLY_DEFAULT`` in
    :mod:`torchferry.check.rules`) reports that part when the default rule set alone
    selects it, and every finding when a selector names it."""

    #: by the default rule set alone (``ferry check`` with no ``select``)
    BY_DEFAULT = 1
    #: by a selector that names it: its code, its name, a prefix of codes, ``ALL``
    NAMED = 2


class RuleSet(enum.Enum):
    """A selector that stands for a set of rules rather than naming them: where a run's
    selection starts when nothing replaces it (``extend-select`` adds to it)."""

    #: the default rule set (the rules :func:`torchferry.check.rules.is_default` names)
    DEFAULT = "the default rule set"


#: a selector of rules: a code, a prefix of codes, a rule's name, ``ALL``, or a set
Selector = str | RuleSet


class Rule(Protocol):
    CODE: str
    NAME: str
    FIX: str
    __doc__: str | None

    def check(self, ctx: Context) -> Iterable[Finding]: ...


@dataclass
class Context:
    """What a rule sees of one file (for a notebook: its code cells joined, magics blanked)."""

    path: str
    source: str
    tree: ast.Module
    lines: list[str] = field(init=False)
    #: the oldest torch the project supports (``target-torch-version``, given or inferred
    #: from its declared requirement; see :mod:`torchferry.check.torch_version`), or None
    target_torch_version: tuple[int, int, int] | None = None
    #: names of ``nn.Module`` subclasses defined in the other files checked in the same run
    #: (see :func:`torchferry.check.runner.module_classes`)
    module_classes: frozenset[str] = frozenset()
    #: for a notebook, the line of the joined source on which each code cell starts
    #: (ascending); empty for a Python file.  The last expression of a cell is displayed.
    cell_starts: tuple[int, ...] = ()
    #: the files checked in the same run, for the analysis to follow calls into (None: this
    #: file alone); see :mod:`torchferry.check.flow.project`
    project: Project | None = None
    #: code -> how the run selects each of its rules (a rule missing: :attr:`Selected.NAMED`)
    selection: Mapping[str, Selected] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lines = split_lines(self.source)

    def selected(self, code: str) -> Selected:
        """How the run selects the rule ``code``.

        >>> Context("t.py", "", ast.Module([], []), selection={"FRY010": Selected.BY_DEFAULT}
        ...         ).selected("FRY010").name
        'BY_DEFAULT'
        """
        return self.selection.get(code, Selected.NAMED)

    def of_file(self, other: FileFlow) -> Context:
        """What a rule sees of ``other``, another file of this run, over the analysis the run
        already has of it (not a second one): its source, syntax and :attr:`flow`."""
        data = self.project.files[other.path] if self.project is not None else b""
        octx = Context(path=other.path, source=data.decode("utf-8", "surrogateescape"),
                       tree=other.tree, target_torch_version=self.target_torch_version,
                       module_classes=self.module_classes, project=self.project,
                       selection=self.selection)
        octx.__dict__["flow"] = other  # (seeds the cached property)
        return octx

    # -- positions --------------------------------------------------------
    def char_col(self, line: int, byte_col: int) -> int:
        """Convert an ``ast`` UTF-8 byte offset on ``line`` to a character offset."""
        if line < 1 or line > len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """(line, column, end_line, end_column) of a node, in characters."""
        line: int = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self.char_col(line, getattr(node, "col_offset", 0))
        end_col = getattr(node, "end_col_offset", None)
        end_col = self.char_col(end_line, end_col) if end_col is not None else col
        return line, col, end_line, end_col

    def text(self, node: ast.AST) -> str:
        """The exact source text of a node (what ``ast.get_source_segment`` gives, without
        splitting the whole source again for every node)."""
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return ""
        line, col = node.lineno - 1, node.col_offset  # type: ignore[attr-defined]
        lines = self._source_lines
        if end_line > len(lines):
            return ast.get_source_segment(self.source, node) or ""
        if line == end_line - 1:
            return lines[line].encode()[col:end_col].decode()
        first = lines[line].encode()[col:].decode()
        last = lines[end_line - 1].encode()[:end_col].decode()
        return "".join([first, *lines[line + 1:end_line - 1], last])

    @cached_property
    def _source_lines(self) -> list[str]:
        """The source cut into lines as the parser counts them (at ``\\r\\n``, ``\\r`` and
        ``\\n`` only), each with its line end."""
        return _PARSER_LINES.findall(self.source)

    def finding(self, code: str, node: ast.AST, message: str, fix: Fix | None = None) -> Finding:
        return Finding(code, message, *self.span(node), fix=fix)

    def edit(self, node: ast.AST, content: str) -> Edit:
        """An edit replacing the whole of ``node``."""
        return Edit(*self.span(node), content)

    def insert_after(self, node: ast.AST, text: str) -> Edit:
        """An edit inserting ``text`` right after ``node``."""
        _, _, end_line, end_col = self.span(node)
        return Edit(end_line, end_col, end_line, end_col, text)

    def insert_before(self, node: ast.AST, text: str) -> Edit:
        """An edit inserting ``text`` right before ``node``."""
        line, col, _, _ = self.span(node)
        return Edit(line, col, line, col, text)

    def add_keyword(self, call: ast.Call, text: str) -> Edit | None:
        """An edit adding ``name=value`` (``text``) as the last argument of ``call``, or
        None when the call's text does not end with the ``)`` to insert before.

        >>> src = "f(a)\\ng()\\nh((n))\\n"
        >>> ctx = Context("<ex>", src, ast.parse(src))
        >>> calls = [n.value for n in ctx.tree.body if isinstance(n, ast.Expr)]
        >>> [ctx.add_keyword(c, "k=1") for c in calls]  # doctest: +NORMALIZE_WHITESPACE
        [Edit(line=1, column=3, end_line=1, end_column=3, content=', k=1'),
         Edit(line=2, column=2, end_line=2, end_column=2, content='k=1'),
         Edit(line=3, column=5, end_line=3, end_column=5, content=', k=1')]
        """
        items: list[ast.AST] = [*call.args, *call.keywords]
        if not items:
            _, _, end_line, end_col = self.span(call)
            text_line = self.lines[end_line - 1] if 0 < end_line <= len(self.lines) else ""
            if end_col < 1 or text_line[end_col - 1:end_col] != ")":
                return None
            return Edit(end_line, end_col - 1, end_line, end_col - 1, text)
        last = max(items, key=lambda n: (getattr(n, "end_lineno", 0), getattr(n, "end_col_offset", 0)))
        _, _, el, ec = self.span(last)
        _, _, cl, cc = self.span(call)
        if el == cl and 0 < el <= len(self.lines):
            # a parenthesised last argument, ``f((n))``: insert after its own brackets
            between = self.lines[el - 1][ec:cc - 1]
            if between.strip() and set(between.strip()) == {")"}:
                ec += between.rindex(")") + 1
        return Edit(el, ec, el, ec, ", " + text)

    # -- one shared traversal ----------------------------------------------
    @cached_property
    def nodes(self) -> dict[type[ast.AST], list[ast.AST]]:
        """Every node of the tree grouped by type, from one ``ast.walk`` (breadth first), e.g.
        ``ctx.nodes.get(ast.Call, [])``; rules use it instead of walking the tree again."""
        by_type: dict[type[ast.AST], list[ast.AST]] = {}
        for node in walk(self.tree):
            kind = type(node)
            bucket = by_type.get(kind)
            if bucket is None:
                by_type[kind] = [node]
            else:
                bucket.append(node)
        return by_type

    # -- shared analysis, built once per file on first use by any rule -----
    @cached_property
    def syntax(self) -> Walker:
        """The syntactic model of this file (:class:`torchferry.check.scopes.Walker`): its
        imports, scopes, bindings, call sites and loops, with no answer to what a value is
        (that is :attr:`flow`'s)."""
        from torchferry.check.scopes import Walker

        flow = self.flow
        return Walker(self.tree, self.module_classes,
                      lambda node: flow.class_info(node).is_module, flow.star_names)

    @cached_property
    def loops(self) -> Loops:
        """The loop queries of this file (:class:`torchferry.check.training_loops.Loops`)."""
        from torchferry.check.training_loops import Loops

        return Loops(self.syntax, self.flow)

    @cached_property
    def flow(self) -> FileFlow:
        """The device-flow analysis of this file (:mod:`torchferry.check.flow`)."""
        import os

        from torchferry.check.flow import analyze

        path = os.path.abspath(self.path) if self.project is not None else self.path
        return analyze(self.tree, path, self.project, self.module_classes, self.lines, self.source)
