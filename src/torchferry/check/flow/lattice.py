"""The abstract values of the device-flow analysis: what a value is, where it lives, and
what made or moved it.

A :class:`Value` is an element of a small lattice (a product of three capped sets and the
container slots).  ``None`` in :attr:`Value.kinds` or :attr:`Value.places` is the top
element, *unknown*; :data:`BOTTOM` (no kinds, no places) is the value of code that is
never reached.  The join is a union, so "on the CPU on one branch, on the GPU on the
other" stays visible; a set that grows past its cap becomes unknown.

>>> cpu = Value.of(Kind.TENSOR, CPU)
>>> gpu = Value.of(Kind.TENSOR, ACCEL)
>>> sorted(p.where for p in join(cpu, gpu).places)
[<Where.CPU: 1>, <Where.ACCEL: 2>]
>>> join(cpu, UNKNOWN).places is None
True
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Iterable
from typing import NamedTuple

#: at most this many kinds, places and origins in one value; more becomes unknown
KIND_CAP = 3
PLACE_CAP = 4
ORIGIN_CAP = 8
#: tuples and dicts keep this many slots, one per element or literal key
SLOT_CAP = 8


class Kind(enum.IntEnum):
    """What a value is (an ``IntEnum``: hashed as fast as an int)."""

    TENSOR = 1
    MODULE = 2
    NDARRAY = 3
    LOADER = 4
    BATCH = 5  # an item (or the whole) of what a data loader yields
    DEVICE = 6
    SCALAR = 7  # a Python number, bool or 0-dimensional result (``.item()``)
    OTHER = 8  # known not to be any of the above (a string, a shape, None)


class Where(enum.IntEnum):
    """The kinds of place a tensor, a module or a device value stands for."""

    CPU = 1
    ACCEL = 2
    PARAM = 3  # wherever the function's parameter ``ref`` lives
    ATTR = 4  # wherever ``self.<ref>`` lives


class Place(NamedTuple):
    """One place: the CPU, an accelerator, or the place of a parameter / ``self`` attribute.

    ``ref`` is the parameter's index for :attr:`Where.PARAM`, the attribute's name for
    :attr:`Where.ATTR`, else ``""``."""

    where: Where
    ref: str = ""

    @property
    def symbolic(self) -> bool:
        return self.where in (Where.PARAM, Where.ATTR)


CPU = Place(Where.CPU)
ACCEL = Place(Where.ACCEL)


def param(k: int) -> Place:
    """The place of parameter ``k`` (``self`` is parameter 0 of a method)."""
    p = _PARAMS.get(k)
    if p is None:
        p = _PARAMS[k] = Place(Where.PARAM, str(k))
    return p


_PARAMS: dict[int, Place] = {}


def in_order(places: Iterable[Place]) -> list[Place]:
    """``places`` in a fixed order, whatever the order of the set they come in: by kind
    (:class:`Where`), parameters by position, attributes by name.  A set of places iterates
    in an order that depends on the hash of their strings, which changes from run to run.

    >>> ps = {param(10), Place(Where.ATTR, "w"), param(2), ACCEL, Place(Where.ATTR, "b")}
    >>> [(p.where.name, p.ref) for p in in_order(ps)]
    [('ACCEL', ''), ('PARAM', '2'), ('PARAM', '10'), ('ATTR', 'b'), ('ATTR', 'w')]
    """
    return sorted(places, key=_place_key)


def _place_key(p: Place) -> tuple[int, int, str]:
    return p.where, int(p.ref) if p.ref.isdigit() else -1, p.ref


class Op(enum.Enum):
    """What an origin did to the value."""

    MADE = "made"  # a factory, a constructor, a literal
    MOVED = "moved"  # .to(...), .cuda(), .cpu()
    PARAM = "parameter"  # came in as a parameter
    RETURNED = "returned"  # the result of a call to a function of the run
    BATCH = "batch"  # taken from what a loader yields
    OUTPUT = "output"  # the output of a module call
    LOADED = "loaded"  # torch.load, from_pretrained
    REFERENCE = "reference"  # a function of torch named as a value (``self.loss = F.mse_loss``)
    READ = "read"  # read off another value: ``seg.device``, wherever ``seg`` lives


class Basis(enum.IntEnum):
    """How a value's kind is known, weakest first: a fix may rely only on CONSTRUCTED."""

    HINT = 1  # an annotation or a name
    INFERRED = 2  # its uses, a callee's summary, an operation on other values
    CONSTRUCTED = 3  # made by a known constructor in the same function


