"""Which parameters of a function reach a module's weights as they came in.

A function *feeds* its parameter ``k`` to a module when, on some call of the function, the
value of parameter ``k`` -- unchanged in place (``h = x``, ``x.view(-1)``, a helper that
gives back a copy of it: not moved, not joined with anything else) -- is the input (the
first positional argument) of that module's call::

    class Net(nn.Module):
        def predict(self, x):                    # feeds x (parameter 1) ...
            h = x
            for layer in self.layers:            # ... to the first layer, on the loop's
                h = layer(h)                     #     first round
            return h

A call of a function of the file that feeds one of its parameters feeds the caller's
parameter it is given, so ``net.train(x_pos, x_neg)`` -> ``layer.train(h_pos, h_neg)``
-> ``self.forward(x_pos)`` is followed down to the module: the module is given in the
caller's terms (a parameter's place, ``self``'s, replaced by the argument's), so at the
outermost call it is the value the caller holds (``layer``, an item of ``self.layers``,
moved in ``__init__``).  In a loop, a call counts when its first run surely sees the
parameter as it came in (:func:`~torchferry.check.flow.first_run.first_run`).

Functions and methods of the same file are followed (a module class's method called
on an instance the file built, ``net.train(x)``; ``self.step(x)``; ``helper(x)``), and
functions defined at module level in another file of the run for a module that the caller
hands them (``loss(model=model, x=data)`` of ``from trades import loss``), and methods
of a plain class of another file called on an instance the calling file built
(``algo.update(x)`` of ``from algo import Algo``), for a module the call hands them or
one the class keeps on the CPU or the device (``self.encoder = Enc().to(device)`` in
``__init__``: such a place means the same in every file, where a parameter's or an
attribute's is the other file's), six calls deep, with the call's arguments bound by
position or by keyword
(:mod:`~torchferry.check.flow.binding`); a call that spreads ``*args`` or ``**kw`` is not.

A parameter of no kind of its own called as a function (``model_fn(x)``) is a module's
call where the caller gives that parameter a module (``attack(net, x)``): a summary of a
function of another file is interpreted without its callers' kinds (only the file's own
check specialises it with them), so the parameter is bound to the caller's module here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NamedTuple

from torchferry.check.flow.binding import Arg, Binding, bind
from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.first_run import first_run
from torchferry.check.flow.instances import held_attr, instance_class
from torchferry.check.flow.lattice import Kind, Value, Where, in_path, param, substitute
from torchferry.check.flow.program import mro
from torchferry.check.flow.receivers import made_classes, refused

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: calls followed below the function asked about
MAX_FEED_DEPTH = 6


class Feed(NamedTuple):
    """A parameter handed, as it came in, to a module's call.

    ``module``: the module in the terms of the function asked about (its places are that
    function's, a parameter's place standing for whatever the caller gives);
    ``call``: the module's call, in the scope ``scope`` (the innermost function);
    ``via``: the calls that hand the parameter down to it, outermost first;
    ``path``: the file of ``call`` when it is another file of the run than the one asked
    about (None: that file)."""

    param: int
    module: Value
    call: CallEvent
    scope: ScopeResult
    via: tuple[CallEvent, ...] = ()
    path: str | None = None


def feeds(ff: FileFlow, res: ScopeResult, depth: int = 0,
          active: frozenset[int] = frozenset()) -> dict[int, list[Feed]]:
    """The parameters of ``res``'s function that reach a module's input as they came in
    (parameter index -> the modules they reach; see the module docstring)."""
    out: dict[int, list[Feed]] = {}
    if depth > MAX_FEED_DEPTH or id(res.node) in active:
        return out
    memo = ff.feeds_memo
    done = memo.get(id(res.node))
    if done is not None:  # (inside a cycle, what was found before it closed: fewer feeds)
        return done
    active = active | {id(res.node)}
    memo[id(res.node)] = out
    for c in list(res.calls.values()):
        event = first_run(res, c.node) or c
        fed = _module_input(event)
        if fed is not None:
            k = _as_param(fed[1])
            if k is not None:
                out.setdefault(k, []).append(Feed(k, fed[0], event, res))
            continue
        for _, arg, inner in call_feeds(ff, res, event, depth, active):
            k = _as_param(arg)
            if k is not None:
                out.setdefault(k, []).append(inner._replace(param=k))
    return out


def call_feeds(ff: FileFlow, res: ScopeResult, c: CallEvent, depth: int = 0,
               active: frozenset[int] = frozenset()) -> list[tuple[Arg, Value, Feed]]:
    """For ``c``, a call in ``res`` of a function or method of this file: each argument
    the call writes out (by position or keyword) that the callee hands to a module's input,
    as (the argument, its value, the feed with the module in the caller's terms and ``c``
    first in ``via``)."""
    target = callee_of(ff, res, c, across=True)
    if target is None:
        return []
    fed = _fed_by_every_class(ff, res, c, target, depth, active)
    bound = target.bound
    elsewhere = target.owner is not ff
    out = []
    for j, found in feeds(target.owner, target.callee, depth + 1, active).items():
        given = target.args.get(j)
        if given is None or str(j) not in bound or id(given.node) not in fed:
            continue
        arg = bound[str(j)]
        for f in found:
            module = f.module
            if elsewhere and not _a_parameter(module, bound):
                if c.callee is not Callee.METHOD or not _placed_alike(module):
                    continue  # (a module of the other file's own: its places are that file's)
                module = in_path(module, target.owner.path)
            lifted = f._replace(module=substitute(module, bound), via=(c, *f.via),
                                path=f.path or (target.owner.path if elsewhere else None))
            if f.call.callee is Callee.UNRESOLVED:  # (a parameter called as a function: a module only
                given_module = bound.get(str(_as_param(f.module)))  # where the call gives one,
                if given_module is None or not given_module.is_(Kind.MODULE) and not (  # or the
                        given_module.kinds is None and _as_param(given_module) is not None):  # caller's
                    continue  # own parameter, for its callers to give)
                lifted = lifted._replace(module=given_module)
            held = _held_by_receiver(ff, res, c, f)
            out.append((given, arg, lifted if held is None else lifted._replace(module=held)))
    return out


def _fed_by_every_class(ff: FileFlow, res: ScopeResult, c: CallEvent, target: CallTarget, depth: int,
                        active: frozenset[int]) -> set[int]:
    """The arguments of ``c`` (by node id) that ``target``'s callee hands to a module's
    input and, where ``c`` is a method call on a receiver that several constructors of the
    run may have built (``A(n).to(d) if attention else B(n).to(d)``), that the method of
    each of the other classes hands to one too; a class whose method Python would refuse
    the call (:func:`~torchferry.check.flow.receivers.refused`) never runs it.  Empty when
    another class's method is not known or its binding is not."""
    mine = {id(a.node) for j, a in target.args.items() if j in feeds(target.owner, target.callee, depth + 1, active)}
    recv = c.receiver
    if c.callee is not Callee.METHOD or recv is None or not c.qualname:
        return mine
    for info in made_classes(ff, recv):
        found = info.method(c.qualname)
        if found is not None and found[1] is target.callee.node or refused(info, c.qualname, c.node):
            continue
        other = callee_of(ff, res, c, across=True, cls=info)
        if other is None:
            return set()
        theirs = feeds(other.owner, other.callee, depth + 1, active)
        mine &= {id(a.node) for j, a in other.args.items() if j in theirs}
    return mine


