"""What a ``torch.load`` call reads: the facts FRY004 (``map_location``) and FRY005
(``weights_only``) share.

Both rules are about checkpoints that come from elsewhere: FRY004 about one saved on a
GPU and loaded where that GPU is absent, FRY005 about a file someone else may have
crafted.  Many ``torch.load`` calls read something else -- bytes the same program has
just serialized, a data file the same code wrote from CPU values -- and there both
rules are noise.  The questions here tell those apart; each answers True only on
evidence in the code, so an unknown source stays a checkpoint (the rule still fires).

>>> import ast
>>> from torchferry.check.api import Context
>>> src = (
...     "import io, torch\\n"
...     "def broadcast(obj):\\n"
...     "    buf = io.BytesIO()\\n"
...     "    torch.save(obj, buf)\\n"
...     "    buf = io.BytesIO(send(buf.getvalue()))\\n"
...     "    return torch.load(buf)\\n"
... )
>>> m = Context("<ex>", src, ast.parse(src)).syntax
>>> site = [s for s in m.calls_by_tail["load"]][0]
>>> saved_here(m, site), in_memory(m, site)
(True, True)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NamedTuple

from torchferry.check.flow import FileFlow
from torchferry.check.flow.cpu_values import cpu_result, cuda_device_test, template_name
from torchferry.check.flow.lattice import Kind, Where
from torchferry.check.flow.queries import is_module, may_live_on_device, value_of
from torchferry.check.names import dotted, kwarg, pos, same_expr, tail
from torchferry.check.scopes import Binding, ClassInfo, Ctx, How, Scope, ScopeKind, Site, Walker

__all__ = ["dataset_method", "device_chosen", "host_data_file", "in_memory", "load_source",
           "ndarray_only", "save_target", "saved_by_call", "saved_here", "torch_saves", "xla_only"]

#: what a value judged by its place may be (see :func:`_on_cpu`)
_PLACED = frozenset({Kind.MODULE, Kind.TENSOR})
#: calls whose result holds a module's tensors, or tensors moved to a device
_DEVICE_EVIDENCE = frozenset({"state_dict", "parameters", "named_parameters", "buffers",
                              "named_buffers", "to", "cuda", "xpu", "mps", "type"})


def load_source(call: ast.Call) -> ast.expr | None:
    """What ``torch.load(f, ...)`` reads: its ``f`` argument."""
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return kwarg(call, "f")


def save_target(call: ast.Call) -> tuple[ast.expr | None, ast.expr | None]:
    """``(obj, f)`` of ``torch.save(obj, f, ...)`` (either may be None)."""
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    obj = args[0] if args else kwarg(call, "obj")
    f = args[1] if len(args) > 1 else kwarg(call, "f")
    return obj, f


def torch_saves(m: Walker) -> list[Site[ast.Call]]:
    """Every ``torch.save(...)`` call of the file."""
    return [s for s in m.calls_by_tail.get("save", ()) if m.qualname(s.node.func) == "torch.save"]


def _is_open(node: ast.AST) -> ast.expr | None:
    """The path an ``open(path, mode)`` / ``fs.open(path)`` / ``path.open(mode)`` call opens."""
    if not (isinstance(node, ast.Call) and tail(node.func) == "open"):
        return None
    first = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) else None
    if isinstance(node.func, ast.Attribute) and (
            first is None or (isinstance(first, ast.Constant) and isinstance(first.value, str)
                              and set(first.value) <= set("rwabxt+"))):
        return node.func.value  # ``Path(p).open("rb")``
    return first


def _file(m: Walker, node: ast.expr, ctx: Ctx) -> tuple[ast.expr, Binding | None]:
    """The file expression behind ``node``: ``f`` of ``with open(P) as f`` is ``P``, and so
    is ``open(P)`` itself; with the binding of ``node`` when it is a plain name."""
    opened = _is_open(node)
    if opened is not None:
        return opened, None
    if isinstance(node, ast.Name):
        b = _binding(m, node.id, ctx, pos(node))
        if b is not None and b.how is How.WITH and b.value is not None:
            opened = _is_open(b.value)
            if opened is not None:
                return opened, None
        return node, b
    return node, None


def _binding(m: Walker, name: str, ctx: Ctx, at: int) -> Binding | None:
    """The binding of ``name`` visible at ``at`` (inside ``with ... as name:`` that is
    the ``with``)."""
    return m.binding(name, ctx.scope, at)


def _is_buffer(m: Walker, node: ast.AST | None) -> bool:
    """``io.BytesIO(...)`` (or ``BytesIO(...)``)."""
    return isinstance(node, ast.Call) and (
        m.qualname(node.func) == "io.BytesIO" or tail(node.func) == "BytesIO")


def _to_memory(m: Walker, s: Site[ast.Call]) -> bool:
    """Does this ``torch.save`` write into an in-memory buffer?"""
    _, target = save_target(s.node)
    if target is None:
        return False
    if _is_buffer(m, target):
        return True
    if isinstance(target, ast.Name):
        b = _binding(m, target.id, s.ctx, pos(target))
        return b is not None and b.how in (How.EXPR, How.WITH) and _is_buffer(m, b.value)
    return False


def in_memory(m: Walker, site: Site[ast.Call]) -> bool:
    """Does the load read an in-memory buffer (``io.BytesIO(...)``, directly or through a
    name bound to one) in a file whose own code also serializes into memory with
    ``torch.save``?  Both ends of that protocol are then this program's: the bytes were
    serialized by it or a peer process of it (a broadcast, a worker's result).  Bytes
    fetched from elsewhere (``io.BytesIO(response.content)``) do not count."""
    src = load_source(site.node)
    if src is None:
        return False
    if _is_buffer(m, src):
        pass
    elif isinstance(src, ast.Name):
        b = _binding(m, src.id, site.ctx, site.pos)
        if not (b is not None and b.how in (How.EXPR, How.WITH) and _is_buffer(m, b.value)):
            return False
    else:
        return False
    return any(_to_memory(m, s) for s in torch_saves(m))


def saved_here(m: Walker, site: Site[ast.Call]) -> bool:
    """Was what the load reads written by a ``torch.save`` earlier in the same function
    (the same buffer or path expression), not in the other branch of an ``if`` that holds
    the load?  Then the load runs in the process that just serialized it: its devices
    exist, and the bytes are its own.  A name rebound in between
    counts only when it is rebound to an in-memory buffer (the bytes that came back from a
    broadcast of what was saved)."""
    src = load_source(site.node)
    if src is None:
        return False
    ctx = site.ctx
    path, b_load = _file(m, src, ctx)
    branches = dict(ctx.ifs)
    for s in ctx.scope.calls:
        if s.pos >= site.pos or m.qualname(s.node.func) != "torch.save":
            continue
        if any(branches.get(node, flag) != flag for node, flag in s.ctx.ifs):
            continue  # the other branch of an ``if`` (train / evaluate): another run's file
        _, target = save_target(s.node)
        if target is None:
            continue
        tpath, b_save = _file(m, target, s.ctx)
        if not same_expr(tpath, path):
            continue
        if b_load is not None and b_load is not b_save and not (
                b_load.how is How.EXPR and _is_buffer(m, b_load.value)):
            continue  # ``path`` was rebound to something else between the save and the load
        return True
    return False


def saved_by_call(m: Walker, ff: FileFlow, site: Site[ast.Call]) -> bool:
    """Was the file the load reads written earlier in the same function by a call that
    always saves to the path it is given -- ``fit(model, ..., ckpt_path)`` before
    ``torch.load(ckpt_path)``, the same path expression with its names bound alike at both
    calls, not in the other branch of an ``if`` that holds the load?  The callee is a
    function of this file, a method of the same class called on ``self``, or a function
    imported from another file of the run (``fit(...)``, ``train_utils.fit(...)``), and it
    saves with ``torch.save`` to that parameter (never rebound) in a statement every call
    runs: in its body or a ``with`` / ``try`` body there, before any ``return`` or
    ``raise``.  The load then reads what this
    process has just written, so its devices exist."""
    src = load_source(site.node)
    if src is None:
        return False
    path, _ = _file(m, src, site.ctx)
    branches = dict(site.ctx.ifs)
    for s in site.ctx.scope.calls:
        if s.pos >= site.pos or any(branches.get(node, flag) != flag for node, flag in s.ctx.ifs):
            continue
        given = [(str(i), a) for i, a in enumerate(s.node.args)]
        given += [(k.arg, k.value) for k in s.node.keywords if k.arg is not None]
        hits = [key for key, a in given if not isinstance(a, ast.Starred)
                and same_expr(_file(m, a, s.ctx)[0], path) and _bound_alike(m, path, site, s)]
        if not hits:
            continue
        callee = _callee(m, ff, s)
        if callee is None:
            continue
        other, fn = callee
        for key in hits:
            param = _parameter(s.node, fn, key)
            if param is not None and _always_saves(other, fn, param):
                return True
    return False


def _bound_alike(m: Walker, path: ast.expr, load: Site[ast.Call], call: Site[ast.Call]) -> bool:
    """Is each name of ``path`` bound by the same binding at the load and at the call?"""
    for n in ast.walk(path):
        if isinstance(n, ast.Name):
            b = _binding(m, n.id, load.ctx, load.pos)
            if b is None or b is not _binding(m, n.id, call.ctx, call.pos):
                return False
    return True


def _callee(m: Walker, ff: FileFlow, s: Site[ast.Call]
            ) -> tuple[FileFlow, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The function a call runs, where the code says which: ``f(...)`` of a module-level
    function of this file or one imported from another file of the run, ``mod.f(...)`` of
    a module of the run it imports, ``self.f(...)`` of a method of the caller's class."""
    func = s.node.func
    found: tuple[FileFlow, ast.AST] | None = None
    if isinstance(func, ast.Name):
        b = m.binding(func.id, s.ctx.scope, s.pos)
        if b is not None and b.ctx.scope is not m.module_scope:
            return None  # a local name (a parameter, a nested function): not the module's
        if func.id in ff.defs:
            found = ff, ff.defs[func.id]
        elif func.id in ff.imports:
            found = ff.resolve(ff.imports[func.id])
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        scope = s.ctx.scope
        cls = _class_of(scope)
        if cls is not None and func.value.id == scope.self_name and func.attr in cls.methods:
            found = ff, cls.methods[func.attr].node
        elif func.value.id in ff.imports and m.binding(func.value.id, scope, s.pos) is None:
            q = ff.qualname(func)  # ``utils.fit(...)`` after ``from . import utils``
            found = ff.resolve(q) if q is not None else None
    if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return found[0], found[1]


def _parameter(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, key: str) -> str | None:
    """The parameter of ``fn`` that a call's argument ``key`` (a position or a keyword)
    fills."""
    names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
    if not key.isdigit():
        return key if key in names[len(fn.args.posonlyargs):] or \
            key in {a.arg for a in fn.args.kwonlyargs} else None
    static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
    if names and isinstance(call.func, ast.Attribute) and not static:
        names = names[1:]
    i = int(key)
    if any(isinstance(a, ast.Starred) for a in call.args[:i]):
        return None
    return names[i] if i < len(names) else None


def _always_saves(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> bool:
    """Does every call of ``fn`` run ``torch.save(obj, param)`` (``param`` never rebound):
    a statement of its body, or of a ``with`` / ``try`` body there, before any ``return``
    or ``raise``?"""
    if any(isinstance(n, ast.Name) and n.id == param and not isinstance(n.ctx, ast.Load)
           for n in ast.walk(fn)):
        return False
    first_exit = min((getattr(n, "lineno", 0) for n in ast.walk(fn)
                      if isinstance(n, (ast.Return, ast.Raise))), default=None)
    body = list(fn.body)
    while body:
        st = body.pop(0)
        if first_exit is not None and st.lineno >= first_exit:
            return False
        if isinstance(st, (ast.With, ast.AsyncWith)):
            body[:0] = st.body
        elif isinstance(st, ast.Try):
            body[:0] = st.body
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) \
                and ff.qualname(st.value.func) == "torch.save":
            _, target = save_target(st.value)
            if isinstance(target, ast.Name) and target.id == param:
                return True
    return False


# ------------------------------------------------------------- files the code writes itself
def _pathlike(value: str) -> bool:
    """A string literal that names a file, not a bare suffix (``".pt"``) or a mode."""
    v = value.strip()
    if v.startswith("./"):
        v = v[2:]
    return len(v) >= 2 and not v.startswith(".") and any(c.isalnum() for c in v)


def _module_constant(m: Walker, name: str) -> str | None:
    """The value of a module-level name bound once, to a string literal."""
    binds = m.module_scope.binds.get(name, ())
    if len(binds) != 1:
        return None
    b = binds[0][1]
    v = b.value
    if b.how is How.EXPR and isinstance(v, ast.Constant) and isinstance(v.value, str):
        return v.value
    return None


def _file_names(m: Walker, node: ast.AST | None, ctx: Ctx, seen: set[int]) -> set[tuple[object, ...]]:
    """What names the file a path expression points to: the last component of the path
    (``os.path.join(root, X)``, ``root / X``, ``root + X``) as a string literal, a
    module-level constant or a ``self.attribute`` of the class, or the template a formatted
    name is built from (``"pred{}.pt".format(run)``, ``f"pred{run}.pt"``: see
    :func:`~torchferry.check.flow.cpu_values.template_name`); names bound in the same
    function are followed.  Empty when unknown (a parameter)."""
    out: set[tuple[object, ...]] = set()
    if node is None or id(node) in seen:
        return out
    seen.add(id(node))
    opened = _is_open(node)
    if opened is not None:
        return _file_names(m, opened, ctx, seen)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and _pathlike(node.value):
            out.add(("str", node.value))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
        out |= _file_names(m, node.right, ctx, seen)
    elif isinstance(node, ast.JoinedStr) or isinstance(node, ast.Call) and tail(node.func) == "format":
        tpl = template_name(node)
        if tpl is not None:
            out.add(("fmt", tpl))
    elif isinstance(node, ast.Call):
        t = tail(node.func)
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if t == "join" and args:
            out |= _file_names(m, args[-1], ctx, seen)
        elif t in ("str", "Path", "fspath", "abspath", "expanduser", "realpath") and len(args) == 1:
            out |= _file_names(m, args[0], ctx, seen)
    elif isinstance(node, ast.Attribute):
        d = dotted(node)
        scope = ctx.scope
        cls = _class_of(scope)
        if d is not None and cls is not None and scope.self_name is not None \
                and d.startswith(scope.self_name + ".") and d.count(".") == 1:
            out.add(("attr", id(cls), node.attr))
    elif isinstance(node, ast.Name):
        const = _module_constant(m, node.id)
        if const is not None:
            out.add(("const", node.id))
            if _pathlike(const):
                out.add(("str", const))
        elif ctx.scope.kind is ScopeKind.FUNCTION:
            for _, b in ctx.scope.binds.get(node.id, ()):
                if b.how in (How.EXPR, How.WITH) and b.value is not None:
                    out |= _file_names(m, b.value, b.ctx, seen)
    return out


def _class_of(scope: Scope | None) -> ClassInfo | None:
    while scope is not None:
        if scope.cls is not None:
            return scope.cls
        scope = scope.parent
    return None


def _host_value(m: Walker, ff: FileFlow, node: ast.AST, ctx: Ctx, seen: set[int]) -> bool:
    """Is the saved value, as far as the code shows, host data: no module, state dict,
    parameters or optimizer, nothing moved to a device, no tensor that may be on one, and
    not itself a value of unknown origin (a parameter; one only passed to a call that
    builds the value, such as a directory to read, is fine)?  Names bound in the same
    scope are followed."""
    if id(node) in seen:
        return True
    seen.add(id(node))
    funcs: set[int] = set()
    in_args: set[int] = set()
    for x in ast.walk(node):
        if isinstance(x, ast.Call):
            if tail(x.func) in _DEVICE_EVIDENCE:
                return False
            f: ast.AST = x.func
            while isinstance(f, ast.Attribute):
                funcs.add(id(f))
                f = f.value
            funcs.add(id(f))
            if (m.qualname(x.func) or "").split(".")[0] in ("torch", "numpy"):
                continue  # ``torch.stack(xs)``: its arguments are the data itself
            for a in [*x.args, *(k.value for k in x.keywords)]:
                in_args.update(id(y) for y in ast.walk(a))
    for x in ast.walk(node):
        if id(x) in funcs or not isinstance(x, (ast.Name, ast.Attribute)):
            continue
        if isinstance(x, ast.Name) and (x.id in m.imports or x.id in m.classes):
            continue
        if is_module(ff, x) or may_live_on_device(ff, x):
            return False
        if isinstance(x, ast.Name):
            if "opt" in x.id.lower() or "model" in x.id.lower():
                return False  # an optimizer or a model, by its name
            b = _binding(m, x.id, ctx, pos(x))
            if b is None or b.how in (How.PARAM, How.OPAQUE):
                if id(x) in in_args:
                    continue  # an input the value is built from (a path, a size)
                return False  # the value itself, of unknown origin
            if b.value is not None and not _host_value(m, ff, b.value, b.ctx, seen):
                return False
    return True


def host_data_file(m: Walker, ff: FileFlow, site: Site[ast.Call]) -> bool:
    """Does the load read a file that the code of the run writes, and only with values that
    hold no device's tensors?  The file is recognised by its name -- the same string
    literal, module-level constant or ``self`` attribute (of the same class) as the last
    component of both paths -- or by the same path expression in the same function, its
    names bound alike at both calls (``if os.path.exists(cache): torch.load(cache) else:
    ...; torch.save(data, cache)``).  The saves are ``torch.save`` calls and calls of the
    file's save helpers (:func:`_all_saves`), and the ``torch.save`` calls of the other
    files of the run in its directory that write the same string literal
    (:meth:`Project.savers`: a training script's checkpoint read by its evaluation
    script; there a save of tensors counts only in a file that moves nothing to a
    device).  Every save to the file must be known free of tensors (:func:`_tensor_free`);
    a ``torch.save`` that names the file may instead save host data as :func:`_host_value`
    reads it (a dataset's processed cache or metadata file), or a module or tensor the
    analysis places on the CPU alone in a file that moves nothing to a device
    (:func:`_on_cpu`, :func:`_moves_nothing`: a model never moved).  The state dict of a
    module that may be on a device, or anything else that may hold a device tensor, is
    neither.  A file named by a template (``"pred{}.pt".format(run)``), or only by the same
    path expression, counts only where every save to it holds values on the CPU whatever
    they are made from (:func:`_cpu_value`: ``pred.cpu()``) or no tensor at all."""
    src = load_source(site.node)
    if src is None:
        return False
    names = _file_names(m, src, site.ctx, set())
    found = _saves_judged(m, ff, names, (src, site))
    if found is False:
        return False
    project = ff.project
    if project is None:
        return bool(found)
    for name in names:
        if name[0] != "str":
            continue
        for path in project.savers(ff.path, str(name[1])):
            other = project.file_flow(path)
            if other is None:
                return False  # a file that saves it, unread: unknown
            judged = _saves_judged(Walker(other.tree, other.module_classes), other, {name}, None, True)
            if judged is False:
                return False
            found = found or judged
    return bool(found)


def _saves_judged(m: Walker, ff: FileFlow, names: set[tuple[object, ...]],
                  load: tuple[ast.expr, Site[ast.Call]] | None, other: bool = False) -> bool | None:
    """Are the saves of this file to the file ``names`` (or, in the function of ``load``,
    its path expression) all of host data (True), one of them not known to be (False), or
    is there none (None)?  In ``other`` file than the load's, a value that holds tensors
    counts only where the file moves nothing to a device (:func:`_moves_nothing`)."""
    found: bool | None = None
    still = not other or _moves_nothing(m)
    for s, obj, target in _all_saves(m):
        if target is None:
            continue
        common = names & _file_names(m, target, s.ctx, set())
        if not (common or (load is not None and _same_path(m, load[0], load[1], target, s))):
            continue
        if obj is None:
            return False
        judging = _Judging(names, set()) if load is None else \
            _Judging(names, set(), load[0], load[1].ctx.scope)
        free = _tensor_free(m, obj, s.ctx.scope, judging)
        saved = m.qualname(s.node.func) == "torch.save"
        if all(k[0] == "fmt" for k in common):
            # a template, or the same expression: only a value known to be on the CPU
            ok = free or saved and _cpu_value(m, ff, obj, s.ctx.scope, judging)
        else:
            ok = free or saved and still and (_host_value(m, ff, obj, s.ctx, set())
                                              or _on_cpu(ff, obj) and _moves_nothing(m))
        if not ok:
            return False  # one save to the file may hold a device's tensors
        found = True
    return found


def _cpu_value(m: Walker, ff: FileFlow, obj: ast.expr, scope: Scope, j: _Judging) -> bool:
    """Is the saved value on the CPU whatever it is made from (``pred.cpu()``, a container of
    such values and values holding no tensor: :func:`~torchferry.check.flow.cpu_values.cpu_result`),
    a name of the function bound once to one and never filled further, or a module or
    tensor the analysis places on the CPU in a file that moves nothing to a device?"""
    def free(node: ast.expr) -> bool:  # (each judgment with its own trail of nodes seen)
        return _tensor_free(m, node, scope, j._replace(seen=set()))

    def leaf(node: ast.expr) -> bool:
        if free(node):
            return True
        if isinstance(node, ast.Name) and scope.kind is ScopeKind.FUNCTION:
            binds = scope.binds.get(node.id, ())
            if len(binds) == 1 and binds[0][1].how is How.EXPR and binds[0][1].value is not None \
                    and _stores_free(m, scope, lambda t: isinstance(t, ast.Name) and t.id == node.id,
                                     j._replace(seen=set())):
                return cpu_result(binds[0][1].value, free)
        return _on_cpu(ff, node) and _moves_nothing(m)
    return cpu_result(obj, leaf)


#: calls that move their receiver to an accelerator whatever they are given
_MOVES = ("cuda", "xpu", "mps", "npu", "hpu", "ipu")


def _moves_nothing(m: Walker) -> bool:
    """Does the file never move a value to a device: no accelerator named in a string
    (``"cuda"``, ``"mps:0"``), no ``.cuda()`` and the like, and no ``.to(...)`` given
    anything but ``torch`` dtypes (``x.to(torch.float16)``)?  Then what the analysis places
    on the CPU is not moved elsewhere behind its back (a global moved by another
    function, a model handed to a helper that moves it)."""
    if m.accel_consts or any(m.calls_by_tail.get(t) for t in _MOVES):
        return False
    for site in m.calls_by_tail.get("to", ()):
        call = site.node
        given = [*call.args, *(k.value for k in call.keywords)]
        if not given or any(not isinstance(a, ast.Attribute) or
                            not (m.qualname(a) or "").startswith("torch.") for a in given):
            return False
    return True


def _on_cpu(ff: FileFlow, obj: ast.expr) -> bool:
    """Is the saved value a module or tensor (``x``, ``self.x``, ``x.state_dict()``) that
    the analysis places on the CPU and nowhere else: a model built and never moved, a
    tensor made from host data?"""
    if isinstance(obj, ast.Call) and isinstance(obj.func, ast.Attribute) \
            and obj.func.attr == "state_dict" and not obj.args and not obj.keywords:
        obj = obj.func.value
    if not isinstance(obj, (ast.Name, ast.Attribute)):
        return False
    found = value_of(ff, obj)
    if found is None:
        return False
    res, v = found
    return v.kinds is not None and bool(v.kinds) and v.kinds <= _PLACED \
        and v.places is not None and {p.where for p in v.places} == {Where.CPU} \
        and not res.may_be_on_device(v)


def _all_saves(m: Walker) -> list[tuple[Site[ast.Call], ast.expr | None, ast.expr | None]]:
    """Every save of the file, with what it saves and where: the ``torch.save`` calls, and
    the calls of the file's own save helpers (see :func:`_save_helper`) with the helper's
    value and path arguments."""
    out: list[tuple[Site[ast.Call], ast.expr | None, ast.expr | None]] = []
    for s in torch_saves(m):
        obj, target = save_target(s.node)
        helper = _save_helper(m, s, obj, target)
        if helper is None:
            out.append((s, obj, target))
            continue
        fn, scope, i_obj, i_path = helper
        for c in m.calls_by_tail.get(fn.name, ()):
            if c.ctx.scope is scope or not _calls(c.node.func, fn.name, scope):
                continue
            out.append((c, _argument(c.node, fn, i_obj), _argument(c.node, fn, i_path)))
    return out


def _save_helper(m: Walker, s: Site[ast.Call], obj: ast.expr | None, target: ast.expr | None
                 ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Scope, str, str] | None:
    """Is this ``torch.save`` the body of a helper that saves one of its parameters to the
    file another one names -- directly (``torch.save(data, path)``, ``open(path, "wb")``)
    or to a temporary file the function then renames to it (``os.rename(tmp.name, path)``,
    ``os.replace``, ``shutil.move``)?  The helper, its scope and the two parameters."""
    scope = s.ctx.scope
    fn = scope.function
    if fn is None or not isinstance(obj, ast.Name) or target is None:
        return None
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    if obj.id not in params or len(scope.binds.get(obj.id, ())) != 1:
        return None
    path, _ = _file(m, target, s.ctx)
    if not isinstance(path, ast.Name):
        return None
    if path.id in params and len(scope.binds.get(path.id, ())) == 1:
        return fn, scope, obj.id, path.id
    for c in scope.calls:  # the temporary file renamed to the path afterwards
        q = m.qualname(c.node.func) or ""
        args = c.node.args
        if c.pos > s.pos and q in ("os.rename", "os.replace", "shutil.move") and len(args) == 2 \
                and isinstance(args[1], ast.Name) and args[1].id in params \
                and len(scope.binds.get(args[1].id, ())) == 1 \
                and any(isinstance(n, ast.Name) and n.id == path.id for n in ast.walk(args[0])):
            return fn, scope, obj.id, args[1].id
    return None


def _calls(func: ast.expr, name: str, scope: Scope) -> bool:
    """Does a call's function name this helper: ``name(...)`` for a module-level
    function, ``self.name(...)`` / ``cls.name(...)`` / ``Class.name(...)`` for a method?"""
    cls = scope.cls
    if cls is None:
        return isinstance(func, ast.Name) and scope.parent is not None \
            and scope.parent.kind is ScopeKind.MODULE
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id in ("self", "cls", cls.node.name)


def _argument(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str
              ) -> ast.expr | None:
    """The argument a call passes for ``param`` of ``fn`` (``self`` / ``cls`` of a method
    that is no ``staticmethod`` come first and are not passed)."""
    got = kwarg(call, param)
    if got is not None:
        return got
    names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
    static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
    if names and isinstance(call.func, ast.Attribute) and not static:
        names = names[1:]
    if any(isinstance(a, ast.Starred) for a in call.args) or param not in names:
        return None
    i = names.index(param)
    return call.args[i] if i < len(call.args) else None


class _Judging(NamedTuple):
    """What :func:`_tensor_free` is judging: the names of the file whose saves it reads
    (a load of that same file gives back what they saved), and the nodes on the way."""

    names: set[tuple[object, ...]]
    seen: set[int]
    #: the load's path expression and function: a load of the same expression there reads
    #: the same file
    path: ast.expr | None = None
    scope: Scope | None = None


#: builtins whose result is a Python number or string whatever they are given
_SCALAR_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "round", "repr", "hash"})
#: builtins whose result holds what their arguments hold
_KEEPING_BUILTINS = frozenset({"list", "tuple", "dict", "set", "sorted", "vars"})
#: calls returning plain Python values
_PLAIN_CALLS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "time.process_time",
                          "json.load", "json.loads"})
