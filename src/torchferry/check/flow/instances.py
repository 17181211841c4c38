"""An instance of a plain class of the run, followed with what the code did to its
attributes from outside the class.

A plain class (a DQN agent, a trainer: not a module) that builds its network in
``__init__`` leaves it on the CPU; the code that uses it may move it from outside
(``agent.q.to(device)`` or ``agent.q = agent.q.to(device)`` as a statement of a function's
own body).  The interpreter keeps that move with the name that holds the instance
(:meth:`Interp.held_attr <torchferry.check.flow.interp.Interp.held_attr>`, recorded at
each later read of the name in :attr:`ScopeResult.held`).  This module answers, for a
name read in a scope, where that attribute is and of which class the instance is, also
when the name is a parameter of the scope's function: then every call of the function in
its file must hand it an instance so known (``train(args, env, agent)`` in ``main``, after
``agent.q.to(device)``), followed three calls up::

    class Agent:
        def __init__(self):
            self.q = QNet()                      # built on the CPU
        def act(self, state):
            return self.q(state)                 # where ``agent.q`` is, for each caller

    def train(agent, s):
        agent.act(torch.from_numpy(s))           # agent.q on the device: a CPU input meets it

    def main(device):
        agent = Agent()
        agent.q.to(device)
        train(agent, s)

A function the other files of the run may call (one they import) is not followed to its
callers; nor is a method, whose callers are not all known.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from torchferry.check.flow.events import Callee, ScopeResult
from torchferry.check.flow.lattice import Basis, Kind, Value, Where, join_all
from torchferry.check.flow.passed_classes import passed_classes
from torchferry.check.flow.streams import passed_generators

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: calls followed up from a parameter to the arguments that bind it
MAX_CALLERS_DEPTH = 3
#: a function's parameters are given what every call of the run hands them only in a file
#: that at most this many files of the run import (each is interpreted whole to find its
#: calls: :func:`given_by_callers`)
MAX_CALLER_FILES = 4

T = TypeVar("T")


def held_attr(ff: FileFlow, res: ScopeResult, node: ast.expr, v: Value, attr: str) -> Value | None:
    """``node.attr`` where ``node`` (of value ``v``) is read in ``res``: the value a
    statement of ``res`` (or of every caller, for a parameter as it came in) left there by
    moving it from outside the class; None when not so known."""
    return _answer(ff, res, node, v, lambda r, n, _: r.held.get(id(n), {}).get(attr), _joined, 0)


def instance_class(ff: FileFlow, res: ScopeResult, node: ast.expr, v: Value) -> ClassInfo | None:
    """The plain class of the run whose instance ``node`` (of value ``v``) holds in
    ``res``: the class its constructor's call of this file names, or, for a parameter as
    it came in, the one class every call of the function hands it."""
    def own(_r: ScopeResult, _n: ast.expr, got: Value) -> ClassInfo | None:
        return ff.class_of(got) if ff.plain_instance(got) else None

    return _answer(ff, res, node, v, own, _same, 0)


def _joined(found: list[Value]) -> Value | None:
    return join_all(found)


def _same(found: list[ClassInfo]) -> ClassInfo | None:
    return found[0] if all(f is found[0] for f in found) else None


def _answer(ff: FileFlow, res: ScopeResult, node: ast.expr, v: Value,
            own: Callable[[ScopeResult, ast.expr, Value], T | None],
            agree: Callable[[list[T]], T | None], depth: int) -> T | None:
    """``own(res, node)``, else the answer every call of ``res``'s function agrees on
    (``agree``) for the argument it binds to the parameter ``v`` is."""
    got = own(res, node, v)
    if got is not None:
        return got
    k = _param_index(v)
    if k is None or depth >= MAX_CALLERS_DEPTH:
        return None
    found: list[T] = []
    for caller, arg, value in _arguments(ff, res, k) or ():
        inner = _answer(ff, caller, arg, value, own, agree, depth + 1)
        if inner is None:
            return None
        found.append(inner)
    return agree(found) if found else None


def _param_index(v: Value) -> int | None:
    """The parameter ``v`` is as it came in (it lives where that parameter does only)."""
    if v.places is None or len(v.places) != 1:
        return None
    p = next(iter(v.places))
    return int(p.ref) if p.where is Where.PARAM else None


def _arguments(ff: FileFlow, res: ScopeResult, k: int) -> list[tuple[ScopeResult, ast.expr, Value]] | None:
    """Each call of ``res``'s function in its file: (the calling scope, the argument's
    expression, its value) for parameter ``k``; None for a method (its callers are not all
    known), a function another file of the run may call, or a call that binds ``k`` other
    than by a plain name given by position."""
    sites = ff.call_sites.get(id(res.node), {})
    if not sites or ff.is_method(res.node) or \
            ff.project is not None and ff.project.foreign_calls(ff, res.node) != []:
        return None
    out = []
    for call_id, (caller, bound) in sites.items():
        c = caller.calls.get(call_id)
        v = bound.get(str(k))
        if c is None or v is None or c.callee is not Callee.FUNCTION or len(c.args) != len(c.node.args) \
                or k >= len(c.node.args) or not isinstance(c.node.args[k], ast.Name):
            return None
        out.append((caller, c.node.args[k], v))
    return out


class ByCallers(NamedTuple):
    """What every call of the run hands some parameters of a function: index -> the plain
    class of the run whose instance it is (``instances``), the parameters it hands a
    module (``modules``); and, for a method of a plain class, the attributes of ``self``
    that ``__init__`` keeps from its parameters as every construction of the run gives
    them (``attrs``: name -> value, :meth:`FileFlow.constructed_attr`)."""

    instances: dict[int, ClassInfo]
    modules: frozenset[int]
    attrs: dict[str, Value]
    #: the parameters every call of the run hands a generator object of the run, with it
    #: (:func:`~torchferry.check.flow.streams.passed_generators`)
    streams: tuple[tuple[int, Value], ...] = ()
    #: the device parameters every call of the run points at the CPU (:func:`_cpu_devices`)
    cpu_devices: frozenset[int] = frozenset()


def given_by_callers(ff: FileFlow, res: ScopeResult) -> ByCallers | None:
    """The parameters of ``res``'s function (of this file's top level, or a plain method of
    a class there) of no kind of their own that every call of the run hands

    - an instance of one plain class of the run, built by the caller
      (``policy.train(replay_buffer)`` after ``replay_buffer = utils.ReplayBuffer(...)``),
      when the function calls a method of it (``replay_buffer.sample(n)``) that a class of
      the run may define;
    - a module (``step(g)`` after ``g = G().to(device)``, ``step(generator=g)``), when the
      function calls it (``generator(z)``);
    - a generator object of a generator function of the run (``train(model,
      data_loader.data_iterator(data, params))``; :mod:`~torchferry.check.flow.streams`);
    - for a device parameter, the CPU (:func:`_cpu_devices`);

    None when there is none, or a call of the function's name in its file is not resolved
    to it.  Complete once every scope of the file is interpreted."""
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not ff._top_level(fn) or \
            not _few_importers(ff):
        return None
    attrs = _constructed_attrs(ff, res)
    cpus = _cpu_devices(ff, res) if fn.name not in ff._value_names() else frozenset()
    if fn.decorator_list or fn.name.startswith("__") or fn.name == "forward" or \
            fn.name in ff._value_names():
        return ByCallers({}, frozenset(), attrs, (), cpus) if attrs or cpus else None
    streams = tuple(passed_generators(ff, res).items())
    if ff._calls_of(fn) != len(ff.call_sites.get(id(fn), {})):
        if attrs or streams or cpus:
            return ByCallers({}, frozenset(), attrs, streams, cpus)
        return None
    receivers = {k: a for k, a in _receivers(ff, res).items() if a is None or _defined_in_run(ff, a)}
    instances: dict[int, ClassInfo] = {}
    modules: set[int] = set()
    for k, attr in receivers.items():
        given = ff.run_arguments(fn, k)
        if not given:
            return ByCallers({}, frozenset(), attrs, streams, cpus) if cpus else None
        if attr is None:
            if all(_given_module(other, caller, v) for other, caller, v in given):
                modules.add(k)
            continue
        found = [other.class_of(v) if other.plain_instance(v) else None for other, _, v in given]
        first = found[0]
        if first is not None and all(f is not None and f.node is first.node for f in found):
            instances[k] = first
    if instances or modules or attrs or streams or cpus:
        return ByCallers(instances, frozenset(modules), attrs, streams, cpus)
    return None


def _cpu_devices(ff: FileFlow, res: ScopeResult) -> frozenset[int]:
    """The device parameters of ``res``'s function (``device``, ``dev: torch.device``) that
    every call of the run, one at least, points at the CPU on every path: an argument that
    is the CPU (``torch.device("cpu")``, ``"cpu"``, a name bound only to one where the call
    is: ``device = torch.device("cpu")`` then ``train(model, device, loader)``).  A device
    chosen by ``torch.cuda.is_available()``, read from an argument, the environment or a
    file may be an accelerator, and a call that leaves the parameter out or spreads
    ``*args`` leaves it unknown.  Every call of the function's name in its file must be
    resolved to it (``obj.train()``, a method of another object, is not such a call)."""
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name.startswith("__"):
        return frozenset()
    if ff._calls_of(fn) != len(ff.call_sites.get(id(fn), {})):
        return frozenset()
    out: set[int] = set()
    for k, kind in res.param_hints.items():
        if kind is not Kind.DEVICE or k >= len(res.params):
            continue
        given = ff.run_arguments(fn, k)
        if given and _grad_modes_only(ff, fn) and \
                all(v.is_(Kind.DEVICE) and v.only(Where.CPU) for _, _, v in given):
            out.add(k)
        elif given == [] and _pytest_default_cpu(ff, fn, res.params[k]):
            out.add(k)
    return frozenset(out)


#: decorators that hand a function's arguments on as they are
_GRAD_MODES = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad"})


def _grad_modes_only(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Is every decorator of ``fn`` one of torch's grad modes (``@torch.no_grad()``)?"""
    return all(ff.qualname(d.func if isinstance(d, ast.Call) else d) in _GRAD_MODES for d in fn.decorator_list)


