r"""Arms of a function that no call of the run takes: a test that reads only parameters every
call leaves at their constant defaults.

In::

    def get_grid(h, w, dtype="torch", device="cpu"):
        grid = torch.stack(torch.meshgrid(torch.arange(h, device=device), ...))
        if dtype == "numpy":
            grid = grid.numpy()          # only when a caller passes dtype="numpy"
        return grid

the ``if`` arm runs only for a caller that passes ``dtype`` (or a value for it): when the
run calls ``get_grid`` and every call leaves ``dtype`` at its default (``get_grid(h, w)``),
the run's own code never takes the arm, and what a rule would say of a value there holds
only on a path the run does not reach.  :func:`untaken_arm` answers, for a position in a
function, whether an ``if`` statement or a conditional expression around it is decided
against it by the defaults of parameters no call of the run binds.

The calls must all be known, and there must be one at least (a function the run never
calls is called from outside it, with anything): the function is defined at the file's top
level (or is a method of a class there), not decorated, named nowhere but in calls of it
that the analysis resolves to it, with ``*args``/``**kw`` spread by none of them, and every
file of the run that imports its file is read (:meth:`Project.foreign_calls`).  A method
that its class binds to an attribute of ``self`` (``self.encode = self.llama_encode``) is
called through that attribute: then every call of an attribute of either name in the
files of the run counts (on any object, so the method's calls are among them), and any
other read of such an attribute leaves the calls unknown.  A parameter the body rebinds,
a test that reads anything but such parameters and constants, or a function with
``*args`` leaves the arm undecided.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = ("import torch\ndef f(x, as_array=False):\n    y = x.cuda()\n"
...        "    if as_array:\n        return y.numpy()\n    return y\nf(torch.ones(2))\n")
>>> tree = ast.parse(src)
>>> ff = analyze(tree, "<example>")
>>> _ = list(ff.results())
>>> untaken_arm(ff, tree, 5) is not None
True
>>> untaken_arm(ff, ast.parse(src + "f(torch.ones(2), True)\n"), 5) is None
True
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from torchferry.check.flow.converted import param_names
from torchferry.check.names import self_attr

if TYPE_CHECKING:
    from torchferry.check.flow.program import FileFlow

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_UNDECIDED = object()  # a test (or a part of it) that the defaults do not decide
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


def untaken_arm(ff: FileFlow, tree: ast.AST, line: int, column: int = -1) -> ast.AST | None:
    """The ``if`` statement or conditional expression of the function around ``line``
    (``column``: of a conditional expression's arm; -1: any) whose test the run's calls
    decide against the arm that holds the position; None when there is none or the calls
    are not all known.  ``tree`` is the tree ``ff`` analysed."""
    fn = _innermost_function(tree, line)
    if fn is None:
        return None
    defaults: dict[str, Any] | None = None
    for test, arm_taken in _arms_around(fn, line, column):
        if defaults is None:
            defaults = defaults_left(ff, fn)
            if not defaults:
                return None
        decided = _decide(test, defaults)
        if decided is not _UNDECIDED and bool(decided) is not arm_taken:
            return test
    return None


def defaults_left(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    r"""The parameters of ``fn`` with a constant default that every call of the run leaves
    unbound and the body never rebinds: name -> the default's value; empty when the calls
    cannot all be known, or when the run calls ``fn`` nowhere (then callers outside the run
    decide what it is given).

    >>> from torchferry.check.flow import analyze
    >>> tree = ast.parse("def f(x, k=3, *, m=None):\n    return x\nf(1, m=2)\n")
    >>> ff = analyze(tree, "<example>")
    >>> _ = list(ff.results())
    >>> defaults_left(ff, tree.body[0])
    {'k': 3}
    """
    if fn.args.vararg is not None or fn.decorator_list:
        return {}
    params = param_names(fn)
    passed = _bound_by_calls(ff, fn)
    if passed is None:
        passed = _bound_through_aliases(ff, fn, params)
    if not passed:
        return {}
    stored = {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    stored |= {
        n.name for n in ast.walk(fn) if isinstance(n, (*_FUNCS, ast.ClassDef)) and n is not fn
    }
    bound = set().union(*passed)
    return {
        name: value
        for name, value in _constant_defaults(fn)
        if name not in stored and str(params.index(name)) not in bound
    }


def _calls_known(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Can every call of ``fn`` be known: the file interpreted whole, ``fn`` at its top
    level (or a method of a class there), not a special method or ``forward``, its name
    used only in calls the analysis resolves to it?"""
    name = fn.name
    if (
        not ff._complete
        or name == "forward"
        or name.startswith("__")
        or name in ff._value_names()
        or not ff._top_level(fn)
    ):
        return False
    return ff._calls_of(fn) == len(ff.call_sites.get(id(fn), {}))


def _bound_by_calls(
    ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> list[set[str]] | None:
    """The parameter indices (as strings) each call of the run binds; None when the calls
    cannot all be known or one spreads ``*args``/``**kw``."""
    if not _calls_known(ff, fn):
        return None
    sites: list[tuple[ast.AST | None, dict[str, Any]]] = []
    for call_id, (caller, bound) in ff.call_sites.get(id(fn), {}).items():
        event = caller.calls.get(call_id)
        sites.append((None if event is None else event.node, bound))
    if ff.project is not None:
        foreign = (
            ff.project.foreign_method_calls(ff, fn)
            if ff.is_method(fn)
            else ff.project.foreign_calls(ff, fn)
        )
        if foreign is None:
            return None
        for _, caller, call_id, bound in foreign:
            event = caller.calls.get(call_id)
            sites.append((None if event is None else event.node, bound))
    out: list[set[str]] = []
    for node, bound in sites:
        if not isinstance(node, ast.Call) or _spreads(node):
            return None
        out.append(set(bound))
    return out


def _bound_through_aliases(
    ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef, params: tuple[str, ...]
) -> list[set[str]] | None:
    """For a method its class binds to an attribute of ``self`` (``self.encode =
    self.llama_encode``) and names nowhere else: the parameter indices each call of the
    run of an attribute of either name binds (``x.encode(texts)``: every such call, on
    any object, counts, so the calls of the method are among them); None when a file of
    the run names either attribute other than in a call or such a binding, or a call
    spreads ``*args``/``**kw``."""
    cls = ff.method_of.get(id(fn))
    if cls is None or not ff._complete or fn.name.startswith("__") or not ff._top_level(fn):
        return None
    aliases = _aliases(ff.tree, fn.name)
    if not aliases:
        return None
    names = aliases | {fn.name}
    trees: list[ast.AST] = [ff.tree]
    if ff.project is not None:
        for path, data in sorted(ff.project.files.items()):
            if path != ff.path and any(f".{n}".encode() in data for n in names):
                other = ff.project.file_flow(path)
                if other is None:
                    return None
                trees.append(other.tree)
    out: list[set[str]] = []
    for tree in trees:
        found = _attribute_calls(tree, names, params)
        if found is None:
            return None
        out += found
    return out


def _aliases(tree: ast.AST, name: str) -> set[str] | None:
    """The attributes ``A`` of ``self.A = self.<name>`` statements of ``tree``; None when
    ``tree`` names ``.<name>`` otherwise than in a call or such a statement."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and self_attr(node.value) == name:
            if len(node.targets) != 1 or not self_attr(node.targets[0]) is not None:
                return None
            out.add(node.targets[0].attr)  # type: ignore[attr-defined]
    return out


def _attribute_calls(
    tree: ast.AST, names: set[str], params: tuple[str, ...]
) -> list[set[str]] | None:
    """The parameter indices each call ``x.<name>(...)`` of ``tree`` binds (a bound
    method: its first argument is parameter 1); None when an attribute of one of
    ``names`` is read otherwise than as a call's function or in an alias binding."""
    called: dict[int, ast.Call] = {}
    bindings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called[id(node.func)] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Attribute)
                and isinstance(value, ast.Attribute)
                and self_attr(value) is not None
                and value.attr in names
                and self_attr(target) is not None
                and target.attr in names
            ):
                bindings |= {id(value), id(target)}
    out: list[set[str]] = []
    for node in ast.walk(tree):
        if (
            not isinstance(node, ast.Attribute)
            or node.attr not in names
            or isinstance(node.ctx, ast.Store)
        ):
            continue  # (a store is no read: ``self.encode = self.e5_encode``)
        call = called.get(id(node))
        if call is None:
            if id(node) in bindings and self_attr(node) is not None:
                continue
            return None
        if _spreads(call):
            return None
        bound = {str(k + 1) for k in range(len(call.args))}
        bound |= {str(params.index(k.arg)) for k in call.keywords if k.arg in params}
        out.append(bound)
    return out


