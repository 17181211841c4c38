"""What a name holds on a machine with one GPU, where a data-parallel wrapper is made only
when there are more.

The idiom of many training scripts::

    model_wrapper = model
    if torch.cuda.is_available() and torch.cuda.device_count() > 1:
        model_wrapper = torch.nn.DataParallel(model).cuda()
    train_epoch(model=model_wrapper, ...)

The analysis joins ``model_wrapper`` over the two arms: the wrapper, whose forward scatters
its inputs to its replicas, or the plain module.  On a machine with one GPU
``torch.cuda.device_count()`` is 1, the test is false (an ``and`` with it too), the body
is skipped and ``model_wrapper`` is ``model``, wherever ``model`` is.
:func:`one_gpu_value` gives that arm's value, where nothing after the ``if`` rebinds the
name or changes its place before the use: the value of the name just before the ``if``
(``model = DataParallel(model).cuda()``: the argument the wrapper reads), or of the name
it was bound to in the statement just before it (``model_wrapper = model``).
"""

from __future__ import annotations

import ast

from torchferry.check.flow.arms import false_with_one_gpu
from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.lattice import Value
from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.vocab import ACCEL_MOVE_NAMES, WRAPPERS

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def one_gpu_value(ff: FileFlow, res: ScopeResult, site: ast.AST, v: Value) -> Value | None:
    """The value ``v``, the value of a name read at ``site`` (a node of the scope ``res``:
    the call of the model, or a call that hands it on), has on a machine with one GPU,
    where ``v`` joins a data-parallel wrapper bound to the name only in the body of an
    ``if`` that is false with one GPU; None when that is not so or not known.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\nm = torch.nn.Linear(2, 2)\\nw = m\\n"
    ...        "if torch.cuda.device_count() > 1:\\n    w = torch.nn.DataParallel(m).cuda()\\n"
    ...        "y = w(torch.ones(2))\\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> call = tree.body[-1].value
    >>> res = ff.module_result()
    >>> sorted(p.where.name for p in one_gpu_value(ff, res, call, res.calls[id(call)].func).places)
    ['CPU']
    """
    name = _read_name(res, site, v)
    if name is None:
        return None
    found = _skipped_wrapper(ff, res, name, site)
    if found is None:
        return None
    test_if, before = found
    plain = res.value(before)
    if plain is None or not plain.places:
        return None
    lo, hi = test_if.lineno, test_if.end_lineno or test_if.lineno
    kept = set(plain.origins)
    if any(o not in kept and not (o.path is None and lo <= o.line <= hi) for o in v.origins):
        return None  # (something after the ``if`` may have changed it)
    return plain


def _read_name(res: ScopeResult, site: ast.AST, v: Value) -> str | None:
    """The one name ``site`` reads ``v`` through: the called name, or the one argument of
    that value."""
    if not isinstance(site, ast.Call):
        return None
    names = {a.id for a in [*site.args, *(k.value for k in site.keywords)]
             if isinstance(a, ast.Name) and res.value(a) == v}
    if names:
        return next(iter(names)) if len(names) == 1 else None
    if isinstance(site.func, ast.Name) and res.value(site.func) in (None, v):
        return site.func.id  # (the called name: the analysis keeps the callee's value on the call)
    return None


