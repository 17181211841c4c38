"""What the language server knows, without the protocol: settings, each file's
configuration, the workspace's ``nn.Module`` classes, and the findings of one document.

Everything here is plain ``torchferry.check``: a document is checked exactly as
``ferry check`` checks the file (the same ``[tool.torchferry]``, per-file ignores,
exclude, size limit and the pre-filter of words no rule can report without), with the unsaved text instead of the
file's bytes::

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> projects = Projects(Settings())
    >>> items = check_python("import torch\\nx = torch.ones(2)\\nx.to('cpu')\\n",
    ...                      root / "a.py", projects.get(root / "a.py"), frozenset())
    >>> [(i.finding.code, i.finding.line) for i in items]
    [('FRY002', 3)]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from torchferry.check import engine, prefilter
from torchferry.check.api import Finding, Fix
from torchferry.check.config import Config, load_config
from torchferry.check.engine import SYNTAX_ERROR, InternalError
from torchferry.check.files import Walker
from torchferry.check.project import headers as class_headers
from torchferry.check.project import module_classes
from torchferry.check.runner import Options, _notebook_fix, _too_large_diag
from torchferry.errors import UsageError

__all__ = [
    "CellText",
    "ClassIndex",
    "Item",
    "Place",
    "Project",
    "Projects",
    "Settings",
    "check_cells",
    "check_python",
    "fix_cells",
    "fix_python",
    "kernel_language",
    "refused_for_size",
]


# ---------------------------------------------------------------- settings
@dataclass(frozen=True)
class Settings:
    """The client's settings (``initializationOptions``, ``workspace/didChangeConfiguration``).

    ``select`` replaces the configuration's selection (its ``select`` and
    ``extend-select``, else the default rule set), ``extendSelect`` adds to the selection
    and ``ignore`` to the configuration's ``ignore``, as ``ferry check --select``,
    ``--extend-select`` and ``--ignore`` do.

    >>> Settings.parse({"ferry": {"select": ["FRY00"], "debounceMs": 5}}, print)
    Settings(select=('FRY00',), extend_select=(), ignore=(), check_workspace=False, \
debounce_ms=5, check_at_once=True, rule_docs_url=None)
    >>> Settings.parse({"select": "FRY999"}, print).select is None
    settings: select: unknown rule selector 'FRY999' in settings select (use a code, a prefix \
of codes or ALL; known: ...; see 'ferry rules'); ignored
    True
    """

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    check_workspace: bool = False  #: publish the findings of every workspace file
    #: a change that follows another within this many milliseconds waits this long
    debounce_ms: int = 25
    #: a change after a pause is checked at once (False: every change waits ``debounce_ms``)
    check_at_once: bool = True
    rule_docs_url: str | None = None  #: a link template with {code} and {name}

    @staticmethod
    def present(raw: object) -> bool:
        """Whether the client's JSON holds settings of ours: clients send
        ``didChangeConfiguration`` with nothing (``{}``, ``null``: Eglot does, right after
        ``initialize``) or with other servers' settings, which must not reset ours.

        >>> [Settings.present(x) for x in ({}, None, {"pylsp": {}}, {"ferry": {}}, {"ignore": []})]
        [False, False, False, True, True]
        """
        return isinstance(raw, Mapping) and any(k in raw for k in ("ferry", *_SETTING_KEYS))

    @classmethod
    def parse(cls, raw: object, warn: Callable[[str], None]) -> Settings:
        """Settings from the client's JSON; a bad value is reported with ``warn`` and dropped."""
        if isinstance(raw, Mapping) and isinstance(raw.get("ferry"), Mapping):
            raw = raw["ferry"]
        if not isinstance(raw, Mapping):
            return cls()
        out: dict[str, Any] = {}
        for key, attr in (("select", "select"), ("extendSelect", "extend_select"),
                          ("ignore", "ignore")):
            if key in raw and raw[key] is not None:
                value = raw[key]
                codes = [value] if isinstance(value, str) else value
                try:
                    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                        raise UsageError(f"must be a list of rule codes, got {value!r}")
                    engine.validate_selectors(codes, f"settings {key}")
                except UsageError as exc:
                    warn(f"settings: {key}: {exc}; ignored")
                    continue
                out[attr] = tuple(codes)
        for key, attr, kind in (
            ("checkWorkspace", "check_workspace", bool),
            ("debounceMs", "debounce_ms", int),
            ("checkAtOnce", "check_at_once", bool),
            ("ruleDocsUrl", "rule_docs_url", str),
        ):
            if key in raw and raw[key] is not None:
                value = raw[key]
                if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                    warn(f"settings: {key} must be a {kind.__name__}, got {value!r}; ignored")
                    continue
                out[attr] = max(value, 0) if kind is int else value
        return replace(cls(), **out)