#: methods that put their arguments into the receiver
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})


def _tensor_free(m: Walker, node: ast.AST | None, scope: Scope, j: _Judging) -> bool:
    """Is ``node`` known to hold no tensor: constants, strings, numbers (``int(x)``,
    ``len(x)``, ``time.time()``, ``x.item()``, ``x.tolist()``, ``json.load(f)``), an
    ``argparse`` namespace (``ArgumentParser(...).parse_args()``), containers and operations
    of such values, and names or ``self`` attributes every store (and mutation) of which is
    one?  Anything else -- a parameter, an unknown call's result -- is not known."""
    if node is None:
        return False
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True
    if id(node) in j.seen:
        return True  # a value built from itself (``d[k] = d.get(k, 0) + 1``): its other parts decide
    j.seen.add(id(node))
    parts: list[ast.AST | None]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        parts = list(node.elts)
    elif isinstance(node, ast.Dict):
        parts = [*(k for k in node.keys if k is not None), *node.values]
    elif isinstance(node, ast.BinOp):
        parts = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        parts = [node.operand]
    elif isinstance(node, ast.BoolOp):
        parts = list(node.values)
    elif isinstance(node, ast.Compare):
        parts = [node.left, *node.comparators]
    elif isinstance(node, ast.IfExp):
        parts = [node.body, node.orelse]
    elif isinstance(node, (ast.Subscript, ast.Starred)):
        parts = [node.value]
    elif isinstance(node, ast.Call):
        return _plain_call(m, node, scope, j)
    elif isinstance(node, ast.Name):
        return _name_free(m, node, scope, j)
    elif isinstance(node, ast.Attribute):
        return _attr_free(m, node, scope, j)
    else:
        return False
    return all(_tensor_free(m, x, scope, j) for x in parts)


