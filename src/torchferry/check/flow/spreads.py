"""``f(..., **kwargs)``: the keys a ``**`` mapping given to a call may hold.

A loader of torch reads its batches as the keywords it is given say (``collate_fn=``,
``num_workers=``, ``pin_memory=``); a ``**`` mapping may hold any of them, so where the
analysis does not know the mapping's keys it does not know what the loader yields.  A
mapping it does know is a dict the file builds with literal keys (``{"num_workers": 1,
"pin_memory": True} if use_cuda else {}``: the keys of either arm) and never changes after:
every other use of its name in the file binds the name anew (``kwargs = {...}``) or hands
it to a call with ``**`` (no ``kwargs["collate_fn"] = f``, no ``kwargs.update(...)``, no
alias that could be written through, no ``kwargs |= ...``).

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... cuda = torch.cuda.is_available()
... kwargs = {"num_workers": 1, "pin_memory": True} if cuda else {}
... loader = torch.utils.data.DataLoader(data, batch_size=2, **kwargs)
... '''
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> call = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.keywords][-1]
>>> values = next(iter(ff.results())).values
>>> sorted(spread_keys(call, values, tree))
['num_workers', 'pin_memory']
>>> spread_keys(call, values, ast.parse(src + "kwargs['collate_fn'] = f\\n")) is None
True
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from torchferry.check.flow.lattice import Kind, Value
from torchferry.check.flow.treeindex import tree_index


def spread_keys(call: ast.Call, values: Mapping[int, Value], tree: ast.AST) -> frozenset[str] | None:
    """Every key the ``**`` mappings of ``call`` may hold (empty for a call with none):
    each mapping a name of the file (``tree``) bound to a dict of literal keys
    (``values``: the values of the scope's nodes) that the file never changes; None where
    one of them is anything else."""
    keys: set[str] = set()
    for k in call.keywords:
        if k.arg is not None:
            continue
        held = _literal_keys(k.value, values.get(id(k.value)))
        if held is None or not isinstance(k.value, ast.Name) or not _never_changed(k.value.id, tree):
            return None
        keys |= held
    return frozenset(keys)


def _literal_keys(node: ast.expr, v: Value | None) -> frozenset[str] | None:
    """The keys of ``v``, a dict of literal keys alone (no key the analysis could not
    read, no joined item), else None."""
    if v is None or v.keys is None or v.item is not None or v.elts is not None or v.kinds != {Kind.OTHER}:
        return None
    names = frozenset(k for k, _ in v.keys)
    return None if "" in names else names


def _never_changed(name: str, tree: ast.AST) -> bool:
    """Is every use of ``name`` in ``tree`` a binding of the name (``kwargs = ...``, not
    ``kwargs |= ...``) or the ``**`` mapping of a call?"""
    index = tree_index(tree)
    spread = {id(k.value) for c in index.calls for k in c.keywords if k.arg is None}
    augmented = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)} \
        if any(isinstance(n.ctx, ast.Store) for n in index.names.get(name, ())) else set()
    return all(id(n) in spread or isinstance(n.ctx, ast.Store) and id(n) not in augmented
               for n in index.names.get(name, ()))
