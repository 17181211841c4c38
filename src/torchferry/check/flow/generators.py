"""Where the ``generator=`` of a random factory lives.

A random factory draws from the generator it is given, which must be on the device the
factory builds on: ``torch.rand(n, generator=g)`` without ``device=`` builds on the CPU and,
with a CUDA generator ``g``, fails at once ("Expected a 'cpu' device type for generator but
found 'cuda'"), whatever the tensor's size.  A ``torch.Generator`` is on the device it is
built with (``torch.Generator(device="cuda")``, ``torch.Generator(dev)``), the CPU by default.

:func:`generator_place` tells what the code establishes of a factory's generator:
:attr:`GeneratorPlace.SURE` where it is built on a device the code puts on an accelerator
when there is one (a device string such as ``"cuda"``, ``torch.device("cuda")``, a device
value the analysis may place there), in the expression itself or through a name the same
function (or the module) binds once; :attr:`GeneratorPlace.HINT` where the generator is a
parameter annotated ``torch.Generator`` that no call of the run gives a value (its callers
decide, and may give a CUDA one: a hint, never proof), unless its default is a generator
(``generator=torch.Generator()``: the CPU's, as the author expects); None otherwise.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = ("import torch\\n"
...        "def f(n):\\n"
...        "    g = torch.Generator(device='cuda')\\n"
...        "    return torch.rand(n, generator=g)\\n"
...        "def h(n, gen: torch.Generator | None = None):\\n"
...        "    return torch.rand(n, generator=gen)\\n"
...        "def k(n):\\n"
...        "    return torch.rand(n, generator=torch.Generator())\\n")
>>> ff = analyze(ast.parse(src), "<example>")
>>> calls = [n for n in ast.walk(ff.tree) if isinstance(n, ast.Call) and ff.qualname(n.func) == "torch.rand"]
>>> [generator_place(ff, c) for c in calls]
[<GeneratorPlace.SURE: 2>, <GeneratorPlace.HINT: 1>, None]
"""

from __future__ import annotations

import ast
import enum

from torchferry._internal.vocabulary import ACCELERATOR_LITERAL
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.lattice import Kind, Where
from torchferry.check.flow.program import FileFlow
from torchferry.check.names import kwarg

#: the qualified names of torch's generator class
GENERATOR_CLASSES = frozenset({"torch.Generator", "torch._C.Generator"})


class GeneratorPlace(enum.IntEnum):
    """What the code establishes of where a factory's generator is (ordered)."""

    HINT = 1  # a parameter annotated ``torch.Generator``: its callers may give a CUDA one
    SURE = 2  # built on a device the code puts on an accelerator when there is one


def generator_place(ff: FileFlow, call: ast.Call) -> GeneratorPlace | None:
    """How sure it is that the ``generator=`` of the factory ``call`` is on an accelerator
    (None: not known to be, or no generator)."""
    gen = kwarg(call, "generator")
    if gen is None or isinstance(gen, ast.Constant):
        return None
    fn = _enclosing_function(ff.tree, call)
    built = _built(ff, fn, gen)
    if built is not None:
        return GeneratorPlace.SURE if _on_accelerator(ff, built) else None
    if isinstance(gen, ast.Name) and fn is not None and _annotated_parameter(ff, fn, gen.id):
        k = param_names(fn).index(gen.id)
        if ff.run_arguments(fn, k) == [] and not _rebound(fn, gen.id) and _no_default(fn, gen.id):
            return GeneratorPlace.HINT
    return None


def _enclosing_function(tree: ast.AST, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds ``node`` (one walk down the tree, each node
    with the innermost function it is in, until ``node`` is found)."""
    todo: list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [(tree, None)]
    while todo:
        here, fn = todo.pop()
        if isinstance(here, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = here
        if here is node:
            return fn
        todo.extend((child, fn) for child in ast.iter_child_nodes(here))
    return None


def _built(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef | None, gen: ast.expr) -> ast.Call | None:
    """The ``torch.Generator(...)`` call ``gen`` is: itself, or the only value a name is
    bound to in its function (or, unbound there, at module level)."""
    if isinstance(gen, ast.Call):
        return gen if ff.qualname(gen.func) in GENERATOR_CLASSES else None
    if not isinstance(gen, ast.Name):
        return None
    if fn is not None:
        stores = _stores(fn, gen.id, nested=True)
        if stores or gen.id in param_names(fn):
            return _only_call(ff, stores)
    return _only_call(ff, _stores(ff.tree, gen.id, nested=False))


def _only_call(ff: FileFlow, stores: list[ast.expr | None]) -> ast.Call | None:
    """The ``torch.Generator(...)`` call that the one binding of a name assigns."""
    value = stores[0] if len(stores) == 1 else None
    return _built(ff, None, value) if isinstance(value, ast.Call) else None


def _stores(scope: ast.AST, name: str, nested: bool) -> list[ast.expr | None]:
    """The values ``name`` is bound to in ``scope``: the value of its one plain assignment
    (``g = torch.Generator(...)``), or a None for each binding when it has others; at module
    level only its own statements (not its functions') count."""
    if nested:
        nodes = list(ast.walk(scope))
    else:
        body = scope.body if isinstance(scope, ast.Module) else []
        nodes = [n for st in body if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                          ast.ClassDef)) for n in ast.walk(st)]
    stores = [n for n in nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    plain: list[ast.expr | None] = [n.value for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]
    if len(stores) == 1 and len(plain) == 1:
        return plain
    return [None] * len(stores)


def _on_accelerator(ff: FileFlow, built: ast.Call) -> bool:
    """Is the generator ``built`` made on a device the code puts on an accelerator when
    there is one?"""
    dev = kwarg(built, "device")
    if dev is None and built.args:
        dev = built.args[0]
    if dev is None:
        return False  # (``torch.Generator()``: the CPU's)
    if isinstance(dev, ast.Constant) and isinstance(dev.value, str):
        return ACCELERATOR_LITERAL.match(dev.value) is not None
    res = ff.scope_of(dev)
    v = res.value(dev) if res is not None else None
    return v is not None and v.is_(Kind.DEVICE) and v.may_live(Where.ACCEL)


def _annotated_parameter(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is ``name`` a parameter of ``fn`` annotated ``torch.Generator`` (or ``Optional`` of it,
    ``torch.Generator | None``)?"""
    a = fn.args
    for x in (*a.posonlyargs, *a.args, *a.kwonlyargs):
        if x.arg == name and x.annotation is not None:
            return any(ff.qualname(n) in GENERATOR_CLASSES for n in ast.walk(x.annotation)
                       if isinstance(n, (ast.Name, ast.Attribute)))
    return False


def _no_default(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Has parameter ``name`` no default but None?  A default generator
    (``generator=torch.Generator()``) says where the author expects it: the CPU's."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(zip([x.arg for x in positional[len(positional) - len(a.defaults):]], a.defaults, strict=True))
    defaults.update({x.arg: d for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None})
    default = defaults.get(name)
    return default is None or isinstance(default, ast.Constant) and default.value is None


def _rebound(fn: ast.AST, name: str) -> bool:
    """Is ``name`` bound in ``fn``'s body (``gen = gen or torch.Generator()``)?"""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(fn))
