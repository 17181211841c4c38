"""What the interpretation of one scope records: the calls and the meetings of values,
the values of its expressions, what it returns and stores on ``self``.

Rules read these records; they never walk the tree again to find what a value is.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field
from typing import NamedTuple

from torchferry.check.flow.lattice import BOTTOM, Basis, Kind, Op, Value, Where


class AnyKey(enum.Enum):
    """The position of ``d[k]`` under a loop over ``d``'s own keys (``for k in d.keys()``,
    ``for k, v in d.items()``, ``for k in d``): one of ``d``'s values, any of them."""

    VALUE = "any key"


#: where an item was taken from a parameter: a position, a literal key, or any key
Position = int | str | AnyKey


class Callee(enum.Enum):
    """What a call was resolved to."""

    TORCH = "torch"  # a function of torch (``torch.zeros``, ``F.relu``)
    NUMPY = "numpy"
    MODULE = "module"  # a call of a module value: ``model(x)``, ``self.encoder(x)``
    METHOD = "method"  # a method of a value: ``x.to(d)``, ``loss.item()``
    FUNCTION = "function"  # a function or class of the checked files
    BUILTIN = "builtin"
    UNRESOLVED = "unresolved"


class CallEvent(NamedTuple):
    """One call, with the values of its parts as they were at that point."""

    node: ast.Call
    callee: Callee
    qualname: str | None  # torch.zeros, numpy.array, the attribute name of a method
    func: Value  # the called value (the module, for ``model(x)``)
    receiver: Value | None  # the value before the dot of a method call
    args: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]
    result: Value

    def keyword(self, name: str) -> Value | None:
        for k, v in self.keywords:
            if k == name:
                return v
        return None


class MeetEvent(NamedTuple):
    """Values that meet in an operator (``a + b``, ``a < b``)."""

    node: ast.expr
    operands: tuple[tuple[ast.expr, Value], ...]


class Effect(enum.Enum):
    """What a function of the run may do to the place of a module given as a parameter
    (:func:`~torchferry.check.flow.handoff.place_effects`)."""

    #: every read of the parameter leaves it where it is (it may write its values)
    KEEPS_PLACE = "keeps place"
    #: the function may move it, keep it or hand it to something that may
    MAY_MOVE = "may move"