#: the client's names of the settings (:meth:`Settings.parse`)
_SETTING_KEYS = ("select", "extendSelect", "ignore", "checkWorkspace", "debounceMs",
                 "checkAtOnce", "ruleDocsUrl")


# ---------------------------------------------------------------- configuration
@dataclass
class Project:
    """The configuration that applies to one directory's files, as ``ferry check`` reads it."""

    config: Config
    options: Options
    walker: Walker
    error: str | None = None  #: the configuration could not be read: defaults are used

    def excluded(self, path: Path) -> bool:
        """Whether ``exclude`` (or a default exclude) skips the file, as ``ferry check .`` does."""
        try:
            path.resolve().relative_to(self.config.root)
        except (ValueError, OSError):
            return False  # outside the project: nothing of its exclude applies
        return self.walker.excluded_file(path.resolve())

    def engine_args(self, path: Path, classes: frozenset[str]) -> dict[str, Any]:
        return dict(self.options.engine_args(self.options.ignore_for(path)), module_classes=classes)


class Projects:
    """Configurations by directory, read on first use and dropped when a ``pyproject.toml``
    or the settings change (:meth:`clear`).  Safe to use from several threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._by_dir: dict[Path, Project] = {}
        self._lock = threading.Lock()

    def clear(self, settings: Settings | None = None) -> None:
        with self._lock:
            self._by_dir.clear()
            if settings is not None:
                self.settings = settings

    def get(self, path: Path) -> Project:
        directory = path.parent
        with self._lock:
            project = self._by_dir.get(directory)
            if project is None:
                project = self._by_dir[directory] = self._load(directory)
            return project

    def _load(self, directory: Path) -> Project:
        error = None
        try:
            cfg = load_config(directory if directory.exists() else Path.cwd())
        except UsageError as exc:
            error = f"{exc}; checking with the default settings"
            cfg = Config(root=directory.resolve() if directory.exists() else Path.cwd())
        s = self.settings
        select = cfg.selection(
            list(s.select) if s.select is not None else None, list(s.extend_select)
        )
        options = Options(
            root=cfg.root,
            select=select,
            ignore=(*cfg.ignore, *s.ignore),
            per_file_ignores=cfg.per_file_ignores,
            max_file_size=cfg.max_file_size,
        )
        return Project(cfg, options, Walker(cfg.root, cfg.excludes), error)


# ---------------------------------------------------------------- the workspace's classes
class ClassIndex:
    """The ``nn.Module`` classes the workspace's files define (see :mod:`torchferry.check.project`),
    kept per file: one file's change re-reads that file only.

    >>> ix = ClassIndex()
    >>> ix.update("a.py", b"class Net(nn.Module): pass\\n"), ix.update("b.py", b"class Big(Net): pass\\n")
    (True, True)
    >>> sorted(ix.classes()), ix.update("b.py", b"class Big(Net): pass\\nx = 1\\n")
    (['Big', 'Net'], False)
    """

    def __init__(self) -> None:
        self._headers: dict[str, bytes] = {}
        self._classes: frozenset[str] | None = frozenset()
        self._lock = threading.Lock()

    def update(self, key: str, data: bytes) -> bool:
        """Record a file's class headers (and renaming imports); True when they changed."""
        headers = class_headers(data)
        with self._lock:
            if self._headers.get(key, b"") == headers:
                self._headers.setdefault(key, headers)
                return False
            self._headers[key] = headers
            self._classes = None
            return True

    def remove(self, key: str) -> bool:
        with self._lock:
            if self._headers.pop(key, b""):
                self._classes = None
                return True
            return False

    def __len__(self) -> int:
        return len(self._headers)

    def classes(self) -> frozenset[str]:
        with self._lock:
            if self._classes is None:
                self._classes = module_classes(h for h in self._headers.values() if h)
            return self._classes


