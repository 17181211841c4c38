"""A ``try`` whose handler catches a failed move to an accelerator.

>>> import ast
>>> tree = ast.parse("try:\\n    y = x.cuda()\\nexcept Exception:\\n    y = x\\n")
>>> move = tree.body[0].body[0]
>>> catching_try(tree, move, cuda=True) is tree.body[0]
True

What a move to an accelerator raises where there is none (torch 2.13.0, read from
``torch/cuda/__init__.py``'s ``_lazy_init`` and ``torch/csrc/Exceptions.h`` of the wheel):
on a build without CUDA (the CPU wheel) ``.cuda()``, ``.to("cuda")`` and ``device="cuda"``
of a factory raise ``AssertionError("Torch not compiled with CUDA enabled")`` (also
``"... XPU enabled"`` for ``"xpu"``); on a CUDA build without a driver or a GPU,
``torch._C._cuda_init()`` fails a ``TORCH_CHECK``, whose ``c10::Error`` reaches Python as
``RuntimeError`` (``torch.AcceleratorError`` is one too).  The legacy constructors
(``torch.cuda.FloatTensor(3)``) raise ``TypeError`` on the CPU wheel instead.  So only a
handler that catches every ``Exception`` catches the failed move on every machine for each
kind of move; a tuple holding both ``AssertionError`` and ``RuntimeError`` does for a move
to CUDA (``.cuda()``, a ``"cuda"`` device); ``except RuntimeError:`` alone does not (the
CPU wheel's ``AssertionError`` passes it).
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from typing import cast

from torchferry.check.flow.walk import own_nodes
from torchferry.check.names import dotted, pos, tail

__all__ = ["LEAVING_CALLS", "Catches", "catching_try", "handler_catches"]

#: exception classes that catch every failed move (every ``Exception``)
_EVERYTHING = frozenset({"Exception", "BaseException"})
#: what a move to CUDA raises without one: the CPU wheel, a CUDA build with no driver
_CUDA_FAILURES = frozenset({"AssertionError", "RuntimeError"})
#: calls that leave the function or end the program or the test (``sys.exit(1)``,
#: ``pytest.skip(...)``)
LEAVING_CALLS = frozenset({"exit", "quit", "_exit", "skip", "skipTest", "fail"})
#: ``try`` statements (``try ... except*`` from Python 3.11)
_TRYS: tuple[type[ast.stmt], ...] = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


class Catches(enum.Enum):
    """What an ``except`` clause catches of a failed move to an accelerator."""

    #: bare ``except:``, ``except Exception``, ``except BaseException`` (or a tuple with one)
    EVERYTHING = "everything"
    #: a tuple holding both ``AssertionError`` and ``RuntimeError``: a failed move to CUDA
    CUDA_FAILURE = "cuda"
    #: not (surely) the failed move: ``except RuntimeError:``, ``except ImportError:``
    NOT = "not"


def handler_catches(h: ast.ExceptHandler) -> Catches:
    """What the clause ``h`` catches, read from the builtin names it gives."""
    if h.type is None:
        return Catches.EVERYTHING
    given = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    names = {dotted(e) or "" for e in given}
    names = {n.removeprefix("builtins.") for n in names}
    if names & _EVERYTHING:
        return Catches.EVERYTHING
    if _CUDA_FAILURES <= names:
        return Catches.CUDA_FAILURE
    return Catches.NOT


def catching_try(tree: ast.AST, stmt: ast.stmt, cuda: bool) -> ast.Try | None:
    """The innermost ``try`` of ``tree`` (in the same function as ``stmt``) with ``stmt``
    in its body whose handlers catch the failure of a move in ``stmt`` (a move that raises
    without the accelerator; ``cuda``: a move to CUDA) on every machine and let the
    program go on without it; None if there is none.  The handlers up to the one that
    catches it must not raise, and must not read a value that the failed statement or a
    later one of the ``try`` body would have bound, and every such value must be bound by
    the handler again, or the handler must leave (``return``, ``continue``, ``break``,
    ``sys.exit()``): else the program fails further on, with the value missing."""
    for node in _trys_around(tree, stmt):
        if _guards(node, stmt, cuda):
            return node
    return None


def _guards(node: ast.Try, stmt: ast.stmt, cuda: bool) -> bool:
    """Does ``node`` (whose body holds ``stmt``) catch the failed move as
    :func:`catching_try` asks?"""
    lost = _lost(node, stmt)
    for h in node.handlers:
        if _raises(h.body) or _reads(h.body, lost) or not (_leaves(h.body) or lost <= _binds(h.body)):
            return False
        catches = handler_catches(h)
        if catches is Catches.EVERYTHING or (catches is Catches.CUDA_FAILURE and cuda):
            return True
    return False


def _trys_around(tree: ast.AST, stmt: ast.stmt) -> list[ast.Try]:
    """The ``try`` statements (innermost first) whose body holds ``stmt``, in the
    function (or module) that holds it."""
    found: list[ast.Try] = []

    def visit(body: list[ast.stmt], trys: tuple[ast.Try, ...]) -> bool:
        for st in body:
            if st is stmt:
                found.extend(reversed(trys))
                return True
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if visit(st.body, ()):
                    return True
                continue
            for name, inner in _blocks(st):
                if visit(inner, (*trys, cast(ast.Try, st)) if name == "try" else trys):
                    return True
        return False

    visit(getattr(tree, "body", []), ())
    return found


def _blocks(st: ast.stmt) -> Iterator[tuple[str, list[ast.stmt]]]:
    """The statement lists of a compound statement, ``"try"`` naming a ``try``'s body."""
    if isinstance(st, _TRYS):
        held = cast(ast.Try, st)  # (``TryStar`` has the same fields)
        yield "try", held.body
        for h in held.handlers:
            yield "handler", h.body
    elif isinstance(st, ast.Match):
        for case in st.cases:
            yield "case", case.body
    else:
        body = getattr(st, "body", None)
        if isinstance(body, list):
            yield "body", body
    for name in ("orelse", "finalbody"):
        inner = getattr(st, name, None)
        if isinstance(inner, list):
            yield name, inner


