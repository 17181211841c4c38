"""Scopes and bindings: one walk over a file's tree that records, per scope, every binding
of a local name and every call, operator and accelerator literal, with where it sits
(enclosing loops, ``if`` guards, ``with`` blocks).

:class:`Walker` does the walk and answers the structural questions (qualified names
through the imports, the binding of a name visible at a point, the file's ``nn.Module``
classes, ``no_grad`` regions).  It knows nothing of what values are: that is the
device-flow analysis's (:mod:`torchferry.check.flow`).

>>> import ast
>>> w = Walker(ast.parse("import torch as T\\ndef f(x):\\n    y = T.zeros(2)\\n    return y\\n"))
>>> w.qualname(w.calls[0].node.func)
'torch.zeros'
>>> fn = w.functions[0]
>>> [(b.how, b.name) for _, b in fn.binds["y"]]
[(<How.EXPR: 'expr'>, 'y')]
"""

from __future__ import annotations

import ast
import enum
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from torchferry.check.flow.modclass import module_base, module_class
from torchferry.check.names import (
    ACCEL_LITERAL,
    AVAIL_NAME,
    FIELDS,
    TENSORISH_USES,
    dotted,
    end_pos,
    fields_of,
    header_parents,
    imported_by_call,
    pos,
    tail,
)

N = TypeVar("N", bound=ast.AST)


class ScopeKind(enum.Enum):
    """What a scope is."""

    MODULE = "module"  # a file's top-level code
    CLASS = "class"  # a class body
    FUNCTION = "function"  # a function or method


class How(enum.Enum):
    """How a binding binds its name."""

    EXPR = "expr"  # ``x = e``, ``x: T = e``, ``x := e``: ``value`` is ``e``
    UNPACK = "unpack"  # ``a, b = e``: ``value`` is ``e``, ``path`` the element
    FOR = "for"  # ``for x in e`` (or a comprehension's): ``value`` is the iterable
    PARAM = "param"  # a function parameter: ``value`` is its ``ast.arg``
    AUG = "aug"  # ``x += e``: ``value`` is the statement
    WITH = "with"  # ``with e as x``: ``value`` is ``e``
    OPAQUE = "opaque"  # anything else (``def``, ``class``, ``import``, ``*rest``): no value


class ClassInfo:
    """A class of the file: its node, whether it is an ``nn.Module``, its ``self.x`` bindings
    (from ``__init__`` first, then the first other method that sets them) and base names."""

    __slots__ = ("node", "is_module", "attrs", "bases", "methods")

    def __init__(self, node: ast.ClassDef) -> None:
        self.node = node
        self.is_module = False
        self.attrs: dict[str, list[tuple[int, Binding]]] = {}
        self.bases: list[str] = []
        self.methods: dict[str, Scope] = {}

    @property
    def name(self) -> str:
        return self.node.name


