"""A scope's own nodes and statements: what the walk yields, in which order."""

import ast

from torchferry.check.flow.walk import SCOPES, own_nodes, statements

from .conftest import project_sources

SOURCE = (
    "import torch\n"
    "class A:\n"
    "    w = torch.ones(2)\n"
    "    def f(self, x=lambda: 1):\n"
    "        y = [z for z in x]\n"
    "        def g():\n"
    "            return y\n"
    "        try:\n"
    "            a = 1\n"
    "        except E:\n"
    "            b = 2\n"
    "        match y:\n"
    "            case 1:\n"
    "                c = 3\n"
    "        return g\n"
)


def _sources() -> list[str]:
    return project_sources(SOURCE)


def _scopes(tree: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Module, *SCOPES))]


def _stack_walk(scope: ast.AST, defs: bool) -> list[ast.AST]:
    """A stack of :func:`ast.iter_child_nodes`, not entering the scopes it meets."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if not isinstance(n, SCOPES):
            todo.extend(ast.iter_child_nodes(n))
        elif not defs:
            continue
        out.append(n)
    return out


#: nodes the parser shares between places (``Load``, ``Add``, ...): no owner of their own
_SHARED = (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)


def _owner(tree: ast.AST) -> dict[int, ast.AST]:
    """Each node -> the innermost scope (module, function, class, lambda) that holds it."""
    out: dict[int, ast.AST] = {}

    def visit(node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _SHARED):
                out[id(child)] = scope
            visit(child, child if isinstance(child, SCOPES) else scope)

    visit(tree, tree)
    return out


def test_own_nodes_are_those_of_a_stack_of_iter_child_nodes_in_its_order():
    for text in _sources():
        tree = ast.parse(text)
        for scope in _scopes(tree):
            assert list(own_nodes(scope)) == _stack_walk(scope, False)
            assert list(own_nodes(scope, defs=True)) == _stack_walk(scope, True)


def test_every_node_is_the_own_node_of_the_scope_that_holds_it_and_of_no_other():
    tree = ast.parse(SOURCE)
    owner = _owner(tree)
    seen: dict[int, ast.AST] = {}
    for scope in _scopes(tree):
        for n in own_nodes(scope):
            if isinstance(n, _SHARED):
                continue
            assert id(n) not in seen
            seen[id(n)] = scope
    nested = {id(n) for n in ast.walk(tree) if isinstance(n, SCOPES)}
    assert seen.keys() == owner.keys() - nested
    assert all(owner[k] is scope for k, scope in seen.items())


def test_nested_scopes_are_yielded_only_when_asked_and_never_entered():
    fn = ast.parse(SOURCE).body[1].body[1]
    assert not any(isinstance(n, SCOPES) for n in own_nodes(fn))
    found = [n for n in own_nodes(fn, defs=True) if isinstance(n, SCOPES)]
    assert sorted(type(n).__name__ for n in found) == ["FunctionDef", "Lambda"]
    assert not any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == "y"
                   for n in own_nodes(fn, defs=True))


def test_own_statements_leave_out_handlers_case_blocks_and_nested_scopes():
    fn = ast.parse(SOURCE).body[1].body[1]
    lines = [s.lineno for s in statements(fn)]
    assert lines == [15, 12, 8, 9, 5]  # (last first, depth first; not lines 7, 11, 14)


def test_nested_statements_are_every_statement_of_the_tree():
    for text in _sources():
        tree = ast.parse(text)
        found = [id(s) for s in statements(tree, nested=True)]
        assert sorted(found) == sorted(id(n) for n in ast.walk(tree) if isinstance(n, ast.stmt))
        assert len(found) == len(set(found))
