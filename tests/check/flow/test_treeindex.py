"""A tree's index (one walk, kept with the tree) answers as the walks it replaces did."""

import ast
from collections import Counter

from torchferry.check.flow import analyze
from torchferry.check.flow.project import Project, _references, _static_calls, _super_names
from torchferry.check.flow.siblings import _may_hold, sibling_groups
from torchferry.check.flow.treeindex import tree_index
from torchferry.check.flow.walk import statements

from .conftest import project_sources

SOURCE = (
    "import torch\n"
    "from .summ import summary as s\n"
    "class A(Base, m.Other):\n"
    "    class B(A): pass\n"
    "    def f(self, o, xs):\n"
    "        self.w = 1\n"
    "        o.a, (o.b, [*o.c]) = 1, (2, [3])\n"
    "        del o.d, self.e\n"
    "        [0 for o.f in range(2)]\n"
    "        x, y = torch.zeros(2), s(xs)\n"
    "        u, v = self.g.h(1)\n"
    "        hooks.append(self.step)\n"
    "        try:\n"
    "            p, q = summary(x)\n"
    "        except ValueError:\n"
    "            r, t = summary(y)\n"
    "        def inner():\n"
    "            k, l = summary(o)\n"
    "            return map(summary, xs)\n"
    "        return super(A, self).f(o, xs), A.build(1), A.make()\n"
    "    @staticmethod\n"
    "    def build(n):\n"
    "        setattr(n, 'x', 1)\n"
    "        return [summary] if n else lambda: summary(n)\n"
    "    def make(self):\n"
    "        return A(1)\n"
)


def _sources() -> list[str]:
    return project_sources(SOURCE)


def _walked_value_names(tree: ast.AST) -> tuple[frozenset[str], Counter[str]]:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    called = {id(n.func) for n in calls}
    values = frozenset(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(tree)
                       if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in called)
    names = Counter(c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in calls
                    if isinstance(c.func, (ast.Name, ast.Attribute)))
    return values, names


def _walked_outside_stores(tree: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) and not (
                isinstance(n.value, ast.Name) and n.value.id == "self"):
            out.add(n.attr)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
            out.add("")
    return out


def _walked_own_statements(fn: ast.AST) -> list[ast.stmt]:
    """The statements of ``fn`` as found with :func:`ast.iter_child_nodes`, in that order."""
    out = []
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.stmt):
            out.append(n)
        todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))
    return out


def test_the_index_lists_the_calls_and_classes_of_ast_walk_in_its_order_and_every_statement():
    for text in _sources():
        tree = ast.parse(text)
        index = tree_index(tree)
        walked = list(ast.walk(tree))
        assert index.calls == [n for n in walked if isinstance(n, ast.Call)]
        assert sorted(map(id, statements(tree, nested=True))) == sorted(id(n) for n in walked if isinstance(n, ast.stmt))
        assert index.classes == [n for n in walked if isinstance(n, ast.ClassDef)]
        assert [n for k in index.names for n in index.names[k]] == \
            [n for k in dict.fromkeys(n.id for n in walked if isinstance(n, ast.Name))
             for n in walked if isinstance(n, ast.Name) and n.id == k]
        assert sum(map(len, index.attributes.values())) == sum(isinstance(n, ast.Attribute) for n in walked)


def test_the_names_used_as_values_called_and_stored_outside_self_are_those_of_the_walks():
    for text in _sources():
        tree = ast.parse(text)
        index = tree_index(tree)
        values, called = _walked_value_names(tree)
        assert index.value_names() == values
        assert index.called_names() == called
        assert index.outside_stores() == _walked_outside_stores(tree)
    index = tree_index(ast.parse(SOURCE))
    assert {"summary", "step", "xs"} <= index.value_names() and "build" not in index.value_names()
    assert index.outside_stores() == {"", "a", "b", "c", "d", "f"}


def test_the_index_is_made_once_per_tree():
    tree = ast.parse(SOURCE)
    assert tree_index(tree) is tree_index(tree)
    assert tree_index(ast.parse(SOURCE)) is not tree_index(tree)


def test_the_references_of_a_name_are_those_of_a_walk():
    ff = analyze(ast.parse(SOURCE), "a.py")
    for name in ("summary", "build", "make", "A", "nothing"):
        local = {a for a, q in ff.imports.items() if q.rsplit(".", 1)[-1] == name} | {name}
        walked = {id(n) for n in ast.walk(ff.tree)
                  if isinstance(n, ast.Name) and n.id in local and isinstance(n.ctx, ast.Load) or
                  isinstance(n, ast.Attribute) and n.attr == name}
        assert _references(ff, name) == walked
    assert len(_references(ff, "summary")) == 7  # ``s`` once, the name itself six times
    assert len(_static_calls(ff, "A")) == 1 and len(_super_names(ff)) == 1


def test_a_functions_own_statements_are_those_of_iter_child_nodes_in_its_order():
    for text in _sources():
        tree = ast.parse(text)
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                own = list(statements(fn))
                assert own == _walked_own_statements(fn)
                lines = sorted({st.lineno for st in own})
                assert not lines or _may_hold(fn, lines)  # (the pre-check keeps every owner)


def test_scopes_without_an_unpacking_on_their_lines_are_left_out_with_the_same_groups():
    src = ("import torch\n"
           "def gen():\n"
           "    return torch.zeros(4, 3), torch.zeros(4, 3).long()\n"
           "def far():\n"
           "    return 1\n"
           "def near():\n"
           "    a, b = gen()\n"
           "    a = a.cuda()\n"
           "x, y = gen()\n"
           "x = x.cuda()\n")
    ff = analyze(ast.parse(src), "<example>")
    _ = list(ff.results())
    assert sorted((g.names, sorted(g.moves)) for g in sibling_groups(ff)) == [(("a", "b"), ["a"]), (("x", "y"), ["x"])]
    far = ff.tree.body[2]
    lines = sorted({st.lineno for st in statements(ff.tree, nested=True) if isinstance(st, ast.Assign)})
    assert not _may_hold(far, lines) and _may_hold(ff.tree.body[3], lines)
    plain = analyze(ast.parse("def f(x):\n    return x\n"), "<plain>")
    _ = list(plain.results())
    assert sibling_groups(plain) == []


def test_the_functions_a_run_defines_are_those_a_search_of_its_texts_finds():
    texts = {"a.py": b"def step(x):\n    pass\nadef  bad(1)\nclass C:\n    def \xc3\xa9t\xc3\xa9(self): ...\n",
             "b.py": b"x = 'def quoted(' ; defdef twice(1)\r\n"}
    run = Project(texts, packages=())
    for name in ("step", "bad", " bad", "quoted", "twice", "def", "C", "\u00e9t\u00e9", "t\u00e9", "st", "tep"):
        raw = f"def {name}(".encode()
        assert run.defines(name) == any(raw in t for t in texts.values()), name