def _held_by_receiver(ff: FileFlow, res: ScopeResult, c: CallEvent, f: Feed) -> Value | None:
    """For ``agent.act(x)`` (``c``, a method of a plain class called on an instance) whose
    feed runs ``self.<attr>`` of that instance (in ``act`` itself or through its calls of
    ``self``'s methods): ``agent.<attr>`` as the caller moved it from outside the class
    (:func:`~torchferry.check.flow.instances.held_attr`); None otherwise."""
    func = f.call.node.func
    if c.callee is not Callee.METHOD or c.receiver is None or not isinstance(c.node.func, ast.Attribute) \
            or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) \
            or not f.scope.params or func.value.id != f.scope.params[0] or f.call.callee is not Callee.MODULE:
        return None
    if not all(v.callee is Callee.FUNCTION and v.args and v.args[0].places == {param(0)}
               and len(v.args) == len(v.node.args) + 1 for v in f.via):
        return None  # (not every call between is ``self.step(x)``)
    return held_attr(ff, res, c.node.func.value, c.receiver, func.attr)


class CallTarget(NamedTuple):
    """A call of a function or method of this file, bound (:func:`callee_of`).

    ``callee``: the callee's interpretation; ``bound``: the caller's values bound to its
    parameters (index as a string -> value; ``self`` of a method called on an instance
    included); ``first``: the parameter the call's first positional argument binds;
    ``args``: the arguments the call writes out, by the parameter they bind; ``owner``:
    the file that defines the callee."""

    callee: ScopeResult
    bound: dict[str, Value]
    first: int
    args: dict[int, Arg]
    owner: FileFlow