class Reason(enum.Enum):
    """Why a value is unknown (kept for explanation and counting)."""

    UNRESOLVED = "unresolved call"
    OUTSIDE = "outside the checked files"
    RECURSION = "recursion"
    BUDGET = "budget"
    WIDTH = "too many possibilities"
    DYNAMIC = "dynamic attribute"


class Origin(NamedTuple):
    """Where an operation made or moved a value (``path`` None: the file being checked)."""

    op: Op
    line: int
    column: int
    text: str
    path: str | None = None
    #: for a move: the places it moved the value to (None: unknown)
    to: frozenset[Place] | None = None
    #: the node that did it (in the file it was read from)
    node: ast.AST | None = None


class Value(NamedTuple):
    """An abstract value (see the module docstring).

    The records of the lattice are named tuples, not dataclasses: the analysis makes
    millions of them, and a tuple is made about ten times faster than a frozen dataclass.

    ``elts``: a tuple's elements; ``item``: the joined element of a list, set, dict or of
    a tuple past :data:`SLOT_CAP`; ``keys``: a dict's values per literal key."""

    kinds: frozenset[Kind] | None = None
    places: frozenset[Place] | None = None
    origins: tuple[Origin, ...] = ()
    basis: Basis = Basis.INFERRED
    elts: tuple[Value, ...] | None = None
    item: Value | None = None
    keys: tuple[tuple[str, Value], ...] | None = None
    reason: Reason | None = None
    #: what calling the value returns, when known (``transforms.ToTensor()``: a tensor
    #: made on the CPU)
    call: Value | None = None

    @staticmethod
    def of(kind: Kind, place: Place | None = None, origin: Origin | None = None,
           basis: Basis = Basis.INFERRED) -> Value:
        """A value of one kind, at one place (None: no place, e.g. for a scalar)."""
        places = frozenset((place,)) if place is not None else frozenset()
        return Value(frozenset((kind,)), places, (origin,) if origin else (), basis)

    # -- queries ------------------------------------------------------------
    def is_(self, kind: Kind) -> bool:
        """Is it surely (and only) this kind?"""
        kinds = self.kinds
        return kinds is not None and len(kinds) == 1 and kind in kinds

    def made_as(self, kind: Kind) -> bool:
        """Is it surely this kind by construction in its scope (what a safe fix may rely
        on), never by an annotation, a name or a callee?"""
        return self.basis is Basis.CONSTRUCTED and self.is_(kind)

    def may_be(self, kind: Kind) -> bool:
        return self.kinds is None or kind in self.kinds

    @property
    def known_places(self) -> bool:
        return self.places is not None and bool(self.places)

    def only(self, where: Where) -> bool:
        """Is every place it may be of this kind (and at least one known)?"""
        return self.known_places and all(p.where == where for p in self.places or ())

    def may_live(self, where: Where) -> bool:
        return self.places is not None and any(p.where == where for p in self.places)

    def with_origin(self, origin: Origin) -> Value:
        return self._replace(origins=_cap_origins((origin, *self.origins)))

    def at(self, places: Iterable[Place] | None, origin: Origin | None = None) -> Value:
        """The same value at other places (a move)."""
        ps = None if places is None else _cap_places(frozenset(places))
        origins = self.origins if origin is None else _cap_origins((origin, *self.origins))
        return self._replace(places=ps, origins=origins, elts=None, item=None, keys=None)


def outside(v: Value) -> Value:
    """``v`` as another scope sees it (a global, an enclosing function's name, a ``self``
    attribute set by another method, a callee's return): whatever made it, it was not made
    in this scope, and may have been replaced since, so it is at most INFERRED."""
    return v._replace(basis=Basis.INFERRED) if v.basis is Basis.CONSTRUCTED else v


