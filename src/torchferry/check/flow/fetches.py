"""A batch fetched with ``next(it)`` by a training loop.

A loop whose own body back-propagates (``loss.backward()``) and steps an optimizer
(``optimizer.step()``) is a training loop whatever it iterates (the criterion of
:mod:`torchferry.check.training_loops`); what such a loop fetches with ``next(it)`` in its
own body, once per step, is the step's batch, whatever the iterator is named
(``for i in trange(num_steps): x, y = next(data_iterator)``).  :func:`fetched_batch` tells
that a ``next(...)`` call is so placed, so that an iterator of unknown kind gives a batch
there as a loader named as one does (a hint: where the batches are is not known).

>>> src = '''
... for i in range(10):
...     x, y = next(data_iterator)
...     loss = model(x).sum()
...     loss.backward()
...     optimizer.step()
... '''
>>> loop = ast.parse(src).body[0]
>>> call = loop.body[0].value
>>> fetched_batch([loop], call)
True
>>> fetched_batch([loop], ast.parse("next(it)").body[0].value)
False
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchferry.check.names import Step, learning_step

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def fetched_batch(fors: list[ast.For | ast.AsyncFor], call: ast.Call) -> bool:
    """Is ``call``, a ``next(...)`` evaluated inside the loops ``fors`` (innermost last),
    in the own body of the innermost one, a loop that itself calls ``.backward()`` and an
    optimizer's ``.step()``?"""
    if not fors:
        return False
    loop = fors[-1]
    own = list(_own_nodes(loop))
    if not any(n is call for n in own):
        return False
    steps = {learning_step(n) for n in own if isinstance(n, ast.Call)}
    return Step.BACKWARD in steps and Step.STEP in steps


def _own_nodes(loop: ast.For | ast.AsyncFor) -> Iterator[ast.AST]:
    """The nodes of ``loop``'s body and ``else``, not those of a nested loop or scope."""
    todo: list[ast.AST] = [*loop.body, *loop.orelse]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _LOOPS + _SCOPES):
            continue
        todo.extend(ast.iter_child_nodes(node))
