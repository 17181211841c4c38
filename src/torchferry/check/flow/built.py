"""Where a module of the run is when it is built: its ``__init__`` may move its weighted
submodules, or itself, to a place its constructor's arguments give
(``self.actor = nn.Sequential(...).to(self.device)``, ``self.embed = nn.Embedding(n,
d).to(device)``, ``self.to(device)``, ``self = self.to(device)``, ``self.lstm =
nn.LSTM(...).cuda()``).  The instance
``Agent(obs, act, device)`` is at that place only when every weighted submodule (and
parameter) of the class ends there; a move on a branch, or of some submodules only,
leaves it unknown."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.lattice import ACCEL, CPU, Kind, Op, Place, Value, Where
from torchferry.check.names import self_attr

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

Places = frozenset[Place]


class Argument(NamedTuple):
    """What a construction gives one parameter of ``__init__``: the expression (None for
    the parameter's default) and its value at the call."""

    node: ast.expr | None
    value: Value | None


def weightless_layer(text: str) -> bool:
    """Does the constructor call ``text`` build a ``torch.nn`` module without weights?  (Each
    branch's: ``nn.CrossEntropyLoss()`` on one, ``nn.CTCLoss()`` on the other.)"""
    if not text.startswith("torch.nn."):
        return False
    name = text.split("(", 1)[0].rsplit(".", 1)[-1]
    return name not in vocab.PARAM_LAYERS and name not in vocab.CONTAINERS and \
        name not in vocab.WRAPPERS and name not in ("Module", "Identity") and name[:1].isupper()


def init_places(info: ClassInfo, bound: dict[str, Argument], caller: FileFlow) -> tuple[bool, Places | None]:
    """Where ``info``'s ``__init__`` leaves the instance, given what the construction (a
    call of ``caller``) binds to each parameter name (``bound``; a parameter missing from
    it takes its default): ``(False, None)`` when ``__init__`` moves nothing (the caller's
    own rule applies: built on the CPU) or is over the analysis's budget, ``(True,
    places)`` when every weighted submodule ends at ``places``, ``(True, None)`` when they
    may not all be at one known place (or the class is built while its ``__init__`` runs)."""
    init = info.method("__init__")
    if init is None:
        return False, None
    inherits = any(c is not init[0] and "__init__" in c.methods for c in info.lineage())
    owner, fn = init[0].ff, init[1]
    if owner.building(fn):
        return True, None  # (``self.child = Tree(d - 1)``: not known yet)
    res = owner.summary(fn, caller)
    if res is None:
        return False, None
    if not inherits:
        return _walk(fn, res.stores, bound)
    return _walk_inherited(fn, res.stores, bound)


_BASE = ""  # the submodules a base class's ``__init__`` builds, as one key of :func:`_walk`


def _walk_inherited(fn: ast.FunctionDef | ast.AsyncFunctionDef, stores: dict[str, Value],
                    bound: dict[str, Argument]) -> tuple[bool, Places | None]:
    """:func:`_walk` for an ``__init__`` whose class has a base of the run with its own
    ``__init__``: the base's submodules are not in ``stores``, so the place is told only
    by a whole-module move (``self.to(device)``) run on every construction after the
    base's ``__init__`` (``super().__init__(...)``, a statement of the body itself); one
    under a branch leaves the place unknown.  With no such move the instance "moves
    nothing" (``(False, None)``), as before: the base's layers are taken as built on the
    CPU and left there."""
    base = next((st for st in fn.body if _base_init(st)), None)
    if base is None or not any(_whole_move(st) for st, _ in _statements(fn.body, False)):
        return False, None
    return _walk(fn, stores, bound, base_after=base)


def _whole_move(st: ast.stmt) -> bool:
    """Is the statement a whole-module move in place (``self.to(device)``, ``self.cuda()``,
    ``self = self.to(device)``)?"""
    move_of = _moved_in_place(st)
    return move_of is not None and move_of[0] == ""


def _walk(fn: ast.FunctionDef | ast.AsyncFunctionDef, stores: dict[str, Value],
          bound: dict[str, Argument], base_after: ast.stmt | None = None) -> tuple[bool, Places | None]:
    """:func:`init_places` over the statements of ``fn``, whose interpretation stores
    ``stores`` on ``self``; ``(True, None)`` as soon as a move is under a branch or a loop
    or names no device.  With ``base_after`` (the statement that runs a base class's
    ``__init__``), the base's submodules count as one more weighted entry, at no known
    place until a whole-module move after that statement places them."""
    weighted = {a for a, v in stores.items() if _weighted(v)}
    if base_after is not None:
        weighted.add(_BASE)
    if not weighted:
        return False, None
    params = _params(fn, bound)
    aliases: dict[str, Places | None] = {}  # ``self.device = device``
    at: dict[str, Places | None] = {_BASE: None} if base_after is not None else {}
    moved = False
    for st, nested in _statements(fn.body, False):
        if st is base_after:
            at[_BASE] = None  # (built now, wherever the base's ``__init__`` leaves them)
        target, value = _assigned(st)
        if target is not None and value is not None and target.startswith("self."):
            attr = target[5:]
            if attr in weighted:
                inner, move = _strip_move(value)
                if move is not None:
                    if nested or _names_no_device(move):
                        return True, None
                    at[attr] = _target(move, params, aliases)
                    moved = True
                elif not (isinstance(inner, ast.Attribute) and self_attr(inner) == attr):
                    at[attr] = _made_places(stores[attr])
            elif not nested:
                aliases[attr] = _device_of(value, params, aliases)
            continue
        move_of = _moved_in_place(st)
        if move_of is None:
            continue
        if nested or _names_no_device(move_of[1]):
            return True, None
        moved = True
        who, places = move_of[0], _target(move_of[1], params, aliases)
        if who == "":
            at = {a: places for a in weighted}
        elif who in weighted:
            at[who] = places
    if not moved and not any(_placed_by_its_constructor(stores[a]) for a in weighted if a != _BASE):
        return False, None
    found = {at[a] if a in at else _made_places(stores[a]) for a in weighted}
    if len(found) != 1 or None in found:
        return True, None
    return True, next(iter(found))


def _weighted(v: Value) -> bool:
    """A stored value with weights: a module that is not built of weightless ``torch.nn``
    layers alone, or an ``nn.Parameter``."""
    made = [o for o in v.origins if o.op is Op.MADE]
    if v.kinds == frozenset((Kind.MODULE,)):
        return not (made and all(weightless_layer(o.text) for o in made))
    return v.kinds == frozenset((Kind.TENSOR,)) and any(
        o.text.startswith(("torch.nn.Parameter", "torch.nn.parameter.Parameter")) for o in made)


def _made_places(v: Value) -> Places | None:
    """Where a submodule ``__init__`` does not move stays: where its value says, when that
    is the CPU or an accelerator (``self.enc = Encoder(n, device)`` where that constructor
    puts it); unknown otherwise (a module handed in)."""
    if v.places and all(p.where in (Where.CPU, Where.ACCEL) for p in v.places):
        return v.places
    return None


def _placed_by_its_constructor(v: Value) -> bool:
    """A submodule that its own constructor may have put elsewhere than the CPU
    (``self.enc = Encoder(n, device)``, one of a class whose ``__init__`` moves its
    layers)."""
    return bool(v.places and ACCEL in v.places) or any(o.op is Op.MOVED for o in v.origins)


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef, bound: dict[str, Argument]) -> dict[str, Argument]:
    """Each parameter of ``fn`` (but ``self``) -> what the call binds to it, or its default."""
    names = param_names(fn)[1:]
    pos = fn.args.posonlyargs + fn.args.args
    defaults = dict(zip([a.arg for a in pos][len(pos) - len(fn.args.defaults):], fn.args.defaults, strict=True))
    defaults.update((a.arg, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None)
    out: dict[str, Argument] = {}
    for name in names:
        if name in bound:
            out[name] = bound[name]
        elif name in defaults:
            out[name] = Argument(defaults[name], None)
    return out


def _statements(body: list[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Each statement of ``body`` in order, with whether it runs under a branch, a loop or
    a handler (not on every construction); not into nested functions or classes."""
    for st in body:
        yield st, nested
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _statements(inner, nested or not isinstance(st, (ast.With, ast.AsyncWith)))
        for h in getattr(st, "handlers", []):
            yield from _statements(h.body, True)


def _assigned(st: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``self.x = v`` / ``self.x: T = v``: (``"self.x"``, v); else (None, None)."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1:
        target: ast.expr = st.targets[0]
        value: ast.expr | None = st.value
    elif isinstance(st, ast.AnnAssign):
        target, value = st.target, st.value
    else:
        return None, None
    attr = self_attr(target)
    return (f"self.{attr}" if attr is not None else None), value


def _strip_move(value: ast.expr) -> tuple[ast.expr, ast.Call | None]:
    """``nn.LSTM(..).cuda()``, ``nn.Linear(..).to(device)``: (the module expression, the
    outermost move), skipping casts (``.float()``, ``.double()``); (value, None) with no
    move."""
    node = value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("to", "cuda", "cpu"):
            inner = node.func.value
            while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and \
                    inner.func.attr in ("to", "cuda", "cpu", "float", "double", "half"):
                inner = inner.func.value
            return inner, node
        if node.func.attr not in ("float", "double", "half", "train", "eval"):
            break
        node = node.func.value
    return value, None


def _in_place_move(call: ast.Call | None) -> tuple[str, ast.Call] | None:
    """``self.to(d)`` / ``self.cuda()`` (("", call)) or ``self.lstm.to(d)`` (("lstm", call))
    as a statement: a module moved in place."""
    if call is None or not isinstance(call.func, ast.Attribute) or call.func.attr not in ("to", "cuda", "cpu"):
        return None
    recv = call.func.value
    if isinstance(recv, ast.Name) and recv.id == "self":
        return "", call
    attr = self_attr(recv)
    return (attr, call) if attr is not None else None


def _moved_in_place(st: ast.stmt) -> tuple[str, ast.Call] | None:
    """The module the statement moves in place, as :func:`_in_place_move` tells it, for a
    move written as a statement of its own (``self.lstm.cuda()``) or as the rebinding
    ``self = self.to(device)`` (casts and mode switches around the move allowed,
    ``self = self.to(device).float()``): ``Module.to``, ``cuda`` and ``cpu`` move the
    module in place and return it (``return self._apply(...)``, torch 2.13
    ``torch/nn/modules/module.py``), so the name ``self`` stays bound to the same
    instance, now moved."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
            isinstance(st.targets[0], ast.Name) and st.targets[0].id == "self":
        inner, move = _strip_move(st.value)
        if move is not None and isinstance(inner, ast.Name) and inner.id == "self":
            return "", move
        return None
    return _in_place_move(_expr_call(st))


def _expr_call(st: ast.stmt) -> ast.Call | None:
    """The call a statement of its own is (``self.to(device)``), or None."""
    return st.value if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) else None


def _base_init(st: ast.stmt) -> bool:
    """Does the statement run a base class's ``__init__``: ``super().__init__(...)``,
    ``super(Cls, self).__init__(...)`` or ``Base.__init__(self, ...)``?"""
    call = _expr_call(st)
    if call is None or not isinstance(call.func, ast.Attribute) or call.func.attr != "__init__":
        return False
    recv = call.func.value
    if isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super":
        return True
    return isinstance(recv, (ast.Name, ast.Attribute)) and bool(call.args) and \
        isinstance(call.args[0], ast.Name) and call.args[0].id == "self"


def _names_no_device(move: ast.Call) -> bool:
    """A ``.to(...)`` given nothing positionally and no ``device=`` (``.to(dtype=torch.half)``):
    not a move the class's author would write here, so the instance's place is not told."""
    return isinstance(move.func, ast.Attribute) and move.func.attr == "to" and not move.args \
        and not any(k.arg == "device" for k in move.keywords)


def _target(move: ast.Call, params: dict[str, Argument], aliases: dict[str, Places | None]) -> Places | None:
    """Where the move ``move`` (``.cuda()``, ``.cpu()``, ``.to(d)``) puts a module."""
    assert isinstance(move.func, ast.Attribute)
    if move.func.attr == "cuda":
        return frozenset((ACCEL,))
    if move.func.attr == "cpu":
        return frozenset((CPU,))
    target = move.args[0] if move.args else next((k.value for k in move.keywords if k.arg == "device"), None)
    return None if target is None else _device_of(target, params, aliases)


def _device_of(node: ast.expr, params: dict[str, Argument], aliases: dict[str, Places | None]) -> Places | None:
    """The place the device expression ``node`` of ``__init__`` names: a string, a parameter
    (what the call gives it), ``self.device`` set from one, ``torch.device(p)``; None when
    not known."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        where = vocab.literal_where(node.value)
        return frozenset((Place(where),)) if where is not None else None
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
            isinstance(node.func, ast.Attribute) and node.func.attr == "device":
        return _device_of(node.args[0], params, aliases)
    if isinstance(node, ast.Name) and node.id in params:
        return _argument_places(params[node.id], params, aliases)
    attr = self_attr(node)
    if attr is not None and attr in aliases:
        return aliases[attr]
    return None


def _argument_places(arg: Argument, params: dict[str, Argument], aliases: dict[str, Places | None]) -> Places | None:
    """Where a device the call binds puts a module, as ``.to(arg)`` at the call would: a
    string's place, a device value's known places, else a device the code chose (it may be
    an accelerator); the default ``None`` moves nothing (the CPU, where it was built)."""
    node, v = arg
    if v is None:  # the parameter's default
        if isinstance(node, ast.Constant) and node.value is None:
            return frozenset((CPU,))
        return _device_of(node, {}, {}) if node is not None else None
    if isinstance(node, ast.Constant):
        return frozenset((CPU,)) if node.value is None else _device_of(node, {}, {})
    if v.kinds is not None and not v.may_be(Kind.DEVICE):
        return None  # (not a device: ``.to(dtype)``, a number the code passes on)
    if v.places and all(p.where in (Where.CPU, Where.ACCEL) for p in v.places):
        return v.places
    return frozenset((ACCEL,))