# ---------------------------------------------------------------- findings
@dataclass(frozen=True)
class Place:
    """One step of a finding's evidence: in the same document, another cell, or another file."""

    message: str
    line: int  #: 1-based, within its document (its cell for a notebook)
    column: int  #: 0-based characters
    cell: int | None = None  #: index in the cells checked, for a notebook
    path: str | None = None  #: another file


@dataclass(frozen=True)
class Item:
    """A finding located in one document: a file, or (``cell``) one of a notebook's cells."""

    finding: Finding  #: positions (and fix edits) within that document
    cell: int | None = None
    related: tuple[Place, ...] = ()


@dataclass(frozen=True)
class CellText:
    """A code cell of a notebook as the client holds it."""

    text: str
    language: str = "python"


def _fry000(message: str) -> Finding:
    return Finding(SYNTAX_ERROR, message, 1, 0, 1, 0)


def _precheck(text: str, path: Path, project: Project, what: str) -> list[Finding] | None:
    """Findings that stand for the whole document (too large), [] to skip it (excluded, none of
    the pre-filter's words in it), None to check it."""
    opts = project.options
    if project.excluded(path):
        return []
    if opts.prefilter and prefilter.WORDS_TEXT.search(text) is None:
        return []
    limit = opts.max_file_size
    if limit is not None and len(text) > limit and len(text.encode("utf-8", "replace")) > limit:
        if SYNTAX_ERROR in opts.ignore_for(path):
            return []
        return [_fry000(_too_large_diag(str(path), what, limit).message)]
    return None


def refused_for_size(items: Sequence[Item]) -> bool:
    """Whether a check's findings are the one FRY000 of a document over ``max-file-size``."""
    return (len(items) == 1 and items[0].finding.code == SYNTAX_ERROR
            and "max-file-size" in items[0].finding.message and items[0].finding.line == 1)


def check_python(text: str, path: Path, project: Project, classes: frozenset[str]) -> list[Item]:
    """The findings of a Python document; raises :class:`InternalError` if a rule crashes."""
    early = _precheck(text, path, project, "the file is")
    if early is not None:
        return [Item(f) for f in early]
    findings = engine.check_source(
        text, str(path), **project.engine_args(path, classes), verify_fixes=False
    )
    return [
        Item(f, None, tuple(Place(e.message, e.line, e.column, None, e.path) for e in f.evidence))
        for f in findings
    ]


def check_cells(
    cells: Sequence[CellText], path: Path, project: Project, classes: frozenset[str]
) -> list[Item]:
    """The findings of a notebook's code cells (in order), each in its cell; cells of another
    language are left out of the program."""
    from torchferry.check.notebook import from_cells, relocate

    index = [i for i, c in enumerate(cells) if c.language == "python"]
    nb = from_cells([cells[i].text for i in index])
    early = _precheck(nb.source, path, project, "the notebook's code is")
    if early is not None:
        return [Item(f, index[0] if index else None) for f in early]
    findings = engine.check_source(
        nb.source, str(path), **project.engine_args(path, classes), cell_starts=nb.cell_starts,
        verify_fixes=False,
    )
    items = []
    for f in findings:
        number, g = relocate(nb, f)  # its evidence too: each step in its own cell
        related = tuple(
            Place(e.message, e.line, e.column, None if e.cell is None else index[e.cell - 1],
                  e.path)
            for e in g.evidence
        )
        items.append(Item(g, index[number - 1], related))
    return items


