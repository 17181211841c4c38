"""The analysis's list-based walks give the nodes (and the answers) of :func:`ast.walk`."""

import ast

from torchferry.check.flow.converted import _bindings, attribute_bindings
from torchferry.check.flow.program import (
    _LEAVES,
    FileFlow,
    _self_attribute_calls,
    _walk_nodes,
    may_hold_global,
    word_rows,
)

SOURCE = (
    "class A:\n"
    "    def f(self, o, xs):\n"
    "        self.a.to(o)\n"
    "        y = [self.b.cuda() for x in xs if self.c.ok(x)]\n"
    "        self.d.e.f(self.g.h(1))\n"
    "        o.i.j()\n"
    "        (lambda: self.k.l())()\n"
    "        def inner(self):\n"
    "            return self.m.n(-x, not y, x < 2 and y)\n"
    "        for _ in xs:\n"
    "            if o: break\n"
    "            else: continue\n"
    "        del o.p\n"
    "        return self.q.r(*xs, **{'s': self.t.u()})\n"
)


def test_the_walk_lists_every_node_but_contexts_operators_and_jumps_in_ast_walks_order():
    tree = ast.parse(SOURCE)
    listed = _walk_nodes(tree)
    assert listed == [n for n in ast.walk(tree) if type(n) not in _LEAVES]
    assert {type(n) for n in ast.walk(tree)} & _LEAVES >= {ast.Load, ast.Store, ast.Del, ast.USub,
                                                          ast.Not, ast.Lt, ast.And, ast.Break}
    assert not any(type(n) in _LEAVES for n in listed)


def test_the_calls_through_self_attributes_are_those_of_ast_walk_in_its_order():
    def reference(fn):
        return [(n, n.func.value.attr, n.func.attr) for n in ast.walk(fn)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Attribute) and isinstance(n.func.value.value, ast.Name)
                and n.func.value.value.id == "self"]

    fn = ast.parse(SOURCE).body[0].body[0]
    found = _self_attribute_calls(fn)
    assert found == reference(fn)
    # breadth first, as ast.walk goes; ``self.d.e.f(...)`` is a call through ``self.d.e``
    assert [(attr, name) for _, attr, name in found] == [
        ("a", "to"), ("q", "r"), ("b", "cuda"), ("g", "h"), ("m", "n"), ("c", "ok"), ("k", "l"),
        ("t", "u")]


YIELDING = (
    "def plain(xs):\r\n"
    "    return [x for x in xs]\r\n"
    "def gen(xs):\r"
    "    for x in xs:\x0c\n"
    "        yield (x,\n"
    "               x)\n"
    "    def inner():\n"
    "        yield from xs\n"
    "    return 'yield'\n"
    "def outer(f):\n"
    "    @f((yield))\n"
    "    def decorated():\n"
    "        return 1\n"
    "    return decorated\n"
    "async def agen(): yield 1\n"
    "class A:\n"
    "    def m(self, z=lambda: (yield)): pass\n"
)


def test_a_functions_own_yields_are_the_same_with_and_without_the_source_pre_check():
    tree = ast.parse(YIELDING)
    with_text = FileFlow(tree, "<t>", source=YIELDING)
    walked = FileFlow(tree, "<t>")
    fns = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert len(fns) == 7
    for fn in fns:
        assert with_text.own_yields(fn) == walked.own_yields(fn), fn.name
    named = {fn.name: fn for fn in fns}
    assert [ast.unparse(y) for y in with_text.own_yields(named["gen"])] == ["(yield (x, x))"]
    assert [ast.unparse(y) for y in with_text.own_yields(named["decorated"])] == ["(yield)"]
    assert with_text.own_yields(named["outer"]) == [] and with_text.own_yields(named["m"]) == []
    assert not with_text._may_yield(named["plain"]) and with_text._may_yield(named["decorated"])
    assert walked._may_yield(named["plain"])


def test_word_rows_counts_lines_as_python_does():
    tree = ast.parse(YIELDING)
    assert word_rows(YIELDING, "yield") == sorted(
        {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Yield, ast.YieldFrom))} | {9})
    assert word_rows("x = 1\n", "yield") == []


def test_the_base_names_are_those_every_class_of_the_tree_names_found_once():
    src = ("class A(nn.Module): pass\n"
           "def f():\n"
           "    class B(A, object): pass\n"
           "    return B\n"
           "class C(B if x else A): pass\n"
           "class D(f()(A)):\n"
           "    class E(D): pass\n")
    tree = ast.parse(src)
    ff = FileFlow(tree, "<t>")
    reference = {b.id for st in ast.walk(tree) if isinstance(st, ast.ClassDef)
                 for b in st.bases if isinstance(b, ast.Name)}
    assert ff.base_names() == reference == {"A", "object", "D"}
    assert ff.base_names() is ff.base_names()


def test_the_attribute_bindings_of_a_class_are_those_of_a_walk_of_each_statement():
    src = ("class A(nn.Module):\n"
           "    def __init__(self):\n"
           "        self.enc = Enc()\n"
           "        self.enc: Enc = Enc()\n"
           "        self.enc += 1\n"
           "        for self.i in range(2): pass\n"
           "        with f() as self.ctx: pass\n"
           "        self.a, self.enc = g()\n"
           "        x.enc = y = h()\n"
           "        def inner():\n"
           "            o.enc = Other()\n")
    tree = ast.parse(src)
    info = FileFlow(tree, "<t>").classes[id(tree.body[0])]
    reference: dict[str, list[tuple[ast.AST, ast.AST | None]]] = {}
    for st in ast.walk(info.node):
        for t, value in _bindings(st):
            if isinstance(t, ast.Attribute):
                reference.setdefault(t.attr, []).append((t, value))
    found = attribute_bindings(info)
    assert found == reference and attribute_bindings(info) is found
    assert [v is None for _, v in found["enc"]] == [False, False, True, True, True, False]
    assert set(found) == {"enc", "i", "ctx", "a"}


