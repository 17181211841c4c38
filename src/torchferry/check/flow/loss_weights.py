"""The tensors a ``torch.nn`` loss is built with that its every call uses with its inputs.

``crit = nn.CrossEntropyLoss(weight=w)``; ``crit(out, y)``: the loss's ``forward`` hands
``self.weight`` (the ``w`` it was built with) to ``F.cross_entropy`` beside ``out`` and
``y``, so ``w`` meets every later call's inputs, as ``F.cross_entropy(out, y, weight=w)``
written out would.  The loss registers ``w`` as a buffer (``_WeightedLoss.__init__``:
``self.register_buffer('weight', weight)``; ``BCEWithLogitsLoss.__init__`` registers
``weight`` and ``pos_weight``), so a loss moved with ``.to(device)`` or ``.cuda()``, or held
by a model that is moved, takes them along: only a loss the code never moves keeps them
where they were made.

The table, from torch 2.13.0's ``torch/nn/modules/loss.py`` (the classes whose ``forward``
reads one of these attributes and hands it to the functional loss with the inputs; the
positions count the constructor's parameters after ``self``):

========================== =============================== ==========================
class                      parameter (position)            used in ``forward`` as
========================== =============================== ==========================
``NLLLoss``                ``weight`` (0)                  ``F.nll_loss(..., weight=)``
``NLLLoss2d``              ``weight`` (0)                  ``NLLLoss.forward``
``CrossEntropyLoss``       ``weight`` (0)                  ``F.cross_entropy(..., weight=)``
``BCELoss``                ``weight`` (0)                  ``F.binary_cross_entropy(..., weight=)``
``BCEWithLogitsLoss``      ``weight`` (0), ``pos_weight``  ``F.binary_cross_entropy_with_logits``
                           (4)
``MultiLabelSoftMarginLoss`` ``weight`` (0)                ``F.multilabel_soft_margin_loss``
``MultiMarginLoss``        ``weight`` (2)                  ``F.multi_margin_loss(..., weight=)``
========================== =============================== ==========================

Not in it: ``LinearCrossEntropyLoss`` (torch 2.13's own ``weight`` is the linear layer's,
made by the loss itself), and every loss without such a parameter.

>>> import ast
>>> call = ast.parse("nn.CrossEntropyLoss(None, reduction='sum')").body[0].value
>>> [ast.unparse(a) for a in weight_arguments(call, "CrossEntropyLoss")]
['None']
>>> call = ast.parse("nn.BCEWithLogitsLoss(pos_weight=pw)").body[0].value
>>> [ast.unparse(a) for a in weight_arguments(call, "BCEWithLogitsLoss")]
['pw']
"""

from __future__ import annotations

import ast

#: loss class -> its constructor's tensor parameters used with the inputs: (name, position)
LOSS_TENSORS: dict[str, tuple[tuple[str, int], ...]] = {
    "NLLLoss": (("weight", 0),),
    "NLLLoss2d": (("weight", 0),),
    "CrossEntropyLoss": (("weight", 0),),
    "BCELoss": (("weight", 0),),
    "BCEWithLogitsLoss": (("weight", 0), ("pos_weight", 4)),
    "MultiLabelSoftMarginLoss": (("weight", 0),),
    "MultiMarginLoss": (("weight", 2),),
}


def weight_arguments(call: ast.Call, cls: str) -> list[ast.expr]:
    """The arguments of ``call``, a construction of the ``torch.nn`` loss ``cls``, that
    bind one of its tensor parameters of :data:`LOSS_TENSORS` (none after a ``*args`` or
    ``**kw`` spread, whose binding is not known)."""
    params = LOSS_TENSORS.get(cls, ())
    if not params or any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return []
    out = []
    for name, pos in params:
        out += [k.value for k in call.keywords if k.arg == name]
        if pos < len(call.args):
            out.append(call.args[pos])
    return out
