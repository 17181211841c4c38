"""The files checked together: which module each one is, what each imports, and the
analysis of another file when a call reaches it.

``ferry check`` checks each file in a worker, with a per-file cache.  The analysis of a
file may follow a call into another file of the run (``from .model import build``); the
worker then parses that file itself (once per worker, kept for the next files), and its
summaries depend only on its bytes.  The findings of a file therefore depend on the bytes
of every file it imports, transitively, within the run: :meth:`Project.dependency_salt`
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
import hashlib
import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from torchferry.check.flow.lattice import Value
from torchferry.check.flow.program import SUMMARY_BUDGET, FileFlow

_FROM = re.compile(rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)", re.M)
_NAME = re.compile(rb"[A-Za-z_]\w*")
#: other files' analyses a worker keeps (each holds its syntax tree): on diffusers (969
#: files, pipelines importing many modules) 48 re-parsed and re-analysed about 850 files;
#: 256 took a sixth less CPU time for 1% more memory
KEEP_FILES = 256


def _parse(source: str, path: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


class Budget:
    """How many callee interpretations one checked file may still cause."""

    def __init__(self, left: int) -> None:
        self.left = left

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


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
        self._deps: dict[str, frozenset[str]] = {}
        self._imports: dict[str, frozenset[str]] = {}
        self._hashes: dict[str, str] = {}
        self.budget = Budget(SUMMARY_BUDGET)

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
        return None

    # -- other files' analyses ------------------------------------------------------------
    def add(self, ff: FileFlow) -> None:
        """Register the analysis of the file being checked (calls back into it reuse it)."""
        self._flows[ff.path] = ff
        self.budget = Budget(SUMMARY_BUDGET)

    def file_flow(self, path: str) -> FileFlow | None:
        ff = self._flows.get(path)
        if ff is not None:
            self._flows.move_to_end(path)
            return ff
        data = self.files.get(path)
        if data is None or not self.budget.take():
            return None
        try:
            tree = self._parse(data.decode("utf-8", "surrogateescape"), path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        ff = FileFlow(tree, path, self, self.module_classes)
        self._flows[path] = ff
        while len(self._flows) > KEEP_FILES:
            self._flows.popitem(last=False)
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

    # -- what a file's findings depend on ----------------------------------------------------
    def imports_of(self, path: str) -> frozenset[str]:
        """The files of the run that ``path`` imports (read off its bytes, not parsed)."""
        done = self._imports.get(path)
        if done is None:
            done = self._imports[path] = self._scan(path)
        return done

    def _scan(self, path: str) -> frozenset[str]:
        data = self.files.get(path, b"")
        out: set[str] = set()
        for m in _FROM.finditer(data):
            base = m.group(1).decode("ascii", "replace")
            names = [n.decode() for n in _NAME.findall(m.group(2)) if n != b"as"]
            sep = "" if base.endswith(".") else "."
            for cand in [base, *(base + sep + n for n in names)]:
                hit = self.find_module(path, cand) if cand.strip(".") or cand else None
                if hit is not None and hit != path:
                    out.add(hit)
        for m in _IMPORT.finditer(data):
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
        while todo:
            p = todo.pop()
            for d in self.imports_of(p):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        seen.discard(path)
        self._deps[path] = frozenset(seen)
        return self._deps[path]

    def dependency_salt(self, path: str) -> str:
        """A digest of the bytes of every file ``path`` depends on ("" for none)."""
        deps = self.dependencies(path)
        if not deps:
            return ""
        h = hashlib.blake2b(digest_size=8)
        for d in sorted(deps):
            digest = self._hashes.get(d)
            if digest is None:
                digest = self._hashes[d] = hashlib.blake2b(self.files[d], digest_size=8).hexdigest()
            h.update(d.encode("utf-8", "surrogateescape") + b"\0" + digest.encode())
        return "+" + h.hexdigest()