def in_path(v: Value, path: str) -> Value:
    """``v`` of another file's analysis as this file sees it: every origin made there names
    ``path``, those of its parts included (a tuple's elements, a list's or dict's items, a
    dict's keyed values, what calling it returns), so that a factory returned inside a
    container is still known as that file's, never taken for one of this file's nodes."""
    origins = v.origins
    if any(not o.path for o in origins):
        origins = tuple(o if o.path else o._replace(path=path) for o in origins)
    elts = v.elts if v.elts is None else tuple(in_path(e, path) for e in v.elts)
    item = v.item if v.item is None else in_path(v.item, path)
    keys = v.keys if v.keys is None else tuple((k, in_path(x, path)) for k, x in v.keys)
    call = v.call if v.call is None else in_path(v.call, path)
    same_elts = elts is None or all(a is b for a, b in zip(elts, v.elts or (), strict=True))
    same_keys = keys is None or all(a[1] is b[1] for a, b in zip(keys, v.keys or (), strict=True))
    if origins is v.origins and item is v.item and call is v.call and same_elts and same_keys:
        return v  # (nothing to name: the same record, made once)
    return v._replace(origins=origins, elts=elts, item=item, keys=keys, call=call)


UNKNOWN = Value()
_SELF_PARTS = frozenset((Kind.TENSOR, Kind.BATCH, Kind.NDARRAY))
BOTTOM = Value(frozenset(), frozenset())


def unknown(reason: Reason) -> Value:
    return Value(reason=reason)


def _cap_places(ps: frozenset[Place]) -> frozenset[Place] | None:
    return ps if len(ps) <= PLACE_CAP else None


def _cap_origins(os_: tuple[Origin, ...]) -> tuple[Origin, ...]:
    return tuple(dict.fromkeys(os_))[:ORIGIN_CAP]


def _union(a: frozenset | None, b: frozenset | None, cap: int) -> frozenset | None:
    if a is None or b is None:
        return None
    u = a | b
    return u if len(u) <= cap else None


def join(a: Value, b: Value) -> Value:
    """The least upper bound of two values."""
    if a is b or a == b:
        return a
    if a == BOTTOM:
        return b
    if b == BOTTOM:
        return a
    a, b = _entries_of(a, b), _entries_of(b, a)
    elts = None
    item = _join_opt(a.item, b.item)
    if a.elts is not None and b.elts is not None and len(a.elts) == len(b.elts):
        elts = tuple(join(x, y) for x, y in zip(a.elts, b.elts, strict=True))
    elif a.elts is not None or b.elts is not None:
        item = _join_opt(item, join_all([*(a.elts or ()), *(b.elts or ())]))
    return Value(
        _union(a.kinds, b.kinds, KIND_CAP),
        _union(a.places, b.places, PLACE_CAP),
        _cap_origins(a.origins + b.origins),
        min(a.basis, b.basis),
        elts,
        item,
        _join_keys(a.keys, b.keys),
        a.reason or b.reason,
        a.call if a.call == b.call else None,
    )


def _entries_of(v: Value, other: Value) -> Value:
    """``v``, a batch joined with ``other``, one that was given entries (``batch["x"] =
    x.to(device)``): every entry of ``v`` is ``v`` itself (what :func:`element` reads of a
    batch), written out for the keys ``other`` holds, so that the join keeps each of them
    (``batch["x"]`` moved in one arm of an ``if`` is on either device after it)."""
    if v.kinds != {Kind.BATCH} or v.item is not None or v.keys is not None or v.elts is not None \
            or other.kinds != {Kind.BATCH} or (other.item is None and other.keys is None):
        return v
    keys = tuple((k, v) for k, _ in other.keys) if other.keys is not None else None
    return v._replace(item=v, keys=keys)


def _join_opt(a: Value | None, b: Value | None) -> Value | None:
    if a is None:
        return b
    if b is None:
        return a
    return join(a, b)


def _join_keys(a: tuple[tuple[str, Value], ...] | None,
               b: tuple[tuple[str, Value], ...] | None) -> tuple[tuple[str, Value], ...] | None:
    if a is None or b is None:
        return None
    da, db = dict(a), dict(b)
    # a key on one path only (``results["aux"] = t`` under an ``if``): reading it succeeds
    # only where that path wrote it (a KeyError elsewhere), so it holds what was written
    return tuple((k, join(v, db[k]) if k in db else v) for k, v in da.items()) + \
        tuple((k, v) for k, v in db.items() if k not in da)


def join_all(values: Iterable[Value]) -> Value:
    """The join of many values (:data:`BOTTOM` for none)."""
    out = BOTTOM
    for v in values:
        out = join(out, v)
    return out


