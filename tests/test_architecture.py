"""The import contract between torchferry's packages (docs/architecture.md), enforced.

An AST walk over ``src/torchferry``: every ``import`` / ``from ... import`` of a
torchferry module (at any depth: inside functions too, but not under ``if
TYPE_CHECKING:``) must go in the allowed direction::

    errors, _version, _internal            torch-free base
      <- library (devices move checkpoint timing loader doctor)    <- check (torch-free)
      <- sim <- bench, diagnose <- cli

``check`` and ``_internal`` never import torch or numpy; ``diagnose`` reaches the
simulation only through the ``torchferry.sim`` package's public names; nothing but
``python -m torchferry`` imports ``cli``.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "torchferry"

LIBRARY = {"devices", "move", "checkpoint", "timing", "loader", "doctor"}
BASE = {"errors", "_version", "_internal"}
# unit -> the units it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "_version": set(),
    "_internal": {"errors", "_version"},
    **{lib: BASE | LIBRARY for lib in LIBRARY},
    "check": set(BASE),
    "sim": BASE | LIBRARY | {"check"},
    "bench": BASE | LIBRARY | {"sim"},
    "diagnose": BASE | LIBRARY | {"check", "sim", "bench"},
    # the language server: the checker behind the protocol, as torch-free as the checker
    "server": BASE | {"check"},
    "cli": BASE | LIBRARY | {"check", "sim", "bench", "diagnose", "server"},
    "__main__": {"cli"},
    # the facade: its lazy table names modules as strings; it imports only these
    "__init__": BASE,
}
TORCH_FREE = {"check", "_internal", "errors", "_version", "server"}
HEAVY = {"torch", "numpy"}

# Back-edges that exist today and are being removed.  Each entry must still be
# a violation (test_known_violations_are_still_real), so the list can only shrink.
KNOWN: set[tuple[str, str]] = set()
# Import cycles between modules (any depth) that are being removed.
KNOWN_CYCLES: set[frozenset[str]] = set()


@functools.cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _unit(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


# the nodes that hold statements, and the statements
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _imports(tree: ast.AST, package: str) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, names) for each import outside ``if TYPE_CHECKING:``."""
    found: list[tuple[int, str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            # imports are statements: expressions (which hold no statement) are skipped
            if not isinstance(child, _BLOCKS):
                continue
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            if isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, []) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative import
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                found.append((child.lineno, base, [a.name for a in child.names]))
            visit(child)

    visit(tree)
    return found


@functools.cache
def _file_imports(path: Path, package: str) -> list[tuple[int, str, list[str]]]:
    return _imports(_parse(path), package)


@functools.cache
def _violations() -> list[tuple[str, str, str]]:
    """(where, importer unit, imported unit or rule) for every import against the contract."""
    out: list[tuple[str, str, str]] = []
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        is_pkg = path.name == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        unit = "__main__" if name == "torchferry.__main__" else _unit(name)
        if unit.endswith(".py"):
            unit = unit[:-3]
        tree = _parse(path)
        for line, module, names in _file_imports(path, package):
            where = f"{path.relative_to(SRC.parent)}:{line}"
            top = module.split(".")[0]
            if top in HEAVY and unit in TORCH_FREE:
                out.append((where, unit, top))
            if top != "torchferry":
                continue
            targets = [f"{module}.{n}" for n in names] if module == "torchferry" else [module]
            for target in targets:
                tunit = _unit(target)
                if tunit == unit or tunit not in ALLOWED and tunit != "__init__":
                    continue
                if tunit not in ALLOWED.get(unit, set()):
                    out.append((where, unit, tunit))
                elif unit == "diagnose" and tunit == "sim" and target != "torchferry.sim":
                    out.append((where, unit, "sim-private"))
        if unit == "diagnose":  # no reaching into the simulation by module name either
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and node.value.startswith("torchferry.sim.")):
                    out.append((f"{path.relative_to(SRC.parent)}:{node.lineno}", unit,
                                "sim-private"))
    return out


def test_imports_follow_the_layers():
    bad = [v for v in _violations() if (v[1], v[2]) not in KNOWN]
    assert not bad, "imports against docs/architecture.md:\n" + "\n".join(
        f"  {where}: {unit} -> {target}" for where, unit, target in bad
    )


def test_known_violations_are_still_real():
    real = {(unit, target) for _, unit, target in _violations()}
    stale = KNOWN - real
    assert not stale, f"fixed back-edges still listed in KNOWN (remove them): {sorted(stale)}"


