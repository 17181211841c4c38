"""Module-level caches that one function fills with what it returns (memoisation).

A loader that keeps what it built in a module-level dict and hands it back next time::

    model_cache = {}

    def load_model(path):
        if path in model_cache:
            return model_cache[path]
        net = Net().to(device)
        model_cache[path] = net
        return net

returns a value of the cache, or ``net``: and the cache holds only what this function stored
there, the values it returns by name.  So a read of the cache in that function adds nothing
to what it returns on its other paths: the analysis reads it as nothing new (the lattice's
bottom), and ``load_model`` returns ``net``, on the device.

A name is such a cache only when the file binds it once, at module level, to an empty dict
(``{}`` or ``dict()``); no function declares it ``global``; and every other use of it in
the file is in that one function: a read of an item (``cache[k]``), a test of membership
(``k in cache``), or a store of an item (``cache[k] = name``) of a name that the function
returns (``return name``).  Anything else (a method call such as ``cache.update(...)``, the
dict handed to a call, an alias, a store in another function) and it is no such cache.

>>> src = '''
... cache = {}
... def load(p):
...     if p in cache:
...         return cache[p]
...     net = build(p)
...     cache[p] = net
...     return net
... '''
>>> sorted(memo_caches(ast.parse(src)))
['cache']
>>> sorted(memo_caches(ast.parse(src + "cache.clear()\\n")))
[]
"""

from __future__ import annotations

import ast

from torchferry.check.flow.walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def memo_caches(tree: ast.Module) -> dict[str, ast.AST]:
    """The module-level caches of ``tree`` (name -> the function that fills it)."""
    out: dict[str, ast.AST] = {}
    for name in _empty_dicts(tree):
        fn = _filler(tree, name)
        if fn is not None:
            out[name] = fn
    return out


def _empty_dicts(tree: ast.Module) -> set[str]:
    """The names a module-level statement binds to an empty dict (``cache = {}``) that no
    other store or ``del`` of the whole tree binds (functions' and classes' included).
    The tree is walked only when some module-level statement binds an empty dict.

    >>> sorted(_empty_dicts(ast.parse("a = {}\\nb = dict()\\nc = {}\\ndef f():\\n    c = 1\\n")))
    ['a', 'b']
    >>> _empty_dicts(ast.parse("x = 1\\ndef f():\\n    y = {}\\n"))
    set()
    """
    empty = {st.targets[0].id for st in tree.body
             if isinstance(st, ast.Assign) and len(st.targets) == 1
             and isinstance(st.targets[0], ast.Name) and _empty_dict(st.value)}
    if not empty:
        return empty
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in empty and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound[node.id] = bound.get(node.id, 0) + 1
    return {n for n in empty if bound.get(n) == 1}


def _empty_dict(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict):
        return not node.keys
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "dict" and not node.args and not node.keywords


def _filler(tree: ast.Module, name: str) -> ast.AST | None:
    """The one function that reads and fills ``name`` as a cache, if every use is one."""
    at_top = [n for n in own_nodes(tree, defs=True) if isinstance(n, ast.Name) and n.id == name]
    if len(at_top) != 1 or any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names
                               for n in ast.walk(tree)):
        return None  # (used by the module's own code, or rebound by a function)
    owner: ast.AST | None = None
    for fn in ast.walk(tree):
        if not isinstance(fn, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            continue
        uses = [n for n in own_nodes(fn, defs=True) if isinstance(n, ast.Name) and n.id == name]
        if not uses:
            continue
        if owner is not None or not isinstance(fn, _FUNCS) or not _cache_uses(fn, name, uses):
            return None
        owner = fn
    return owner


def _cache_uses(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                uses: list[ast.Name]) -> bool:
    returned = {r.value.id for r in own_nodes(fn, defs=True)
                if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
    parent = {id(c): p for p in own_nodes(fn, defs=True) for c in ast.iter_child_nodes(p)}
    for use in uses:
        up = parent.get(id(use))
        if isinstance(use.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(up, ast.Compare) and use is not up.left and \
                all(isinstance(op, (ast.In, ast.NotIn)) for op in up.ops):
            continue
        if not isinstance(up, ast.Subscript) or up.value is not use:
            return False
        if isinstance(up.ctx, ast.Load):
            continue
        stmt = parent.get(id(up))
        if not (isinstance(up.ctx, ast.Store) and isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name)
                and stmt.value.id in returned):
            return False
    return True