def _spreads(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def _constant_defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, Any]]:
    a = fn.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
    pairs += [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    for arg, d in pairs:
        if isinstance(d, ast.Constant):
            yield arg.arg, d.value


def _innermost_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found = None
    for node in ast.walk(tree):
        if (
            isinstance(node, _FUNCS)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and (found is None or node.lineno >= found.lineno)
        ):
            found = node
    if found is not None and any(
        d.lineno <= line <= (d.end_lineno or d.lineno) for d in found.decorator_list
    ):
        return None
    return found


def _arms_around(fn: ast.AST, line: int, column: int) -> Iterator[tuple[ast.expr, bool]]:
    """The tests of ``fn``'s own ``if`` statements and conditional expressions around the
    position, each with the arm that holds it (True: the body), outermost first."""
    for node in ast.walk(fn):
        if (
            isinstance(node, _FUNCS + (ast.Lambda, ast.ClassDef))
            and node is not fn
            and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            return  # (the position is in a nested scope: not this function's arms)
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            for arm, taken in ((node.body, True), (node.orelse, False)):
                if arm and arm[0].lineno <= line <= (arm[-1].end_lineno or arm[-1].lineno):
                    yield node.test, taken
        elif isinstance(node, ast.IfExp) and column >= 0:
            for part, taken in ((node.body, True), (node.orelse, False)):
                if _holds(part, line, column):
                    yield node.test, taken


def _holds(node: ast.expr, line: int, column: int) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    return start <= (line, column) < end


def _decide(test: ast.expr, values: dict[str, Any]) -> Any:
    """The value of ``test`` with the parameters of ``values`` at those values, or
    :data:`_UNDECIDED` when it reads anything else."""
    if isinstance(test, ast.Constant):
        return test.value
    if isinstance(test, ast.Name):
        return values.get(test.id, _UNDECIDED)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = _decide(test.operand, values)
        return v if v is _UNDECIDED else not v
    if isinstance(test, ast.BoolOp):
        return _decide_bool(test, values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE:
        left, right = _decide(test.left, values), _decide(test.comparators[0], values)
        if left is _UNDECIDED or right is _UNDECIDED:
            return _UNDECIDED
        return _COMPARE[type(test.ops[0])](left, right)
    return _UNDECIDED


def _decide_bool(test: ast.BoolOp, values: dict[str, Any]) -> Any:
    """``a and b`` / ``a or b``: decided by one operand that settles it (``False and ?``),
    or by all."""
    settles = isinstance(test.op, ast.Or)
    undecided = False
    for operand in test.values:
        v = _decide(operand, values)
        if v is _UNDECIDED:
            undecided = True
        elif bool(v) is settles:
            return settles
    return _UNDECIDED if undecided else not settles


def given_whole_batches(ff: FileFlow, fn: ast.AST, k: int) -> bool:
    r"""Does every call of the run (one at least, all known) hand parameter ``k`` of ``fn``
    a whole batch of a loop over a loader, by name (``for data in loader:
    self.step(model, data)``; :func:`~torchferry.check.flow.places.whole_batch`)?  Such a
    parameter is the batch object, not one of its items.

    >>> from torchferry.check.flow import analyze
    >>> src = "def step(b):\n    b.to('cuda')\ndef run(loader):\n    for b in loader:\n        step(b)\n"
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> _ = list(ff.results())
    >>> given_whole_batches(ff, tree.body[0], 0)
    True
    """
    from torchferry.check.flow.places import whole_batch

    if not isinstance(fn, _FUNCS) or fn.args.vararg is not None or not _calls_known(ff, fn):
        return False
    if ff.project is not None:
        foreign = (
            ff.project.foreign_method_calls(ff, fn)
            if ff.is_method(fn)
            else ff.project.foreign_calls(ff, fn)
        )
        if foreign != []:
            return False  # (another file's calls: their loops are not read here)
    params = param_names(fn)
    sites = ff.call_sites.get(id(fn), {})
    if not sites or k >= len(params):
        return False
    offset = 1 if ff.is_method(fn) else 0
    for call_id, (caller, _) in sites.items():
        event = caller.calls.get(call_id)
        call = None if event is None else event.node
        if not isinstance(call, ast.Call) or _spreads(call):
            return False
        given = [kw.value for kw in call.keywords if kw.arg == params[k]]
        if not given and 0 <= k - offset < len(call.args):
            given = [call.args[k - offset]]
        if not given or not whole_batch(caller.node, given[0]):
            return False
    return True
