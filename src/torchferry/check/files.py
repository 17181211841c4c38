"""Finding the files ``ferry check`` looks at: recursion, ``.gitignore`` and ``exclude``.

The common ``.gitignore`` syntax is implemented here (no dependency): comments,
``!`` negation, a trailing ``/`` for directories only, patterns with a ``/``
anchored to the directory of their ``.gitignore``, ``*``, ``?``, ``[...]`` and
``**``.  Deeper ``.gitignore`` files take precedence over shallower ones, the
last matching line of a file wins, and nothing inside an ignored directory is
looked at (as in git).  ``exclude`` patterns use the same syntax, relative to
the project root::

    >>> m = PatternSet.from_lines(["*.py", "!keep.py", "/build/"])
    >>> m.match("a/b.py", False), m.match("keep.py", False), m.match("build", True)
    (True, False, True)
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from torchferry.errors import UsageError

__all__ = [
    "DEFAULT_EXCLUDE", "PatternSet", "check_pattern", "discover", "find_git_root", "missing_reason",
    "read_bytes",
]  # fmt: skip

#: Directories never searched (the list ruff uses, plus ferry's cache).  Explicitly
#: named files are always checked.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    ".ferry_cache",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

SOURCE_SUFFIXES = (".py", ".ipynb")
#: A ``.gitignore`` is read up to this size (git itself gives up at 100 MB).
IGNORE_FILE_LIMIT = 100 * 1024 * 1024


_ASCII_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else re.escape(c)


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """The regex for the bracket expression at ``pattern[i] == "["`` and the index just
    past its ``]``, as git's wildmatch reads it: ``!``/``^`` negate, a ``]`` first is
    literal, ``\\`` escapes, ``[:alpha:]`` classes, a range runs from the previous
    character (``[z-a]`` matches only ``z``: the ``z`` itself, then an empty range), and
    no bracket ever matches ``/``."""
    n = len(pattern)
    j = i + 1
    negated = j < n and pattern[j] in "!^"
    if negated:
        j += 1
    items: list[str] = []
    prev: str | None = None
    first = True
    while True:
        if j >= n:
            raise ValueError("unclosed '['")
        c = pattern[j]
        if c == "]" and not first:
            break
        first = False
        if c == "\\":
            j += 1
            if j >= n:
                raise ValueError("unclosed '['")
            items.append(_class_char(pattern[j]))
            prev = pattern[j]
        elif c == "-" and prev is not None and j + 1 < n and pattern[j + 1] != "]":
            j += 1
            hi = pattern[j]
            if hi == "\\":
                j += 1
                if j >= n:
                    raise ValueError("unclosed '['")
                hi = pattern[j]
            if prev <= hi:
                items.append(f"{_class_char(prev)}-{_class_char(hi)}")
            prev = None
        elif c == "[" and pattern.startswith(":", j + 1):
            k = pattern.find("]", j + 2)
            if k < 0:
                raise ValueError("unclosed '['")
            name = pattern[j + 2 : k - 1] if pattern[k - 1] == ":" and k - 1 >= j + 2 else None
            if name is None:  # no ":]": the "[" is an ordinary character
                items.append(_class_char("["))
                prev = "["
            else:
                if name not in _ASCII_CLASSES:
                    raise ValueError(f"unknown character class [:{name}:]")
                items.append(_ASCII_CLASSES[name])
                prev = None
                j = k
        else:
            items.append(_class_char(c))
            prev = c
        j += 1
    body = "".join(items)
    if negated:
        return f"[^/{body}]", j + 1
    return (f"(?!/)[{body}]" if body else "(?!)"), j + 1


def _translate(pattern: str) -> str:
    """The regular expression (without anchors) for a gitignore glob.

    Raises ValueError for a pattern git's wildmatch aborts on (an unclosed ``[``, an
    unknown ``[:class:]``, a trailing backslash): git accepts it and it matches nothing."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and j < n and pattern[j] == "/":
                    out.append("(?:.*/)?")  # "**/": zero or more directories
                    i = j + 1
                    continue
                if at_start and j == n:
                    out.append(".*")  # trailing "/**": everything inside
                    i = j
                    continue
                out.append("[^/]*")  # other runs of stars act like one
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            regex, i = _bracket(pattern, i)
            out.append(regex)
            continue
        elif c == "\\":
            if i + 1 >= n:
                raise ValueError("a trailing '\\'")
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def check_pattern(pattern: str, where: str) -> None:
    """:class:`UsageError` for an ``exclude`` pattern that can never match (git accepts
    it silently in a ``.gitignore``, but in the configuration it is surely a typo).

    >>> check_pattern("[z-a]*.py", "exclude")
    >>> check_pattern("build[", "exclude")
    Traceback (most recent call last):
    ...
    torchferry.errors.UsageError: exclude: pattern 'build[' can never match (unclosed '['; git reads it so too)
    """
    try:
        _translate(pattern.lstrip("!").rstrip("/").lstrip("/"))
    except ValueError as exc:
        raise UsageError(
            f"{where}: pattern {pattern!r} can never match ({exc}; git reads it so too)"
        ) from None


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _compile(line: str) -> _Pattern | None:
    line = line.rstrip("\r\n")
    if not line or line.startswith("#"):
        return None
    # trailing spaces are ignored unless escaped with a backslash
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    try:
        body = _translate(line)
    except ValueError:
        body = "(?!)"
    prefix = "" if anchored else "(?:.*/)?"
    return _Pattern(re.compile(f"^{prefix}{body}$", re.DOTALL), negate, dir_only)


