"""Probability distributions of ``torch.distributions``: objects built from tensors.

``Categorical(logits=t)`` and ``Normal(mu, std)`` keep their parameters as tensors where
they were given, and what they compute is there too: ``dist.sample()``, ``dist.rsample()``,
``dist.log_prob(x)``, ``dist.entropy()``, ``dist.mean``.  The object itself is of kind
OTHER, marked by the origin of its construction, with what it draws as its
:attr:`Value.item` (the place of its parameters that may be tensors, None when the place of one of them
is unknown, or when none may be a tensor: ``Normal(0.0, 1.0)``, whose tensors torch makes itself)."""

from __future__ import annotations

import ast

from torchferry.check.flow.lattice import Basis, Kind, Op, Origin, Value
from torchferry.check.flow.places import tensor_places

#: the methods of a distribution that compute a tensor where its parameters are
DRAWS = frozenset({"sample", "rsample", "sample_n", "log_prob", "entropy", "cdf", "icdf",
                   "perplexity", "enumerate_support"})
#: the properties of a distribution that are tensors where its parameters are
PARTS = frozenset({"mean", "mode", "stddev", "variance", "probs", "logits", "loc", "scale",
                   "concentration", "rate", "low", "high", "total_count"})
_PREFIX = "torch.distributions."
_TENSORISH = frozenset({Kind.TENSOR, Kind.BATCH})


def built(node: ast.Call, qual: str, args: list[Value], kws: list[tuple[str, Value]]) -> Value | None:
    """``torch.distributions.Normal(mu, std)`` (a class: its name is capitalized): the
    distribution, or None for anything else of the namespace (``kl_divergence``)."""
    parts = qual.split(".")
    if not qual.startswith(_PREFIX) or not parts[-1][:1].isupper():
        return None
    params = [*args, *(w for k, w in kws if k != "validate_args")]
    given = [v for v in params if v.kinds is None or v.kinds & _TENSORISH]
    places = tensor_places(given) if given else None
    origins = tuple(dict.fromkeys(o for v in given for o in v.origins))[:3]
    mark = Origin(Op.MADE, node.lineno, node.col_offset, f"{qual}(...)", node=node)
    draw = Value(frozenset((Kind.TENSOR,)), places or None, origins, Basis.INFERRED)
    return Value(frozenset((Kind.OTHER,)), frozenset(), (mark, *origins), Basis.INFERRED, item=draw)


def is_distribution(v: Value) -> bool:
    """Is ``v`` surely a distribution (every path built one)?"""
    return v.is_(Kind.OTHER) and v.item is not None and bool(v.origins) and \
        v.origins[0].op is Op.MADE and v.origins[0].text.startswith(_PREFIX)


def drawn(dist: Value) -> Value:
    """What a method of :data:`DRAWS` or a property of :data:`PARTS` gives: a tensor where
    the parameters are (``log_prob(actions)`` too: torch requires ``actions`` there)."""
    assert dist.item is not None
    return dist.item
