"""The analysis's list-based walks give the nodes (and the answers) of :func:`ast.walk`."""

import ast

from torchferry.check.flow.program import _LEAVES, _self_attribute_calls, _walk_nodes

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