def _plain_call(m: Walker, call: ast.Call, scope: Scope, j: _Judging) -> bool:
    """Does this call return a value holding no tensor (see :func:`_tensor_free`)?"""
    func = call.func
    q = m.qualname(func) or ""
    if isinstance(func, ast.Name) and func.id not in m.imports and func.id not in m.module_scope.binds:
        if func.id in _SCALAR_BUILTINS:
            return True
        if func.id in _KEEPING_BUILTINS:
            return not call.keywords and all(_tensor_free(m, a, scope, j) for a in call.args)
    if q in _PLAIN_CALLS:
        return True
    if q == "torch.load":  # reading back the file being judged: what its saves hold
        got = load_source(call)
        return bool(j.names & _file_names(m, got, Ctx(scope), set())) or (
            scope is j.scope and got is not None and j.path is not None and same_expr(got, j.path))
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("item", "tolist") and not call.args:
        return True
    if func.attr in ("parse_args", "parse_known_args") and isinstance(func.value, ast.Name):
        b = m.binding(func.value.id, scope, pos(func.value))
        return b is not None and b.how is How.EXPR and isinstance(b.value, ast.Call) \
            and m.qualname(b.value.func) == "argparse.ArgumentParser"
    return False


def _name_free(m: Walker, node: ast.Name, scope: Scope, j: _Judging) -> bool:
    """Is every binding of this name in its function (or the module), and everything put
    into it there (``x[k] = v``, ``x.append(v)``), free of tensors?"""
    b = m.binding(node.id, scope, pos(node))
    if b is None:
        return False
    home = b.ctx.scope
    if home.kind is ScopeKind.CLASS:
        return False
    for _, bb in home.binds.get(node.id, ()):
        value = bb.value.value if bb.how is How.AUG and isinstance(bb.value, ast.AugAssign) else bb.value
        if bb.how in (How.PARAM, How.OPAQUE) or not _tensor_free(m, value, bb.ctx.scope, j):
            return False
    return _stores_free(m, home, lambda t: isinstance(t, ast.Name) and t.id == node.id, j)


