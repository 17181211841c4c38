"""Answers the analysis keeps instead of finding them again: a module's empty dicts, an
``__init__``'s assignments to ``self``, a class's bases in order."""

from __future__ import annotations

import ast
from pathlib import Path

from torchferry.check.flow.caches import _empty_dict, _empty_dicts, memo_caches
from torchferry.check.flow.program import ClassInfo, FileFlow, _mro, _on_self, mro

SRC = Path(__file__).resolve().parents[3] / "src" / "torchferry"

SOURCES = [
    "cache = {}\ndef load(p):\n    if p in cache:\n        return cache[p]\n"
    "    net = build(p)\n    cache[p] = net\n    return net\n",
    "a = {}\nb = dict()\nc = {}\nd = {1: 2}\ne = dict(x=1)\ndef f():\n    c = 1\n"
    "class K:\n    a2 = {}\n    def g(self):\n        del b\n",
    "x, y = {}, {}\nz: dict = {}\nw = {}\nw = {}\nfor v in []:\n    pass\n",
    "q = {}\nlambda: [q for q in ()]\n",
    "import os\n",
]


def _empty_dicts_walked(tree: ast.Module) -> set[str]:
    """The answer as found before: every name of the module counted by a walk."""
    bound: dict[str, int] = {}
    empty: set[str] = set()
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bound[node.id] = bound.get(node.id, 0) + 1
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and _empty_dict(stmt.value):
            empty.add(stmt.targets[0].id)
    return {n for n in empty if bound.get(n) == 1}


def _trees() -> list[ast.Module]:
    trees = [ast.parse(s) for s in SOURCES]
    trees += [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))]
    return trees


def test_empty_dicts_as_a_walk_of_the_whole_tree_finds_them():
    for tree in _trees():
        assert _empty_dicts(tree) == _empty_dicts_walked(tree)
    assert _empty_dicts(ast.parse(SOURCES[1])) == {"a"}  # ``b`` deleted, ``c`` bound in ``f``
    assert _empty_dicts(ast.parse(SOURCES[2])) == set()  # only ``w``, bound twice
    assert _empty_dicts(ast.parse(SOURCES[3])) == set()  # the comprehension's ``q`` counts
    assert sorted(memo_caches(ast.parse(SOURCES[0]))) == ["cache"]


def _classes(src: str) -> tuple[FileFlow, list[ClassInfo]]:
    tree = ast.parse(src)
    ff = FileFlow(tree, "<example>")
    return ff, [ff.class_info(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def test_self_assignments_of_a_function_as_a_walk_finds_them_and_once():
    src = ("class A:\n    def __init__(self, x):\n        self.a = B()\n        self.b: int = 1\n"
           "        self.c = self.d = 2\n        if x:\n            self.e = [C()]\n"
           "        def inner(other):\n            other.f = 1\n            self.g = 3\n"
           "    def __init__(this):\n        this.h = 1\n")
    tree = ast.parse(src)
    ff = FileFlow(tree, "<example>")
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        walked = [st for st in ast.walk(fn) if isinstance(st, ast.Assign) and _on_self(st, fn)]
        got = ff._self_assigns(fn)
        assert got == walked
        assert ff._self_assigns(fn) is got  # kept
    init = tree.body[0].body[0]
    assert [ast.unparse(st) for st in ff._self_assigns(init)] == ["self.a = B()", "self.e = [C()]",
                                                                  "self.g = 3"]


def test_mro_kept_once_settled_equals_the_walk_of_the_bases():
    src = ("class A: pass\nclass B(A): pass\nclass C(A): pass\nclass D(B, C): pass\n"
           "class E(D, A, object): pass\nclass F(F): pass\n")
    _, classes = _classes(src)
    for c in classes:
        walked = [k.node.name for k in _mro(c)]
        assert [k.node.name for k in mro(c)] == walked
        assert c.settled and c.mro_memo is not None
        assert [k.node.name for k in mro(c)] == walked  # (the kept answer)
    d = next(c for c in classes if c.node.name == "D")
    assert [k.node.name for k in mro(d)] == ["D", "B", "C", "A"]


def test_mro_not_kept_while_a_class_on_the_way_is_not_settled():
    src = "class A: pass\nclass B(A): pass\n"
    tree = ast.parse(src)
    ff = FileFlow(tree, "<example>")
    a = ClassInfo(ff, tree.body[0])  # (its bases not found yet)
    b = ClassInfo(ff, tree.body[1], bases=[a], settled=True)
    assert [k.node.name for k in mro(b)] == ["B", "A"]
    assert b.mro_memo is None
    late = ClassInfo(ff, ast.parse("class Z: pass").body[0])
    a.bases.append(late)  # found later: the next answer sees it
    assert [k.node.name for k in mro(b)] == ["B", "A", "Z"]
    a.settled = late.settled = True
    assert [k.node.name for k in mro(b)] == ["B", "A", "Z"] and b.mro_memo is not None
    assert [k.node.name for k in mro(a)] == ["A", "Z"] and a.mro_memo is not None


def test_mro_of_an_unsettled_class_follows_its_bases_as_they_grow():
    tree = ast.parse("class A: pass\nclass B: pass\n")
    ff = FileFlow(tree, "<example>")
    a = ClassInfo(ff, tree.body[0])
    b = ClassInfo(ff, tree.body[1], settled=True)
    seen = []
    for k in mro(a):  # a base found while the bases are gone through
        seen.append(k.node.name)
        if k is a:
            a.bases.append(b)
    assert seen == ["A", "B"] and a.mro_memo is None


def test_a_relative_import_is_found_once_per_file_and_as_before():
    from torchferry.check.flow.project import Project

    files = {"/r/pkg/__init__.py": b"", "/r/pkg/a.py": b"", "/r/pkg/sub/__init__.py": b"",
             "/r/pkg/sub/b.py": b"", "/r/pkg/sub/c.py": b""}
    packages = {"/r/pkg", "/r/pkg/sub"}
    questions = [(f, m) for f in files for m in (".", ".a", ".b", "..a", "..sub.c", "...x", ".sub")]
    fresh = Project(files, packages=packages)
    expected = [fresh._find(f, m) for f, m in questions]
    kept = Project(files, packages=packages)
    assert [kept.find_module(f, m) for f, m in questions] == expected
    assert "/r/pkg/a.py" in expected and "/r/pkg/sub/c.py" in expected
    calls = []
    kept._find = lambda *a: calls.append(a)  # type: ignore[method-assign]
    assert [kept.find_module(f, m) for f, m in questions] == expected
    assert calls == []