def _pytest_default_cpu(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is ``fn`` a test function that no code of the run calls (pytest collects ``test*``
    functions at the top level of ``test_*.py`` and ``*_test.py`` files) whose parameter
    ``name`` has a default that names the CPU (``device="cpu"``) and that no decorator
    names (``@pytest.mark.parametrize("device", ...)``)?  pytest gives a parameter with a
    default no fixture: the test runs with the default."""
    from torchferry.check.flow.resolve import _default_where

    base = ff.path.replace("\\", "/").rsplit("/", 1)[-1]
    if not fn.name.startswith("test") or ff.method_of.get(id(fn)) is not None or \
            not (base.startswith("test_") or base.endswith("_test.py")) or not base.endswith(".py"):
        return False
    named = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and name in n.value
                for d in fn.decorator_list for n in ast.walk(d))
    return not named and _default_where(fn, name) is Where.CPU


def _given_module(other: FileFlow, caller: ScopeResult, v: Value) -> bool:
    """Is ``v``, an argument of a call in ``caller`` (a scope of ``other``), a module: by
    its own value (not a hint), or, for a parameter of ``caller``'s function as it came in,
    an instance of a module class of the run by every call of the run
    (:func:`~torchferry.check.flow.passed_classes.passed_classes`)?"""
    if v.is_(Kind.MODULE):
        return v.basis is not Basis.HINT
    if v.kinds is not None:
        return False
    classes = passed_classes(other, caller, v)
    return bool(classes) and all(info.is_module for info in classes or ())


def _constructed_attrs(ff: FileFlow, res: ScopeResult) -> dict[str, Value]:
    """For a method of a plain class of this file other than ``__init__``: the attributes
    of ``self`` it reads that its own interpretation does not place (``self.scale`` of
    ``self.scale = scale`` in ``__init__``) and that every construction of the run gives
    a value of known kind at known, concrete places (``VonMisesFisher(loc, torch.ones(n,
    device=device))``), as inferred from them."""
    cls = ff.method_of.get(id(res.node))
    if cls is None or cls.is_module or getattr(res.node, "name", "") == "__init__" or \
            not res.params or res.node.decorator_list:  # type: ignore[attr-defined]
        return {}
    self_name = res.params[0]
    out: dict[str, Value] = {}
    for node in ast.walk(res.node):
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load) or \
                not isinstance(node.value, ast.Name) or node.value.id != self_name or node.attr in out:
            continue
        v = res.value(node)
        if v is None or v.places is not None:
            continue
        built = ff.constructed_attr(cls, node.attr)
        if built is not None and built.kinds is not None and built.places and \
                not any(p.symbolic for p in built.places):
            out[node.attr] = built._replace(basis=Basis.INFERRED)
    return out


def _few_importers(ff: FileFlow) -> bool:
    """Do at most :data:`MAX_CALLER_FILES` other files of the run import ``ff`` (whose
    calls of its functions are then interpreted to say what they hand them)?"""
    if ff.project is None:
        return True
    files = ff.project.importers(ff.path)
    return files is not None and len(files - {ff.path}) <= MAX_CALLER_FILES


def _receivers(ff: FileFlow, res: ScopeResult) -> dict[int, str | None]:
    """The parameters (of no kind of their own, not ``self``) as they came in that ``res``
    calls (index -> None) or calls a method of unknown kind of (index -> one such method's
    name)."""
    first = 1 if ff.is_method(res.node) else 0
    out: dict[int, str | None] = {}
    for c in res.calls.values():
        func = c.node.func
        if c.callee not in (Callee.UNRESOLVED, Callee.METHOD):
            continue
        name = func.value if isinstance(func, ast.Attribute) else func
        v = res.value(name) if isinstance(func, ast.Attribute) else c.func
        v = v if isinstance(name, ast.Name) else None
        k = _param_index(v) if v is not None and v.kinds is None and len(v.origins) == 1 else None
        if k is None or k < first or k in res.param_hints:
            continue
        if isinstance(func, ast.Attribute):
            out.setdefault(k, func.attr)
        elif c.callee is Callee.UNRESOLVED:
            out[k] = None
    return out


def _defined_in_run(ff: FileFlow, name: str) -> bool:
    """Does a file of the run define a function or method ``name`` (by its text)?"""
    needle = f"def {name}("
    if ff.project is None:
        return any(needle in line for line in ff.lines or ())
    return ff.project.defines(name)