def _attr_free(m: Walker, node: ast.Attribute, scope: Scope, j: _Judging) -> bool:
    """Is ``self.x`` free of tensors: every store of ``self.x`` (and into it) in the
    methods of its class is?"""
    cls = _class_of(scope)
    if cls is None or scope.self_name is None or dotted(node.value) != scope.self_name:
        return False
    attr = node.attr
    found = False
    for method in cls.methods.values():
        me = method.self_name
        if me is None:
            continue

        def is_it(t: ast.AST, me: str = me) -> bool:
            return isinstance(t, ast.Attribute) and t.attr == attr and dotted(t.value) == me
        for st in ast.walk(method.node):
            if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if any(is_it(t) for t in targets):
                    found = True
                    if not _tensor_free(m, st.value, method, j):
                        return False
        if not _stores_free(m, method, is_it, j):
            return False
    return found


def _stores_free(m: Walker, scope: Scope, is_it: Callable[[ast.AST], bool], j: _Judging) -> bool:
    """Is everything the function puts into the value ``is_it`` recognises (``v[k] = x``,
    ``v.append(x)``, ``v[k].update(x)``) free of tensors?"""
    for st in ast.walk(scope.node):
        if isinstance(st, (ast.Assign, ast.AugAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            for t in targets:
                root = t
                while isinstance(root, ast.Subscript):
                    root = root.value
                if root is not t and is_it(root) and not _tensor_free(m, st.value, scope, j):
                    return False
        elif isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute) \
                and st.func.attr in _MUTATORS:
            root = st.func.value
            while isinstance(root, ast.Subscript):
                root = root.value
            if is_it(root) and not all(_tensor_free(m, a, scope, j)
                                       for a in [*st.args, *(k.value for k in st.keywords)]):
                return False
    return True


def _same_path(m: Walker, src: ast.expr, site: Site[ast.Call], target: ast.expr,
               save: Site[ast.Call]) -> bool:
    """Do the load and the save, in the same function, name the same file: the same path
    expression (or ``open`` of it) with each of its names bound by the same binding at both
    calls?"""
    if save.ctx.scope is not site.ctx.scope or save.ctx.scope.kind is not ScopeKind.FUNCTION:
        return False
    path, _ = _file(m, src, site.ctx)
    tpath, _ = _file(m, target, save.ctx)
    return same_expr(path, tpath) and _bound_alike(m, path, site, save)


def ndarray_only(m: Walker, site: Site[ast.Call]) -> bool:
    """Is the loaded object a NumPy array: bound to a name whose every use (in the same
    scope) is ``torch.from_numpy(name)`` or ``torch.from_numpy(name[...])``?  A pickled
    ndarray holds no torch storage, so there is no device to restore."""
    call, stmt = site.node, site.stmt
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    scope = site.ctx.scope
    if len(scope.binds.get(name, ())) != 1:
        return False
    uses = [n for n in ast.walk(scope.node) if isinstance(n, ast.Name) and n.id == name
            and isinstance(n.ctx, ast.Load)]
    if not uses:
        return False
    ok: set[int] = set()
    for s in m.calls_by_tail.get("from_numpy", ()):
        if s.ctx.scope is not scope or m.qualname(s.node.func) != "torch.from_numpy" \
                or len(s.node.args) != 1:
            continue
        arg = s.node.args[0]
        while isinstance(arg, ast.Subscript):
            arg = arg.value
        if isinstance(arg, ast.Name) and arg.id == name:
            ok.add(id(arg))
    return all(id(u) in ok for u in uses)


# ------------------------------------------------------------- where the load runs
def dataset_method(m: Walker, site: Site[ast.Call]) -> bool:
    """Is the load in a method of a ``Dataset`` class (a base named ``...Dataset``, directly
    or through the file's own classes)?  A dataset's files hold samples, which a dataset
    keeps on the CPU (DataLoader workers and ``pin_memory`` expect host tensors)."""
    cls = _class_of(site.ctx.scope)
    seen: set[str] = set()
    while cls is not None and cls.name not in seen:
        seen.add(cls.name)
        nxt = None
        for q in cls.bases:
            last = q.rsplit(".", 1)[-1]
            if last.endswith("Dataset"):
                return True
            nxt = nxt or m.classes.get(q)
        cls = nxt
    return False


def xla_only(m: Walker, site: Site[ast.Call]) -> bool:
    """Is the load in a function that cannot run without torch_xla (a top-level statement of
    its body imports it)?  There the checkpoints are XLA's own: written from XLA tensors (by
    ``xm.save``, which moves them to the CPU first, or restored to the XLA device this host
    has), not from a CUDA device."""
    s: Scope | None = site.ctx.scope
    while s is not None:
        fn = s.function
        if fn is not None:
            for st in fn.body:
                if isinstance(st, ast.Import) and any(a.name.split(".")[0] == "torch_xla" for a in st.names):
                    return True
                if isinstance(st, ast.ImportFrom) and st.level == 0 and \
                        (st.module or "").split(".")[0] == "torch_xla":
                    return True
        s = s.parent
    return False


# ------------------------------------------------------------- loads chosen per device
def device_chosen(m: Walker, site: Site[ast.Call]) -> bool:
    """Does the load run only where an accelerator is known to be present: in the arm of an
    ``if`` (or ``a if T else b``) whose test, there, says an accelerator is available
    (``torch.cuda.is_available()``, ``x and torch.cuda.is_available()``, a name bound once
    to such a test), or whose other arm loads the same path with ``map_location`` to the
    CPU (the author chose per device: the flag is the device's) and whose test names no
    other accelerator (``cuda or mps`` also holds on a Mac, where a CUDA checkpoint fails)?
    On a machine without the accelerator the other arm runs."""
    src = load_source(site.node)
    for node, here in _arms(m, site):
        test, value = node.test, here
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, value = test.operand, not value
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq):
            test, value = ast.Compare(test.left, [ast.Eq()], test.comparators), not value
        if value and _accelerator_test(m, test, site.ctx, 0):
            return True
        other = node.orelse if here else node.body
        if src is not None and not _names_other_backend(node.test) and _cpu_sibling(m, other, src):
            return True
    return False


