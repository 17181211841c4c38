"""The parameters an optimizer updates, and the state it keeps for each of them.

A subclass of ``torch.optim.Optimizer`` is built from the model's parameters
(``Adafactor(model.parameters())``): ``Optimizer.__init__`` keeps them in
``self.param_groups``, a list of dicts whose ``"params"`` entry lists the tensors.  In the
methods of such a class, ``for group in self.param_groups: for p in group["params"]:``
gives a parameter of the model, and ``p.grad``, ``p.data`` and the views of them are where
that parameter is: wherever the model was moved (:data:`PARAM_GROUPS`, a place like a
module's own parameters, which follow the module's ``.to()``).

``self.state`` is ``Optimizer``'s per-parameter state (a ``defaultdict(dict)``):
``state = self.state[p]`` is the dict of one parameter, and what a method writes in it
(``state["exp_avg"] = torch.zeros_like(p)``) is what every method reads there later
(``step()`` reads what ``reset()`` or ``step()`` itself wrote).  The dict is kept as the
``self`` attribute ``state`` of the class (:data:`STATE`): a list whose item is the dict of
the slots written by the class's methods, joined, as the class table keeps any attribute.

Only a class whose bases (in the run or not) reach ``torch.optim.Optimizer`` by their
qualified names is an optimizer here; one that stores ``self.param_groups`` or
``self.state`` itself keeps what it stores.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... from torch.optim import Optimizer
... class Sgd(Optimizer):
...     def step(self):
...         for group in self.param_groups:
...             for p in group["params"]:
...                 g = p.grad
...                 z = torch.zeros(g.shape)
... '''
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> g = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "g"][-1]
>>> v = ff.scope_of(g).value(g)
>>> sorted(k.name for k in v.kinds), v.places == {PARAM_GROUPS}
(['TENSOR'], True)
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import (
    SLOT_CAP,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Value,
    Where,
    container,
    join,
)

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo

#: the qualified names of ``torch.optim.Optimizer``
OPTIMIZER_NAMES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})
#: the place of the parameters an optimizer updates: wherever the model's parameters are
PARAM_GROUPS = Place(Where.ATTR, "param_groups")
#: the ``self`` attribute that holds the per-parameter state
STATE = "state"
#: the text of the origin of one parameter's state dict (``self.state[p]``)
STATE_TEXT = "self.state[p]"
_TENSOR = frozenset((Kind.TENSOR,))


def is_optimizer(cls: ClassInfo | None) -> bool:
    """Is ``cls`` a subclass of ``torch.optim.Optimizer`` (directly, or through bases of
    the run), by the qualified names of its bases?"""
    return cls is not None and cls.is_optimizer()


def param_groups(node: ast.AST) -> Value:
    """``self.param_groups`` of an optimizer (``node``: the expression): a list of dicts
    whose ``"params"`` entry is a list of the model's parameters; no other key is known."""
    origin = Origin(Op.READ, getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
                    "self.param_groups", node=node)
    p = Value(_TENSOR, frozenset((PARAM_GROUPS,)), (origin,), Basis.INFERRED)
    return container(item=container(keys=(("params", container(item=p)),)))


def parameter(v: Value) -> bool:
    """Is ``v`` a tensor where the optimizer's parameters are, and nowhere else?"""
    return v.kinds == _TENSOR and v.places == frozenset((PARAM_GROUPS,))


def state_of(kept: Value, key: Value, node: ast.AST) -> Value | None:
    """``self.state[key]`` (``node``) of an optimizer whose ``self.state`` holds ``kept``:
    one parameter's state dict, with the slots the class's methods write (none yet: an
    empty dict); None where ``key`` is not a parameter or ``kept`` is not such a list."""
    if not parameter(key):
        return None
    origin = Origin(Op.READ, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), STATE_TEXT, node=node)
    if kept.kinds is None and kept.places is None and not kept.origins:
        return container(keys=(), origin=origin)  # (nothing written by another method)
    if kept.item is None or kept.item.keys is None or len(kept.item.keys) > SLOT_CAP:
        return None
    return container(keys=kept.item.keys, origin=origin)


def is_state(v: Value) -> bool:
    """Is ``v`` one parameter's state dict (:func:`state_of`)?"""
    return v.keys is not None and bool(v.origins) and v.origins[0].op is Op.READ \
        and v.origins[0].text == STATE_TEXT


def kept_state(written: Value, before: Value | None) -> Value:
    """What ``self.state`` holds once a parameter's state dict is ``written``, where it held
    ``before``: the dicts of the other parameters keep their slots, so both are joined."""
    one = written._replace(origins=())
    if before is not None and before.item is not None and before.item.keys is not None:
        one = join(before.item, one)
    return container(item=one)