GLOBALS = [
    "d = None\ndef f():\n    global d\n    d = 1\n",
    "d = e = 0\ndef f():\n    def g():\n        global d, e\n        del e\n    d = 2\n",
    "d = 0\nclass A:\n    def m(self):\n        if self: global d\n        d = 3\n",
    "d = 0\ndef f(): x = 1; global d; d = x\n",
    "d = 0\r\ndef f():\r    global d\r    d = 4\r",
    "d = 0\ndef f():\n\x0c    global d\n    d = 5\n",
    '"""global state, global_pool"""\nglobal_pool = 1\ndef f():\n    global_pool = 2\n    x = "; global d"\n',
    "def f():\n    # global d\n    d = 1\n",
    "d = 0\ndef f():\n    global d\n    return d\n",
]


def test_the_globals_functions_rebind_are_the_same_with_and_without_the_source_pre_check():
    for source in GLOBALS:
        tree = ast.parse(source)
        walked = FileFlow(tree, "<t>").rebound_globals
        assert FileFlow(tree, "<t>", source=source).rebound_globals == walked, source


def test_a_source_without_a_global_statement_is_answered_without_a_walk():
    source = GLOBALS[-2]
    ff = FileFlow(ast.parse(source), "<t>", source=source)
    assert ff._rebound == frozenset()  # known at once, from the text
    assert FileFlow(ast.parse(GLOBALS[0]), "<t>", source=GLOBALS[0])._rebound is None
    assert FileFlow(ast.parse(GLOBALS[0]), "<t>", source=GLOBALS[0]).rebound_globals == {"d"}
    assert FileFlow(ast.parse(GLOBALS[1]), "<t>").rebound_globals == {"d", "e"}


def test_every_text_with_a_global_statement_may_hold_one():
    for source in GLOBALS:
        if any(isinstance(n, ast.Global) for n in ast.walk(ast.parse(source))):
            assert may_hold_global(source), source
    assert not may_hold_global("global_pool = 1  # global average pooling\nx = 'global'\nglobalx = 2\n")
    assert may_hold_global('"""\nglobal average pooling\n"""\n')  # a docstring's line: a superset


def _scopes_of_the_package() -> list[ast.AST]:
    """The modules, functions, lambdas and classes of the analysis's own source: every
    statement and expression form it writes, nested scopes included."""
    import pathlib

    import torchferry.check.flow as flow

    out: list[ast.AST] = []
    for path in sorted(pathlib.Path(flow.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out += [n for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                                              ast.Lambda, ast.ClassDef))]
    return out


WALKED_SOURCE = (
    "def f(t, i, xs):\n"
    "    t[i] = 1\n"
    "    for x in xs:\n"
    "        try:\n"
    "            t[x] = g(lambda: t[0])\n"
    "        except E:\n"
    "            match x:\n"
    "                case 1:\n"
    "                    t[i], y = 2, 3\n"
    "        else:\n"
    "            while t:\n"
    "                def h():\n"
    "                    t[i] = 4\n"
    "                break\n"
)


def test_the_statements_walked_are_those_of_ast_walk_in_its_order():
    from torchferry.check.flow.stores import _HOLDERS, statements_walked

    tree = ast.parse(WALKED_SOURCE)
    for scope in [tree, *_scopes_of_the_package()]:
        assert statements_walked(scope) == [scope, *(n for n in ast.walk(scope)
                                                     if isinstance(n, _HOLDERS) and n is not scope)]
    assert sum(isinstance(n, ast.Assign) for n in statements_walked(tree)) == 4


def _reads_by_the_walk(scope: ast.AST, names: frozenset[str]) -> tuple[dict, dict]:
    """The parents and the loads of ``names`` as :func:`ast.walk` and a recursion find them."""
    from torchferry.check.flow.handoff import _SCOPES

    parents = {id(c): n for n in ast.walk(scope) for c in ast.iter_child_nodes(n)}
    reads: dict[str, list[tuple[int, bool]]] = {}

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name):
                if child.id in names and isinstance(child.ctx, ast.Load):
                    reads.setdefault(child.id, []).append((id(child), nested))
            else:
                visit(child, nested or isinstance(child, _SCOPES))

    visit(scope, False)
    return parents, reads


def test_the_reads_of_a_scope_and_their_parents_are_those_of_ast_walk():
    from torchferry.check.flow.handoff import _reads_of

    for scope in _scopes_of_the_package():
        args = getattr(scope, "args", None)
        names = frozenset(a.arg for a in args.args) if args is not None else frozenset({"self", "ast"})
        parents, reads = _reads_of(scope, names)
        want_parents, want_reads = _reads_by_the_walk(scope, names)
        assert {k: sorted((id(n), nested) for n, nested in v) for k, v in reads.items()} == \
            {k: sorted(v) for k, v in want_reads.items()}
        for v in reads.values():
            for n, _ in v:
                assert parents[id(n)] is want_parents[id(n)]
                above = parents.get(id(parents[id(n)]))
                assert above is want_parents.get(id(parents[id(n)]))


def test_the_unsqueezed_calls_are_found_in_the_trees_index():
    from torchferry.check.api import Context
    from torchferry.check.rules.fry010_factory_without_device import _unsqueezed

    src = "import torch\ndef f(d):\n    a = torch.tensor(d).unsqueeze(1)\n    return g(a.unsqueeze)(0)\n"
    tree = ast.parse(src)
    ctx = Context("<t>", src, tree)
    want = {id(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr == "unsqueeze"}
    assert _unsqueezed(ctx) == want and len(want) == 1
