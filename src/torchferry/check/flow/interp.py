"""The abstract interpretation of one scope (a function, a method, a module's top level).

Statements update an environment (name -> :class:`Value`) in order; ``if``/``else``,
``try`` and ``match`` arms are interpreted from the same state and joined; a loop's body
is run until its entry state stops changing (at most :data:`LOOP_ROUNDS` rounds, then
whatever still changes is widened to unknown).  Expressions are evaluated by
:mod:`torchferry.check.flow.calls`; this module handles binding, containers and control.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchferry.check.flow.batches import made_item, param_batch_targets
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.events import AnyKey, MeetEvent, Position, ScopeResult
from torchferry.check.flow.lattice import (
    BOTTOM,
    CPU,
    ORIGIN_CAP,
    SLOT_CAP,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Reason,
    Value,
    Where,
    container,
    element,
    join,
    join_all,
    number_defaults,
    outside,
    param,
    unknown,
)
from torchferry.check.flow.libfacts import (
    SAVED_TENSORS,
    Placement,
    autograd_backward,
    hook_parameter,
)
from torchferry.check.flow.narrowing import decided, narrowed, narrowings
from torchferry.check.flow.optimizers import STATE, is_state, kept_state
from torchferry.check.flow.outputs import output_item
from torchferry.check.flow.places import whole_batch
from torchferry.check.flow.vocab import MOVE_NAMES

if TYPE_CHECKING:
    from torchferry.check.flow.instances import ByCallers
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: rounds of a loop body before what still changes becomes unknown
LOOP_ROUNDS = 3
#: an assignment of a literal (or a call) longer than this many lines is not evaluated
LARGE_LITERAL = 40

Env = dict[str, Value]
_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_DEVICE = frozenset((Kind.DEVICE,))
_TENSOR_HINT = frozenset((Kind.TENSOR,))
#: the environment's key of ``self.<attr>`` (not an identifier: no name can clash with it)
SELF_KEY = "self."


def function_reference(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Value:
    """A function of the file as a value (``loss_fn = log_likelihood``): calling the value
    calls the function (:func:`~torchferry.check.flow.resolve.referenced`)."""
    return Value(frozenset((Kind.OTHER,)), frozenset(),
                 (Origin(Op.REFERENCE, fn.lineno, fn.col_offset, fn.name, node=fn),), Basis.CONSTRUCTED)


def class_reference(cls: ast.ClassDef, path: str | None = None) -> Value:
    """A class of the run as a value (``agent = Agent``, ``Builder = Agent``; ``path``: the
    file defining it, None for this file): calling the value builds an instance of the
    class (:func:`~torchferry.check.flow.resolve.referenced`)."""
    return Value(frozenset((Kind.OTHER,)), frozenset(),
                 (Origin(Op.REFERENCE, cls.lineno, cls.col_offset, cls.name, path=path, node=cls),),
                 Basis.CONSTRUCTED)


def join_env(a: Env | None, b: Env | None) -> Env | None:
    """Join two environments; a name bound on one side only keeps its value (it may be
    unbound on the other, which is an error at run time, not a value)."""
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    for k, v in b.items():
        w = out.get(k)
        out[k] = v if w is None else join(w, v)
    return out


class Interp:
    """Interprets one scope; :meth:`run` returns its :class:`ScopeResult`."""

    def __init__(self, ff: FileFlow, node: ast.AST, cls: ClassInfo | None = None,
                 outer: Env | None = None, given: dict[int, Kind] | None = None,
                 by_callers: ByCallers | None = None) -> None:
        self.ff = ff
        self.node = node
        self.cls = cls
        self.outer = outer or {}
        #: the kinds of the parameters one call gives (a specialised interpretation, see
        #: :meth:`FileFlow.returns_given`: it records no call sites and no nested scopes)
        self.given = given
        #: what every call of the run hands some parameters: an instance of a plain class
        #: of the run, or a module (:func:`~torchferry.check.flow.instances.given_by_callers`)
        self.instances = by_callers.instances if by_callers is not None else {}
        self.modules = by_callers.modules if by_callers is not None else frozenset()
        #: the parameters every call of the run hands a generator object of the run, with it
        self.streams = dict(by_callers.streams) if by_callers is not None else {}
        #: the device parameters every call of the run points at the CPU
        self.cpu_devices = by_callers.cpu_devices if by_callers is not None else frozenset()
        self.res = ScopeResult(node)
        self.env: Env = {}
        self.self_name: str | None = None
        #: ``self.<attr>`` as the method found it: nothing, or what every construction of
        #: the run gives an attribute ``__init__`` keeps (:class:`ByCallers`)
        self.self_env: Env = dict(by_callers.attrs) if by_callers is not None else {}
        #: ``setattr(self, name, ...)`` with a computed name was met: any ``self`` attribute
        #: read after it may have been replaced
        self.dynamic_self = False
        #: the environments at the scope's normal exits (a ``return``, the end of its body)
        self.exits: list[Env] = []
        self.param_index: dict[str, int] = {}
        #: the ``for`` loops being interpreted, innermost last
        self.fors: list[ast.For | ast.AsyncFor] = []
        #: the context parameter of an autograd ``Function``'s ``backward`` (its first), whose
        #: saved tensors are where the function's inputs were (:meth:`saved_tensors`)
        self.context_name: str | None = None
        self._entry: dict[str, Value] = {}  # each parameter's value on entry
        #: ``obj.attr`` (the environment's key) -> the instance ``obj`` held when a statement
        #: of the scope's own body moved or replaced that attribute (:meth:`held_attr`)
        self._held_owner: dict[str, Value] = {}
        from torchferry.check.flow.calls import Evaluator

        self.ev = Evaluator(self)

    # -- entry -----------------------------------------------------------------
    def run(self) -> ScopeResult:
        node = self.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._bind_params(node)
            body = node.body
        elif isinstance(node, ast.Module):
            body = node.body
            self.ff.live_module = self
        else:
            body = []
        if self.block(body):
            self.exits.append(self.env)
        self._exit_stores()
        return self.res

    def _exit_stores(self) -> None:
        """What a method leaves in each ``self`` attribute when it returns (the join over
        its exits, each path's last store winning: ``self.model = Net(); self.model.to(d)``
        leaves a moved model); an attribute some exit does not store keeps the join of
        every value stored."""
        if not self.exits:
            self.res.param_moves.clear()
            return
        for k in list(self.res.param_moves):  # what a parameter moved in place is left as
            name = self.res.params[k]
            left = [e.get(name) for e in self.exits]
            if all(v is not None for v in left):
                self.res.param_moves[k] = join_all(v for v in left if v is not None)
            else:
                del self.res.param_moves[k]
        for attr in list(self.res.stores):
            key = SELF_KEY + attr
            values = [e.get(key) for e in self.exits]
            if all(v is not None for v in values):
                self.res.stores[attr] = join_all(v for v in values if v is not None)

    def _bind_params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        a = fn.args
        names = self.res.params = param_names(fn)
        method = self.cls is not None and not any(
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
            for d in fn.decorator_list)
        annotations = {x.arg: x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs}
        forward = method and self.cls is not None and self.cls.is_module and \
            fn.name in self.cls.input_methods()
        numbers = number_defaults(a)
        if names and autograd_backward(self.cls, fn):
            self.context_name = names[0]
        for k, name in enumerate(names):
            self.param_index[name] = k
            origin = Origin(Op.PARAM, fn.lineno, fn.col_offset, name)
            kinds = self.ff.hint_kinds(name, annotations.get(name))
            if kinds is None and name in numbers:
                kinds = frozenset((Kind.SCALAR,))  # ``eps=1e-9``: a number by its default
            basis = Basis.HINT
            if kinds is None and self.given is not None and k in self.given:
                kinds, basis = frozenset((self.given[k],)), Basis.INFERRED  # what the call gives
            if kinds is None and forward and k > 0:
                kinds = frozenset((Kind.TENSOR,))  # what a module's forward is given
            place = param(k)
            if method and self.cls is not None and hook_parameter(self.cls, fn.name, k) \
                    is Placement.MODULE_DEVICE:
                place = param(0)  # a framework's batch, moved where the module is
                kinds = kinds or frozenset((Kind.BATCH,))
            if k == 0 and method and self.cls is not None:
                self.self_name = name
                kinds = frozenset((Kind.MODULE,)) if self.cls.is_module else frozenset((Kind.OTHER,))
            if self.given is not None and self.given.get(k) is Kind.DEVICE and kinds == _DEVICE:
                place = CPU  # a device parameter the call points at the CPU (see given_result)
            elif self.given is None and k in self.cpu_devices and kinds == _DEVICE:
                place = CPU  # a device parameter every call of the run points at the CPU
            elif self.given is not None and self.given.get(k) is Kind.OTHER and kinds == _DEVICE:
                kinds = frozenset((Kind.OTHER,))  # a device parameter the call leaves ``None``
            if kinds is None and k in self.instances:
                kinds, basis = frozenset((Kind.OTHER,)), Basis.INFERRED  # an instance, by its callers
            elif kinds is None and k in self.modules:
                kinds, basis = frozenset((Kind.MODULE,)), Basis.INFERRED  # a module, by its callers
            self.env[name] = self._entry[name] = Value(kinds, frozenset((place,)), (origin,), basis)
            if kinds is None and k in self.streams:  # what its generator yields, by its callers
                self.env[name] = self._entry[name] = self.streams[k]
                continue
            items = self._annotated_items(a, name, k, origin)
            if items is not None:  # (the hint the rules read of an annotated parameter)
                self.env[name] = self._entry[name] = items
                self.res.param_hints[k] = Kind.TENSOR
                continue
            if kinds is not None and len(kinds) == 1:
                self.res.param_hints[k] = next(iter(kinds))

    def _annotated_items(self, a: ast.arguments, name: str, k: int, origin: Origin) -> Value | None:
        """``*deltas: Tensor``: the tuple of a ``*args`` parameter whose annotation names a
        tensor class, each item a tensor by that hint (PEP 484 annotates each item so) where
        the parameter is; None for any other parameter."""
        star = a.vararg
        if star is None or star.arg != name or star.annotation is None or \
                self.ff.hint_kinds("", star.annotation) != _TENSOR_HINT:
            return None
        return container(item=Value(_TENSOR_HINT, frozenset((param(k),)), (origin,), Basis.HINT))

    def saved_tensors(self, node: ast.Attribute) -> Value | None:
        """``ctx.saved_tensors`` of the context parameter, not rebound, of an autograd
        ``Function``'s ``backward``: a tuple of tensors where the context is (``param(0)``,
        the place of what ``forward`` was given); None for any other attribute."""
        ctx = self.context_name
        if ctx is None or node.attr not in SAVED_TENSORS or not isinstance(node.value, ast.Name) \
                or node.value.id != ctx or self.env.get(ctx) is not self._entry.get(ctx):
            return None
        origin = Origin(Op.PARAM, node.lineno, node.col_offset, f"{ctx}.{node.attr}", node=node)
        return container(item=Value(frozenset((Kind.TENSOR,)), frozenset((param(0),)), (origin,),
                                    Basis.INFERRED))

    # -- statements --------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> bool:
        """Interpret statements in order; False when the block surely ends (return, raise)."""
        for st in body:
            handler = _STATEMENTS.get(type(st))
            if handler is not None:
                if handler(self, st) is False:
                    return False
            elif isinstance(st, _ENDS):
                if isinstance(st, ast.Raise) and st.exc is not None:
                    self.ev.eval(st.exc)
                return False
        return True

    def _branch(self, body: list[ast.stmt], start: Env) -> Env | None:
        self.env = dict(start)
        return self.env if self.block(body) else None

    def st_expr(self, st: ast.Expr) -> None:
        v = self.ev.eval(st.value)
        call = st.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in MOVE_NAMES and v.kinds is None:
            # ``net.cuda()`` as a statement on a value of unknown kind: a tensor's copy would be
            # discarded (another rule's finding); a module moves in place
            from torchferry.check.flow.resolve import move_in_place

            move_in_place(self.ev, call.func, v)
        elif isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in MOVE_NAMES and isinstance(call.func.value, ast.Name):
            self._batch_moved_in_place(call.func.value)

    def _batch_moved_in_place(self, recv: ast.Name) -> None:
        """``batch.to(device)`` as a statement on the whole batch of a loader (``for batch
        in loader``), an object of a class the analysis does not know: its ``.to`` may move
        its fields in place (a tokenizer's ``BatchEncoding``, a collate function's batch
        class), so where it and its items are afterwards is not known (a tensor's copy
        would be discarded: FRY002 holds the whole batch to be such an object too).  A name
        the loop binds that now holds a tensor the run made (``data = data[0]`` of a
        batch of tensors made on the CPU, :func:`made_item`) is that tensor, not moved."""
        v = self.res.value(recv)
        if v is not None and v.is_(Kind.BATCH) and whole_batch(self.node, recv) and made_item(v) is None:
            self.env[recv.id] = v.at(None)

    def st_assign(self, st: ast.Assign) -> None:
        if (st.end_lineno or st.lineno) - st.lineno > LARGE_LITERAL and isinstance(
                st.value, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Call)):
            for t in st.targets:  # a table of configurations: not followed
                self.bind(t, unknown(Reason.WIDTH))
            return
        v = self.ev.eval(st.value)
        for t in st.targets:
            self.bind(t, v)

    def st_annassign(self, st: ast.AnnAssign) -> None:
        if st.value is not None:
            self.bind(st.target, self.ev.eval(st.value))

    def st_augassign(self, st: ast.AugAssign) -> None:
        left = self.ev.eval(st.target)
        right = self.ev.eval(st.value)
        out = self.ev.arith(st, [(st.target, left), (st.value, right)])
        # ``t += x`` writes into the tensor ``t``, which stays where it is; ``self.layers +=
        # [block]`` extends the module list in place
        self.bind(st.target, left if left.is_(Kind.TENSOR) or left.is_(Kind.MODULE) else out)

    def st_return(self, st: ast.Return) -> bool:
        v = self.ev.eval(st.value) if st.value is not None else Value.of(Kind.OTHER)
        self.res.returns = join(self.res.returns, v)
        self.exits.append(self.env)
        name = st.value.id if isinstance(st.value, ast.Name) else None
        if name is not None and name in self._entry and v is self._entry[name]:
            self.res.returned_params.add(self.param_index[name])
        else:
            self.res.returns_other = True
        return False

    def st_if(self, st: ast.If) -> bool:
        self.ev.eval(st.test)
        surely = decided(st.test, self.lookup, lambda e: self.ff.qualname(e, self))
        if surely is not None:  # (``isinstance(batch, list)`` of a batch torch makes a list)
            return self.block(st.body if surely else st.orelse)
        start = self.env
        yes, no = self.narrowed_envs(st.test, start)
        a = self._branch(st.body, yes)
        b = self._branch(st.orelse, no)
        if a is not None and b is not None:  # (a name neither arm rebinds is what it was)
            a, b = _unnarrowed(a, yes, start), _unnarrowed(b, no, start)
        merged = join_env(a, b)
        self.env = merged if merged is not None else start
        return merged is not None

    def narrowed_envs(self, test: ast.expr, env: Env) -> tuple[Env, Env]:
        """``env`` on the true arm and on the false arm of ``test``
        (:func:`~torchferry.check.flow.narrowing.narrowings`: ``isinstance(x,
        torch.Tensor)``); ``env`` itself where the test narrows nothing."""
        yes, no = narrowings(test, lambda e: self.ff.qualname(e, self))
        out = []
        for side in (yes, no):
            arm = env
            for name, n in side.items():
                v = env.get(name)
                w = narrowed(v, n) if v is not None else None
                if w is not None and w is not v:
                    arm = dict(arm) if arm is env else arm
                    arm[name] = w
            out.append(arm)
        return out[0], out[1]

    def st_try(self, st: ast.Try) -> bool:
        start = self.env
        body = self._branch(st.body + st.orelse, start)
        ends = [body]
        for h in st.handlers:
            henv = join_env(start, body) or start
            self.env = dict(henv)
            if h.name:
                self.env[h.name] = Value.of(Kind.OTHER)
            ends.append(self.env if self.block(h.body) else None)
        merged: Env | None = None
        for e in ends:
            merged = join_env(merged, e)
        self.env = merged if merged is not None else dict(start)
        if st.finalbody:
            return self.block(st.finalbody) and merged is not None
        return merged is not None

    def st_with(self, st: ast.With | ast.AsyncWith) -> bool:
        for item in st.items:
            v = self.ev.eval(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, v if v.is_(Kind.TENSOR) else UNKNOWN)
        return self.block(st.body)

    def st_match(self, st: ast.Match) -> bool:
        self.ev.eval(st.subject)
        start = self.env
        merged: Env | None = None
        for case in st.cases:
            merged = join_env(merged, self._branch(case.body, start))
        self.env = join_env(start, merged) or start
        return True

    def st_def(self, st: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.env[st.name] = function_reference(st)
        if not isinstance(self.node, ast.Module) and self.given is None:  # (a module's functions
            # read its final globals)
            self.ff.nested_scope(st, self.cls if self.self_name else None, self.env)

    def st_class(self, st: ast.ClassDef) -> None:
        self.env[st.name] = class_reference(st)
        if not isinstance(self.node, ast.Module):
            self.ff.local_class(st)

    def st_assert(self, st: ast.Assert) -> None:
        """``assert test, msg``: the test runs (its calls and meetings happen); the message is
        evaluated only when the test fails, so it is read but binds nothing."""
        self.ev.eval(st.test)
        if st.msg is not None:
            self.ev.eval(st.msg)

    def st_delete(self, st: ast.Delete) -> None:
        for t in st.targets:
            if isinstance(t, ast.Name):
                self.env.pop(t.id, None)

    # -- loops ---------------------------------------------------------------------
    def st_for(self, st: ast.For | ast.AsyncFor) -> bool:
        it = self.ev.eval(st.iter)
        item = self.ev.iterate(it, st)
        # a loader yields at least one batch: after the loop its target names hold what the
        # last iteration left in them, not what they held before the loop
        self.fors.append(st)
        try:
            done = self._loop(st, lambda: self._bind_loop(st, item), _batch_names(st.target, item))
        finally:
            self.fors.pop()
        self._moved_through_loop(st)
        return done

    def _moved_through_loop(self, st: ast.For | ast.AsyncFor) -> None:
        """``for net in [self.actor, self.critic]: net.to(device)``: a loop over a list
        written out (so its body runs for each item) whose body moves the loop's name in
        place by a statement of its own (not under a branch) moves each module it lists
        (a name or an attribute), as that statement would written on it; an item that may
        be a tensor is left as it was (a tensor's copy is discarded)."""
        target = st.target
        if not isinstance(target, ast.Name) or not isinstance(st.iter, (ast.List, ast.Tuple)) \
                or not st.iter.elts or not _moves_name(st.body, target.id):
            return
        moved = self.env.get(target.id)
        move = next((o for o in moved.origins if o.op is Op.MOVED), None) if moved is not None else None
        if moved is None or move is None:
            return
        from torchferry.check.flow.resolve import move_in_place

        for elt in st.iter.elts:
            if not isinstance(elt, (ast.Name, ast.Attribute)):
                continue
            old = self.res.value(elt)
            if old is None or old.may_be(Kind.TENSOR) or old.may_be(Kind.BATCH):
                continue  # (each item keeps its own class: ``self.actor.act(x)`` resolves)
            func = ast.Attribute(value=elt, attr="to", ctx=ast.Load())
            move_in_place(self.ev, func, old.at(moved.places, move))

    def loop_key(self, mapping: str, key: str) -> bool:
        """Is ``key`` the key of an enclosing loop over the keys of ``mapping`` (``for key in
        mapping.keys()``, ``for key, v in mapping.items()``: ``mapping`` is a mapping, not
        a list), not bound otherwise in that loop's body?

        >>> import ast
        >>> from torchferry.check.flow.program import FileFlow
        >>> src = "def f(d):\\n    for k in d.keys():\\n        d[k]\\n"
        >>> ff = FileFlow(ast.parse(src), "<example>")
        >>> it = Interp(ff, ff.tree.body[0])
        >>> it.fors.append(ff.tree.body[0].body[0])
        >>> it.loop_key("d", "k"), it.loop_key("d", "j"), it.loop_key("e", "k")
        (True, False, False)
        """
        for st in reversed(self.fors):
            target = st.target
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and _dict_call(st.iter, mapping, "items"):
                target = target.elts[0]
            elif not _dict_call(st.iter, mapping, "keys"):
                continue
            if not isinstance(target, ast.Name) or target.id != key:
                continue
            return not any(isinstance(n, ast.Name) and n.id == key and not isinstance(n.ctx, ast.Load)
                           for s in st.body for n in ast.walk(s))
        return False

    def _bind_loop(self, st: ast.For | ast.AsyncFor, item: Value) -> None:
        """Bind the loop's target; a name bound to (an item of) what a parameter as it came
        in yields gets an origin that says so (:attr:`ScopeResult.param_batches`)."""
        self.bind(st.target, item)
        found = param_batch_targets(st.iter, st.target)
        k = self.param_index.get(found[0]) if found is not None else None
        given = self.env.get(found[0]) if found is not None else None
        if found is None or k is None or given is None or given != self._entry.get(found[0]) \
                or given.kinds not in (None, {Kind.LOADER}):
            return
        for name, index in found[1]:
            v = self.env.get(name.id)
            if v is None or v.places is None:
                continue
            text = f"{self.res.params[k]}'s item" if index is None else f"{self.res.params[k]}'s item [{index}]"
            origin = Origin(Op.PARAM, name.lineno, name.col_offset, text, node=name)
            if len(v.origins) < ORIGIN_CAP:  # (last: the value stays what it was to the rest)
                self.env[name.id] = v._replace(origins=(*v.origins, origin))
            self.res.param_batches[id(name)] = (k, index)

    def st_while(self, st: ast.While) -> bool:
        return self._loop(st, lambda: self.ev.eval(st.test))

    def _loop(self, st: ast.For | ast.AsyncFor | ast.While, head: Callable[[], object],
              kept: frozenset[str] = frozenset()) -> bool:
        entry = self.env
        for _ in range(LOOP_ROUNDS):
            self.env = dict(entry)
            head()
            self.block(st.body)
            nxt = join_env(entry, self.env) or entry
            if nxt == entry:
                break
            entry = nxt
        else:
            entry = _widen(entry, self.env)
            self.env = dict(entry)
            head()
            self.block(st.body)
        last = self.env
        self.env = join_env(entry, self.env) or entry
        for name in kept:
            v = last.get(name)
            if v is not None:
                self.env[name] = v
        if st.orelse:
            return self.block(st.orelse)
        return True

    # -- binding --------------------------------------------------------------------
    def bind(self, target: ast.expr, v: Value) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target.elts, v)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, container(item=element(v, None)))
        elif isinstance(target, ast.Attribute):
            self._bind_attr(target, v)
        elif isinstance(target, ast.Subscript):
            self._bind_item(target, v)

    def _unpack(self, elts: list[ast.expr], v: Value) -> None:
        star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
        if v.elts is not None and star is None and len(v.elts) == len(elts):
            for e, x in zip(elts, v.elts, strict=True):
                self.bind(e, x)
            return
        for i, e in enumerate(elts):
            index = i if star is None or i < star else i - len(elts)
            item = element(v, index if v.elts is not None else None)
            if v.elts is None and star is None:
                item = output_item(self, v, index, len(elts)) or item
            self.bind(e, self.param_item(v, index, e, item, len(elts)) if star is None else item)

    def param_item(self, v: Value, index: Position, node: ast.AST, item: Value,
                   count: int | None = None) -> Value:
        """``item``, item ``index`` of ``v``: when ``v`` is a parameter as it came in
        (``audio, f0 = batch``, ``batch[1]``, ``r["d"]``: a position or a literal key), with an origin at ``node`` that records the
        position, so that the calls of the run can say what they pass there (a tuple of
        tensors on the device: :meth:`FileFlow.placed`).  ``count``: the number of names
        an unpacking without a starred name binds (``states, actions = batch``: 2), which
        every tuple that gets past it has (:attr:`ScopeResult.param_unpacked`)."""
        k = next((self.param_index[n] for n, e in self._entry.items() if e is v), None)
        if k is None or v.elts is not None or v.item is not None or v.keys is not None:
            return item
        text = f"{self.res.params[k]}[{index!r}]" if k < len(self.res.params) else "item"
        if index is AnyKey.VALUE:
            text = f"a value of {self.res.params[k]}" if k < len(self.res.params) else "item"
        origin = Origin(Op.PARAM, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), text,
                        node=node)
        self.res.param_items[id(node)] = (k, index)
        if count is not None:
            self.res.param_unpacked[id(node)] = count
        return item._replace(origins=(origin, *item.origins)[:ORIGIN_CAP])

    def _bind_attr(self, target: ast.Attribute, v: Value, moved: bool = False) -> None:
        base = target.value
        if isinstance(base, ast.Name) and base.id != self.self_name:
            self._hold_attr(base, target.attr, v, target)
        if isinstance(base, ast.Name) and base.id == self.self_name:
            attr = target.attr
            old = self.res.stores.get(attr)
            if moved and old is not None and self.self_env.get(attr) is old:
                # ``self.net = Net(); self.net.to(device)``: the one value this method
                # stored is moved in place, so the method leaves the moved module
                old = None
            self.self_env[attr] = v
            self.env[SELF_KEY + attr] = v
            self.res.stores[attr] = v if old is None else join(old, v)

    def _hold_attr(self, base: ast.Name, attr: str, v: Value, node: ast.AST) -> None:
        """``agent.q = agent.q.to(device)`` or ``agent.q.to(device)`` (``node`` the target or
        the move's callee), ``agent`` an instance of a plain class of the run: a module
        moved by a statement of the scope's own body (on every path through it) is what
        ``agent.q`` holds afterwards, while ``agent`` holds the same instance; any other
        store there (under a branch or a loop, or not a module moved) leaves it unknown."""
        inst = self.env.get(base.id)
        if base.id == "self" or inst is None or not self.ff.plain_instance(inst):
            return
        key = f"{base.id}.{attr}"
        if v.kinds is None and v.known_places and self._stores_module(inst, attr):
            v = v._replace(kinds=frozenset((Kind.MODULE,)))  # (``.to`` of the class's module)
        if v.is_(Kind.MODULE) and any(o.op is Op.MOVED for o in v.origins) and self._own_statement(node):
            self.env[key] = v
            self._held_owner[key] = inst
        elif key in self.env:
            self.env[key] = UNKNOWN

    def _stores_module(self, inst: Value, attr: str) -> bool:
        """Do the methods of the class of ``inst`` leave a module in ``self.<attr>``?"""
        info = self.ff.class_of(inst)
        return info is not None and self.ff.class_attr(info, attr).is_(Kind.MODULE)

    def _own_statement(self, node: ast.AST) -> bool:
        """Is ``node`` the target of an assignment, or the callee of a call, that is a
        statement of the scope's body itself (not under a branch, a loop or a handler)?"""
        body = getattr(self.node, "body", None)
        if not isinstance(body, list):
            return False
        for st in body:
            if isinstance(st, ast.Assign) and any(t is node for t in st.targets):
                return True
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and st.value.func is node:
                return True
        return False

    def note_held(self, node: ast.Name) -> None:
        """Record, for the name ``node`` read here, the attributes :meth:`_hold_attr` knows
        of the instance it holds (``train(agent)`` after ``agent.q.to(device)``)."""
        if not self._held_owner:
            return
        inst = self.env.get(node.id)
        prefix = node.id + "."
        facts = {key[len(prefix):]: self.env[key] for key, owner in self._held_owner.items()
                 if key.startswith(prefix) and owner is inst and key in self.env}
        if facts:
            self.res.held[id(node)] = facts

    def instance_of_param(self, v: Value) -> ClassInfo | None:
        """The class of the run whose instance ``v`` is when it is a parameter as it came
        in that every call of the run hands such an instance (:attr:`instances`)."""
        if not self.instances or v.places is None or len(v.places) != 1 or len(v.origins) != 1 \
                or v.origins[0].op is not Op.PARAM:
            return None
        p = next(iter(v.places))
        return self.instances.get(int(p.ref)) if p.where is Where.PARAM else None

    def held_attr(self, node: ast.expr) -> Value | None:
        """``obj.attr`` (``node``) as :meth:`_hold_attr` left it, when ``obj`` still holds the
        instance it held then; None otherwise."""
        if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
            return None
        key = f"{node.value.id}.{node.attr}"
        owner = self._held_owner.get(key)
        if owner is None or self.env.get(node.value.id) is not owner:
            return None
        return self.env.get(key)

    def _bind_item(self, target: ast.Subscript, v: Value) -> None:
        base = target.value
        # ``x[idx] = v``: the container and the index are evaluated, as Python does (rules
        # ask what they are: a tensor on the CPU indexed by one on the device)
        held = self.ev.eval(base)
        self.ev.eval(target.slice)
        if self.self_attr(base) and held.item is not None and held.elts is None:
            # ``self.Us[k] = t``: the list ``self.Us`` now holds ``t`` too, as the class
            # keeps it for its other methods
            self._bind_attr(base, held._replace(item=join(held.item, v)))  # type: ignore[arg-type]
            return
        if not isinstance(base, ast.Name):
            return
        d = self.env.get(base.id)
        key = target.slice
        if d is None or d.keys is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            if d is not None and d.item is not None:
                self.env[base.id] = container(item=join(d.item, v))
            elif d is not None and d.is_(Kind.BATCH) and v.may_live(Where.ACCEL):
                self.env[base.id] = self._batch_given(base, d, key, v)
            return
        keys = dict(d.keys)
        keys[key.value] = v
        if is_state(d):
            self._write_state(base.id, d, tuple(keys.items()))
            return
        self.env[base.id] = container(keys=tuple(keys.items()), item=d.item if d.is_(Kind.BATCH) else None)

    def _write_state(self, name: str, d: Value, keys: tuple[tuple[str, Value], ...]) -> None:
        """``state[key] = v`` of one parameter's state dict ``d`` of an optimizer (bound to
        ``name``, now holding ``keys``): the dict, and ``self.state`` that the class's other
        methods read it from, hold ``v`` at ``key``; past :data:`SLOT_CAP` keys, nothing known."""
        if len(keys) > SLOT_CAP:
            self.env[name] = UNKNOWN
            return
        written = d._replace(keys=keys)
        self.env[name] = written
        # (the other parameters' dicts keep what they held: ``self.state`` holds both)
        before = self.env.get(SELF_KEY + STATE) or self.self_env.get(STATE) or \
            (self.ff.class_attr(self.cls, STATE) if self.cls is not None else None)
        kept = kept_state(written, before)
        old = self.res.stores.get(STATE)
        self.self_env[STATE] = self.env[SELF_KEY + STATE] = kept
        self.res.stores[STATE] = kept if old is None else join(old, kept)

    def _batch_given(self, base: ast.Name, d: Value, key: ast.expr, v: Value) -> Value:
        """A batch (or an item of one) given ``v``, a value that may be on the device, at
        ``key``.  ``targets["av"] = targets["av"].cuda()`` of an item of the batch: that
        mapping now holds a tensor on the device, wherever the rest of it is.  The whole
        batch keeps its other entries apart, as they were: ``batch["x"] = ...`` holds ``v``
        at ``"x"``, and a key the analysis does not know (``batch[k] = v.to(device)`` of
        ``for k, v in batch.items()``) may be any entry, so every entry may hold it."""
        if not whole_batch(self.node, base):
            return join(d, v)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return d._replace(keys=((key.value, v),), item=d)
        return d._replace(item=join(d, v))

    def self_attr(self, node: ast.expr) -> bool:
        """Is ``node`` an attribute of this method's ``self`` (``self.items``)?"""
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            self.self_name is not None and node.value.id == self.self_name

    # -- lookups -------------------------------------------------------------------
    def lookup(self, name: str) -> Value | None:
        v = self.env.get(name)
        if v is not None:
            return v
        v = self.outer.get(name)
        if v is None:
            v = self.ff.global_value(name)
        return None if v is None else outside(v)

    def meet(self, node: ast.expr, operands: list[tuple[ast.expr, Value]]) -> None:
        self.res.meets[id(node)] = MeetEvent(node, tuple(operands))

    def reason_unknown(self, node: ast.AST) -> Value:
        self.res.values[id(node)] = unknown(self.ff.last_reason)
        return self.res.values[id(node)]


