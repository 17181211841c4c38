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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from torchferry.errors import UsageError

__all__ = ["DEFAULT_EXCLUDE", "PatternSet", "discover", "find_git_root"]

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
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

SOURCE_SUFFIXES = (".py", ".ipynb")


def _translate(pattern: str) -> str:
    """The regular expression (without anchors) for a gitignore glob."""
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
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:  # no closing bracket: a literal "["
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"[{'^' if neg else ''}{body}]" if body else "(?!)")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


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
    body = _translate(line)
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


def find_git_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _read_ignore_file(path: Path, base: str) -> PatternSet | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
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
        exclude: Sequence[str] = (),
        *,
        respect_gitignore: bool = True,
    ) -> None:
        self.root = root  # the project root: ``exclude`` is relative to it
        self.exclude = PatternSet.from_lines([*DEFAULT_EXCLUDE, *exclude])
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

    def _walk(self, d: Path, anchor: Path, stack: list[PatternSet], found: list[Path]) -> None:
        rel_d = os.path.relpath(d, anchor).replace(os.sep, "/")
        rel_d = "" if rel_d == "." else rel_d
        pushed = False
        if self.respect_gitignore:
            ps = _read_ignore_file(d / ".gitignore", rel_d)
            if ps:
                stack.append(ps)
                pushed = True
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            entries = []
        for entry in entries:
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
                self._walk(path, anchor, stack, found)
            else:
                found.append(path)
        if pushed:
            stack.pop()


def discover(
    paths: Sequence[str],
    root: Path,
    exclude: Sequence[str] = (),
    *,
    respect_gitignore: bool = True,
    force_exclude: bool = False,
) -> list[Path]:
    """The files to check for the command-line ``paths``, in a stable order.

    Named files are included (whatever their suffix) unless ``force_exclude`` and
    ``exclude`` or :data:`DEFAULT_EXCLUDE` matches them (pre-commit names every
    staged file, so its hook passes ``--force-exclude``); directories are
    searched for ``.py`` and ``.ipynb`` files, skipping what ``.gitignore``,
    ``exclude`` and :data:`DEFAULT_EXCLUDE` exclude.  A path that does not exist
    raises :class:`UsageError`.
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
            raise UsageError(f"{raw}: no such file or directory")
        if is_dir:
            files = walker.walk(p)
        elif force_exclude and walker.excluded_file(p.resolve()):
            files = []
        else:
            files = [p.resolve()]
        for f in files:
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out
