"""What a rule sees of a file: ``Context.text`` is ``ast.get_source_segment``, exactly."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.api import Context, walk

SOURCES = [
    "x = torch.zeros(2).to(device)\n",
    "x = 1\r\ny = (2 +\r\n 3)\r\n",  # Windows line ends
    "a = 'é' + \\\n  'ü'\rb = f(1,\r  2)",  # a lone \r is a line end too; non-ASCII columns
    "s = '''\f\nx\v\n'''\nz = (1,\n2)",  # \f and \v inside a string do not end a line
    "x = ('\u2028', \n 1)\ny = [\n  'ß'\n]",  # nor does U+2028
    "def f(x):\n    return x.cpu(\n    ).numpy()",  # no newline at the end
]


@pytest.mark.parametrize("source", SOURCES)
def test_text_is_the_source_segment_of_every_node(source):
    tree = ast.parse(source)
    ctx = Context("f.py", source, tree)
    nodes = [n for n in ast.walk(tree) if hasattr(n, "end_lineno")]
    assert nodes
    for node in nodes:
        assert ctx.text(node) == (ast.get_source_segment(source, node) or "")


def test_a_node_without_a_position_has_no_text():
    ctx = Context("f.py", "x = 1\n", ast.parse("x = 1\n"))
    assert ctx.text(ast.Name(id="x")) == ""


def test_walk_visits_the_nodes_of_ast_walk_in_its_order():
    tree = ast.parse(
        "import os\n"
        "@dec(1)\n"
        "async def f(a, /, b=2, *c, d, **e) -> int:\n"
        "    global g\n"
        "    x = {1: a, **e}\n"
        "    async with m() as (p, q):\n"
        "        y = [i async for i in b if i] + f'{x!r:>{d}}'\n"
        "    match x:\n"
        "        case {'k': [1, *rest]} | None:\n"
        "            del x[0]\n"
        "    return lambda z=1: z\n"
    )
    assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)]


def test_nodes_groups_every_node_by_type():
    ctx = Context(path="x.py", source="x = f(a.b)\n", tree=ast.parse("x = f(a.b)\n"))
    assert [n.id for n in ctx.nodes[ast.Name]] == ["x", "f", "a"]
    assert sum(map(len, ctx.nodes.values())) == len(list(ast.walk(ctx.tree)))