def _skipped_wrapper(ff: FileFlow, res: ScopeResult, name: str, site: ast.AST) -> tuple[ast.If, ast.expr] | None:
    """The ``if`` (false with one GPU, no ``else``, in no loop of the scope) whose body binds
    ``name`` to a data-parallel wrapper and nothing else mentions ``name``, with ``site`` in
    a later statement of the same block, and the expression whose value ``name`` holds
    when the body is skipped; None when there is no such ``if``, ``name`` is bound after
    it (or anywhere by ``global`` or ``nonlocal``), or the module it holds may be moved or
    handed to a call that may move it between the ``if`` and the end of the statement that
    holds ``site`` (:func:`_may_move`)."""
    scope = res.node
    found = [(block, k, st, later) for block, k, st in _statements(scope)
             if isinstance(st, ast.If) and not st.orelse and false_with_one_gpu(ff, st.test)
             and _wrapper_binding(st, name) is not None
             for later in block[k + 1:] if _within(site, later)]
    if not found:
        return None
    block, k, st, later = max(found, key=lambda f: f[2].lineno)  # (the last before ``site``)
    wrap = _wrapper_binding(st, name)
    end = later.end_lineno or later.lineno
    if wrap is None or not _bound_only_before(scope, name, st, end):
        return None
    arg = wrap.args[0] if wrap.args else None
    if isinstance(arg, ast.Name) and arg.id == name:
        # (``model = DataParallel(model).cuda()``: the name as it was)
        return (st, arg) if not _may_move(res, {name}, st, st.lineno, end) else None
    alias = block[k - 1] if k > 0 else None
    if isinstance(arg, ast.Name) and isinstance(alias, ast.Assign) and len(alias.targets) == 1 \
            and isinstance(alias.targets[0], ast.Name) and alias.targets[0].id == name \
            and isinstance(alias.value, ast.Name) and alias.value.id == arg.id \
            and _bound_only_before(scope, arg.id, st, end) \
            and not _may_move(res, {name, arg.id}, st, alias.end_lineno or alias.lineno, end):
        return st, alias.value
    return None


def _statements(scope: ast.AST) -> list[tuple[list[ast.stmt], int, ast.stmt]]:
    """Every statement of the scope outside loops and nested scopes, with its block and index."""
    out: list[tuple[list[ast.stmt], int, ast.stmt]] = []
    todo: list[list[ast.stmt]] = [getattr(scope, "body", [])]
    while todo:
        block = todo.pop()
        for k, st in enumerate(block):
            out.append((block, k, st))
            if isinstance(st, (*_LOOPS, *_SCOPES)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(st, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    todo.append(inner)
            todo.extend(h.body for h in getattr(st, "handlers", ()))
    return out


def _wrapper_binding(test_if: ast.If, name: str) -> ast.Call | None:
    """The wrapper call of the one statement of the body that mentions ``name``:
    ``name = Wrapper(x, ...)``, possibly moved (``.cuda()``, ``.to(...)``)."""
    mentioning = [st for st in test_if.body if any(
        isinstance(n, ast.Name) and n.id == name for n in ast.walk(st))]
    if len(mentioning) != 1:
        return None
    st = mentioning[0]
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
            and st.targets[0].id == name):
        return None
    value = st.value
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in ACCEL_MOVE_NAMES | {"to"}:
        value = value.func.value
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return value if last in WRAPPERS else None


def _bound_only_before(scope: ast.AST, name: str, test_if: ast.If, end: int) -> bool:
    """Is ``name`` bound nowhere outside ``test_if`` from its line to line ``end`` (the end
    of the statement that holds the use), and by no ``global`` or ``nonlocal``?"""
    for n in ast.walk(scope):
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) \
                and not _within(n, test_if) and test_if.lineno <= n.lineno <= end:
            return False
    return True


def _may_move(res: ScopeResult, names: set[str], test_if: ast.If, start: int, end: int) -> bool:
    """Between lines ``start`` (exclusive) and ``end``, outside ``test_if``, is one of
    ``names`` moved or cast in place (``m.to(...)``, ``m.cuda()``, ``m.cpu()``), or handed to
    a call that the analysis does not know to move it nowhere (a function of the run whose
    summary keeps that argument in place: ``res.moving_calls``)?"""
    for n in ast.walk(res.node):
        if not isinstance(n, ast.Call) or not start < n.lineno <= end or _within(n, test_if):
            continue
        func = n.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names \
                and func.attr in ACCEL_MOVE_NAMES | {"to", "cpu", "half", "float", "double", "bfloat16", "type"}:
            return True
        given = [a for a in [*n.args, *(k.value for k in n.keywords)]
                 if isinstance(a, ast.Name) and a.id in names
                 or isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id in names]
        moving = res.moving_calls.get(id(n))
        if given and (moving is None or any(id(a) in moving for a in given)):
            return True
    return False


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))