def fix_parses(text: str, fix: Fix) -> bool:
    """Whether ``text`` (a file's or a cell's) still parses with ``fix`` applied; findings
    come without that check (:func:`check_python`), so a fix is checked when it is offered.

    >>> from torchferry.check.api import Edit
    >>> [fix_parses("x = 1\\n", Fix((Edit(1, 0, 1, 1, t),), True, "")) for t in "y("]
    [True, False]
    """
    import ast
    import warnings

    from torchferry.check.notebook import from_cells

    new = engine.apply_fixes(text, [Finding("", "", 1, 0, 1, 0, fix)], unsafe=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(from_cells([new]).source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def fix_python(text: str, path: Path, project: Project, classes: frozenset[str]) -> str | None:
    """The document with every safe fix applied (as ``ferry check --fix``), or None."""
    if _precheck(text, path, project, "the file is") is not None:
        return None
    res = engine.fix_source(text, str(path), **project.engine_args(path, classes))
    return None if res.error or res.source == text else res.source


def fix_cells(
    cells: Sequence[CellText], path: Path, project: Project, classes: frozenset[str]
) -> dict[int, str]:
    """{cell index: new text} for the cells that every safe fix of the notebook changes."""
    from torchferry.check.notebook import from_cells

    index = [i for i, c in enumerate(cells) if c.language == "python"]
    nb = from_cells([cells[i].text for i in index])
    if _precheck(nb.source, path, project, "the notebook's code is") is not None:
        return {}
    opts = replace(project.options, module_classes=classes, unsafe=False)
    new, fixed, error = _notebook_fix(nb, opts, opts.ignore_for(path), str(path))
    if error or not fixed:
        return {}
    return {index[n - 1]: new.texts[n] for n in nb.texts if new.texts[n] != nb.texts[n]}


def kernel_language(metadata: object, depth: int = 0) -> str | None:
    """The notebook's language when its metadata names one other than Python, as ``ferry
    check`` reads it (:func:`torchferry.check.notebook.language`), looked for at any depth:
    clients nest the notebook's own metadata in theirs.  None for Python or when unsaid.

    >>> kernel_language({"custom": {"metadata": {"kernelspec": {"language": "R"}}}})
    'R'
    >>> kernel_language({"language_info": {"name": "python"}}) is None
    True
    """
    from torchferry.check.notebook import Notebook, language

    if not isinstance(metadata, Mapping) or depth > 4:
        return None
    if "language_info" in metadata or "kernelspec" in metadata:
        return language(Notebook(data={"metadata": dict(metadata)}, source=""))
    for value in metadata.values():
        found = kernel_language(value, depth + 1)
        if found is not None:
            return found
    return None


def safe_run(check: Callable[[], list[Item]], path: Path, log: Callable[[str], None]) -> list[Item]:
    """Run a check; a crash of a rule (or of ours) is logged and gives no findings."""
    try:
        return check()
    except InternalError as exc:
        log(f"ferry: {exc}")
    except Exception as exc:  # a bug of ours: the editor keeps working
        log(f"ferry: internal error on {path}: {type(exc).__name__}: {exc} (please report it)")
    return []


def read_source(path: Path, limit: int | None) -> bytes | None:
    """A workspace file's bytes (at most ``limit`` + 1), or None when it cannot be read."""
    from torchferry.check.files import read_bytes

    try:
        return read_bytes(path, None if limit is None else limit + 1)
    except OSError:
        return None


@dataclass
class Snapshot:
    """What one check reads, taken on the event loop so the worker never sees a text change."""

    key: str  #: the document's (or notebook's) URI
    version: int | None
    path: Path
    text: str = ""
    cells: list[CellText] = field(default_factory=list)
    cell_uris: list[str] = field(default_factory=list)
    notebook: bool = False
