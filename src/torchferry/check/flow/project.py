"""The files checked together: which module each one is, what each imports, and the
analysis of another file when a call reaches it.

``ferry check`` checks each file in a worker, with a per-file cache.  The analysis of a
file may follow a call into another file of the run (``from .model import build``); the
worker then parses that file itself (once per worker, kept for the next files), and its
summaries depend only on its bytes.  The analyses the worker keeps do not change a later
file's findings through its budget: a kept summary costs a check the units it cost to make
(:class:`Budget`), the analyses kept are dropped after a check whose budget (or the depth
limit) decided anything, the checked file's own analysis (which skips scopes) is not kept,
and the callers of a function in other files are interpreted on a budget of their own.
The findings of a file therefore depend on the bytes of every file it imports,
transitively, within the run (not on ``--jobs``), and on the files that ``torch.save`` a
file it names in a string literal (:meth:`Project.savers`): :meth:`Project.dependency_salt`
digests them (a regular expression over the bytes finds the imports, nothing is parsed),
and the cache key of each file includes it, so an edit in a file invalidates the cached
findings of every file that imports it, directly or not.

>>> p = Project({"/r/pkg/__init__.py": b"", "/r/pkg/a.py": b"from .b import f\\n",
...              "/r/pkg/b.py": b"import torch\\n"}, packages={"/r/pkg"})
>>> p.module_of["/r/pkg/a.py"], p.find_module("/r/pkg/a.py", ".b")
('pkg.a', '/r/pkg/b.py')
>>> sorted(p.dependencies("/r/pkg/a.py"))
['/r/pkg/b.py']
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TypeVar

from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.handed import handed_calls
from torchferry.check.flow.lattice import Basis, Kind, Reason, Value
from torchferry.check.flow.program import SUMMARY_BUDGET, FileFlow
from torchferry.check.flow.stars import Exports, exports_of
from torchferry.check.flow.treeindex import tree_index

try:  # the builtin module: hashlib would load OpenSSL first, slower to start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

#: a call of a function from another file: (that file, the calling scope, the call's id,
#: parameter index as a string -> argument value)
ForeignCall = tuple[FileFlow, ScopeResult, int, dict[str, Value]]

#: an import statement at the start of a line: ``from M import names``, ``import M [as A], ...``
#: (tried only at the lines that say "import": see :func:`import_statements`)
_FROM = re.compile(rb"[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")
_IMPORT = re.compile(rb"[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)")
_NAME = re.compile(rb"[A-Za-z_]\w*")
#: ``def <name>(`` in a text (:meth:`Project.defines`); a match holds no blank, so none
#: hides another
_DEFINES = re.compile(rb"def (\w+)\(")
_DEFINED = re.compile(rb"\w+")
#: the name of each class a file's text defines (``class Net(...)``, at a line's start)
_CLASS_HEAD = re.compile(rb"^[ \t]*class[ \t]+(\w+)", re.M)
#: a move written in a class's body that its construction may run: of ``self`` itself
#: (``self.to(self.device)``, ``self.cuda()``), or of what is kept on ``self``
#: (``self.fc = nn.Linear(4, 4).to(device)``, a call's closing line ``).cuda()``)
_OWN_MOVE = re.compile(rb"\bself[ \t]*\.[ \t]*(?:to|cuda)[ \t]*\(|^[ \t]*self\.\w+[ \t]*=[^\n]*\.(?:to|cuda)[ \t]*\("
                       rb"|^[ \t]*\)[ \t]*\.(?:to|cuda)[ \t]*\(", re.M)
#: a string literal quoted simply: no escape, no quote inside, on one line, without spaces
_LITERAL = re.compile(rb"""(['"])([^'"\\\s]{2,200})\1""")
_MASK128 = (1 << 128) - 1
_T = TypeVar("_T")
#: other files' analyses a worker keeps (each holds its syntax tree): on diffusers (969
#: files, pipelines importing many modules) 48 re-parsed and re-analysed about 850 files;
#: 256 took a sixth less CPU time for 1% more memory
KEEP_FILES = 256
#: the callers of a function in other files are looked for when at most this many files of
#: the run import its file (directly or not); past that, they are not known
MAX_IMPORTERS = 8


def _parse(source: str, path: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


#: what one unit of a :class:`Budget` pays for: a file read (path, -1, -1) or the
#: interpretation of a function (path, line, column)
Unit = tuple[str, int, int]


class Budget:
    """How many callee interpretations and file reads one checked file may still cause.

    A unit the check already paid for is free.  A memoised interpretation is charged the
    units it paid for when it was made (:meth:`reuse`), those the check has not: what the
    check would pay without it, so a file's budget runs out at the same place whether or
    not the analyses its worker kept from the files checked before hold the answer."""

    def __init__(self, left: int) -> None:
        self.left = left
        #: the units this check paid for
        self.spent: set[Unit] = set()
        #: whether the budget decided anything: a refusal, or a memoised interpretation
        #: that it could not pay for (see :meth:`Project.add`)
        self.refused = False
        self._open: list[set[Unit]] = []

    def take(self, unit: Unit | None = None) -> bool:
        if unit is not None and unit in self.spent:
            return True
        if self.left <= 0:
            self.refused = True
            return False
        self.left -= 1
        if unit is not None:
            self.spent.add(unit)
            if self._open:
                self._open[-1].add(unit)
        return True

    def reuse(self, units: frozenset[Unit]) -> bool:
        """Pay for a memoised interpretation that paid ``units``; False (nothing paid)
        when they would use the budget up: the interpretation is made again, within it."""
        new = units - self.spent
        if new and len(new) >= self.left:
            self.refused = True
            return False
        self.left -= len(new)
        self.spent |= new
        if self._open:
            self._open[-1] |= units
        return True

    def open(self) -> None:
        """Begin collecting the units an interpretation pays for (:meth:`close` ends it)."""
        self._open.append(set())

    def close(self) -> frozenset[Unit]:
        units = self._open.pop()
        if self._open:
            self._open[-1] |= units
        return frozenset(units)


class Project:
    """The run's files (path -> bytes) and their module names (see the module docstring).

    ``packages``: directories known to hold an ``__init__.py`` (default: looked up on disk
    for the directories of ``files``)."""

    def __init__(self, files: Mapping[str, bytes], packages: Iterable[str] | None = None,
                 module_classes: frozenset[str] = frozenset(),
                 parse: Callable[[str, str], ast.Module] | None = None) -> None:
        self.files = dict(files)
        #: how another file is parsed (``ferry check`` passes its own parser, which keeps
        #: the trees out of the garbage collector's way)
        self._parse = parse or _parse
        self.module_classes = module_classes
        self._packages = set(packages) if packages is not None else None
        self._dir_cache: dict[str, bool] = {}
        self.module_of = {p: self._module_name(p) for p in self.files}
        self.by_module: dict[str, str] = {}
        for p, m in self.module_of.items():
            self.by_module.setdefault(m, p)
        self._flows: OrderedDict[str, FileFlow] = OrderedDict()
        #: every ``<name>`` (ASCII) of a ``def <name>(`` in the run's texts (:meth:`defines`)
        self._defined: set[bytes] | None = None
        #: the text each kept analysis of another file was parsed from (see :meth:`tree_of`)
        self._texts: dict[str, str] = {}
        #: the trees of analyses dropped by :meth:`add`, with their texts, to read again
        self._trees: OrderedDict[str, tuple[str, ast.Module]] = OrderedDict()
        #: whether a budget decided anything since the last :meth:`add`
        self._refused = False
        #: the analysis of the file being checked
        self._checked: FileFlow | None = None
        self._checked_text: str | None = None
        #: the whole analysis of the checked file kept from before its check (calls of an
        #: earlier file reached it), put back after it
        self._whole: FileFlow | None = None
        self._deps: dict[str, frozenset[str]] = {}
        self._imports: dict[str, frozenset[str]] = {}
        self._found: dict[tuple[str, str, bool], str | None] = {}
        self._extends: dict[str, bool] = {}
        self._hashes: dict[str, int] = {}
        self._digests: dict[str, str] = {}
        self._folders: dict[str, str] = {}
        self._importers: dict[str, set[str]] | None = None
        #: :meth:`foreign_calls` per function, while one file is checked
        self._foreign: dict[tuple[str, str, int], list[ForeignCall] | None] = {}
        self.budget = Budget(SUMMARY_BUDGET)
        self._literals: dict[str, frozenset[str]] = {}
        self._own_moves: dict[str, bool] = {}
        #: the texts of the run's files by the names of the classes each defines (None: not
        #: yet read), see :meth:`may_place_itself`
        self._class_texts: dict[bytes, list[bytes]] | None = None
        self._savers: dict[str, list[str]] | None = None
        self._exports: dict[str, Exports | None] = {}
        self._stars: dict[tuple[str, str], dict[str, str]] = {}

    # -- module names -------------------------------------------------------------------
    def _is_package(self, d: str) -> bool:
        if self._packages is not None:
            return d in self._packages
        hit = self._dir_cache.get(d)
        if hit is None:
            hit = self._dir_cache[d] = os.path.isfile(os.path.join(d, "__init__.py"))
        return hit

    def _module_name(self, path: str) -> str:
        d, name = os.path.split(path)
        stem = name[:-3] if name.endswith(".py") else name
        parts = [] if stem == "__init__" else [stem]
        while self._is_package(d):
            d, pkg = os.path.split(d)
            parts.insert(0, pkg)
            if not pkg:
                break
        return ".".join(parts)

    def find_module(self, from_path: str, module: str) -> str | None:
        """The file of the run that ``import module`` in ``from_path`` loads, if any."""
        if module.startswith("."):
            # (kept per file: a relative import reads only the file's module name)
            rel = (from_path, module, False)
            try:
                return self._found[rel]
            except KeyError:
                found = self._found[rel] = self._find(from_path, module)
                return found
        # an absolute import reads only the directory of ``from_path``: the answer is kept
        # for every file of that directory (the files scanned for imports ask the same
        # ``torch``, ``torch.nn``... again and again)
        folder = self._folders.get(from_path)
        if folder is None:
            folder = self._folders[from_path] = os.path.dirname(from_path)
        key = (folder, module, self._extends_path(from_path))
        try:
            return self._found[key]
        except KeyError:
            found = self._found[key] = self._find(from_path, module)
            return found

    def _find(self, from_path: str, module: str) -> str | None:
        level = len(module) - len(module.lstrip("."))
        rest = module[level:]
        if level:
            base = self.module_of.get(from_path)
            if base is None:
                return None
            pkg = base.split(".") if from_path.endswith("__init__.py") else base.split(".")[:-1]
            if level > 1:
                pkg = pkg[: len(pkg) - (level - 1)]
            full = ".".join([*pkg, *([rest] if rest else [])])
            return self.by_module.get(full)
        found = self.by_module.get(rest)
        if found is not None:
            return found
        sibling = os.path.join(os.path.dirname(from_path), *rest.split("."))
        for cand in (sibling + ".py", os.path.join(sibling, "__init__.py")):
            if cand in self.files:
                return cand
        found = self._in_namespace(rest)
        if found is None and ("." in rest or self._extends_path(from_path)):
            found = self._above(from_path, rest)
        return found

    def _in_namespace(self, module: str) -> str | None:
        """``pkg.sub.mod`` where ``pkg`` is a package of the run and ``pkg/sub`` a directory
        without an ``__init__.py`` (a namespace package inside it, importable all the
        same): the file ``pkg/sub/mod.py`` (or ``pkg/sub/mod/__init__.py``), if it is one
        of the run's; None otherwise."""
        parts = module.split(".")
        for i in range(len(parts) - 1, 0, -1):
            init = self.by_module.get(".".join(parts[:i]))
            if init is None or not init.endswith("__init__.py"):
                continue
            below = os.path.join(os.path.dirname(init), *parts[i:])
            for cand in (below + ".py", os.path.join(below, "__init__.py")):
                if cand in self.files:
                    return cand
            return None
        return None

    def _extends_path(self, path: str) -> bool:
        """Does the file add a directory to ``sys.path`` itself (``sys.path.insert(0,
        parent_dir)``, ``sys.path.append(...)``), read off its bytes?"""
        done = self._extends.get(path)
        if done is None:
            data = self.files.get(path, b"")
            done = self._extends[path] = b"sys.path.insert(" in data or b"sys.path.append(" in data
        return done

    def _above(self, from_path: str, rest: str) -> str | None:
        """The module ``rest`` in a directory above ``from_path``'s, for a script that puts
        such a directory on ``sys.path`` (``os.path.join(os.path.dirname(__file__), "..")``,
        ``Path(__file__).parents[1]``), or a dotted name whose first part is a directory
        without an ``__init__.py`` there (``from tasks.model import Net`` in
        ``src/tasks/train.py``, run with ``src`` on the path: a namespace package): the file
        when exactly one of those directories holds it (which one is on the path is not
        read), else None.

        >>> p = Project({"/r/src/tasks/train.py": b"", "/r/src/tasks/model.py": b"",
        ...              "/r/src/lib/enc.py": b""}, packages=())
        >>> p.find_module("/r/src/tasks/train.py", "lib.enc")
        '/r/src/lib/enc.py'
        >>> p.files["/r/lib/enc.py"] = b""  # two directories above hold ``lib/enc.py``
        >>> p._find("/r/src/tasks/train.py", "lib.enc") is None
        True
        """
        hits = []
        d = os.path.dirname(os.path.dirname(from_path))
        while True:
            base = os.path.join(d, *rest.split("."))
            hits += [c for c in (base + ".py", os.path.join(base, "__init__.py")) if c in self.files]
            up = os.path.dirname(d)
            if up == d or not d:
                break
            d = up
        return hits[0] if len(hits) == 1 else None

    # -- other files' analyses ------------------------------------------------------------
    def add(self, ff: FileFlow, source: str | None = None) -> None:
        """Register the analysis of the file being checked (calls back into it reuse it)
        and give it a whole budget.  When a budget decided anything in the previous check,
        the analyses kept so far are dropped (their trees are kept): an interpretation cut
        short by one file's budget is never seen by another file.  ``source``: the text
        ``ff``'s tree was parsed from; after the check a call into the file reuses the tree
        when the file's bytes decode to that text (else it parses them)."""
        if self._refused or self.budget.refused:
            for path, kept in self._flows.items():
                text = self._texts.get(path)
                if text is not None:
                    self._trees[path] = (text, kept.tree)
            while len(self._trees) > KEEP_FILES:
                self._trees.popitem(last=False)
            self._flows.clear()
            self._texts.clear()
        elif self._checked is not None and self._flows.get(self._checked.path) is self._checked:
            # the checked file's analysis skipped the scopes that cannot hold a mistake
            # of its own: another file's calls read the analysis of all of them, the one
            # kept from before its check (the same bytes), else made anew
            self._put_back_whole()
        if self._checked is not None and self._checked_text is not None \
                and self._checked.path not in self._flows:
            self._trees[self._checked.path] = (self._checked_text, self._checked.tree)  # to read again
            while len(self._trees) > KEEP_FILES:
                self._trees.popitem(last=False)
        self._refused = False
        self._checked = ff
        self._whole = self._flows.get(ff.path)
        self._flows[ff.path] = ff
        self._checked_text = self._texts.pop(ff.path, None)
        if self._checked_text is None:
            self._checked_text = source
        self._trees.pop(ff.path, None)
        self.budget = Budget(SUMMARY_BUDGET)
        self.budget.spent.add((ff.path, -1, -1))
        self._foreign.clear()

    def _put_back_whole(self) -> None:
        """End the checked file's turn in the kept analyses: the whole analysis of it kept
        from before its check takes its place again, else it leaves them."""
        assert self._checked is not None
        path = self._checked.path
        if self._whole is None or self._checked_text is None:
            del self._flows[path]
        else:
            self._flows[path] = self._whole
            self._texts[path] = self._checked_text
        self._whole = None

    def tree_of(self, path: str, source: str) -> ast.Module | None:
        """The syntax tree of ``source`` if a call reached ``path`` before its own turn and
        the kept analysis of it was parsed from that same text: the file's check reuses it
        instead of parsing the file a second time (the tree is only read, never changed)."""
        text = self._texts.get(path)
        if text is None or text != source:
            kept = self._trees.get(path)
            return kept[1] if kept is not None and kept[0] == source else None
        ff = self._flows.get(path)
        return ff.tree if ff is not None else None

    def refuse(self) -> None:
        """Note an interpretation refused for a reason other than the budget's (too deep):
        the analyses kept are dropped at the next :meth:`add`, as after a budget's refusal."""
        self._refused = True

    def file_flow(self, path: str) -> FileFlow | None:
        data = self.files.get(path)
        # (reading a file costs one unit of the check's budget, whether it was kept or not)
        if data is None or not self.budget.take((path, -1, -1)):
            return None
        ff = self._flows.get(path)
        if ff is not None:
            self._flows.move_to_end(path)
            return ff
        text = data.decode("utf-8", "surrogateescape")
        kept = self._trees.pop(path, None)
        if kept is not None and kept[0] == text:
            tree = kept[1]
        else:
            try:
                tree = self._parse(text, path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        ff = FileFlow(tree, path, self, self.module_classes, source=text)
        self._flows[path] = ff
        self._texts[path] = text
        while len(self._flows) > KEEP_FILES:
            self._texts.pop(self._flows.popitem(last=False)[0], None)
        return ff

    def resolve(self, ff: FileFlow, qual: str, depth: int = 0) -> tuple[FileFlow, ast.AST] | None:
        """The function or class ``qual`` (a name as ``ff`` imports it) names in the run."""
        found = self._locate(ff, qual, depth)
        if found is None:
            return None
        other, name = found
        node = other.defs.get(name)
        if node is not None:
            return other, node
        if depth < 4:
            q = other.imports.get(name)
            if q is not None:
                return self.resolve(other, q, depth + 1)
            for mod in other.stars:
                if not self.star_exported(other.path, mod, name):
                    continue
                hit = self.resolve(other, f"{mod}.{name}" if mod.strip(".") else mod + name, depth + 1)
                if hit is not None:
                    return hit
        return None

    def imported_value(self, ff: FileFlow, qual: str) -> Value | None:
        """The value of a module-level variable another file of the run defines."""
        found = self._locate(ff, qual, 0)
        if found is None:
            return None
        other, name = found
        if other is ff or name in other.defs:
            return None
        other.module_result()
        return (other.globals or {}).get(name)

    def _locate(self, ff: FileFlow, qual: str, depth: int) -> tuple[FileFlow, str] | None:
        dots = len(qual) - len(qual.lstrip("."))
        parts = qual[dots:].split(".") if qual[dots:] else []
        for i in range(len(parts) - 1, -1, -1):
            if not dots and i == 0:
                break
            module = "." * dots + ".".join(parts[:i])
            path = self.find_module(ff.path, module)
            if path is None:
                continue
            other = self.file_flow(path)
            if other is None or i + 1 != len(parts):
                return None  # a submodule's attribute (pkg.mod.f as pkg.mod): not followed
            return other, parts[i]
        return None

    # -- star imports ---------------------------------------------------------------------
    def exports(self, path: str) -> Exports | None:
        """The top-level bindings of a file of the run as a star import sees them (parsed
        once, from its bytes), None when it is no such file or does not parse."""
        if path in self._exports:
            return self._exports[path]
        data = self.files.get(path)
        found = None
        if data is not None:
            try:
                found = exports_of(self._tree_for(path, data.decode("utf-8", "surrogateescape")))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                found = None
        self._exports[path] = found
        return found

    def _tree_for(self, path: str, text: str) -> ast.Module:
        """The syntax tree of ``text``, the text of the run's file ``path``: a kept analysis's
        or a kept tree when parsed from that same text, else parsed and kept (a later
        analysis or check of the file reuses it: a tree is only read, never changed)."""
        ff = self._flows.get(path)
        if ff is not None and self._texts.get(path) == text:
            return ff.tree
        if self._checked is not None and self._checked.path == path and self._checked_text == text:
            return self._checked.tree
        kept = self._trees.get(path)
        if kept is not None and kept[0] == text:
            return kept[1]
        tree = self._parse(text, path)
        self._trees[path] = (text, tree)
        while len(self._trees) > KEEP_FILES:
            self._trees.popitem(last=False)
        return tree

    def star_exported(self, from_path: str, module: str, name: str) -> bool:
        """Does ``from module import *`` in ``from_path`` bind ``name``, when ``module`` is a
        file of the run (True when it is not: nothing is known against it)?"""
        path = self.find_module(from_path, module)
        ex = self.exports(path) if path is not None else None
        return ex is None or ex.exports(name)

    def star_imports(self, from_path: str, module: str) -> dict[str, str]:
        """The names ``from module import *`` in ``from_path`` binds to what the module
        imports from outside the run (``import torch``, ``from torch import nn``): name ->
        qualified name, when ``module`` is a file of the run; through the star imports of
        that file too (a cycle stops).  A module outside the run binds nothing known.  The
        names the module defines, or imports from the run, are followed as its definitions
        (:meth:`resolve`, :meth:`imported_value`)."""
        key = (from_path, module)
        done = self._stars.get(key)
        if done is None:
            found: dict[str, str] = {}
            self._star_names(from_path, module, [], found)
            done = self._stars[key] = {n: q for n, q in found.items() if self._outside(from_path, q)}
        return done

    def read_star_imports(self) -> int:
        """Answer :meth:`star_imports` now for every ``from M import *`` the run's texts hold
        (read off their bytes: one inside a string reads a module for nothing), which
        parses each star-imported module of the run and keeps its tree: done before the
        workers start, each inherits the answers and the trees instead of making them
        again (a worker's check of such a module reuses its tree, :meth:`tree_of`).  The
        number of star imports read."""
        n = 0
        for path, data in self.files.items():
            if b"import" not in data or b"*" not in data:
                continue
            for m in import_statements(data)[0]:
                if m.group(2).split(b"#")[0].strip() == b"*":
                    self.star_imports(path, m.group(1).decode("ascii", "replace"))
                    n += 1
        return n

    def _star_names(self, from_path: str, module: str, stack: list[str], out: dict[str, str]) -> None:
        path = self.find_module(from_path, module)
        ex = self.exports(path) if path is not None else None
        if path is None or ex is None or path in stack or len(stack) > 8:
            return
        for name, q in ex.imports.items():
            if ex.exports(name) and self._outside(path, q):
                out.setdefault(name, q)
        for base in ex.stars:
            more: dict[str, str] = {}
            self._star_names(path, base, [*stack, path], more)
            for name, q in more.items():
                if ex.exports(name) and name not in ex.bound and name not in ex.imports:
                    out.setdefault(name, q)

    def _outside(self, from_path: str, qual: str) -> bool:
        """Is ``qual`` (as ``from_path`` spells it) an absolute name no part of which is a
        file of the run, seen from ``from_path``?"""
        if qual.startswith("."):
            return False
        parts = qual.split(".")
        return all(self.find_module(from_path, ".".join(parts[:i])) is None
                   for i in range(1, len(parts) + 1))

    # -- the callers of a function in other files ---------------------------------------------
    def defines(self, name: str) -> bool:
        """Does the text of a file of the run hold ``def <name>(`` (a function or method
        ``name`` it may define)?  The names of every such text are found in one pass over
        the run's files, the first time (an ASCII name; any other is searched for).

        >>> run = Project({"a.py": b"def step(x):\\n    pass\\nadef  bad(1)\\n"}, packages=())
        >>> run.defines("step"), run.defines("sample"), run.defines("bad"), run.defines(" bad")
        (True, False, False, True)
        """
        if not name.isascii() or not _DEFINED.fullmatch(name.encode()):
            raw = f"def {name}(".encode()
            return any(raw in text for text in self.files.values())
        if self._defined is None:
            self._defined = {m for text in self.files.values() for m in _DEFINES.findall(text)}
        return name.encode() in self._defined

    def may_place_itself(self, name: str) -> bool:
        """May a construction of the class ``name`` of the run put its weights somewhere
        itself?  True when the text of a file that defines a class so named (``class
        name``) writes a move of ``self`` or of what it keeps on ``self`` (:data:`_OWN_MOVE`);
        read without parsing, once per name.  (A class whose construction cannot is built
        on the CPU, known without following its ``__init__``.)

        >>> run = Project({"a.py": b"class Net(M):\\n    def __init__(self, d):\\n        self.to(d)\\n",
        ...                "b.py": b"class Head(M):\\n    pass\\n"}, packages=())
        >>> run.may_place_itself("Net"), run.may_place_itself("Head"), run.may_place_itself("Other")
        (True, False, False)
        >>> run.may_place_itself("Ne"), run.may_place_itself("net")  # (a class's name whole)
        (False, False)
        """
        hit = self._own_moves.get(name)
        if hit is None:
            hit = self._own_moves[name] = any(
                _OWN_MOVE.search(text) is not None for text in self._defining_class(name))
        return hit

    def _defining_class(self, name: str) -> list[bytes]:
        """The texts of the run's files that define a class ``name`` at a line's start
        (``class name``, the name whole).  For an ASCII identifier, read from one pass of
        :data:`_CLASS_HEAD` over every file, made at the first question (on diffusers, with one
        worker, 151 names were asked, each a search of every file's text before)."""
        if not (name.isascii() and name.isidentifier()):
            head = re.compile(rb"^[ \t]*class[ \t]+" + re.escape(name.encode()) + rb"\b", re.M)
            return [text for text in self.files.values()
                    if name.encode() in text and head.search(text) is not None]
        if self._class_texts is None:
            self._class_texts = {}
            for text in self.files.values():
                for found in set(_CLASS_HEAD.findall(text)):
                    self._class_texts.setdefault(found, []).append(text)
        return self._class_texts.get(name.encode(), [])

    def importers(self, path: str) -> frozenset[str] | None:
        """The files of the run that import ``path``, directly or not (None: more than
        :data:`MAX_IMPORTERS`)."""
        if self._importers is None:
            rev: dict[str, set[str]] = {}
            for p in self.files:
                for d in self.imports_of(p):
                    rev.setdefault(d, set()).add(p)
            self._importers = rev
        seen: set[str] = set()
        todo = [path]
        while todo:
            for q in self._importers.get(todo.pop(), ()):
                if q not in seen and q != path:
                    seen.add(q)
                    todo.append(q)
                    if len(seen) > MAX_IMPORTERS:
                        return None
        return frozenset(seen)

    def foreign_calls(self, owner: FileFlow, fn: ast.AST) -> list[ForeignCall] | None:
        """Every call of ``fn`` (a function ``owner`` defines at module level) from the other
        files of the run, each of them interpreted whole; None when they cannot all be known:
        too many files import ``owner``, one cannot be read or interpreted within the budget,
        or one names the function other than in a call (it may be called anywhere)."""
        name = getattr(fn, "name", None)
        if name is None or owner.defs.get(name) is not fn:
            return None
        key = (owner.path, name, getattr(fn, "lineno", 0))
        if key not in self._foreign:
            self._foreign[key] = self._own_budget(lambda: self._foreign_calls(owner, name, key))
        return self._foreign[key]

    def foreign_method_calls(self, owner: FileFlow, fn: ast.AST) -> list[ForeignCall] | None:
        """Every call of ``fn``, a method of a plain class ``owner`` defines at module level,
        from the other files of the run on an instance the analysis resolves
        (``sched = Scheduler(...)`` then ``sched.add_noise(x, t)`` in ``train.py``), each
        file interpreted whole; None as :meth:`foreign_calls` says, and also where a file
        names an attribute ``.<method>`` other than in such a call (an object the analysis
        does not resolve, or another class's method of the same name, but for a call that
        it resolves to another function of the run: ``ddpg.train(buf)`` beside
        ``bcq.train(buf)``, :func:`_resolved_elsewhere`)."""
        name = getattr(fn, "name", None)
        cls = owner.method_of.get(id(fn))
        if name is None or cls is None or cls.is_module or cls.methods.get(name) is not fn \
                or owner.defs.get(cls.node.name) is not cls.node:
            return None
        key = (owner.path, name, getattr(fn, "lineno", 0))
        if key not in self._foreign:
            self._foreign[key] = self._own_budget(
                lambda: self._foreign_calls(owner, name, key, f".{name}".encode()))
        return self._foreign[key]

    def importer_flows(self, owner: FileFlow) -> list[FileFlow] | None:
        """The analyses of the files of the run that import ``owner``, directly or not, in
        the order of their paths, each interpreted whole on a budget of its own (so the
        answer is the same whichever file asks it, in whatever worker); None when they
        cannot all be known: too many files import ``owner`` (then its cache key does not
        cover them either, see :meth:`dependency_salt`), or one cannot be read or
        interpreted within the budget."""
        files = self.importers(owner.path)
        if not files:
            return None if files is None else []
        return self._own_budget(lambda: self._whole_flows(sorted(files)))

    def handed_flows(self, owner: FileFlow, needles: tuple[bytes, ...]) -> list[FileFlow]:
        """The analyses of the files of the run that do not import ``owner`` but that a file
        importing it imports (where an importer may hand on an instance of ``owner``'s
        classes: ``policy.train(replay_buffer)`` in main.py, whose ``train`` of TD3.py calls
        ``replay_buffer.sample(n)`` of utils.py), whose text holds one of ``needles``
        (``b".sample("``), each interpreted whole on a budget of its own, in the order of
        their paths; those that cannot be read or interpreted within the budget are left
        out.  They are part of ``owner``'s :meth:`dependency_salt` (what its importers
        import); ``[]`` when the importers are not all known."""
        files = self.importers(owner.path)
        if not files or not needles:
            return []
        reached: set[str] = set()
        for p in files:
            reached |= self.dependencies(p)
        paths = sorted(p for p in reached - files - {owner.path}
                       if any(n in self.files.get(p, b"") for n in needles))
        out: list[FileFlow] = []
        for p in paths:
            got = self._own_budget(partial(self._whole_flows, [p]))
            out.extend(got or ())
        return out

    def _whole_flows(self, paths: list[str]) -> list[FileFlow] | None:
        out: list[FileFlow] = []
        for p in paths:
            other = self.file_flow(p)
            if other is None:
                return None
            scopes = list(other.results())
            if any(c.result.reason is Reason.BUDGET for r in scopes for c in r.calls.values()):
                return None
            out.append(other)
        return out

    def function_at(self, path: str, name: str, line: int) -> tuple[FileFlow, ast.AST, ScopeResult] | None:
        """The function ``name`` defined at ``line`` of the run's file ``path`` (a key of
        :attr:`FileFlow.calls_into`), with its interpretation, read on a budget of its own
        (the same answer whichever file asks); None when it cannot be read."""
        def read() -> tuple[FileFlow, ast.AST, ScopeResult] | None:
            owner = self.file_flow(path)
            fn = None if owner is None else next(
                (n for n in tree_index(owner.tree).functions if n.name == name and n.lineno == line), None)
            if owner is None or fn is None:
                return None
            return owner, fn, owner.result(fn, *(owner.enclosed(fn) or (None, None)))
        return self._own_budget(read)

    def _own_budget(self, question: Callable[[], _T]) -> _T:
        """``question`` answered with the files it interprets spending a budget of their
        own, not the checked file's: the answer is the same whichever file asks it first,
        and the checked file's other questions are answered as they were without it."""
        saved, self.budget = self.budget, Budget(SUMMARY_BUDGET)
        try:
            return question()
        finally:
            self._refused |= self.budget.refused
            self.budget = saved

    def _foreign_calls(self, owner: FileFlow, name: str, key: tuple[str, str, int],
                       needle: bytes | None = None) -> list[ForeignCall] | None:
        """:meth:`foreign_calls`; with ``needle``, only the files whose text holds it (the
        others name no ``.<method>``, so they call it nowhere)."""
        files = self.importers(owner.path)
        if files is None:
            return None
        out: list[ForeignCall] = []
        for p in sorted(files):
            if needle is not None and needle not in self.files.get(p, needle):
                continue
            other = self.file_flow(p)
            if other is None:
                return None
            scopes = list(other.results())
            if any(c.result.reason is Reason.BUDGET for r in scopes for c in r.calls.values()):
                return None
            sites = other.calls_into.get(key, {})
            known = {id(res.calls[c].node.func) for c, (res, _) in sites.items() if c in res.calls}
            if needle is not None:  # (a method: ``.train()`` of a module is another class's)
                known |= _others_methods(scopes, name) | _resolved_elsewhere(other, name, key)
            unknown = _references(other, name) - known
            fn = owner.defs.get(name) if unknown and needle is None else None
            handed = [] if not unknown else handed_calls(self, other, fn, unknown) \
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if handed is None:
                return None
            out.extend((other, res, c, bound) for c, (res, bound) in sites.items())
            out.extend(handed)
        return out

    def constructions(self, owner: FileFlow, cls: ast.ClassDef, init: ast.AST) -> list[ForeignCall] | None:
        """Every construction ``C(...)`` of ``cls`` (a class ``owner`` defines at module
        level whose ``__init__`` is ``init``, its own or a base's) in ``owner`` and in the
        files of the run that import it, each of them interpreted whole, as calls of
        ``init``; None when they cannot all be known: too many files import ``owner``, one
        cannot be read or interpreted within the budget, or one names the class other than
        in a construction of a scope it interprets (a subclass, a factory handed the class,
        an annotation, a function whose text neither makes nor moves a tensor)."""
        if owner.defs.get(cls.name) is not cls:
            return None
        key = (owner.path, cls.name, -cls.lineno)
        if key not in self._foreign:
            files = self.importers(owner.path)
            self._foreign[key] = None if files is None else self._own_budget(
                lambda: self._constructions(owner, cls.name, init, sorted({owner.path, *files})))
        return self._foreign[key]

    def _constructions(self, owner: FileFlow, name: str, init: ast.AST,
                       paths: list[str]) -> list[ForeignCall] | None:
        init_owner = owner.classes[id(owner.defs[name])]
        found = init_owner.method("__init__")
        if found is None or found[1] is not init:
            return None
        key = (found[0].ff.path, found[1].name, found[1].lineno)
        out: list[ForeignCall] = []
        needle = name.encode()
        for p in paths:
            if p != owner.path and needle not in self.files.get(p, needle):
                continue  # (a file whose text never names the class builds none)
            other = owner if p == owner.path else self.file_flow(p)
            if other is None:
                return None
            scopes = list(other.results())
            if any(c.result.reason is Reason.BUDGET for r in scopes for c in r.calls.values()):
                return None
            sites = _constructing(other, key, name)
            if _references(other, name) - sites.keys() - _static_calls(other, name) - _super_names(other):
                return None  # (also a construction in a scope the rules skip, not interpreted)
            out.extend((other, res, c, bound) for res, c, bound in sites.values())
        return out

    # -- what a file's findings depend on ----------------------------------------------------
    def imports_of(self, path: str) -> frozenset[str]:
        """The files of the run that ``path`` imports (read off its bytes, not parsed)."""
        done = self._imports.get(path)
        if done is None:
            done = self._imports[path] = self._scan(path)
        return done

    def _scan(self, path: str) -> frozenset[str]:
        froms, imports = import_statements(self.files.get(path, b""))
        out: set[str] = set()
        for m in froms:
            base = m.group(1).decode("ascii", "replace")
            names = [n.decode() for n in _NAME.findall(m.group(2)) if n != b"as"]
            sep = "" if base.endswith(".") else "."
            for cand in [base, *(base + sep + n for n in names)]:
                hit = self.find_module(path, cand) if cand.strip(".") or cand else None
                if hit is not None and hit != path:
                    out.add(hit)
        for m in imports:
            for item in m.group(1).split(b","):
                name = item.split()[0].decode("ascii", "replace") if item.split() else ""
                parts = name.split(".")
                for i in range(1, len(parts) + 1):
                    hit = self.find_module(path, ".".join(parts[:i]))
                    if hit is not None and hit != path:
                        out.add(hit)
        return frozenset(out)

    def dependencies(self, path: str) -> frozenset[str]:
        """Every file of the run ``path`` imports, transitively (itself excluded)."""
        done = self._deps.get(path)
        if done is not None:
            return done
        seen: set[str] = set()
        todo = [path]
        known = self._deps
        while todo:
            new = self.imports_of(todo.pop()) - seen
            seen |= new
            for d in new:
                closure = known.get(d)
                if closure is None:
                    todo.append(d)
                else:  # what ``d`` reaches is known: not walked again
                    seen |= closure
        seen.discard(path)
        self._deps[path] = frozenset(seen)
        return self._deps[path]

    # -- the files another file writes ------------------------------------------------------
    def literals(self, path: str) -> frozenset[str]:
        """The file names written in a file's bytes: string literals quoted simply (no
        escapes, one line) with a dot or a slash and no space (``'policyNet.pkl'``)."""
        done = self._literals.get(path)
        if done is None:
            found = (m.group(2) for m in _LITERAL.finditer(self.files.get(path, b"")))
            done = self._literals[path] = frozenset(
                x.decode("utf-8", "surrogateescape") for x in found if b"." in x or b"/" in x)
        return done

    def savers(self, path: str, literal: str) -> list[str]:
        """The other files of the run in the same directory as ``path`` that say
        ``torch.save`` and write ``literal`` (one of :meth:`literals` of ``path``: what a
        load of ``path`` may read that they save; scripts side by side run from the same
        place, while a name such as ``"train.pt"`` elsewhere may be another file);
        :meth:`dependency_salt` counts them among ``path``'s dependencies."""
        if literal not in self.literals(path):
            return []
        if self._savers is None:
            index: dict[str, list[str]] = {}
            for p, data in self.files.items():
                if b"torch.save" in data:
                    for x in self.literals(p):
                        index.setdefault(x, []).append(p)
            self._savers = index
        folder = os.path.dirname(path)
        return [p for p in self._savers.get(literal, ()) if p != path and os.path.dirname(p) == folder]

    def _saver_files(self, path: str) -> set[str]:
        """Every file :meth:`savers` may name for a load of ``path``."""
        if b"torch.load" not in self.files.get(path, b""):
            return set()
        return {p for x in self.literals(path) for p in self.savers(path, x)}

    def dependency_salt(self, path: str) -> str:
        """A digest of the bytes of every file ``path`` depends on ("" for none): the files it
        imports, and (the callers of its functions) the files that import it, when
        :meth:`importers` knows them, with what they import, and the files that save a file
        ``path`` names (:meth:`savers`).

        The digest of a set: the sum (modulo 2**128) of a 128-bit BLAKE2b digest of each
        file's path and bytes.  It needs no sort: a file of a package whose ``__init__``
        imports everything depends on every other file (diffusers: 1,105 files, a
        thousand dependencies each), and sorting them per file took most of a warm run."""
        deps: frozenset[str] | set[str] = self.dependencies(path)
        importers = self.importers(path)
        if importers:
            more = set(deps)
            for p in importers:
                more.add(p)
                more |= self.dependencies(p)
            more.discard(path)
            deps = more
        saved = self._saver_files(path)
        if saved - deps:
            deps = deps | saved
        if not deps:
            return ""
        values = self._hashes
        if len(values) < len(self.files):  # each file's part, made once
            for d in self.files:
                if d not in values:
                    h = blake2b(d.encode("utf-8", "surrogateescape") + b"\0", digest_size=16)
                    h.update(self.content_hash(d).encode())
                    values[d] = int.from_bytes(h.digest(), "big")
        return f"+{sum(map(values.__getitem__, deps)) & _MASK128:032x}"

    def content_hash(self, path: str) -> str:
        """The hex BLAKE2b-128 digest of a file's bytes (what
        :func:`torchferry.check.cache.content_hash` gives), made once: the cache key of
        the file's own entry and its part of the others' :meth:`dependency_salt`."""
        done = self._digests.get(path)
        if done is None:
            done = self._digests[path] = blake2b(self.files[path], digest_size=16).hexdigest()
        return done


def import_statements(data: bytes) -> tuple[list[re.Match[bytes]], list[re.Match[bytes]]]:
    """The matches of ``_FROM`` and of ``_IMPORT`` at the start of a line of ``data``, as
    ``finditer`` finds them (each one after the end of the one before), tried only at the
    lines where "import" occurs: every match says it on its first line, and those are few
    of a file's lines (a search of every line start took 2.5 times as long).

    >>> froms, imports = import_statements(b"import a.b as c, d\\nx = 1  # import\\n"
    ...                                    b"from .m import (f,\\n  g)\\n")
    >>> [m.groups() for m in froms], [m.group(1) for m in imports]
    ([(b'.m', b'(f,\\n  g)')], [b'a.b as c, d'])
    """
    froms: list[re.Match[bytes]] = []
    imports: list[re.Match[bytes]] = []
    from_end = import_end = 0
    last = -1
    at = data.find(b"import")
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        if start != last:  # one look per line
            last = start
            if start >= from_end and (m := _FROM.match(data, start)) is not None:
                froms.append(m)
                from_end = m.end()
            if start >= import_end and (m := _IMPORT.match(data, start)) is not None:
                imports.append(m)
                import_end = m.end()
        at = data.find(b"import", at + 6)
    return froms, imports


def _constructing(ff: FileFlow, key: tuple[str, str, int],
                  name: str) -> dict[int, tuple[ScopeResult, int, dict[str, Value]]]:
    """The constructions of the class ``name`` that ``ff`` records as calls of the
    ``__init__`` ``key`` names: id(the call's function) -> (the scope, id(the call),
    what it binds)."""
    out = {}
    for c, (res, bound) in ff.constructions.get(key, {}).items():
        call = res.calls.get(c)
        if call is not None and _constructs(ff, call.node, name):
            out[id(call.node.func)] = (res, c, bound)
    return out


def _constructs(ff: FileFlow, node: ast.AST, name: str) -> bool:
    """Is ``node`` a call of the class ``name`` (``Predictor(...)``, ``models.Predictor(...)``,
    or under the name it is imported as)?"""
    func = getattr(node, "func", None)
    local = {a for a, q in ff.imports.items() if q.rsplit(".", 1)[-1] == name} | {name}
    return isinstance(func, ast.Name) and func.id in local or \
        isinstance(func, ast.Attribute) and func.attr == name


def _super_names(ff: FileFlow) -> set[int]:
    """The class names ``ff`` gives ``super`` (``super(Net, self).__init__()``): the class is
    named, but no instance is built there."""
    return {id(node.args[0]) for node in tree_index(ff.tree).calls
            if isinstance(node.func, ast.Name) and node.func.id == "super"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name)}


def _static_calls(ff: FileFlow, name: str) -> set[int]:
    """The names of the class ``name`` in ``ff`` that call one of its static methods
    (``Parts.cut(idx, mesh)``): the class is named, but no instance is built there."""
    out: set[int] = set()
    for node in tree_index(ff.tree).calls:
        if not isinstance(node.func, ast.Attribute):
            continue
        base = node.func.value
        if not (isinstance(base, ast.Name) and _references_name(ff, base, name)):
            continue
        found = ff._named(base)
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        m = found[0].class_info(found[1]).method(node.func.attr)
        if m is not None and any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in m[1].decorator_list):
            out.add(id(base))
    return out


def _references_name(ff: FileFlow, node: ast.Name, name: str) -> bool:
    """Is ``node`` the class ``name`` under its own name or the one it is imported as?"""
    return node.id == name or ff.imports.get(node.id, "").rsplit(".", 1)[-1] == name


def _others_methods(scopes: Iterable[ScopeResult], name: str) -> set[int]:
    r"""The attributes ``<x>.name`` called in ``scopes`` on a receiver the analysis knows to
    be a module or a tensor (``net.train()`` of ``net = Net().to(device)``), built or
    inferred, not hinted: a method of another class than a plain one of the run.

    >>> src = ("import torch\nfrom torch import nn\nnet = nn.Linear(2, 2).to('cuda')\n"
    ...        "net.train()\nt = torch.zeros(2)\nt.train()\nw.train()\n")
    >>> from torchferry.check.flow import FileFlow
    >>> ff = FileFlow(ast.parse(src), "<example>")
    >>> sorted(ff.tree.body[i].value.func.lineno for i in range(len(ff.tree.body))
    ...        if id(getattr(getattr(ff.tree.body[i], "value", None), "func", None))
    ...        in _others_methods(ff.results(), "train"))
    [4, 6]
    """
    out: set[int] = set()
    for res in scopes:
        for c in res.calls.values():
            func, recv = c.node.func, c.receiver
            if isinstance(func, ast.Attribute) and func.attr == name and recv is not None \
                    and recv.kinds in _NOT_PLAIN and recv.basis is not Basis.HINT:
                out.add(id(func))
    return out


_NOT_PLAIN = (frozenset((Kind.MODULE,)), frozenset((Kind.TENSOR,)))


def _resolved_elsewhere(ff: FileFlow, name: str, key: tuple[str, str, int]) -> set[int]:
    r"""The attributes ``<x>.name`` of ``ff``'s calls that its analysis resolved to another
    function of that name than ``key`` (``policy.train(buf)`` on an instance of another
    plain class of the run that defines ``train`` too): not a call of ``key``'s method.

    >>> files = {"/r/a.py": b"class A:\n    def train(self, b):\n        return b\n",
    ...          "/r/b.py": b"class B:\n    def train(self, b):\n        return b\n",
    ...          "/r/m.py": b"import a\nimport b\nx = a.A()\ny = b.B()\nx.train(1)\ny.train(2)\n"}
    >>> ff = Project(files, packages=set()).file_flow("/r/m.py")
    >>> scopes = list(ff.results())
    >>> key = ("/r/a.py", "train", 2)
    >>> [n.lineno for n in ast.walk(ff.tree) if id(n) in _resolved_elsewhere(ff, "train", key)]
    [6]
    """
    out: set[int] = set()
    for other, sites in ff.calls_into.items():
        if other == key or other[1] != name:
            continue
        out.update(id(res.calls[c].node.func) for c, (res, _) in sites.items() if c in res.calls)
    return out


def _references(ff: FileFlow, name: str) -> set[int]:
    """The nodes of ``ff`` that may name the function ``name`` of another file: a name it
    is imported as (``from .summ import summary as s``) or an attribute ``<x>.name``."""
    local = {a for a, q in ff.imports.items() if q.rsplit(".", 1)[-1] == name} | {name}
    index = tree_index(ff.tree)
    out = {id(node) for k in local for node in index.names.get(k, ()) if isinstance(node.ctx, ast.Load)}
    out.update(id(node) for node in index.attributes.get(name, ()))
    return out