def _cycles() -> set[frozenset[str]]:
    """Strongly connected groups of modules in the import graph (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for _, module, names in _file_imports(path, package):
            deps.update([module, *(f"{module}.{n}" for n in names)])
        graph[name] = deps
    graph = {a: {d for d in ds if d in graph and d != a} for a, ds in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for v in graph:
        if v not in index:
            connect(v)
    return found


def test_no_import_cycles():
    cycles = _cycles()
    assert not cycles - KNOWN_CYCLES, f"modules importing each other: {cycles - KNOWN_CYCLES}"
    assert not KNOWN_CYCLES - cycles, f"fixed cycles still listed: {KNOWN_CYCLES - cycles}"


def test_the_walker_sees_a_back_edge(tmp_path):
    """The checker of the contract itself can fail: a planted back-edge is reported."""
    tree = ast.parse("def f():\n    from torchferry.cli import main\n")
    assert _imports(tree, "torchferry.check") == [(2, "torchferry.cli", ["main"])]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n")
    assert [m for _, m, _ in _imports(tree, "torchferry.check")] == ["typing"]
    assert "cli" not in ALLOWED["diagnose"] and "torch" in HEAVY


@pytest.mark.slow
def test_the_checker_and_the_facade_import_no_torch():
    code = (
        "import sys, pkgutil, importlib, torchferry, torchferry.check, torchferry._internal\n"
        "import torchferry.server\n"
        "for pkg in (torchferry.check, torchferry._internal, torchferry.server):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.endswith('flake8_plugin'):\n"
        "            importlib.import_module(m.name)\n"
        "import torchferry.cli\n"
        "torchferry.cli.build_parser()\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('torch', 'numpy')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def _lazy_table(package: Path) -> dict[str, str]:
    """A package's ``_LAZY`` table (public name -> defining module), read from its ``__init__``."""
    for node in _parse(package / "__init__.py").body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "_LAZY":
            table: dict[str, str] = ast.literal_eval(value)
            return table
    return {}


SIM = SRC / "sim"
# what diagnose may use: the sim package's lazy names and the functions its __init__ defines
SIM_PUBLIC = set(_lazy_table(SIM)) | {
    n.name for n in _parse(SIM / "__init__.py").body
    if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
SIM_MODULES = {p.stem for p in SIM.glob("*.py")} - {"__init__"}
# the words that can start an import the statements do not show
_DYNAMIC = ("import_module", "__import__", "cli", "sim", "from torchferry import", "from .")


def _reach_around(path: Path, unit: str, package: str) -> list[tuple[int, str]]:
    """(line, imported unit or rule) for imports the statement walk cannot see.

    ``importlib.import_module("torch")`` / ``__import__``; ``torchferry.cli`` reached as an
    attribute; ``from torchferry import to`` (a lazy name: its module is imported); and, in
    ``diagnose``, ``from torchferry.sim import modes`` or ``sim.modes`` / ``sys.modules[
    "torchferry.sim"].modes`` (a private module reached through the public package).
    """
    text = path.read_text(encoding="utf-8")
    if not any(word in text for word in _DYNAMIC):
        return []
    out: list[tuple[int, str]] = []
    tree = _parse(path)
    top_lazy = _lazy_table(SRC)
    pkg_names = {"torchferry"}  # local names bound to the torchferry package
    sim_names: set[str] = set()  # ... and to torchferry.sim
    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        return ".".join([*anchor, node.module] if node.module else anchor)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torchferry" and a.asname:
                    pkg_names.add(a.asname)
                elif a.name == "torchferry.sim" and a.asname:
                    sim_names.add(a.asname)
        elif isinstance(node, ast.ImportFrom) and absolute(node) == "torchferry":
            for a in node.names:
                if a.name == "sim":
                    sim_names.add(a.asname or a.name)
                if a.name in top_lazy:
                    out.append((node.lineno, _unit(top_lazy[a.name])))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "import_module", "__import__")):
            name = node.args[0].value
            top = name.split(".")[0]
            out.append((node.lineno, top if top != "torchferry" else _unit(name)))
            if unit == "diagnose" and name.startswith("torchferry.sim."):
                out.append((node.lineno, "sim-private"))
        elif isinstance(node, ast.Attribute):
            value = node.value
            if node.attr == "cli" and isinstance(value, ast.Name) and value.id in pkg_names:
                out.append((node.lineno, "cli"))
            if unit != "diagnose" or node.attr not in SIM_MODULES:
                continue
            if ((isinstance(value, ast.Name) and value.id in sim_names)
                    or (isinstance(value, ast.Attribute) and value.attr == "sim")
                    or (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)
                        and value.slice.value == "torchferry.sim")):
                out.append((node.lineno, "sim-private"))
        elif (unit == "diagnose" and isinstance(node, ast.ImportFrom)
              and absolute(node) == "torchferry.sim"
              and any(a.name not in SIM_PUBLIC for a in node.names)):
            out.append((node.lineno, "sim-private"))
    return out


def test_no_import_reaches_around_the_contract():
    """Dynamic imports, lazy names and private modules reached as attributes count too."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        unit = "__main__" if name == "torchferry.__main__" else _unit(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for line, target in _reach_around(path, unit, package):
            heavy = target in HEAVY and unit in TORCH_FREE
            layered = target in ALLOWED and target != unit and target not in ALLOWED.get(unit, ())
            if heavy or layered or target == "sim-private":
                bad.append(f"  {path.relative_to(SRC.parent)}:{line}: {unit} -> {target}")
    assert not bad, "imports against docs/architecture.md:\n" + "\n".join(bad)


def test_the_reach_around_walker_sees_planted_imports(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import importlib, sys\nimport torchferry as tf\nfrom torchferry import sim, to\n"
        "from ..sim import modes\nimportlib.import_module('torch')\ntf.cli.main([])\n"
        "sim.tags.device_of\nsys.modules['torchferry.sim'].modes.S\n", encoding="utf-8")
    found = sorted(_reach_around(planted, "diagnose", "torchferry.diagnose"))
    assert found == [(3, "move"), (4, "sim-private"), (5, "torch"), (6, "cli"),
                     (7, "sim-private"), (8, "sim-private")]
