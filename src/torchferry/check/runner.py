"""Checking and fixing files: reading, the torch pre-filter, cache, notebooks, atomic writes, jobs.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.py").write_text("import torch\\nx = (\\n")
>>> [o.diagnostics[0].code for o in check_paths([d / "a.py"], Options(root=d))]
['FRY000']
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchferry._internal.atomic import ChangedSinceRead, clean_stale_temps, write_bytes
from torchferry.check import engine, prefilter
from torchferry.check.api import Evidence, Finding, Fix, Selector, split_lines
from torchferry.check.cache import Cache, content_hash, fix_from_json, fix_to_json
from torchferry.check.config import DEFAULT_MAX_FILE_SIZE
from torchferry.check.engine import SYNTAX_ERROR, InternalError
from torchferry.check.files import PatternSet, read_bytes
from torchferry.check.report import excerpt

__all__ = [
    "Diagnostic",
    "FileOutcome",
    "Options",
    "check_bytes",
    "check_paths",
    "check_text",
    "display_path",
]

if TYPE_CHECKING:
    from torchferry.check.flow import Project

#: Files whose bytes spell none of these words are skipped without being parsed (unless
#: they import a checked file of the run, or one imports them): :mod:`.prefilter`.
PREFILTER = prefilter.WORDS
#: Below this many bytes still to check, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 384 * 1024


@dataclass(frozen=True)
class Diagnostic:
    """A finding located in a file (for a notebook: ``cell`` and the line within it)."""

    path: str  #: as displayed (relative to the working directory when inside it)
    code: str
    name: str
    message: str
    line: int
    column: int  #: 0-based character column; reporters print it 1-based
    end_line: int
    end_column: int
    fix: Fix | None = None
    cell: int | None = None
    #: the finding's line, or for a long one a window of it (see report.excerpt)
    source_line: str = ""
    source_offset: int = 0  #: the column in the line of ``source_line``'s first character
    #: the steps that support the finding (made, moved, met); a None path is this file
    evidence: tuple[Evidence, ...] = ()

    def to_json(self) -> list[Any]:
        return [
            self.code,
            self.message,
            self.line,
            self.column,
            self.end_line,
            self.end_column,
            fix_to_json(self.fix),
            self.cell,
            self.source_line,
            self.source_offset,
            [[e.message, e.line, e.column, e.path, e.cell] for e in self.evidence],
        ]

    @classmethod
    def from_json(cls, path: str, data: list[Any]) -> Diagnostic:
        code, message, line, col, end_line, end_col, fix, cell, text, *rest = data
        offset = rest[0] if rest else 0
        evidence = tuple(Evidence(*e) for e in rest[1]) if len(rest) > 1 else ()
        return cls(
            path, code, rule_name(code), message, line, col, end_line, end_col,
            fix_from_json(fix), cell, text, offset, evidence,
        )  # fmt: skip


@dataclass
class FileOutcome:
    path: Path
    display: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixed: int = 0  #: fixes applied (or that would be, with ``diff``)
    error: str | None = None  #: could not read, write or check: exit 2
    diff: str = ""  #: the unified diff of the fixes (``diff`` mode)
    skipped: bool = False  #: no "torch" in it: not parsed
    cached: bool = False
    note: str | None = None  #: why it was not checked, for the user (a non-Python notebook)


@dataclass
class Options:
    """How to check: the selection, per-file ignores, and what to do with fixes."""

    root: Path  #: the project root (``exclude``/``per-file-ignores`` are relative to it)
    select: tuple[Selector, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    fix: bool = False
    unsafe: bool = False
    diff: bool = False
    prefilter: bool = True
    #: ``target-torch-version`` (``[tool.torchferry]`` of the root's pyproject.toml, or
    #: inferred from the project's torch requirement) unless given
    target_torch_version: tuple[int, int, int] | None | str = "infer"
    #: the source codecs a dependency the project declares registers, read as UTF-8
    #: (:func:`~torchferry.check.source_codecs.declared_codecs` of the root unless given)
    utf8_codecs: frozenset[str] | None = None
    #: bytes; a larger file is a FRY000 "not checked" (notebooks: their code cells); None: no limit
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE
    #: ``nn.Module`` classes defined by the files of the run (set by :func:`check_paths`)
    module_classes: frozenset[str] = frozenset()
    #: the files of the run, for the analysis to follow calls between them (set by
    #: :func:`check_paths`)
    project: Any = None
    _pfi: list[tuple[PatternSet, tuple[str, ...]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.target_torch_version == "infer":
            from torchferry.check.torch_version import resolve

            self.target_torch_version = resolve(self.root)
        if self.utf8_codecs is None:
            from torchferry.check.source_codecs import declared_codecs

            self.utf8_codecs = declared_codecs(self.root)

    @property
    def torch_version(self) -> tuple[int, int, int] | None:
        v = self.target_torch_version
        return v if isinstance(v, tuple) else None

    def engine_args(self, ignore: tuple[str, ...]) -> dict[str, Any]:
        """What every engine call for one file takes: the rule selection (``ignore`` is the
        file's, per-file ignores included) and the facts of the project."""
        return {
            "select": self.select,
            "ignore": ignore,
            "target_torch_version": self.torch_version,
            "module_classes": self.module_classes,
            "project": self.project,
        }

    def ignore_for(self, path: Path) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return self.ignore
        if self._pfi is None:
            self._pfi = [
                (PatternSet.from_lines([pat]), tuple(codes))
                for pat, codes in self.per_file_ignores.items()
            ]
        rel = os.path.relpath(path.resolve(), self.root).replace(os.sep, "/")
        extra = [c for ps, codes in self._pfi if ps.match_path_or_parent(rel) for c in codes]
        return (*self.ignore, *extra) if extra else self.ignore


_NAMES: tuple[object, dict[str, str]] = (None, {})


def rule_name(code: str) -> str:
    global _NAMES
    rules = engine._all_rules()
    if _NAMES[0] is not rules:
        names = {mod.CODE: mod.NAME for mod in rules}
        names[SYNTAX_ERROR] = engine.SYNTAX_ERROR_NAME
        _NAMES = (rules, names)
    return _NAMES[1].get(code, "")


def display_path(path: Path, cwd: Path | None = None) -> str:
    cwd = cwd or Path.cwd()
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


# ------------------------------------------------------------------ decoding
def _first_two_lines(data: bytes) -> bytes:
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    return data if second < 0 else data[:second]


def decode_source(data: bytes, utf8_codecs: frozenset[str] = frozenset()) -> tuple[str, str] | Finding:
    """(text, encoding) of Python source bytes, as Python reads them (BOM, PEP 263 cookie),
    or, when Python could not read them, a FRY000 finding at the offending position.  A
    cookie naming a codec of ``utf8_codecs`` (one a declared dependency registers, see
    :mod:`~torchferry.check.source_codecs`) reads as UTF-8.

    >>> decode_source(b"x = 1")
    ('x = 1', 'utf-8')
    >>> print(decode_source(bytes([0x78, 0x3D, 0xE9])).message.split(" on ")[0])
    SyntaxError: Non-UTF-8 code starting with '\\xe9'
    """
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif b"coding" not in _first_two_lines(data):  # PEP 263: a cookie on line 1 or 2
        encoding = "utf-8"
    else:
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            from torchferry.check.source_codecs import cookie

            if cookie(data) not in utf8_codecs:
                return Finding(SYNTAX_ERROR, f"SyntaxError: {exc}", 1, 0, 1, 0)
            encoding = "utf-8"
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        col = len(data[line_start:start].decode(encoding, "replace"))
        if encoding.startswith("utf-8"):
            bad = data[start : start + 1].hex()
            message = (
                f"SyntaxError: Non-UTF-8 code starting with '\\x{bad}' on line {line}, "
                "but no encoding declared; see https://peps.python.org/pep-0263/"
            )
        else:
            message = f"SyntaxError: cannot decode the file as {encoding}: {exc}"
        return Finding(SYNTAX_ERROR, message, line, col, line, col)


_DIFF_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _unified(old: str, new: str, name: str) -> str:
    """A unified diff ``patch`` applies: lines split at line feeds only (as patch reads
    them; ``str.splitlines`` also splits at form feeds and carriage returns), and a
    last line without a line feed followed by the "No newline at end of file" marker.
    The file is named as git names it: ``a/x.py``, ``b/x.py``, and ``a/tmp/x.py`` for
    ``/tmp/x.py``."""
    import difflib

    name = name.lstrip("/")
    out = []
    lines = difflib.unified_diff(_DIFF_LINE.findall(old), _DIFF_LINE.findall(new),
                                 f"a/{name}", f"b/{name}")
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


# ------------------------------------------------------------------ checking one source
def _diag(display: str, f: Finding, lines: Sequence[str], cell: int | None = None) -> Diagnostic:
    text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
    text, offset = excerpt(text, f.column, f.end_column)  # a 100 KB line is not kept whole
    return Diagnostic(
        display, f.code, rule_name(f.code), f.message, f.line, f.column,
        f.end_line, f.end_column, f.fix, cell, text, offset, f.evidence,
    )  # fmt: skip


def _python(out: FileOutcome, text: str, opts: Options, ignore: tuple[str, ...]) -> str:
    """Check (and fix) Python ``text``; returns the text as it now stands."""
    display = out.display
    if opts.fix or opts.diff:
        res = engine.fix_source(
            text,
            display,
            unsafe=opts.unsafe,
            **opts.engine_args(ignore),
        )
        if res.error:
            out.error = res.error
        findings = res.findings
        if res.source != text:
            out.fixed = res.fixed
            if opts.diff:
                out.diff = _unified(text, res.source, display)
            text = res.source
    else:
        findings = engine.check_source(
            text,
            display,
            **opts.engine_args(ignore),
        )
    lines = split_lines(text) if findings else []
    out.diagnostics = [_diag(display, f, lines) for f in findings]
    return text


def _notebook_fix(nb, opts: Options, ignore: tuple[str, ...], display: str):
    """Fix a notebook cell by cell until nothing more applies; (notebook, fixes, error)."""

    def check(src: str, starts: tuple[int, ...]) -> list[Finding]:
        return engine.check_source(
            src,
            display,
            **opts.engine_args(ignore),
            cell_starts=starts,
        )

    findings = check(nb.source, nb.cell_starts)
    fixed = 0
    for _ in range(10):
        chosen = engine.choose_fixes(nb.source, findings, unsafe=opts.unsafe)
        per_cell: dict[int, list[Finding]] = {}
        count = 0
        for fix, _spans in chosen:
            edits = nb.edits_by_cell(list(fix.edits))
            if edits is None:
                continue
            count += 1
            for cell, cell_edits in edits.items():
                pseudo = Finding("", "", 1, 0, 1, 0, Fix(tuple(cell_edits), True, fix.message))
                per_cell.setdefault(cell, []).append(pseudo)
        if not per_cell:
            break
        texts = {c: engine.apply_fixes(nb.texts[c], fs) for c, fs in per_cell.items()}
        new_nb = nb.with_cells(texts)
        new_findings = check(new_nb.source, new_nb.cell_starts)
        had = any(f.code == SYNTAX_ERROR for f in findings)
        if not had and any(f.code == SYNTAX_ERROR for f in new_findings):
            return nb, 0, "fixes would make a cell invalid Python; left the notebook unchanged"
        if new_nb.source == nb.source:
            break
        nb, findings, fixed = new_nb, new_findings, fixed + count
    return nb, fixed, None


def _notebook(out: FileOutcome, text: str, opts: Options, ignore: tuple[str, ...]) -> str:
    from torchferry.check.notebook import NotebookError, language, parse_notebook, relocate

    display = out.display
    try:
        nb = parse_notebook(text)
    except NotebookError as exc:
        out.diagnostics = [
            Diagnostic(display, SYNTAX_ERROR, engine.SYNTAX_ERROR_NAME, str(exc), 1, 0, 1, 0)
        ]
        return text
    lang = language(nb)
    if lang is not None:
        out.skipped, out.note = True, _not_python(lang)
        return text
    limit = opts.max_file_size
    if limit is not None and len(nb.source) > limit:
        if SYNTAX_ERROR not in ignore:
            what = f"the notebook's code ({_size(len(nb.source))}) is"
            out.diagnostics = [_too_large_diag(display, what, limit)]
        return text
    if opts.fix or opts.diff:
        original = nb
        nb, fixed, error = _notebook_fix(nb, opts, ignore, display)
        out.error = error
        if fixed:
            out.fixed = fixed
            if opts.diff:
                out.diff = "".join(
                    _unified(original.texts[c], nb.texts[c], f"{display}:cell {c}")
                    for c in original.texts
                    if original.texts[c] != nb.texts[c]
                )
            changed = {c: nb.texts[c] for c in original.texts if original.texts[c] != nb.texts[c]}
            text = original.patched(text, changed)  # the rest of the file byte for byte
    findings = engine.check_source(
        nb.source,
        display,
        **opts.engine_args(ignore),
        cell_starts=nb.cell_starts,
    )
    diags = []
    for f in findings:
        cell, g = relocate(nb, f)
        diags.append(_diag(display, g, nb.cell_lines(cell), cell))
    out.diagnostics = diags
    return text


def check_text(
    text: str, display: str, opts: Options, path: Path | None = None
) -> tuple[FileOutcome, str]:
    """Check (and fix, per ``opts``) source text; returns the outcome and the (fixed) text."""
    path = path or Path(display)
    out = FileOutcome(path, display)
    ignore = opts.ignore_for(path)
    try:
        if path.suffix == ".ipynb":
            new = _notebook(out, text, opts, ignore)
        else:
            new = _python(out, text, opts, ignore)
    except InternalError as exc:
        out.error = str(exc)
        return out, text
    except Exception as exc:  # a bug of ours: report it for this file, check the others
        out.error = f"internal error: {type(exc).__name__}: {exc} (please report it)"
        out.diagnostics = []
        return out, text
    return out, new


def check_bytes(
    path: Path, data: bytes, opts: Options, display: str
) -> tuple[FileOutcome, bytes | None]:
    """Decode, check and (per ``opts``) fix a file's bytes; returns the outcome and the
    fixed bytes, or None when nothing changed.  Undecodable bytes are a FRY000."""
    if path.suffix == ".ipynb":
        try:
            text = data.decode("utf-8-sig")
            encoding = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"  # keep a BOM
        except UnicodeDecodeError as exc:
            out = FileOutcome(path, display)
            msg = f"invalid notebook: not UTF-8 ({exc.reason} at byte {exc.start})"
            out.diagnostics = [
                Diagnostic(display, SYNTAX_ERROR, engine.SYNTAX_ERROR_NAME, msg, 1, 0, 1, 0)
            ]
            return out, None
    else:
        limit = opts.max_file_size
        if limit is not None and len(data) > limit:
            out = FileOutcome(path, display)
            if SYNTAX_ERROR not in opts.ignore_for(path):
                size = "" if len(data) == limit + 1 else f" ({_size(len(data))})"  # read cut
                out.diagnostics = [_too_large_diag(display, f"the source{size} is", limit)]
            return out, None
        decoded = decode_source(data, opts.utf8_codecs or frozenset())
        if isinstance(decoded, Finding):
            out = FileOutcome(path, display)
            out.diagnostics = [_diag(display, decoded, [])]
            return out, None
        text, encoding = decoded
    out, new = check_text(text, display, opts, path)
    if out.error is not None or new == text:
        return out, None
    try:
        return out, new.encode(encoding)
    except UnicodeEncodeError as exc:
        out.error = f"the fixed text cannot be encoded as {encoding}: {exc}; left it unchanged"
        out.fixed = 0
        return out, None


def _check_file(path: Path, data: bytes, opts: Options, display: str) -> FileOutcome:
    out, new = check_bytes(path, data, opts, display)
    if opts.fix and not opts.diff and new is not None:
        try:
            # the one file writer: a symlink is followed, the mode, ACLs and hard links are
            # kept, a read-only file is refused as open() would; and the file is replaced
            # only if it still holds the bytes that were checked (an edit saved meanwhile wins)
            write_bytes(path, new, unchanged=data)
        except ChangedSinceRead:
            error = "changed on disk while it was checked: fixes not written; run again"
        except OSError as exc:
            error = f"could not write the fixes: {exc}"
        else:
            return out
        # nothing was fixed: report the findings of the file as it was read
        out, _ = check_bytes(path, data, replace(opts, fix=False), display)
        out.error = error
    return out


def _clean_leftovers(paths: Sequence[Path]) -> None:
    """Remove what a ``--fix`` killed earlier (``kill -9``) left next to these files:
    unlocked temporary files older than a few seconds (see ``_internal.atomic``)."""
    by_dir: dict[str, list[str]] = {}
    for p in paths:
        by_dir.setdefault(os.path.dirname(p) or ".", []).append(os.path.basename(p))
    for directory, names in by_dir.items():
        clean_stale_temps(directory, names)


# ------------------------------------------------------------------ many files
_WORKER_OPTS: Options | None = None


def _init_worker(opts: Options) -> None:
    global _WORKER_OPTS
    _WORKER_OPTS = opts
    # Ctrl-C reaches the whole process group: the main process stops the workers
    # (a worker's own KeyboardInterrupt would only print a traceback per worker)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(items: list[tuple[Path, bytes, str]]) -> list[FileOutcome]:
    assert _WORKER_OPTS is not None
    return [_check_file(path, data, _WORKER_OPTS, display) for path, data, display in items]


def _stop(ex: Any) -> None:
    """End a process pool now: drop the queued work and terminate the workers (an
    interrupt must not wait for every file already handed to them)."""
    procs = list((getattr(ex, "_processes", None) or {}).values())  # shutdown forgets them
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(5)
    # and let the pool's manager thread see them die: if it is still closing its wakeup
    # pipe when the interpreter exits, concurrent.futures' exit hook writes to the closed
    # pipe and prints "OSError: [Errno 9] Bad file descriptor" after our last line
    manager = getattr(ex, "_executor_manager_thread", None)
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(5)
        # a manager still closing its pipe after that (a loaded machine) must not be woken
        # by the exit hook either: the interpreter joins the thread all the same
        with contextlib.suppress(Exception):
            from concurrent.futures import process

            process._threads_wakeups.pop(manager, None)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def check_paths(
    paths: Sequence[Path],
    opts: Options,
    *,
    cache: Cache | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[FileOutcome]:
    """Check files (already discovered), in order; reuse and update ``cache``.

    ``jobs``: worker processes for a large set of files still to check (None:
    one per CPU); small sets are checked in this process.  ``progress(done, total)``
    is called as the files still to check (not cached or skipped) are done."""
    cwd = Path.cwd()
    outcomes: list[FileOutcome | None] = [None] * len(paths)
    readable, context = _read_paths(paths, opts, outcomes, cwd)
    opts, project, salt = _with_project(opts, readable, context)
    salt = _cache_salt(opts) + salt
    readable += _given_tensors(project, context, readable, outcomes, cwd)
    use_cache = cache is not None and not (opts.fix or opts.diff)
    todo = _not_cached(readable, outcomes, cache if use_cache else None,
                       None if cache is None else (project, salt))
    if opts.fix and not opts.diff:
        _clean_leftovers([p for _, p, _, _ in readable])
    results = _check_todo(todo, opts, jobs, progress)
    for (i, path, _data, _display, digest), out in zip(todo, results, strict=True):
        outcomes[i] = out
        if cache is not None:
            _store(cache, path, digest, out, opts, project, salt)
    return [o for o in outcomes if o is not None]


def _cache_salt(opts: Options) -> str:
    """What besides the bytes changes findings, part of each cache entry's key: the target
    torch version (and the codecs the project's dependencies register)."""
    salt = ".".join(map(str, opts.torch_version or ()))
    if opts.utf8_codecs:
        salt += "/" + ",".join(sorted(opts.utf8_codecs))
    return salt


def _read_paths(
    paths: Sequence[Path], opts: Options, outcomes: list[FileOutcome | None], cwd: Path,
) -> tuple[list[tuple[int, Path, bytes, str]], list[tuple[int, Path, bytes]]]:
    """Read each file: those to check ``(index, path, bytes, display)``, and the Python files
    the pre-filter skips ``(index, path, bytes)`` (not checked, but a checked file may import
    them).  A file that cannot be read, is too large or is skipped gets its outcome in
    ``outcomes`` now."""
    readable: list[tuple[int, Path, bytes, str]] = []
    context: list[tuple[int, Path, bytes]] = []  # the files the pre-filter skips
    for i, path in enumerate(paths):
        display = display_path(path, cwd)
        limit = opts.max_file_size
        if limit is not None and path.suffix == ".ipynb":
            limit *= NOTEBOOK_SIZE_FACTOR  # outputs and images; the code is limited below
        try:
            data = read_bytes(path, limit)  # a FIFO does not hang, /dev/zero ends
        except OSError as exc:
            outcomes[i] = FileOutcome(path, display, error=_unreadable(path, exc))
            continue
        if limit is not None and len(data) > limit:
            outcomes[i] = _too_large(path, display, opts, limit)
            continue
        if opts.prefilter and not _mentions_words(path, data):
            outcomes[i] = FileOutcome(path, display, skipped=True,
                                      note=_other_language(path, data))
            if path.suffix == ".py":  # not checked, but a file that is may import it
                context.append((i, path, data))
            continue
        readable.append((i, path, data, display))
    return readable, context


def _with_project(
    opts: Options, readable: list[tuple[int, Path, bytes, str]],
    context: list[tuple[int, Path, bytes]],
) -> tuple[Options, Project, str]:
    """``opts`` knowing the run's files: the ``nn.Module`` classes they define and the
    :class:`Project` of them all; with that project, and the cache salt of the classes."""
    # the nn.Module classes the files of this run define, known to every file's checks
    # (``class Net(Base)`` in a file that never says "torch", ``Base`` an ``nn.Module`` of
    # another file, is a module all the same)
    from torchferry.check.project import fingerprint, module_classes

    classes = module_classes([*(data for _, _, data, _ in readable), *(d for _, _, d in context)])
    salt = ""
    if classes:
        opts = replace(opts, module_classes=classes)
        salt = "/" + fingerprint(classes)
    # the analysis follows calls into the run's other files: a file's findings depend on
    # the bytes of the files it imports, transitively
    from torchferry.check.flow import Project

    files = {os.path.abspath(p): d for _, p, d in context}
    files.update((os.path.abspath(p), d) for _, p, d, _ in readable)
    project = Project(files, module_classes=classes,
                      parse=engine.parse_nested)
    # a run that puts no tensor on an accelerator has no hints of one (FRY010): every
    # file's findings depend on that fact of the whole run
    from torchferry.check.flow.accelerated import run_may_accelerate

    if not run_may_accelerate(project):
        salt += "/cpu-only"
    return replace(opts, project=project), project, salt


def _not_cached(
    readable: list[tuple[int, Path, bytes, str]], outcomes: list[FileOutcome | None],
    cache: Cache | None, keyed: tuple[Project, str] | None,
) -> list[tuple[int, Path, bytes, str, str]]:
    """The files still to check, each with its cache key (``""`` without a cache: ``keyed``
    None), those ``cache`` holds given their outcome in ``outcomes`` instead.  A key is the
    hash of the file's bytes, ``keyed``'s salt and the hashes of the files it imports."""
    todo: list[tuple[int, Path, bytes, str, str]] = []
    for i, path, data, display in readable:
        if keyed is not None:
            project, salt = keyed
            key = os.path.abspath(path)
            digest = project.content_hash(key) + salt + project.dependency_salt(key)
        else:
            digest = ""
        if cache is not None:
            hit = cache.get(str(path), digest)
            if hit is not None:
                diags = [Diagnostic.from_json(display, d) for d in hit]
                outcomes[i] = FileOutcome(path, display, diags, cached=True)
                continue
        todo.append((i, path, data, display, digest))
    return todo


def _check_todo(
    todo: list[tuple[int, Path, bytes, str, str]], opts: Options, jobs: int | None,
    progress: Callable[[int, int], None] | None,
) -> list[FileOutcome]:
    """Check the files still to check, in worker processes when there are enough bytes."""
    workers = default_jobs() if jobs is None or jobs <= 0 else jobs
    total = sum(len(t[2]) for t in todo)
    if workers > 1 and len(todo) > 1 and total >= PARALLEL_MIN_BYTES:
        return _parallel(todo, opts, min(workers, len(todo)), progress)
    results = []
    for _i, p, data, display, _d in todo:
        results.append(_check_file(p, data, opts, display))
        if progress is not None:
            progress(len(results), len(todo))
    return results


def _store(cache: Cache, path: Path, digest: str, out: FileOutcome, opts: Options,
           project: Project, salt: str) -> None:
    """Keep a checked file's findings in ``cache`` (not an error, a note or a diff); a fixed
    file under the key of the bytes the fixes wrote."""
    if out.error is not None or out.note is not None or opts.diff:
        return
    if opts.fix and out.fixed:
        try:
            digest = content_hash(path.read_bytes()) + salt + \
                project.dependency_salt(os.path.abspath(path))
        except OSError:
            return
    cache.put(str(path), digest, [d.to_json() for d in out.diagnostics])


def _given_tensors(project: Project, context: list[tuple[int, Path, bytes]],
                   readable: list[tuple[int, Path, bytes, str]], outcomes: list[FileOutcome | None],
                   cwd: Path) -> list[tuple[int, Path, bytes, str]]:
    """The files the pre-filter skipped that are checked all the same, as a checked file of
    the run reaches into them or they into it: one imports them (``viz.py``, whose
    ``show(net)`` reads ``net.conv1.weight.data.numpy()``, called by ``main.py`` with
    ``net.cuda()``), and few enough files import them for their calls to be known
    (:meth:`Project.importers`); or they import one (``app.py`` calling ``build_model()``
    of a ``models.py`` that moves the model, and ``make_batch()`` of one that builds a
    tensor on the CPU)."""
    if not context:
        return []
    checked = {os.path.abspath(p) for _, p, _, _ in readable}
    out = []
    for i, path, data in context:
        key = os.path.abspath(path)
        by = project.importers(key)
        if not (by and by & checked) and not project.imports_of(key) & checked:
            continue
        outcomes[i] = None
        out.append((i, path, data, display_path(path, cwd)))
    return out


#: A notebook file may be this many times ``max_file_size`` (outputs, images);
#: its code cells are held to ``max_file_size``.
NOTEBOOK_SIZE_FACTOR = 20


def _mentions_words(path: Path, data: bytes) -> bool:
    """The pre-filter: whether the file spells a word some rule needs
    (:func:`.prefilter.mentions`).  A notebook's JSON may spell it with escapes
    (``\\u0074orch``): its text is decoded when it has any."""
    if prefilter.mentions(data):
        return True
    if path.suffix != ".ipynb" or b"\\u" not in data:
        return False
    import json

    try:
        text = json.dumps(json.loads(data), ensure_ascii=False)
    except (ValueError, RecursionError):
        return True  # not JSON we can read: checking it reports what is wrong
    return prefilter.WORDS_TEXT.search(text) is not None


def _other_language(path: Path, data: bytes) -> str | None:
    """The note for a notebook in another language that the pre-filter skips (an R
    kernel's with no mention of torch), so it is said as for every other such notebook."""
    if path.suffix != ".ipynb" or b"language" not in data:
        return None
    from torchferry.check.notebook import NotebookError, language, parse_notebook

    try:
        lang = language(parse_notebook(data.decode("utf-8", "replace")))
    except NotebookError:
        return None
    return _not_python(lang) if lang else None


def _not_python(lang: str) -> str:
    """The note for a notebook of another language (checked or pre-filtered alike)."""
    return f"skipped: not a Python notebook (its language is {lang})"


def _unreadable(path: Path, exc: OSError) -> str:
    """Why ``path`` cannot be read; a directory the walker could not list (it hands
    those over so they are reported, never skipped in silence) says so."""
    if os.path.isdir(path):
        try:
            os.scandir(path).close()
        except OSError as err:
            exc = err
        return f"cannot read the directory, its files were not checked: {exc.strerror or exc}"
    return f"cannot read: {exc.strerror or exc}"


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _too_large_diag(display: str, what: str, limit: int) -> Diagnostic:
    message = (
        f"{what} larger than max-file-size ({_size(limit)}): not checked; raise it with "
        "--max-file-size or max-file-size in [tool.torchferry] (0: no limit)"
    )
    return Diagnostic(display, SYNTAX_ERROR, engine.SYNTAX_ERROR_NAME, message, 1, 0, 1, 0)


def _too_large(path: Path, display: str, opts: Options, limit: int) -> FileOutcome:
    """A file over the size limit: FRY000 (unless ignored by name), or skipped
    like any file without "torch" in it."""
    try:
        st = os.stat(path)
        size = st.st_size if stat.S_ISREG(st.st_mode) else None
    except OSError:
        size = None
    if opts.prefilter and size is not None and not _contains(path):
        return FileOutcome(path, display, skipped=True)
    if SYNTAX_ERROR in opts.ignore_for(path):
        return FileOutcome(path, display)
    what = f"the file ({_size(size)}) is" if size is not None else "the input is"
    return FileOutcome(path, display, [_too_large_diag(display, what, limit)])


def _contains(path: Path) -> bool:
    """Does the file spell a word of the pre-filter?  Read in chunks, so a huge file is
    never held whole."""
    try:
        with open(path, "rb") as fh:
            tail = b""
            while chunk := fh.read(1 << 20):
                # (a word at the tail's first byte was found in the chunk before)
                if prefilter.mentions(tail + chunk, 1 if tail else 0):
                    return True
                tail = chunk[-prefilter.LONGEST - 1 :]
    except OSError:
        return True
    return False


def _parallel(
    todo, opts: Options, workers: int, progress: Callable[[int, int], None] | None = None
) -> list[FileOutcome]:
    import multiprocessing

    engine.resolve_rules(opts.select, opts.ignore)  # import the rules before forking
    rule_name(SYNTAX_ERROR)
    # and the parts of the analysis its modules import on first use (each worker would)
    import torchferry.check.flow.calls
    import torchferry.check.flow.resolve  # noqa: F401

    # fork on Linux (workers inherit the imported rules); the platform default elsewhere
    linux = sys.platform.startswith("linux")
    if linux and opts.project is not None:
        # what every worker would find on its own, found once: the star imports of the run
        # (the modules they read are parsed here, and their trees inherited)
        opts.project.read_star_imports()
    ctx = multiprocessing.get_context("fork" if linux else None)
    return _parallel_batches(todo, opts, workers, ctx, progress)


def _parallel_batches(
    todo, opts: Options, workers: int, ctx: Any, progress: Callable[[int, int], None] | None
) -> list[FileOutcome]:
    """Check the files in worker processes (``ctx``: how they start), sent to them in
    batches."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # biggest first, so no worker is left with one huge file at the end; in small
    # batches, collected as they finish, so the progress line moves as files are done
    order = sorted(range(len(todo)), key=lambda k: -len(todo[k][2]))
    items = [(todo[k][1], todo[k][2], todo[k][3]) for k in order]
    size = max(1, min(64, len(items) // (workers * 8)))
    batches = [items[i : i + size] for i in range(0, len(items), size)]
    results: list[list[FileOutcome] | None] = [None] * len(batches)
    ex = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(opts,))
    try:
        futures = {ex.submit(_work, batch): b for b, batch in enumerate(batches)}
        finished, pending = 0, set(futures)
        while pending:
            # a tick at least every 0.2 s: the line shows up (0/N) while the first files,
            # big ones, are still being checked, and not only when one finishes
            ready, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in ready:
                results[futures[fut]] = fut.result()
                finished += len(batches[futures[fut]])
            if progress is not None:
                progress(finished, len(items))
    except BaseException:
        _stop(ex)
        raise
    ex.shutdown()
    done = [out for batch in results if batch is not None for out in batch]
    by_index = dict(zip(order, done, strict=True))
    return [by_index[k] for k in range(len(todo))]