class Scope:
    """A module, class body or function: its bindings and what happens inside it."""

    __slots__ = ("kind", "node", "parent", "cls", "binds", "comps", "calls", "ops",
                 "tensorish", "_sorted", "self_name", "_call_keys", "_op_keys", "returns")

    def __init__(self, kind: ScopeKind, node: ast.AST, parent: Scope | None,
                 cls: ClassInfo | None = None) -> None:
        self.kind = kind
        self.node = node
        self.parent = parent
        self.cls = cls  # for methods: the class they belong to
        self.binds: dict[str, list[tuple[int, Binding]]] = {}
        self.comps: list[tuple[int, int, frozenset[str], ast.AST | None, Ctx]] = []
        self.calls: list[Site[ast.Call]] = []
        self.ops: list[Site[ast.BinOp | ast.Compare]] = []
        self.tensorish: set[str] = set()  # names used as x.shape / x.device / x.size()...
        self.returns: list[Site[ast.Return]] = []
        self._sorted = False
        self._call_keys: list[int] = []
        self._op_keys: list[int] = []
        self.self_name: str | None = None

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<module>")

    @property
    def function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function node, for a function scope."""
        n = self.node
        return n if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    def sort(self) -> None:
        if not self._sorted:
            self.calls.sort(key=lambda s: s.pos)
            self.ops.sort(key=lambda s: s.pos)
            self._call_keys = [s.pos for s in self.calls]
            self._op_keys = [s.pos for s in self.ops]
            self._sorted = True

    def calls_between(self, start: int, end: int) -> list[Site[ast.Call]]:
        """The calls that start between two positions (inclusive), in source order."""
        self.sort()
        keys = self._call_keys
        return self.calls[bisect_right(keys, start - 1):bisect_right(keys, end)]

    def ops_between(self, start: int, end: int) -> list[Site[ast.BinOp | ast.Compare]]:
        """The BinOp/Compare nodes that start between two positions, in source order."""
        self.sort()
        keys = self._op_keys
        return self.ops[bisect_right(keys, start - 1):bisect_right(keys, end)]


class Ctx:
    """Where a node sits: scope, enclosing loops, ``if`` guards and ``with`` blocks."""

    __slots__ = ("scope", "loops", "ifs", "withs", "_nograd")

    def __init__(self, scope: Scope, loops: tuple[ast.For | ast.AsyncFor | ast.While, ...] = (),
                 ifs: tuple[tuple[ast.If, bool], ...] = (),
                 withs: tuple[ast.With | ast.AsyncWith, ...] = ()) -> None:
        self.scope = scope
        self.loops = loops
        self.ifs = ifs  # (if-statement, True when in its body / False in its else)
        self.withs = withs
        self._nograd: bool | None = None


class Site(Generic[N]):
    """A recorded node with its context and the statement holding it."""

    __slots__ = ("node", "ctx", "stmt", "pos")

    def __init__(self, node: N, ctx: Ctx, stmt: ast.stmt) -> None:
        self.node = node
        self.ctx = ctx
        self.stmt = stmt
        self.pos = pos(node)


class Binding:
    """One binding of a name: ``how`` says how it binds (:class:`How`); ``value`` the
    expression (or iterable / argument) it came from."""

    __slots__ = ("how", "value", "path", "ctx", "stmt", "name", "pos")

    def __init__(self, how: How, value: ast.AST | None, path: tuple[int, ...], ctx: Ctx,
                 stmt: ast.AST, name: str, at: int) -> None:
        self.how = how
        self.value = value
        self.path = path
        self.ctx = ctx
        self.stmt = stmt
        self.name = name
        self.pos = at


def _before(lst: list[tuple[int, Binding]], at: int) -> Binding | None:
    """The last binding before ``at`` that can reach it: one made in the body of an
    ``if`` does not reach that ``if``'s ``else``/``elif`` (the branches exclude each
    other), so the search goes on to the binding before it."""
    i = bisect_right(lst, at, key=lambda x: x[0]) - 1
    while i >= 0:
        b = lst[i][1]
        if not on_the_other_arm(b, at):
            return b
        i -= 1
    return None


def on_the_other_arm(b: Binding, at: int) -> bool:
    """Is position ``at`` in the ``else``/``elif`` of an ``if`` in whose body ``b`` was
    made?  The arms exclude each other, so ``b`` cannot reach ``at``."""
    return any(in_body and st.orelse and pos(st.orelse[0]) <= at <= end_pos(st.orelse[-1])
               for st, in_body in b.ctx.ifs)


def visible_scopes(scope: Scope) -> Iterator[tuple[Scope, bool]]:
    r"""The scopes whose names code in ``scope`` sees, innermost first, each with whether it
    is ``scope`` itself: an enclosing class's names are not visible from its methods, as in
    Python.

    >>> w = Walker(ast.parse("x = 1\nclass C:\n    y = 2\n    def f(self): pass\n"))
    >>> [s.kind.value for s, _ in visible_scopes(w.functions[0])]
    ['function', 'module']
    """
    s: Scope | None = scope
    first = True
    while s is not None:
        if s.kind is not ScopeKind.CLASS or first:
            yield s, first
        first = False
        s = s.parent


class Walker:
    """The structural part of the per-file analysis: imports, scopes, bindings, sites."""

    def __init__(self, tree: ast.Module, module_classes: frozenset[str] = frozenset(),
                 module_of: Callable[[ast.ClassDef], bool] | None = None,
                 star_names: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.tree = tree
        #: per module ``M`` of a ``from M import *``, the names it imports there
        #: (:attr:`torchferry.check.flow.program.FileFlow.star_names`)
        self._star_names = star_names or {}
        #: ``nn.Module`` subclasses defined in the other files of the same run
        self.module_classes = module_classes
        #: the device-flow analysis's answer to "is this class an ``nn.Module``?" (it
        #: resolves bases through the run's imports); without it the same decision is
        #: taken from this file alone
        self._module_of = module_of
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.class_list: list[ClassInfo] = []
        self.calls: list[Site[ast.Call]] = []
        self.calls_by_tail: dict[str, list[Site[ast.Call]]] = {}
        self.accel_consts: list[Site[ast.Constant]] = []
        #: ``self.x = ...`` in a class's ``__init__``, and in its other methods
        self.self_assigns: list[tuple[ast.stmt, Ctx, ClassInfo, str]] = []
        self.method_assigns: list[tuple[ast.stmt, Ctx, ClassInfo, str]] = []
        self.loops: list[tuple[ast.For | ast.AsyncFor | ast.While, Ctx]] = []
        self.functions: list[Scope] = []
        self.module_scope = Scope(ScopeKind.MODULE, tree, None)
        #: per-file caches a rule may keep its own answers in, keyed by the rule's code
        self.rule_memo: dict[str, dict[int, bool]] = {}
        self._parents: dict[int, dict[int, ast.AST]] = {}
        self._avail_checks: dict[int, list[Site[ast.Call]]] | None = None
        self._walk_body(tree.body, Ctx(self.module_scope), None)
        self._resolve_classes()

    # ----------------------------------------------------------------- imports
    def _add_import(self, st: ast.Import | ast.ImportFrom) -> None:
        imp = self.imports
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    imp.setdefault(a.asname, a.name)
                else:
                    top = a.name.split(".")[0]
                    imp.setdefault(top, top)
        else:
            base = ("." * st.level) + (st.module or "")
            for a in st.names:
                if a.name == "*":
                    for name, qual in self._star_names.get(base, {}).items():
                        imp.setdefault(name, qual)
                    continue
                imp.setdefault(a.asname or a.name, f"{base}.{a.name}" if base else a.name)

    def qualname(self, node: ast.AST) -> str | None:
        """The fully qualified name an expression refers to through the imports, or None.

        ``T.nn.Linear`` -> ``"torch.nn.Linear"`` after ``import torch as T``.
        """
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.imports.get(node.id)
        if root is None:
            return None
        if parts:
            return root + "." + ".".join(reversed(parts))
        return root

    def alias_of(self, qualified: str) -> str | None:
        """The name under which the file can refer to ``qualified`` (e.g. ``"torch"``)."""
        for alias, q in self.imports.items():
            if q == qualified:
                return alias
        return None

    # ----------------------------------------------------------------- walking
    def _bind(self, scope: Scope, name: str, b: Binding) -> None:
        lst = scope.binds.get(name)
        if lst is None:
            scope.binds[name] = [(b.pos, b)]
        else:
            lst.append((b.pos, b))

    def _bind_target(self, target: ast.AST, how: How, value: ast.AST | None, ctx: Ctx,
                     stmt: ast.stmt, path: tuple[int, ...] = (), at: int | None = None) -> None:
        """Bind ``target``; the binding is visible from ``at`` (default: the end of
        ``stmt``; a ``with`` passes the end of its ``as`` target, so the name is bound
        inside the block)."""
        if isinstance(target, ast.Name):
            where = end_pos(stmt) if at is None else at
            self._bind(ctx.scope, target.id,
                       Binding(how, value, path, ctx, stmt, target.id, where))
        elif isinstance(target, (ast.Tuple, ast.List)):
            how2 = How.UNPACK if how is How.EXPR else how
            for i, el in enumerate(target.elts):
                if isinstance(el, ast.Starred):
                    self._bind_target(el.value, How.OPAQUE, None, ctx, stmt, at=at)
                else:
                    self._bind_target(el, how2, value, ctx, stmt, path + (i,), at=at)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, How.OPAQUE, None, ctx, stmt, at=at)
        elif isinstance(target, ast.Attribute):
            scope = ctx.scope
            cls = scope.cls
            if (cls is not None and isinstance(target.value, ast.Name)
                    and target.value.id == scope.self_name and how is How.EXPR and not path):
                attr = target.attr
                b = Binding(how, value, path, ctx, stmt, "self." + attr, end_pos(stmt))
                if scope.name == "__init__" or attr not in cls.attrs:
                    cls.attrs.setdefault(attr, []).append((b.pos, b))
                if scope.name == "__init__":
                    self.self_assigns.append((stmt, ctx, cls, attr))
                else:
                    self.method_assigns.append((stmt, ctx, cls, attr))

    def _walk_body(self, body: Sequence[ast.stmt], ctx: Ctx, cls: ClassInfo | None) -> None:
        for st in body:
            self._walk_stmt(st, ctx, cls)

    def _walk_stmt(self, st: ast.stmt, ctx: Ctx, cls: ClassInfo | None) -> None:
        """One statement: dispatched on its type (one dict lookup; this runs for every
        statement of every file)."""
        handler = _STMT.get(type(st))
        if handler is not None:
            handler(self, st, ctx, cls)
        else:
            self._other_stmt(st, ctx)

    def _s_expr(self, st: ast.Expr, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.value, ctx, st)

    def _s_assign(self, st: ast.Assign, ctx: Ctx, cls: ClassInfo | None) -> None:
        if ctx.scope.kind is ScopeKind.MODULE:
            found = imported_by_call(st)  # ``torch = importlib.import_module("torch")``
            if found is not None:
                self.imports.setdefault(*found)
        self._expr(st.value, ctx, st)
        for tg in st.targets:
            if type(tg) is not ast.Name:
                self._expr_targets(tg, ctx, st)
            self._bind_target(tg, How.EXPR, st.value, ctx, st)

    def _s_augassign(self, st: ast.AugAssign, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.value, ctx, st)
        tg = st.target
        if isinstance(tg, ast.Name):
            self._bind(ctx.scope, tg.id, Binding(How.AUG, st, (), ctx, st, tg.id, end_pos(st)))
        else:
            self._expr(tg, ctx, st)

    def _s_annassign(self, st: ast.AnnAssign, ctx: Ctx, cls: ClassInfo | None) -> None:
        if st.value is not None:  # a bare ``x: int`` binds nothing
            self._expr(st.value, ctx, st)
            self._bind_target(st.target, How.EXPR, st.value, ctx, st)

    def _s_function(self, st: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Ctx,
                    cls: ClassInfo | None) -> None:
        self._walk_function(st, ctx, cls)

    def _s_class(self, st: ast.ClassDef, ctx: Ctx, cls: ClassInfo | None) -> None:
        for d in st.decorator_list:
            self._expr(d, ctx, st)
        for b in st.bases:
            self._expr(b, ctx, st)
        info = ClassInfo(st)
        self.class_list.append(info)
        self.classes.setdefault(st.name, info)
        self._bind(ctx.scope, st.name, Binding(How.OPAQUE, None, (), ctx, st, st.name, pos(st)))
        cscope = Scope(ScopeKind.CLASS, st, ctx.scope)
        self._walk_body(st.body, Ctx(cscope), info)

    def _s_for(self, st: ast.For | ast.AsyncFor, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.iter, ctx, st)
        self.loops.append((st, ctx))
        inner = Ctx(ctx.scope, ctx.loops + (st,), ctx.ifs, ctx.withs)
        self._bind_for(st.target, st.iter, inner, st)
        self._walk_body(st.body, inner, cls)
        self._walk_body(st.orelse, ctx, cls)

    def _s_while(self, st: ast.While, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.test, ctx, st)
        self.loops.append((st, ctx))
        self._walk_body(st.body, Ctx(ctx.scope, ctx.loops + (st,), ctx.ifs, ctx.withs), cls)
        self._walk_body(st.orelse, ctx, cls)

    def _s_if(self, st: ast.If, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.test, ctx, st)
        scope = ctx.scope
        self._walk_body(st.body, Ctx(scope, ctx.loops, ctx.ifs + ((st, True),), ctx.withs), cls)
        if st.orelse:
            self._walk_body(st.orelse, Ctx(scope, ctx.loops, ctx.ifs + ((st, False),), ctx.withs), cls)

    def _s_with(self, st: ast.With | ast.AsyncWith, ctx: Ctx, cls: ClassInfo | None) -> None:
        for item in st.items:
            self._expr(item.context_expr, ctx, st)
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, How.WITH, item.context_expr, ctx, st,
                                  at=end_pos(item.optional_vars))
        self._walk_body(st.body, Ctx(ctx.scope, ctx.loops, ctx.ifs, ctx.withs + (st,)), cls)

    def _s_try(self, st: ast.Try, ctx: Ctx, cls: ClassInfo | None) -> None:  # also TryStar
        self._walk_body(st.body, ctx, cls)
        for h in st.handlers:
            if h.type is not None:
                self._expr(h.type, ctx, st)
            if h.name:
                self._bind(ctx.scope, h.name, Binding(How.OPAQUE, None, (), ctx, h, h.name, pos(h)))
            self._walk_body(h.body, ctx, cls)
        self._walk_body(st.orelse, ctx, cls)
        self._walk_body(st.finalbody, ctx, cls)

    def _s_import(self, st: ast.Import | ast.ImportFrom, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._add_import(st)
        scope = ctx.scope
        if scope.kind is not ScopeKind.MODULE:
            for a in st.names:
                n = a.asname or a.name.split(".")[0]
                self._bind(scope, n, Binding(How.OPAQUE, None, (), ctx, st, n, end_pos(st)))

    def _s_match(self, st: ast.Match, ctx: Ctx, cls: ClassInfo | None) -> None:
        self._expr(st.subject, ctx, st)
        for case in st.cases:
            if case.guard is not None:
                self._expr(case.guard, ctx, st)
            self._walk_body(case.body, ctx, cls)

    def _s_return(self, st: ast.Return, ctx: Ctx, cls: ClassInfo | None) -> None:
        ctx.scope.returns.append(Site(st, ctx, st))
        if st.value is not None:
            self._expr(st.value, ctx, st)

    def _other_stmt(self, st: ast.stmt, ctx: Ctx) -> None:
        """Raise, Assert, Delete, Global, Pass...: their expressions."""
        for f in fields_of(type(st)):
            field = getattr(st, f, None)
            if isinstance(field, ast.AST):
                self._expr(field, ctx, st)
            elif type(field) is list:
                for x in field:
                    if isinstance(x, ast.AST):
                        self._expr(x, ctx, st)

    def _expr_targets(self, tg: ast.AST, ctx: Ctx, st: ast.stmt) -> None:
        if isinstance(tg, (ast.Tuple, ast.List)):
            for el in tg.elts:
                self._expr_targets(el, ctx, st)
        elif isinstance(tg, ast.Starred):
            self._expr_targets(tg.value, ctx, st)
        elif not isinstance(tg, ast.Name):
            self._expr(tg, ctx, st)

    def _bind_for(self, target: ast.AST, it: ast.AST, ctx: Ctx, st: ast.stmt,
                  path: tuple[int, ...] = ()) -> None:
        if isinstance(target, ast.Name):
            self._bind(ctx.scope, target.id,
                       Binding(How.FOR, it, path, ctx, st, target.id, end_pos(target)))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, el in enumerate(target.elts):
                self._bind_for(el, it, ctx, st, path + (i,))
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, How.OPAQUE, None, ctx, st)
        else:
            self._expr(target, ctx, st)

    def _walk_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Ctx,
                       cls: ClassInfo | None) -> None:
        outer = ctx.scope
        for d in fn.decorator_list:
            self._expr(d, ctx, fn)
        args = fn.args
        for d in args.defaults:
            self._expr(d, ctx, fn)
        for kd in args.kw_defaults:
            if kd is not None:
                self._expr(kd, ctx, fn)
        self._bind(outer, fn.name, Binding(How.OPAQUE, None, (), ctx, fn, fn.name, pos(fn)))
        # (a classmethod's first parameter is the class, not an instance: ``cls(...)``
        # constructs, it is no forward pass)
        is_static = any(dotted(d) in ("staticmethod", "classmethod") for d in fn.decorator_list)
        scope = Scope(ScopeKind.FUNCTION, fn, outer, cls if outer.kind is ScopeKind.CLASS else None)
        if scope.cls is not None:
            scope.cls.methods.setdefault(fn.name, scope)
        self.functions.append(scope)
        inner = Ctx(scope)
        allargs = args.posonlyargs + args.args
        if scope.cls is not None and allargs and not is_static:
            scope.self_name = allargs[0].arg
        at = pos(fn)
        for a in allargs + args.kwonlyargs:
            self._bind(scope, a.arg, Binding(How.PARAM, a, (), inner, fn, a.arg, at))
        for va in (args.vararg, args.kwarg):
            if va is not None:
                self._bind(scope, va.arg, Binding(How.OPAQUE, None, (), inner, fn, va.arg, at))
        self._walk_body(fn.body, inner, None)

    def _expr(self, node: ast.AST, ctx: Ctx, st: ast.stmt) -> None:
        """Record the calls, operators and accelerator literals of one expression.

        The hot loop of the whole checker: the commonest node types get their children
        pushed directly instead of through the generic field loop (``n`` is ``Any``
        because the stack holds every kind of node; each branch tests its type first)."""
        scope = ctx.scope
        stack: list[Any] = [node]
        pop = stack.pop
        push = stack.append
        extend = stack.extend
        Call, Attribute, Constant, Name = ast.Call, ast.Attribute, ast.Constant, ast.Name
        BinOp, Compare, Subscript, Tuple, List = ast.BinOp, ast.Compare, ast.Subscript, ast.Tuple, ast.List
        keyword = ast.keyword
        fields = FIELDS
        calls, scope_calls, by_tail = self.calls, scope.calls, self.calls_by_tail
        while stack:
            n = pop()
            t = type(n)
            if t is Name or n is None:
                continue
            if t is Attribute:
                v = n.value
                if type(v) is Name:
                    if n.attr in TENSORISH_USES:
                        scope.tensorish.add(v.id)
                else:
                    push(v)
                continue
            if t is Call:
                site: Site[ast.Call] = Site(n, ctx, st)
                calls.append(site)
                scope_calls.append(site)
                func = n.func
                ft = type(func)
                key: str | None
                if ft is Attribute:
                    key = func.attr
                    push(func)
                elif ft is Name:
                    key = func.id
                else:
                    key = None
                    push(func)
                if key is not None:
                    lst = by_tail.get(key)
                    if lst is None:
                        by_tail[key] = [site]
                    else:
                        lst.append(site)
                extend(n.args)
                for k in n.keywords:
                    push(k.value)
                continue
            if t is Constant:
                v = n.value
                if type(v) is str and v[:1] in "cmx" and ACCEL_LITERAL.match(v):
                    self.accel_consts.append(Site(n, ctx, st))
                continue
            if t is Subscript:
                push(n.value)
                push(n.slice)
                continue
            if t is Tuple or t is List:
                extend(n.elts)
                continue
            if t is BinOp:
                scope.ops.append(Site(n, ctx, st))
                push(n.left)
                push(n.right)
                continue
            if t is Compare:
                scope.ops.append(Site(n, ctx, st))
                push(n.left)
                extend(n.comparators)
                continue
            if t is keyword:
                push(n.value)
                continue
            if t is ast.ListComp or t is ast.SetComp or t is ast.GeneratorExp or t is ast.DictComp:
                for g in n.generators:
                    names = frozenset(x.id for x in ast.walk(g.target) if type(x) is Name)
                    scope.comps.append((pos(n), end_pos(n), names, g.iter, ctx))
            elif t is ast.Lambda:
                a = n.args
                names = frozenset(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
                scope.comps.append((pos(n), end_pos(n), names, None, ctx))
            elif t is ast.NamedExpr:
                tg = n.target
                self._bind(scope, tg.id, Binding(How.EXPR, n.value, (), ctx, st, tg.id, end_pos(n)))
            fl = fields.get(t)
            if fl is None:
                fl = fields_of(t)
            for f in fl:
                v = getattr(n, f)
                if v.__class__ is list:
                    extend(v)  # may hold None (``{**d}`` keys, kw_defaults): skipped on pop
                elif v is not None:
                    push(v)

    # ----------------------------------------------------------------- classes
    def _resolve_classes(self) -> None:
        for info in self.class_list:
            info.bases = [self.qualname(b) or dotted(b) or "" for b in info.node.bases]
        decided: dict[int, bool] = {}
        for info in self.class_list:
            if self._module_of is not None:
                info.is_module = self._module_of(info.node)
            else:
                info.is_module = self._decide_module(info, decided)

    def _decide_module(self, info: ClassInfo, decided: dict[int, bool]) -> bool:
        """:func:`torchferry.check.flow.modclass.module_class` for a class of this file,
        its bases found among the file's classes and the run's module classes."""
        key = id(info.node)
        if key in decided:
            return decided[key]
        decided[key] = False  # a cycle of bases decides nothing
        verdicts: list[bool | None] = []
        for q in info.bases:
            other = self.classes.get(q)
            if other is not None and other is not info:
                verdicts.append(self._decide_module(other, decided))
            elif module_base(q) or q.rsplit(".", 1)[-1] in self.module_classes:
                verdicts.append(True)
            else:
                verdicts.append(None)

        def run_module(name: str) -> bool:
            other = self.classes.get(name)
            if other is not None:
                return self._decide_module(other, decided)
            return name in self.module_classes

        decided[key] = module_class(info.node, verdicts, self.qualname, run_module)
        return decided[key]

    def is_module_class(self, name: str) -> bool:
        """Is ``name`` a class of this file that subclasses ``nn.Module`` (transitively)?"""
        info = self.classes.get(name)
        if info is not None:
            return info.is_module
        return name in self.module_classes

    # ----------------------------------------------------------------- lookups
    def binding(self, name: str, scope: Scope, at: int) -> Binding | None:
        """The binding of ``name`` visible at position ``at`` (the last one before it)."""
        for s, first in visible_scopes(scope):
            if s.comps:
                for start, end, names, it, cctx in s.comps:
                    if start <= at <= end and name in names:
                        if it is None:
                            return None
                        return Binding(How.FOR, it, (), cctx, cctx.scope.node, name, start)
            lst = s.binds.get(name)
            if lst:
                if s.kind is ScopeKind.FUNCTION and first:
                    return _before(lst, at)
                return lst[-1][1] if s.kind is not ScopeKind.MODULE or not first else _before(lst, at)
        return None

    def nograd(self, ctx: Ctx) -> bool:
        """Inside ``torch.no_grad()`` / ``inference_mode()`` or a function decorated so."""
        if ctx._nograd is None:
            ng = False
            for w in ctx.withs:
                for item in w.items:
                    e = item.context_expr
                    q = self.qualname(e.func if isinstance(e, ast.Call) else e) or ""
                    if q.endswith(("no_grad", "inference_mode")):
                        ng = True
                    elif q.endswith("set_grad_enabled") and isinstance(e, ast.Call) and e.args and \
                            isinstance(e.args[0], ast.Constant) and e.args[0].value is False:
                        ng = True
            s: Scope | None = ctx.scope
            while not ng and s is not None and s.kind is ScopeKind.FUNCTION:
                fn = s.function
                for d in fn.decorator_list if fn is not None else ():
                    q = self.qualname(d.func if isinstance(d, ast.Call) else d) or ""
                    if q.endswith(("no_grad", "inference_mode")):
                        ng = True
                s = s.parent
            ctx._nograd = ng
        return ctx._nograd

    # ----------------------------------------------------------------- queries
    def parents(self, stmt: ast.AST) -> dict[int, ast.AST]:
        """The parent (by ``id``) of each expression node of a statement's own header,
        memoised (big statements hold many literals)."""
        p = self._parents.get(id(stmt))
        if p is None:
            p = self._parents[id(stmt)] = header_parents(stmt)
        return p

    @staticmethod
    def mentions_availability(node: ast.AST) -> bool:
        """Does an expression test for an accelerator (``is_available()``,
        ``device_count()``, a name mentioning cuda/gpu/device/mps/xpu)?"""
        for x in ast.walk(node):
            if isinstance(x, ast.Call) and tail(x.func) in ("is_available", "device_count", "is_built"):
                return True
            if isinstance(x, ast.Name) and AVAIL_NAME.search(x.id):
                return True
            if isinstance(x, ast.Attribute) and AVAIL_NAME.search(x.attr):
                return True
            if isinstance(x, ast.keyword) and x.arg and AVAIL_NAME.search(x.arg):
                return True  # ``@RunIf(min_cuda_gpus=1)``
        return False

    def availability_checks(self, scope: Scope) -> list[Site[ast.Call]]:
        """``is_available()`` / ``device_count()`` calls in a scope's ``assert``/``if`` tests."""
        if self._avail_checks is None:
            self._avail_checks = {}
            for name in ("is_available", "device_count"):
                for s in self.calls_by_tail.get(name, ()):
                    test = getattr(s.stmt, "test", None)
                    if isinstance(s.stmt, (ast.Assert, ast.If)) and test is not None and \
                            pos(test) <= s.pos <= end_pos(test):
                        self._avail_checks.setdefault(id(s.ctx.scope), []).append(s)
        return self._avail_checks.get(id(scope), [])


_Handler = Callable[[Walker, Any, Ctx, "ClassInfo | None"], None]
_STMT: dict[type, _Handler] = {
    ast.Expr: Walker._s_expr,
    ast.Assign: Walker._s_assign,
    ast.AugAssign: Walker._s_augassign,
    ast.AnnAssign: Walker._s_annassign,
    ast.FunctionDef: Walker._s_function,
    ast.AsyncFunctionDef: Walker._s_function,
    ast.ClassDef: Walker._s_class,
    ast.For: Walker._s_for,
    ast.AsyncFor: Walker._s_for,
    ast.While: Walker._s_while,
    ast.If: Walker._s_if,
    ast.With: Walker._s_with,
    ast.AsyncWith: Walker._s_with,
    ast.Try: Walker._s_try,
    ast.Import: Walker._s_import,
    ast.ImportFrom: Walker._s_import,
    ast.Match: Walker._s_match,
    ast.Return: Walker._s_return,
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _STMT[ast.TryStar] = Walker._s_try