def container(kind_elts: tuple[Value, ...] | None = None, item: Value | None = None,
              keys: tuple[tuple[str, Value], ...] | None = None,
              origin: Origin | None = None) -> Value:
    """A tuple (``kind_elts``), list/set (``item``) or dict (``keys``) of values."""
    if kind_elts is not None and len(kind_elts) > SLOT_CAP:
        item, kind_elts = join_all(kind_elts), None
    if keys is not None and len(keys) > SLOT_CAP:
        item, keys = join_all(v for _, v in keys), None
    return Value(frozenset((Kind.OTHER,)), frozenset(), (origin,) if origin else (),
                 Basis.CONSTRUCTED, kind_elts, item, keys)


def element(v: Value, index: int | str | None) -> Value:
    """What subscripting (or unpacking) ``v`` at ``index`` gives (None: an unknown index)."""
    if isinstance(index, int) and v.elts is not None:
        if -len(v.elts) <= index < len(v.elts):
            return v.elts[index]
        return UNKNOWN
    if isinstance(index, str) and v.keys is not None:
        return dict(v.keys).get(index, v.item or UNKNOWN)
    if v.item is not None:
        return v.item
    if v.elts:
        return join_all(v.elts)
    if v.keys:
        return join_all(x for _, x in v.keys)
    return part_of(v)


def part_of(v: Value) -> Value:
    """A part of a value whose structure is not known (``out.logits``, ``batch[0]``, one of
    ``a, b = model(x)``): a tensor's, a batch's or an array's parts are of its kind and
    place; a part of a value of unknown kind keeps its place, and a part of the unknown
    result of a call keeps that call as its origin (what the rules explain it by)."""
    if v.kinds is not None and len(v.kinds) == 1 and next(iter(v.kinds)) in _SELF_PARTS:
        return v
    if v.places and (v.kinds is None or Kind.MODULE in v.kinds):
        return Value(None, v.places, v.origins, min(v.basis, Basis.INFERRED))
    if v.kinds is None and v.places is None and v.origins and v.origins[0].op is Op.RETURNED:
        return Value(None, None, v.origins[:1], Basis.HINT, reason=v.reason)
    return UNKNOWN


def substitute(v: Value, args: dict[str, Value]) -> Value:
    """Replace each :attr:`Where.PARAM` place of ``v`` (a summary's value) by the places of
    the argument bound to that parameter; an unbound parameter makes the place unknown."""
    if v.places is None or not any(p.where == Where.PARAM for p in v.places):
        return _substitute_slots(v, args)
    places: set[Place] = set()
    # (the callee's "came in as a parameter" is, for the caller, what the argument came from;
    # the arguments' origins follow in the order of the parameters, whatever the set's order)
    origins = tuple(o for o in v.origins if o.op is not Op.PARAM)
    for p in in_order(v.places):
        if p.where != Where.PARAM:
            places.add(p)
            continue
        arg = args.get(p.ref)
        if arg is None or arg.places is None:
            return _substitute_slots(v._replace(places=None), args)
        places |= arg.places
        origins = _cap_origins(origins + arg.origins)  # (what put the argument there)
    return _substitute_slots(v._replace(places=_cap_places(frozenset(places)), origins=origins), args)


def _substitute_slots(v: Value, args: dict[str, Value]) -> Value:
    if v.elts is None and v.item is None and v.keys is None:
        return v
    return v._replace(
        elts=None if v.elts is None else tuple(substitute(e, args) for e in v.elts),
        item=None if v.item is None else substitute(v.item, args),
        keys=None if v.keys is None else tuple((k, substitute(x, args)) for k, x in v.keys),
    )


# -- numbers and 0-dimensional tensors, as the source writes them ------------------------


def number_value(node: ast.AST | None, *, signed: bool = True) -> int | float | None:
    """The number ``node`` writes out (``0.5``, ``3``; with ``signed``, also ``-1`` and
    ``+2``), never a bool (``True`` is an ``int`` to Python, not a number to PyTorch's
    signatures); None for anything else.

    >>> [number_value(ast.parse(s, mode="eval").body) for s in ("0.5", "-1", "True", "'1'")]
    [0.5, -1, None, None]
    >>> number_value(ast.parse("-1", mode="eval").body, signed=False) is None
    True
    """
    if signed and isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = number_value(node.operand, signed=False)
        return None if inner is None else -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
            not isinstance(node.value, bool):
        return node.value
    return None