def _lost(node: ast.Try, stmt: ast.stmt) -> set[str]:
    """The targets (by text) that ``stmt`` and the statements after it in ``node``'s body
    bind, which a failure at ``stmt`` leaves unbound: all but those a statement binds from
    their own value (``x = x.cuda()``: ``x`` keeps the value it had)."""
    start = pos(stmt)
    out: set[str] = set()
    for st in _statements(node.body):
        if pos(st) < start or isinstance(st, ast.AugAssign):
            continue  # (``x += ...`` keeps ``x`` bound)
        for target in _targets(st):
            text = ast.unparse(target)
            value = getattr(st, "value", None)
            if value is None or text not in _loads(value):
                out.add(text)
    return out


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body``, nested blocks included, nested scopes not."""
    for st in body:
        yield st
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for _, inner in _blocks(st):
            yield from _statements(inner)


def _targets(st: ast.stmt) -> Iterator[ast.expr]:
    """The names, attributes and items a statement binds (``for``/``with`` targets too;
    a definition binds its name)."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield ast.Name(st.name, ast.Store())
        return
    roots: list[ast.expr] = []
    if isinstance(st, ast.Assign):
        roots = list(st.targets)
    elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
        roots = [st.target] if st.value is not None else []
    elif isinstance(st, (ast.For, ast.AsyncFor)):
        roots = [st.target]
    elif isinstance(st, (ast.With, ast.AsyncWith)):
        roots = [i.optional_vars for i in st.items if i.optional_vars is not None]
    for root in roots:
        for n in ast.walk(root):
            if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and isinstance(n.ctx, ast.Store):
                yield n


def _loads(e: ast.AST) -> set[str]:
    """The texts of the names and attributes that ``e`` reads."""
    return {ast.unparse(n) for n in _walk(e)
            if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)}


def _walk(root: ast.AST) -> Iterator[ast.AST]:
    """``root`` and the nodes of its own code (:func:`own_nodes`: nested scopes not)."""
    yield root
    yield from own_nodes(root)


def _raises(body: list[ast.stmt]) -> bool:
    """Does the handler raise, anywhere (``raise``, ``raise X from e``)?"""
    return any(isinstance(n, ast.Raise) for st in body for n in _walk(st))


def _reads(body: list[ast.stmt], lost: set[str]) -> bool:
    """Does the handler read one of the values the failure left unbound?"""
    return any(bool(_loads(st) & lost) for st in body)


def _binds(body: list[ast.stmt]) -> set[str]:
    """The targets (by text) that the handler's own statements bind on every path: those
    of its top-level assignments."""
    return {ast.unparse(t) for st in body for t in _targets(st)
            if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign))}


def _leaves(body: list[ast.stmt]) -> bool:
    """Does the handler end by leaving the function or the loop's round (its last
    statement a ``return``, ``continue``, ``break`` or ``sys.exit()``)?"""
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Continue, ast.Break)):
        return True
    return isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) \
        and tail(last.value.func) in LEAVING_CALLS