@dataclass
class ScopeResult:
    """The interpretation of one function (or of a module's top-level code).

    ``param_uses[k]``: what parameter ``k`` is used as (``x.unsqueeze(0)`` -> a tensor),
    ``stores``: the values assigned to ``self.<name>``, joined over the method."""

    node: ast.AST
    params: tuple[str, ...] = ()
    calls: dict[int, CallEvent] = field(default_factory=dict)
    #: each call as it was first interpreted: in a loop, in the first round, from the state
    #: before the loop (:func:`~torchferry.check.flow.first_run.first_run` says when that is
    #: the call's first run); ``calls`` holds the loop's fixed point
    first_calls: dict[int, CallEvent] = field(default_factory=dict)
    meets: dict[int, MeetEvent] = field(default_factory=dict)
    values: dict[int, Value] = field(default_factory=dict)
    returns: Value = BOTTOM
    stores: dict[str, Value] = field(default_factory=dict)
    param_uses: dict[int, Kind] = field(default_factory=dict)
    #: parameters handed (as they are) to an argument torch takes on the CPU: the lengths of
    #: ``pack_padded_sequence``, the targets and lengths of ``ctc_loss``, directly or
    #: through a function of the run
    cpu_params: set[int] = field(default_factory=set)
    #: what the annotations (or a module's ``forward``) suggest parameter ``k`` is
    param_hints: dict[int, Kind] = field(default_factory=dict)
    #: names handed to a call the analysis could not follow (it may have moved them)
    escapes: set[str] = field(default_factory=set)
    #: id(a call of a function of the run) -> the ids of the argument expressions it
    #: hands off (:func:`~torchferry.check.flow.handoff.handed_arguments`); the others it
    #: keeps in place
    handed_calls: dict[int, frozenset[int]] = field(default_factory=dict)
    #: id(a call of a function of the run) -> the ids of the argument expressions it may
    #: move (:func:`~torchferry.check.flow.handoff.moving_arguments`); the others it keeps
    #: where they are, though it may write their values
    moving_calls: dict[int, frozenset[int]] = field(default_factory=dict)
    #: the parameters the function hands off (:func:`~torchferry.check.flow.handoff.handed_params`,
    #: computed when first asked)
    handed: frozenset[int] | None = None
    #: what the function may do to the place of each parameter
    #: (:func:`~torchferry.check.flow.handoff.place_effects`, computed when first asked)
    effects: tuple[Effect, ...] | None = None
    #: the parent of every node of the function (by id) and the loads of each parameter,
    #: each with whether it is in a nested scope (one walk, shared by ``handed`` and
    #: ``effects``, made when first asked)
    param_reads: tuple[dict[int, ast.AST], dict[str, list[tuple[ast.Name, bool]]]] | None = None
    #: in-place moves of modules bound outside this scope: name -> the value after the move
    outer_moves: dict[str, Value] = field(default_factory=dict)
    #: parameters the function moves in place (``model.to(device)`` as a statement on a
    #: parameter): index -> the places it moves them to (the join over its moves)
    param_moves: dict[int, Value] = field(default_factory=dict)
    #: the parameters a ``return`` gives back as they came in (``return label`` after
    #: ``label.fill_(-1)``); ``returns_other``: some ``return`` gives back anything else
    returned_params: set[int] = field(default_factory=set)
    returns_other: bool = False
    #: the items taken by position from a parameter as it came in (``audio, f0 = batch``,
    #: ``batch[0]``): id(the origin's node) -> (the parameter's index, the position)
    param_items: dict[int, tuple[int, Position]] = field(default_factory=dict)
    #: of those items, the ones an unpacking without a starred name binds (``states,
    #: actions = batch``): id(the origin's node) -> the number of names it binds, which is
    #: the length of every tuple that gets past it (any other raises there)
    param_unpacked: dict[int, int] = field(default_factory=dict)
    #: the names a loop over a parameter as it came in binds to what it yields
    #: (``for x, y in loader``): id(the name's node in the loop's target) -> (the
    #: parameter's index, the position in the item, None for the whole)
    param_batches: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    #: id(a name's node) -> the attributes of the instance it names that a statement of the
    #: scope moved before (``agent.q.to(device)``), as they were there: attribute -> value
    held: dict[int, dict[str, Value]] = field(default_factory=dict)

    def value(self, node: ast.AST) -> Value | None:
        """The value an expression of this scope had (None: not evaluated)."""
        return self.values.get(id(node))

    def tensor_param(self, k: int) -> bool:
        """Is parameter ``k`` used as (or said to be) a tensor or a module, or ``self``?"""
        use = self.param_uses.get(k) or self.param_hints.get(k)
        return use in (Kind.TENSOR, Kind.MODULE, Kind.BATCH)

    def may_be_on_device(self, v: Value) -> bool:
        """Could ``v`` be on an accelerator for a reason the analysis sees: moved there, or
        wherever a tensor parameter, ``self`` (the model) or a ``self`` attribute is?
        A parameter of unknown kind (``dim // 4``) does not count."""
        if not v.places:
            return False
        for p in v.places:
            if p.where == Where.ACCEL or p.where == Where.ATTR:
                return True
            if p.where == Where.PARAM and self.tensor_param(int(p.ref)):
                return True
        return False

    def kind_of(self, v: Value) -> frozenset[Kind] | None:
        """``v``'s kinds, refined by the uses of the parameter it is (``x.size(0)``); not
        what a module parameter returned (``out, ptr = model(batch)``: any kind, at the
        module's place), nor what a method of it did (``m.eval()`` makes ``m`` a module,
        not ``m.sample(5)``, a value computed where it is)."""
        if v.kinds is not None or not v.places:
            return v.kinds
        if v.origins and v.origins[0].op is Op.OUTPUT:
            return None
        uses = {self.param_uses.get(int(p.ref)) for p in v.places if p.where == Where.PARAM}
        if Kind.TENSOR in uses:
            return frozenset((Kind.TENSOR,))  # a tensor, maybe combined with other values
        if uses == {Kind.MODULE} and v.basis is not Basis.HINT:
            return None  # (what a method of a module parameter returns, ``m.sample(5)``: any kind)
        if len(uses) == 1 and None not in uses and len(v.places) == 1:
            return frozenset(uses)  # type: ignore[arg-type]
        return None