def callee_of(ff: FileFlow, res: ScopeResult, c: CallEvent, across: bool = False,
              cls: ClassInfo | None = None) -> CallTarget | None:
    """The callee of ``c``, a call of a function or method of this file, with its
    arguments bound to its parameters by position and by keyword (:func:`bind`); None
    otherwise, or when the binding is not known (``*args`` or ``**kw`` spread).
    ``across``: also a function defined at module level in another file of the run
    (``trades_loss(model=model, x_natural=data)`` of ``from trades import trades_loss``)
    and a method of a class of another file called on an instance this file built (a
    plain class's, or a module class's: ``self.decoder.step(i, h)``).  ``cls``: the class
    whose method a method call runs, where the receiver may be of several
    (:func:`~torchferry.check.flow.receivers.made_classes`)."""
    if c.callee not in (Callee.FUNCTION, Callee.METHOD):
        return None
    fn: ast.AST
    if c.callee is Callee.METHOD:
        recv = c.receiver
        info = cls or (ff.class_of(recv) if recv is not None and c.qualname else None)
        if info is None and recv is not None and c.qualname and isinstance(c.node.func, ast.Attribute) \
                and _plain_method(ff, c.qualname):
            info = instance_class(ff, res, c.node.func.value, recv)  # (a parameter of the callers')
        found = info.method(c.qualname) if info is not None and c.qualname else None
        if found is None or recv is None or found[0].ff is not ff and not (
                across and (ff.plain_instance(recv) or recv.is_(Kind.MODULE) and info is not None
                            and info.is_module)):
            return None  # (of another file: a method of a plain class or a module class only)
        lead: tuple[Value, ...] = (recv,)
        owner, fn, first = found[0].ff, found[1], 1
    else:
        cls = ff.method_of.get(id(res.node))
        self_name = res.params[0] if cls is not None and res.params else None
        t = ff.target_of(c.node, cls, self_name)
        if t is None or t[0] is not ff and not (across and t[2] == 0 and _module_level(t[0], t[1])) \
                or t[2] > 1 or cls is not None and t[2] == 1 and _overridden(ff, cls, t[1]):
            return None
        owner, fn, first = t
        lead = c.args[:first]  # (``self.f(x)`` is recorded with ``self`` first)
    binding = bind(fn, c.node, first)
    if binding is None or len(c.args) != len(c.node.args) + len(lead) * (c.callee is Callee.FUNCTION):
        return None
    callee = owner.summary(fn, ff)
    if callee is None:
        return None
    return CallTarget(callee, bound_values(binding, c, lead), first, binding.args, owner)


def _module_level(owner: FileFlow, fn: ast.AST) -> bool:
    """Is ``fn`` a function ``owner`` defines at module level?"""
    name = getattr(fn, "name", None)
    return name is not None and owner.defs.get(name) is fn


def bound_values(binding: Binding, c: CallEvent, lead: tuple[Value, ...]) -> dict[str, Value]:
    """The caller's values of the arguments ``binding`` binds (parameter index as a string
    -> value), the first parameters given ``lead`` (``self``)."""
    out = {str(k): v for k, v in enumerate(lead)}
    skip = len(c.args) - len(c.node.args)  # (values recorded before the positional ones)
    for k, a in binding.args.items():
        v = c.args[skip + a.position] if a.position is not None else c.keyword(a.keyword or "")
        if v is not None:
            out[str(k)] = v
    return out


def _plain_method(ff: FileFlow, name: str) -> bool:
    """Does a plain class (not a module) of this file define a method ``name``?"""
    return any(not info.is_module and name in info.methods for info in ff.classes.values())


def _overridden(ff: FileFlow, cls: ClassInfo, fn: ast.AST) -> bool:
    """Does a subclass of ``cls`` in this file define its own ``fn`` (``self.step(x)`` may
    run that one instead)?"""
    name = getattr(fn, "name", "")
    for info in ff.classes.values():
        own = info.methods.get(name)
        if own is not None and own is not fn and any(b is cls for b in mro(info)):
            return True
    return False


def _module_input(c: CallEvent) -> tuple[Value, Value | None] | None:
    """The module a call runs and its input (the first positional argument, not
    ``*args``): a module's call, ``model(x)``, or its ``forward`` called by name,
    ``self.forward(x)`` (a ``forward`` of the file is recorded as a function given
    ``self`` first).  None for any other call."""
    func = c.node.func
    named = isinstance(func, ast.Attribute) and func.attr == "forward"
    if c.callee is Callee.MODULE:
        module, values = c.func, c.args
    elif named and c.callee is Callee.METHOD and c.receiver is not None and c.receiver.is_(Kind.MODULE):
        module, values = c.receiver, c.args
    elif named and c.callee is Callee.FUNCTION and c.args and c.args[0].is_(Kind.MODULE) \
            and len(c.args) == len(c.node.args) + 1:
        module, values = c.args[0], c.args[1:]
    elif c.callee is Callee.UNRESOLVED and isinstance(func, ast.Name) and c.func.kinds is None \
            and _as_param(c.func) is not None:
        module, values = c.func, c.args  # (``model_fn(x)``: a module where the caller gives one)
    else:
        return None
    if not c.node.args or isinstance(c.node.args[0], ast.Starred) or not values:
        return module, None
    return module, values[0]


def _placed_alike(v: Value) -> bool:
    """Is ``v`` placed only on the CPU or an accelerator, places that mean the same in
    every file (no parameter's or attribute's place, which would be the other file's)?"""
    return bool(v.places) and not any(p.symbolic for p in v.places or ())


def _a_parameter(v: Value, bound: dict[str, Value]) -> bool:
    """Is ``v`` made of its function's parameters alone, each one the call binds (once
    substituted, it is the caller's argument)?"""
    return bool(v.places) and all(p.where is Where.PARAM and p.ref in bound for p in v.places or ())


def _as_param(v: Value | None) -> int | None:
    """The parameter ``v`` is, when it lives where that parameter does and nowhere else."""
    if v is None or v.places is None or len(v.places) != 1:
        return None
    p = next(iter(v.places))
    return int(p.ref) if p.where is Where.PARAM else None