def _batch_names(target: ast.expr, item: Value) -> frozenset[str]:
    """The names of a loop's target that are bound to (items of) a batch: ``x`` and ``y`` in
    ``for step, (x, y) in enumerate(loader)``."""
    if item.is_(Kind.BATCH):
        return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    if isinstance(target, (ast.Tuple, ast.List)) and item.elts is not None and \
            len(item.elts) == len(target.elts):
        out: frozenset[str] = frozenset()
        for t, v in zip(target.elts, item.elts, strict=True):
            out |= _batch_names(t, v)
        return out
    return frozenset()


def _unnarrowed(end: Env, arm: Env, start: Env) -> Env:
    """``end``, the environment at the end of an arm entered with ``arm`` (``start``
    narrowed by the test), with each name the arm narrowed and never rebound back to its
    value in ``start``: after the join, both arms' halves make the whole again."""
    if arm is start:
        return end
    back = {k: start[k] for k, v in arm.items() if k in start and v is not start[k] and end.get(k) is v}
    return {**end, **back} if back else end


def _widen(entry: Env, last: Env) -> Env:
    """Names whose value still changes after the last round become unknown."""
    out = dict(entry)
    for k, v in last.items():
        if entry.get(k) != v:
            out[k] = UNKNOWN
    return out


_STATEMENTS: dict[type, Callable[[Interp, Any], object]] = {
    ast.Expr: Interp.st_expr,
    ast.Assign: Interp.st_assign,
    ast.AnnAssign: Interp.st_annassign,
    ast.AugAssign: Interp.st_augassign,
    ast.Return: Interp.st_return,
    ast.If: Interp.st_if,
    ast.Try: Interp.st_try,
    ast.With: Interp.st_with,
    ast.AsyncWith: Interp.st_with,
    ast.Match: Interp.st_match,
    ast.For: Interp.st_for,
    ast.AsyncFor: Interp.st_for,
    ast.While: Interp.st_while,
    ast.FunctionDef: Interp.st_def,
    ast.AsyncFunctionDef: Interp.st_def,
    ast.ClassDef: Interp.st_class,
    ast.Delete: Interp.st_delete,
    ast.Assert: Interp.st_assert,
}
if hasattr(ast, "TryStar"):
    _STATEMENTS[ast.TryStar] = Interp.st_try

__all__ = ["BOTTOM", "Interp", "join_all"]


def _dict_call(node: ast.expr, mapping: str, method: str) -> bool:
    """Is ``node`` ``mapping.method()`` (no argument), also wrapped in ``tqdm(...)`` (which
    yields what it is given, as the analysis takes it everywhere)?"""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tqdm" and node.args:
        node = node.args[0]
    return isinstance(node, ast.Call) and not node.args and not node.keywords and \
        isinstance(node.func, ast.Attribute) and node.func.attr == method and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == mapping


def _moves_name(body: list[ast.stmt], name: str) -> bool:
    """Does ``body`` move ``name`` in place by a statement of its own (``name.to(device)``,
    ``name.cuda()``), one that runs whenever the body does?"""
    return any(isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
               and isinstance(st.value.func, ast.Attribute) and st.value.func.attr in MOVE_NAMES
               and isinstance(st.value.func.value, ast.Name) and st.value.func.value.id == name
               for st in body)