# accelerators other than CUDA: a machine with one of them and no CUDA device cannot
# restore a CUDA checkpoint either
_OTHER_BACKENDS = frozenset({"mps", "xpu", "npu", "hpu", "xla", "mlu", "ipu"})


def _names_other_backend(test: ast.expr) -> bool:
    """Does ``test`` name an accelerator other than CUDA (``torch.backends.mps``, a
    ``"mps"`` string)?  Then it may hold on a machine without CUDA (``cuda or mps``), so
    the arm it guards is not known to be the CUDA machine's."""
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr in _OTHER_BACKENDS:
            return True
        if isinstance(n, ast.Name) and n.id in _OTHER_BACKENDS:
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) \
                and n.value.split(":", 1)[0] in _OTHER_BACKENDS:
            return True
    return False


def _arms(m: Walker, site: Site[ast.Call]) -> list[tuple[ast.If | ast.IfExp, bool]]:
    """The ``if`` statements and conditional expressions around the load in its function:
    each with True when the load is in its body, False in its ``else``."""
    arms: list[tuple[ast.If | ast.IfExp, bool]] = list(site.ctx.ifs)
    parents = m.parents(site.stmt)
    child: ast.AST = site.node
    parent = parents.get(id(child))
    while parent is not None:
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            arms.append((parent, child is parent.body))
        child, parent = parent, parents.get(id(parent))
    return arms