class PatternSet:
    """The patterns of one ``.gitignore`` (or of ``exclude``), relative to ``base``."""

    def __init__(self, patterns: Iterable[_Pattern], base: str = "") -> None:
        self.patterns = tuple(patterns)
        self.base = base  # posix path of the directory, relative to the walk's root

    @classmethod
    def from_lines(cls, lines: Iterable[str], base: str = "") -> PatternSet:
        return cls((p for p in map(_compile, lines) if p is not None), base)

    def match(self, relpath: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a ``!`` line; None: no line matches."""
        for pat in reversed(self.patterns):
            if pat.dir_only and not is_dir:
                continue
            if pat.regex.match(relpath):
                return not pat.negate
        return None

    def match_path_or_parent(self, relpath: str, is_dir: bool = False) -> bool:
        """Whether ``relpath`` or one of its parent directories is matched (not negated)."""
        parts = relpath.split("/")
        for k in range(1, len(parts)):
            if self.match("/".join(parts[:k]), True):
                return True
        return bool(self.match(relpath, is_dir))


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """A file's bytes, read so that nothing hangs or floods: a named pipe without a
    writer reads as empty (``open`` would block for ever), a pipe with one (``<(cmd)``)
    is read to its end, and at most ``limit + 1`` bytes are read (``/dev/zero`` ends),
    so ``len(result) > limit`` means "larger than ``limit``".  Raises :class:`OSError`.
    """
    nonblock: int = getattr(os, "O_NONBLOCK", 0)
    cloexec: int = getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, os.O_RDONLY | nonblock | cloexec)  # a FIFO: do not wait for a writer
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) and nonblock:
            os.set_blocking(fd, True)  # a FIFO without a writer now reads EOF at once
        want = -1 if limit is None else limit + 1
        chunks: list[bytes] = []
        got = 0
        while want < 0 or got < want:
            size = 1 << 20 if want < 0 else min(1 << 20, want - got)
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def find_git_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _read_ignore_file(path: Path, base: str) -> PatternSet | None:
    try:
        text = read_bytes(path, IGNORE_FILE_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None
    ps = PatternSet.from_lines(text.splitlines(), base)
    return ps if ps.patterns else None


def _ignored(stack: Sequence[PatternSet], relpath: str, is_dir: bool) -> bool:
    """Deepest ``.gitignore`` first; within one, the last matching line wins."""
    for ps in reversed(stack):
        sub = relpath if not ps.base else relpath[len(ps.base) + 1 :]
        verdict = ps.match(sub, is_dir)
        if verdict is not None:
            return verdict
    return False


class Walker:
    """Walks directories below an anchor (the git root, or the directory itself)."""

    def __init__(
        self,
        root: Path,
        exclude: Sequence[str] = DEFAULT_EXCLUDE,
        *,
        respect_gitignore: bool = True,
    ) -> None:
        self.root = root  # the project root: ``exclude`` is relative to it
        self.exclude = PatternSet.from_lines(exclude)  # the whole list: defaults included
        self.respect_gitignore = respect_gitignore

    def _excluded(self, path: Path, is_dir: bool) -> bool:
        rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        return bool(self.exclude.match(rel, is_dir))

    def excluded_file(self, path: Path) -> bool:
        """Whether ``exclude`` (or a default) matches a file or one of its directories."""
        rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        return self.exclude.match_path_or_parent(rel)

    def walk(self, directory: Path) -> list[Path]:
        directory = directory.resolve()
        stack: list[PatternSet] = []
        anchor = directory
        if self.respect_gitignore:
            git_root = find_git_root(directory)
            anchor = git_root or directory
            # .gitignore files from the anchor down to (not including) ``directory``
            chain = [anchor / p for p in reversed(directory.relative_to(anchor).parents)]
            for d in chain:
                rel = os.path.relpath(d, anchor).replace(os.sep, "/")
                ps = _read_ignore_file(d / ".gitignore", "" if rel == "." else rel)
                if ps:
                    stack.append(ps)
            if git_root is not None:
                ps = _read_ignore_file(git_root / ".git" / "info" / "exclude", "")
                if ps:
                    stack.insert(0, ps)
        found: list[Path] = []
        self._walk(directory, anchor, stack, found)
        return found

    def _walk(self, top: Path, anchor: Path, stack: list[PatternSet], found: list[Path]) -> None:
        """Depth first, entries sorted by name; a loop, not recursion (a 1000-level tree is
        a legal path).  A directory that cannot be listed goes into ``found`` itself: the
        runner reports it as unreadable (it is not silently skipped)."""
        # one frame per open directory: (its relative path, its entries left, pushed .gitignore)
        frames: list[tuple[str, Iterator[os.DirEntry[str]], bool]] = []
        self._enter(top, anchor, stack, found, frames)
        while frames:
            rel_d, entries, pushed = frames[-1]
            entry = next(entries, None)
            if entry is None:
                frames.pop()
                if pushed:
                    stack.pop()
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            if not is_dir and not (is_file and entry.name.endswith(SOURCE_SUFFIXES)):
                continue
            rel = f"{rel_d}/{entry.name}" if rel_d else entry.name
            path = Path(entry.path)
            if self._excluded(path, is_dir):
                continue
            if self.respect_gitignore and stack and _ignored(stack, rel, is_dir):
                continue
            if is_dir:
                self._enter(path, anchor, stack, found, frames)
            else:
                found.append(path)

    def _enter(self, d: Path, anchor: Path, stack: list[PatternSet], found: list[Path],
               frames: list[tuple[str, Iterator[os.DirEntry[str]], bool]]) -> None:
        rel_d = os.path.relpath(d, anchor).replace(os.sep, "/")
        rel_d = "" if rel_d == "." else rel_d
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            found.append(d)  # unreadable: reported, not skipped
            return
        pushed = False
        if self.respect_gitignore:
            ps = _read_ignore_file(d / ".gitignore", rel_d)
            if ps:
                stack.append(ps)
                pushed = True
        frames.append((rel_d, iter(entries), pushed))


def missing_reason(path: Path) -> str:
    """Why ``path`` cannot be found: a symlink loop (ELOOP) is not a missing file.

    >>> missing_reason(Path("/no/such/file"))
    'no such file or directory'
    """
    import errno

    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "too many levels of symbolic links (a symlink loop)"
        if exc.errno != errno.ENOENT:
            return exc.strerror or str(exc)
    return "no such file or directory"


def discover(
    paths: Sequence[str],
    root: Path,
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    *,
    respect_gitignore: bool = True,
    force_exclude: bool = False,
) -> list[Path]:
    """The files to check for the command-line ``paths``, in a stable order.

    ``exclude`` is the whole list of patterns (:data:`DEFAULT_EXCLUDE` unless the
    configuration replaced it, as ruff's ``exclude`` does; ``Config.excludes``).
    Named files are included (whatever their suffix) unless ``force_exclude`` and
    ``exclude`` matches them (pre-commit names every staged file, so its hook
    passes ``--force-exclude``); directories are searched for ``.py`` and
    ``.ipynb`` files, skipping what ``.gitignore`` and ``exclude`` exclude.  A path
    that does not exist raises :class:`UsageError`.
    """
    walker = Walker(root, exclude, respect_gitignore=respect_gitignore)
    seen: set[Path] = set()
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        try:
            is_dir = p.is_dir()
            exists = is_dir or p.exists()
        except OSError as exc:
            raise UsageError(f"{raw}: {exc.strerror or exc}") from None
        if not exists:
            raise UsageError(f"{raw}: {missing_reason(p)}")
        if is_dir:
            files = walker.walk(p)
        else:
            resolved = p.resolve()
            if not resolved.exists():  # /dev/fd/63 of <(cmd) resolves to "pipe:[...]"
                resolved = Path(os.path.abspath(p))
            files = [] if force_exclude and walker.excluded_file(resolved) else [resolved]
        for f in files:
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out
