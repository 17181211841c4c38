"""Which parameters a function of the run converts before it uses them.

``forward(self, x, lengths)`` that begins with ``lengths = lengths.cpu().int()``, hands
``lengths.tolist()`` on, or a helper that does ``mask = mask.to(x.device)`` uses the
argument as it came in nowhere: the caller's tensor never meets another tensor on the
device it was given on, so leaving it where it is cannot fail there.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import torchferry.check.flow.vocab as vocab

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo, FileFlow

#: tensor methods whose result no longer lives where the receiver did: moved to a device
#: or turned into Python numbers and lists on the host
_CONVERTING = frozenset({"cpu", "cuda", "tolist", "item", "numpy"})
#: builtins that turn a tensor into a Python number
_NUMBERS = frozenset({"int", "float", "bool"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MAX_DEPTH = 3


def param_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The parameters of ``fn`` in the order :attr:`ScopeResult.params` numbers them."""
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.vararg:
        names.append(a.vararg.arg)
    names += [x.arg for x in a.kwonlyargs]
    if a.kwarg:
        names.append(a.kwarg.arg)
    return tuple(names)


def converted_params(ff: FileFlow, fn: ast.AST, cls: ClassInfo | None = None,
                     depth: int = 0) -> frozenset[int]:
    """The indices of the parameters of ``fn`` (a function of ``ff``) that every read of
    converts first: moves (``p.cpu()``, ``p.cuda()``, ``p.to(x.device)``), turns into
    host numbers (``p.tolist()``, ``p.item()``, ``int(p)``), or hands to a function of the
    run that does so itself (three calls deep).  A parameter never read is not among them
    (nothing shows what becomes of it).  Memoised per function, class and depth in
    ``ff``: the answer reads the function's text and the names it resolves, not the
    analysis's values."""
    if not isinstance(fn, _FUNCS):
        return frozenset()
    key = (id(fn), id(cls) if cls is not None else 0, depth)
    done = ff.converted_memo.get(key)
    if done is not None and done[0] is cls:
        return done[1]
    found = _converted(ff, fn, cls, depth)
    ff.converted_memo[key] = (cls, found)
    return found


def _converted(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: ClassInfo | None,
               depth: int) -> frozenset[int]:
    names = param_names(fn)
    nodes = list(ast.walk(fn))
    parents = {id(c): n for n in nodes for c in ast.iter_child_nodes(n)}
    reads: dict[str, list[ast.Name]] = {}
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names:
            reads.setdefault(n.id, []).append(n)
    self_name = names[0] if cls is not None and names else None
    rebound = _rebound_in_a_branch(fn, nodes)
    out = set()
    for k, name in enumerate(names):
        uses = reads.get(name)
        if name == self_name or not uses or name in rebound:
            continue
        first = _before_rebinding(fn, name, uses)
        if first and all(_converts(ff, n, parents, cls, self_name, depth) for n in first):
            out.add(k)
    return frozenset(out)


def _before_rebinding(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                      uses: list[ast.Name]) -> list[ast.Name]:
    """The reads of ``name`` up to the first statement of the body that rebinds it
    (``lengths = lengths.cpu().int()``: later reads see the converted value)."""
    for st in fn.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                inside = {id(n) for n in ast.walk(st)}
                end = (st.end_lineno or st.lineno, st.end_col_offset or 0)
                return [u for u in uses if id(u) in inside or (u.lineno, u.col_offset) < end]
    return uses


def _rebound_in_a_branch(fn: ast.FunctionDef | ast.AsyncFunctionDef,
                         nodes: list[ast.AST]) -> set[str]:
    """The names bound anywhere but an assignment statement of the body itself (in a
    branch, a loop, a ``with``: a read after it may see the argument or the new value);
    ``nodes`` are ``fn``'s nodes (``ast.walk``).

    >>> fn = ast.parse("def f(a, b):\\n    a = a.cpu()\\n    if a:\\n        b = 1\\n").body[0]
    >>> sorted(_rebound_in_a_branch(fn, list(ast.walk(fn))))
    ['b']
    """
    top = {id(t) for st in fn.body if isinstance(st, (ast.Assign, ast.AnnAssign))
           for t in (st.targets if isinstance(st, ast.Assign) else [st.target])}
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            and id(n) not in top}


def _converts(ff: FileFlow, n: ast.Name, parents: dict[int, ast.AST], cls: ClassInfo | None,
              self_name: str | None, depth: int) -> bool:
    """Is this read of a parameter converted where it is read?"""
    up = parents.get(id(n))
    if isinstance(up, ast.Attribute) and up.value is n:
        call = parents.get(id(up))
        if not isinstance(call, ast.Call) or call.func is not up:
            return False
        return up.attr in _CONVERTING or up.attr == "to" and _to_a_device(call)
    if isinstance(up, ast.keyword):  # ``pack_padded_sequence(x, lengths=lengths)``
        call = parents.get(id(up))
        qual = ff.qualname(call.func) if isinstance(call, ast.Call) else None
        wanted = vocab.CPU_ARGUMENTS.get(qual.rsplit(".", 1)[-1]) if qual else None
        return wanted is not None and up.arg in wanted[1]
    if not isinstance(up, ast.Call) or n not in up.args:
        return False
    if isinstance(up.func, ast.Name) and up.func.id in _NUMBERS and up.func.id not in ff.defs:
        return True
    qual = ff.qualname(up.func)
    wanted = vocab.CPU_ARGUMENTS.get(qual.rsplit(".", 1)[-1]) if qual else None
    if wanted is not None and up.args.index(n) in wanted[0]:
        return True
    if depth >= _MAX_DEPTH or any(isinstance(a, ast.Starred) for a in up.args):
        return False
    target = ff.target_of(up, cls, self_name)
    if target is None:
        return False
    owner, callee, first = target
    inner = owner.method_of.get(id(callee))
    return up.args.index(n) + first in converted_params(owner, callee, inner, depth + 1)


def _to_a_device(call: ast.Call) -> bool:
    """``p.to(x.device)``, ``p.to("cpu")``, ``p.to(device=...)``: a move, not a cast alone."""
    if any(k.arg == "device" for k in call.keywords):
        return True
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Attribute) and first.attr == "device" or \
        isinstance(first, ast.Constant) and isinstance(first.value, str)