def is_number(node: ast.AST | None) -> bool:
    """Is ``node`` a number written out (``0.5``, ``-1``), not a bool?"""
    return number_value(node) is not None


def number_defaults(a: ast.arguments) -> dict[str, ast.arg]:
    """The parameters of ``a`` whose default is a number written out (``eps=1e-9``,
    ``k=-1``), by name."""
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True))
    pairs += [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    return {x.arg: x for x, d in pairs if is_number(d)}


#: torch factories whose result has no dimension when given the empty shape ``()``
_SHAPE_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full"})


#: torch factories whose positional arguments, or first argument written out as a tuple or
#: list, are sizes (``torch.zeros(n, m)``, ``torch.randn((n, m))``)
_SIZED_FACTORIES = _SHAPE_FACTORIES | {"torch.rand", "torch.randn"}

#: ``torch.nn`` layers whose first two positional arguments are sizes (integers)
_SIZED_LAYERS = frozenset(f"torch.nn.{c}" for c in (
    "Linear", "Bilinear", "Embedding", "EmbeddingBag", "Conv1d", "Conv2d", "Conv3d",
    "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"))
_SIZE_KEYWORDS = frozenset({"in_features", "out_features", "in_channels", "out_channels",
                            "num_embeddings", "embedding_dim"})


def sizes_given(qualname: str | None, call: ast.Call) -> list[ast.expr]:
    """The arguments of ``call`` (a call of ``qualname``) that are each one size, so an
    integer: a ``torch.nn`` layer's two sizes (``nn.Linear(d, out_features=k)``), an item
    of a shape written out for a factory (``torch.zeros((d, d))``), or any of two or more
    positional sizes (``torch.randn(n, d)``; a lone ``torch.zeros(s)`` may take a shape).

    >>> call = ast.parse("torch.zeros((dim, 3), dtype=t)", mode="eval").body
    >>> [ast.unparse(e) for e in sizes_given("torch.zeros", call)]
    ['dim', '3']
    >>> sizes_given("torch.zeros", ast.parse("torch.zeros(shape)", mode="eval").body)
    []
    """
    args = call.args
    if qualname in _SIZED_LAYERS:
        return [*args[:2], *(k.value for k in call.keywords if k.arg in _SIZE_KEYWORDS)]
    if qualname not in _SIZED_FACTORIES or not args or any(isinstance(a, ast.Starred) for a in args):
        return []
    if isinstance(args[0], (ast.Tuple, ast.List)):
        return [e for e in args[0].elts if not isinstance(e, ast.Starred)]
    return [] if qualname == "torch.full" or len(args) < 2 else list(args)


#: torch functions of one tensor that keep its shape (a 0-dim tensor stays 0-dim)
ELEMENTWISE = frozenset(f"torch.{f}" for f in (
    "sqrt", "rsqrt", "exp", "log", "log2", "log10", "log1p", "abs", "neg", "sigmoid", "tanh",
    "reciprocal", "square"))


def zero_dim_made(qualname: str | None, call: ast.Call,
                  number: Callable[[ast.expr], bool] = is_number) -> bool:
    """Does ``call``, a call of the torch function ``qualname``, make a 0-dimensional tensor
    by construction: ``torch.scalar_tensor(v)``, ``torch.tensor(v)`` of a number (``v``
    for which ``number`` holds: by default, a number written out), ``torch.zeros(())``
    (``ones``, ``empty``, ``full``)?  Its keywords are not looked at: ``dtype=`` or
    ``device=`` do not give it a dimension.

    >>> call = ast.parse("torch.tensor(-0.5, dtype=torch.float)", mode="eval").body
    >>> zero_dim_made("torch.tensor", call), zero_dim_made("torch.tensor", call, lambda e: False)
    (True, False)
    >>> zero_dim_made("torch.zeros", ast.parse("torch.zeros(())", mode="eval").body)
    True
    """
    if qualname == "torch.scalar_tensor":
        return True
    args = call.args
    if not args or isinstance(args[0], ast.Starred):
        return False
    if qualname == "torch.tensor":
        return len(args) == 1 and number(args[0])
    return qualname in _SHAPE_FACTORIES and isinstance(args[0], (ast.Tuple, ast.List)) and \
        not args[0].elts