def _accelerator_test(m: Walker, test: ast.AST, ctx: Ctx, depth: int) -> bool:
    """Is ``test`` true only where an accelerator is available: a call of
    ``...cuda.is_available()``, ``...cuda.device_count() > 0`` (or ``>= 1``), an ``and``
    with such an operand, a comparison of a device with a CUDA device (``device ==
    torch.device("cuda")``, ``device.type == "cuda"``: only a CUDA device compares equal),
    or a name bound once, in its scope, to such a test?"""
    if depth > 3:
        return False
    if isinstance(test, ast.Call):
        return not test.args and not test.keywords and \
            (dotted(test.func) or "").endswith("cuda.is_available")
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Call) \
            and (dotted(test.left.func) or "").endswith("cuda.device_count"):
        bound = test.comparators[0]
        return isinstance(bound, ast.Constant) and (
            (isinstance(test.ops[0], ast.Gt) and bound.value == 0)
            or (isinstance(test.ops[0], ast.GtE) and bound.value == 1))
    if cuda_device_test(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_accelerator_test(m, v, ctx, depth) for v in test.values)
    if isinstance(test, ast.Name):
        b = m.binding(test.id, ctx.scope, pos(test))
        if b is None or b.how is not How.EXPR or b.value is None:
            return False
        if len(b.ctx.scope.binds.get(test.id, ())) != 1:
            return False  # rebound: another value at another time
        return _accelerator_test(m, b.value, b.ctx, depth + 1)
    return False


def _cpu_sibling(m: Walker, arm: ast.AST | list[ast.stmt], src: ast.expr) -> bool:
    """Does ``arm`` (the other arm of the test) load the same path with ``map_location`` to
    the CPU (``"cpu"``, ``torch.device("cpu")``, ``lambda storage, loc: storage``)?"""
    for root in arm if isinstance(arm, list) else [arm]:
        for n in ast.walk(root):
            if not (isinstance(n, ast.Call) and m.qualname(n.func) == "torch.load"):
                continue
            other = load_source(n)
            loc = kwarg(n, "map_location") or (n.args[1] if len(n.args) >= 2 else None)
            if other is not None and loc is not None and same_expr(other, src) and _to_cpu(m, loc):
                return True
    return False


def _to_cpu(m: Walker, loc: ast.expr) -> bool:
    """A ``map_location`` that puts every storage on the CPU."""
    if isinstance(loc, ast.Call) and m.qualname(loc.func) == "torch.device" and len(loc.args) == 1:
        loc = loc.args[0]
    if isinstance(loc, ast.Constant):
        return loc.value == "cpu"
    if isinstance(loc, ast.Lambda) and loc.args.args and isinstance(loc.body, ast.Name):
        return loc.body.id == loc.args.args[0].arg
    return False
