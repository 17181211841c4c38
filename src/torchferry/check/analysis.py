"""The shared analysis behind ``ferry check``'s rules: built once per file, on first use.

Rules ask questions such as "is this name a tensor or a module?", "may this tensor
live on an accelerator?" or "is this call inside a training loop?".  Answering them
needs a little flow analysis *within* a function, which :class:`Model` does with the
standard library's :mod:`ast` only (torch is never imported):

* an import-alias map (``import torch as T``, ``from torch import nn``,
  ``from torch.nn import Linear``, ``import numpy as np``...) and deterministic
  qualified names (the first import of a name in source order wins, so a
  ``try: from torch import vmap / except ImportError: from functorch import vmap``
  fallback resolves to ``torch.vmap`` whatever the hash seed);
* the file's ``nn.Module`` subclasses (transitively);
* one walk over the tree that records, per scope, every binding of a local name
  (assignment, loop target, parameter, ``with ... as``), every call, operator and
  accelerator string literal, together with its context: enclosing loops, ``if``
  guards and ``with`` blocks;
* :meth:`Model.fact`, which evaluates lazily (and memoised) what an expression is:
  a :class:`Fact` such as "tensor that may be on an accelerator and needs grad",
  "module", "DataLoader", "item of a batch from loop L", "device"...

Everything that is unknown stays unknown (``None``): a rule that is unsure stays quiet.

Example::

    >>> import ast
    >>> from torchferry.check.api import Context
    >>> src = "import torch\\nmodel = torch.nn.Linear(2, 2)\\nout = model(torch.ones(2))\\n"
    >>> ctx = Context("<example>", src, ast.parse(src))
    >>> m = ctx.model
    >>> call = m.calls_by_tail["Linear"][0]
    >>> m.fact(call.node, call.ctx).kind
    'module'
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Iterator

# --------------------------------------------------------------------------- kinds
TENSOR = "tensor"
MODULE = "module"
LOADER = "loader"
BATCH = "batch"  # an item (or the whole) of a batch from a DataLoader loop
LOAD = "load"  # what torch.load returned
DEVICE = "device"
DTYPE = "dtype"
AVAIL = "avail"  # a bool from torch.cuda.is_available() & co.
ARRAY = "array"
PARAMETER = "parameter"  # nn.Parameter(...)
OTHER = "other"

SHIFT = 20  # positions are encoded as (line << SHIFT) | column


def pos(node: ast.AST) -> int:
    return (node.lineno << SHIFT) | node.col_offset  # type: ignore[attr-defined]


def end_pos(node: ast.AST) -> int:
    return (node.end_lineno << SHIFT) | node.end_col_offset  # type: ignore[attr-defined]


FACTORIES = frozenset(
    "zeros ones empty full arange rand randn randint randperm rand_like eye linspace logspace".split()
)
# the ones whose result gets a device only from ``device=`` (``*_like`` copy their input's)
DEVICE_FACTORIES = FACTORIES - {"rand_like"}
MAKERS = frozenset("tensor as_tensor from_numpy asarray".split())  # tensors from data
MOVE_METHODS = frozenset({"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "type"})
MODULE_SELF_METHODS = frozenset(
    "to cuda cpu float half double bfloat16 train eval requires_grad_ apply type "
    "share_memory xpu mps to_empty".split()
)
NON_TENSOR_METHODS = frozenset(
    "item tolist numpy size dim ndimension numel nelement element_size data_ptr get_device "
    "stride storage untyped_storage is_contiguous is_floating_point is_complex equal "
    "storage_offset register_hook backward is_pinned is_shared is_set_to __len__ "
    "allclose".split()
)
NO_GRAD_METHODS = frozenset(
    "detach argmax argmin eq ne lt le gt ge isnan isinf isfinite sign long int bool "
    "nonzero argsort topk_indices".split()
)
NON_TENSOR_TORCH = frozenset(
    "device dtype is_tensor is_floating_point is_complex numel get_default_dtype "
    "set_default_dtype manual_seed seed load save no_grad enable_grad inference_mode "
    "set_grad_enabled compile Size Generator finfo iinfo is_grad_enabled equal allclose "
    "result_type promote_types can_cast typename is_nonzero use_deterministic_algorithms "
    "get_rng_state set_rng_state set_printoptions set_num_threads get_num_threads "
    "autocast is_storage is_inference_mode_enabled set_float32_matmul_precision "
    "get_device_module Tensor is_autocast_enabled get_autocast_dtype".split()
)
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
TENSORISH_USES = frozenset({"shape", "device", "dtype", "size", "dim", "ndim", "is_cuda"})
DTYPES = frozenset(
    "float float32 float64 double float16 half bfloat16 int int8 int16 int32 int64 long "
    "uint8 bool complex64 complex128 cfloat cdouble short float8_e4m3fn float8_e5m2".split()
)
ACCEL_LITERAL = re.compile(r"^(cuda(:\d+)?|mps(:\d+)?|xpu(:\d+)?)$")
MODEL_NAME = re.compile(
    r"^(model|net|network|module|.*_model|.*model|.*_net|ema|criterion|.*_criterion|loss_fn|"
    r"loss_func|loss_function)$", re.I)
LOADER_NAME = re.compile(r"(loader|^dl$|_dl$|^dl_)", re.I)
DEVICE_NAME = re.compile(r"^(device|dev|.*_device|device_.*)$", re.I)
# an argument of ``.to(x)`` that the analysis cannot place is a device only when named so
DEVICE_ARG_NAME = re.compile(
    r"device|^(dev|devs|.*_dev|dev_.*|rank|.*_rank|gpu|gpus|.*_gpu|gpu_.*|.*_gpu_.*|cuda)$", re.I)
OPTIM_NAME = re.compile(r"opt", re.I)
EPOCHISH = re.compile(r"epoch|step|iter|batch", re.I)
_SKIP_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "n", "s", "kind", "type_comment", "names",
     "level", "module", "conversion", "is_async", "name", "asname", "type_params"}
)


class Fact:
    """What an expression is, as far as the analysis can tell.

    ``kind`` is one of the module constants (``"tensor"``, ``"module"``...).  For tensors:
    ``dev`` -- may live on an accelerator; ``grad`` -- may require grad; ``made`` -- created
    here by a factory or from data; ``cpu_new`` -- the device-less factory call it comes
    from, unmoved; ``inp`` -- derived from a function's tensor parameter; ``moved`` --
    result of an explicit move.  For batch items: ``loop`` is the loop they came from and
    ``whole`` says it is the whole batch object.
    """

    __slots__ = ("kind", "dev", "grad", "made", "cpu_new", "inp", "moved", "loop", "whole",
                 "weak", "guessed")

    def __init__(self, kind: str, dev: bool = False, grad: bool = False, made: bool = False,
                 cpu_new: ast.Call | None = None, inp: bool = False, moved: bool = False,
                 loop: ast.AST | None = None, whole: bool = False, weak: bool = False,
                 guessed: bool = False) -> None:
        self.kind = kind
        self.dev = dev
        self.grad = grad
        self.made = made
        self.cpu_new = cpu_new
        self.inp = inp
        self.moved = moved
        self.loop = loop
        self.whole = whole
        self.weak = weak  # only guessed (a parameter used as ``x.shape``): could be an ndarray
        # ``dev`` only because a model was called on inputs of unknown origin
        self.guessed = guessed

    def but(self, **kw: object) -> Fact:
        f = Fact(self.kind, self.dev, self.grad, self.made, self.cpu_new, self.inp, self.moved,
                 self.loop, self.whole, self.weak, self.guessed)
        for k, v in kw.items():
            setattr(f, k, v)
        return f

    @property
    def sure_tensor(self) -> bool:
        """Tensor-like and not merely guessed from how a parameter is used."""
        return self.tensorlike and not self.weak

    @property
    def tensorlike(self) -> bool:
        """A tensor, or an item unpacked from a batch (not the whole batch object)."""
        return self.kind == TENSOR or (self.kind == BATCH and not self.whole)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        flags = [k for k in ("dev", "grad", "made", "inp", "moved", "whole") if getattr(self, k)]
        return f"Fact({self.kind}{', ' + ', '.join(flags) if flags else ''})"


_T = Fact(TENSOR)
_MODULE = Fact(MODULE)
_OTHER = Fact(OTHER)


class ClassInfo:
    __slots__ = ("node", "is_module", "attrs", "bases")

    def __init__(self, node: ast.ClassDef) -> None:
        self.node = node
        self.is_module = False
        self.attrs: dict[str, list[tuple[int, Binding]]] = {}
        self.bases: list[str] = []


class Scope:
    """A module, class body or function: its bindings and what happens inside it."""

    __slots__ = ("kind", "node", "parent", "cls", "binds", "comps", "calls", "ops",
                 "tensorish", "_sorted", "self_name", "_call_keys", "_op_keys")

    def __init__(self, kind: str, node: ast.AST, parent: Scope | None,
                 cls: ClassInfo | None = None) -> None:
        self.kind = kind  # "module" | "class" | "function"
        self.node = node
        self.parent = parent
        self.cls = cls  # for methods: the class they belong to
        self.binds: dict[str, list[tuple[int, Binding]]] = {}
        self.comps: list[tuple[int, int, frozenset[str], ast.AST | None, Ctx]] = []
        self.calls: list[Site] = []
        self.ops: list[Site] = []  # BinOp and Compare nodes
        self.tensorish: set[str] = set()  # names used as x.shape / x.device / x.size()...
        self._sorted = False
        self.self_name: str | None = None

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<module>")

    def sort(self) -> None:
        if not self._sorted:
            self.calls.sort(key=lambda s: s.pos)
            self.ops.sort(key=lambda s: s.pos)
            self._call_keys = [s.pos for s in self.calls]
            self._op_keys = [s.pos for s in self.ops]
            self._sorted = True

    def calls_between(self, start: int, end: int) -> list[Site]:
        """The calls that start between two positions (inclusive), in source order."""
        self.sort()
        keys = self._call_keys
        return self.calls[bisect_right(keys, start - 1):bisect_right(keys, end)]

    def ops_between(self, start: int, end: int) -> list[Site]:
        """The BinOp/Compare nodes that start between two positions, in source order."""
        self.sort()
        keys = self._op_keys
        return self.ops[bisect_right(keys, start - 1):bisect_right(keys, end)]


class Ctx:
    """Where a node sits: scope, enclosing loops, ``if`` guards and ``with`` blocks."""

    __slots__ = ("scope", "loops", "ifs", "withs", "_nograd")

    def __init__(self, scope: Scope, loops: tuple[ast.AST, ...] = (),
                 ifs: tuple[tuple[ast.If, bool], ...] = (),
                 withs: tuple[ast.AST, ...] = ()) -> None:
        self.scope = scope
        self.loops = loops
        self.ifs = ifs  # (if-statement, True when in its body / False in its else)
        self.withs = withs
        self._nograd: bool | None = None


class Site:
    """A recorded node with its context and the statement holding it."""

    __slots__ = ("node", "ctx", "stmt", "pos")

    def __init__(self, node: ast.AST, ctx: Ctx, stmt: ast.stmt) -> None:
        self.node = node
        self.ctx = ctx
        self.stmt = stmt
        self.pos = pos(node)


class Binding:
    """One binding of a name: ``how`` is "expr", "unpack", "for", "param", "aug", "with"
    or "opaque"; ``value`` the expression (or iterable / argument) it came from."""

    __slots__ = ("how", "value", "path", "ctx", "stmt", "name", "pos")

    def __init__(self, how: str, value: ast.AST | None, path: tuple[int, ...], ctx: Ctx,
                 stmt: ast.AST, name: str, at: int) -> None:
        self.how = how
        self.value = value
        self.path = path
        self.ctx = ctx
        self.stmt = stmt
        self.name = name
        self.pos = at


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(t: type) -> tuple[str, ...]:
    f = _FIELDS.get(t)
    if f is None:
        f = _FIELDS[t] = tuple(x for x in t._fields if x not in _SKIP_FIELDS)  # type: ignore[attr-defined]
    return f


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is ast.Name:
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def tail(func: ast.AST) -> str | None:
    """The last name of a call's function: ``f`` for ``f(...)`` and ``x.f(...)``."""
    t = type(func)
    if t is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    if t is ast.Name:
        return func.id  # type: ignore[attr-defined]
    return None


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    return any(k.arg is None for k in call.keywords) or any(
        type(a) is ast.Starred for a in call.args
    )


class Model:
    """The per-file analysis (see the module docstring)."""

    def __init__(self, ctx: object) -> None:
        self.source_ctx = ctx
        tree: ast.Module = ctx.tree  # type: ignore[attr-defined]
        self.tree = tree
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.class_list: list[ClassInfo] = []
        self.calls: list[Site] = []
        self.calls_by_tail: dict[str, list[Site]] = {}
        self.accel_consts: list[Site] = []
        self.expr_stmts: list[Site] = []  # bare call statements
        self.self_assigns: list[tuple[ast.stmt, Ctx, ClassInfo, str]] = []
        self.loops: list[tuple[ast.AST, Ctx]] = []
        self.functions: list[Scope] = []
        self.move_receivers: set[int] = set()  # id() of receivers of .to/.cuda/.type_as...
        self._memo: dict[int, Fact | None] = {}
        self._busy: set[int] = set()
        self._training: dict[int, bool] = {}
        self._parents: dict[int, dict[int, ast.AST]] = {}
        self._device_names: dict[int, list[str]] = {}
        self._avail_checks: dict[int, list[Site]] | None = None
        self.module_scope = Scope("module", tree, None)
        self._walk_body(tree.body, Ctx(self.module_scope), None)
        self._resolve_classes()

    # ----------------------------------------------------------------- imports
    def _add_import(self, st: ast.Import | ast.ImportFrom) -> None:
        imp = self.imports
        if type(st) is ast.Import:
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
                    continue
                imp.setdefault(a.asname or a.name, f"{base}.{a.name}" if base else a.name)

    def qualname(self, node: ast.AST) -> str | None:
        """The fully qualified name an expression refers to through the imports, or None.

        ``T.nn.Linear`` -> ``"torch.nn.Linear"`` after ``import torch as T``.
        """
        parts = []
        while type(node) is ast.Attribute:
            parts.append(node.attr)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        if type(node) is not ast.Name:
            return None
        root = self.imports.get(node.id)  # type: ignore[attr-defined]
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

    def _bind_target(self, target: ast.AST, how: str, value: ast.AST | None, ctx: Ctx,
                     stmt: ast.AST, path: tuple[int, ...] = ()) -> None:
        t = type(target)
        if t is ast.Name:
            self._bind(ctx.scope, target.id,  # type: ignore[attr-defined]
                       Binding(how, value, path, ctx, stmt, target.id, end_pos(stmt)))  # type: ignore[attr-defined]
        elif t is ast.Tuple or t is ast.List:
            how2 = "unpack" if how == "expr" else how
            for i, el in enumerate(target.elts):  # type: ignore[attr-defined]
                if type(el) is ast.Starred:
                    self._bind_target(el.value, "opaque", None, ctx, stmt)
                else:
                    self._bind_target(el, how2, value, ctx, stmt, path + (i,))
        elif t is ast.Starred:
            self._bind_target(target.value, "opaque", None, ctx, stmt)  # type: ignore[attr-defined]
        elif t is ast.Attribute:
            scope = ctx.scope
            if (scope.cls is not None and type(target.value) is ast.Name  # type: ignore[attr-defined]
                    and target.value.id == scope.self_name and how == "expr" and not path):  # type: ignore[attr-defined]
                attr = target.attr  # type: ignore[attr-defined]
                b = Binding(how, value, path, ctx, stmt, "self." + attr, end_pos(stmt))
                if scope.name == "__init__" or attr not in scope.cls.attrs:
                    scope.cls.attrs.setdefault(attr, []).append((b.pos, b))
                if scope.name == "__init__":
                    self.self_assigns.append((stmt, ctx, scope.cls, attr))  # type: ignore[arg-type]

    def _walk_body(self, body: list[ast.stmt], ctx: Ctx, cls: ClassInfo | None) -> None:
        for st in body:
            self._walk_stmt(st, ctx, cls)

    def _walk_stmt(self, st: ast.stmt, ctx: Ctx, cls: ClassInfo | None) -> None:
        t = type(st)
        scope = ctx.scope
        if t is ast.Expr:
            v = st.value  # type: ignore[attr-defined]
            if type(v) is ast.Call:
                self.expr_stmts.append(Site(v, ctx, st))
            self._expr(v, ctx, st)
        elif t is ast.Assign:
            self._expr(st.value, ctx, st)  # type: ignore[attr-defined]
            for tg in st.targets:  # type: ignore[attr-defined]
                if type(tg) is not ast.Name:
                    self._expr_targets(tg, ctx, st)
                self._bind_target(tg, "expr", st.value, ctx, st)  # type: ignore[attr-defined]
        elif t is ast.AugAssign:
            self._expr(st.value, ctx, st)  # type: ignore[attr-defined]
            tg = st.target  # type: ignore[attr-defined]
            if type(tg) is ast.Name:
                self._bind(scope, tg.id, Binding("aug", st, (), ctx, st, tg.id, end_pos(st)))
            else:
                self._expr(tg, ctx, st)
        elif t is ast.AnnAssign:
            if st.value is not None:  # a bare ``x: int`` binds nothing
                self._expr(st.value, ctx, st)  # type: ignore[attr-defined]
                self._bind_target(st.target, "expr", st.value, ctx, st)  # type: ignore[attr-defined]
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            self._walk_function(st, ctx, cls)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            for d in st.decorator_list:  # type: ignore[attr-defined]
                self._expr(d, ctx, st)
            for b in st.bases:  # type: ignore[attr-defined]
                self._expr(b, ctx, st)
            info = ClassInfo(st)  # type: ignore[arg-type]
            self.class_list.append(info)
            self.classes.setdefault(st.name, info)  # type: ignore[attr-defined]
            self._bind(scope, st.name, Binding("opaque", None, (), ctx, st, st.name, pos(st)))  # type: ignore[attr-defined]
            cscope = Scope("class", st, scope)
            self._walk_body(st.body, Ctx(cscope), info)  # type: ignore[attr-defined]
        elif t is ast.For or t is ast.AsyncFor:
            self._expr(st.iter, ctx, st)  # type: ignore[attr-defined]
            self.loops.append((st, ctx))
            inner = Ctx(scope, ctx.loops + (st,), ctx.ifs, ctx.withs)
            self._bind_for(st.target, st.iter, inner, st)  # type: ignore[attr-defined]
            self._walk_body(st.body, inner, cls)  # type: ignore[attr-defined]
            self._walk_body(st.orelse, ctx, cls)  # type: ignore[attr-defined]
        elif t is ast.While:
            self._expr(st.test, ctx, st)  # type: ignore[attr-defined]
            self.loops.append((st, ctx))
            self._walk_body(st.body, Ctx(scope, ctx.loops + (st,), ctx.ifs, ctx.withs), cls)  # type: ignore[attr-defined]
            self._walk_body(st.orelse, ctx, cls)  # type: ignore[attr-defined]
        elif t is ast.If:
            self._expr(st.test, ctx, st)  # type: ignore[attr-defined]
            self._walk_body(st.body, Ctx(scope, ctx.loops, ctx.ifs + ((st, True),), ctx.withs), cls)  # type: ignore[attr-defined,arg-type]
            if st.orelse:  # type: ignore[attr-defined]
                self._walk_body(st.orelse, Ctx(scope, ctx.loops, ctx.ifs + ((st, False),), ctx.withs), cls)  # type: ignore[attr-defined,arg-type]
        elif t is ast.With or t is ast.AsyncWith:
            for item in st.items:  # type: ignore[attr-defined]
                self._expr(item.context_expr, ctx, st)
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, "with", item.context_expr, ctx, st)
            self._walk_body(st.body, Ctx(scope, ctx.loops, ctx.ifs, ctx.withs + (st,)), cls)  # type: ignore[attr-defined]
        elif t is ast.Try or t.__name__ == "TryStar":
            self._walk_body(st.body, ctx, cls)  # type: ignore[attr-defined]
            for h in st.handlers:  # type: ignore[attr-defined]
                if h.type is not None:
                    self._expr(h.type, ctx, st)
                if h.name:
                    self._bind(scope, h.name, Binding("opaque", None, (), ctx, h, h.name, pos(h)))
                self._walk_body(h.body, ctx, cls)
            self._walk_body(st.orelse, ctx, cls)  # type: ignore[attr-defined]
            self._walk_body(st.finalbody, ctx, cls)  # type: ignore[attr-defined]
        elif t is ast.Import or t is ast.ImportFrom:
            self._add_import(st)  # type: ignore[arg-type]
            if scope.kind != "module":
                for a in st.names:  # type: ignore[attr-defined]
                    n = a.asname or a.name.split(".")[0]
                    self._bind(scope, n, Binding("opaque", None, (), ctx, st, n, end_pos(st)))
        elif t.__name__ == "Match":
            self._expr(st.subject, ctx, st)  # type: ignore[attr-defined]
            for case in st.cases:  # type: ignore[attr-defined]
                if case.guard is not None:
                    self._expr(case.guard, ctx, st)
                self._walk_body(case.body, ctx, cls)
        else:  # Return, Raise, Assert, Delete, Global, Pass...
            for f in _fields(t):
                v = getattr(st, f, None)
                if isinstance(v, ast.AST):
                    self._expr(v, ctx, st)
                elif type(v) is list:
                    for x in v:
                        if isinstance(x, ast.AST):
                            self._expr(x, ctx, st)

    def _expr_targets(self, tg: ast.AST, ctx: Ctx, st: ast.stmt) -> None:
        t = type(tg)
        if t is ast.Tuple or t is ast.List:
            for el in tg.elts:  # type: ignore[attr-defined]
                self._expr_targets(el, ctx, st)
        elif t is ast.Starred:
            self._expr_targets(tg.value, ctx, st)  # type: ignore[attr-defined]
        elif t is not ast.Name:
            self._expr(tg, ctx, st)

    def _bind_for(self, target: ast.AST, it: ast.AST, ctx: Ctx, st: ast.stmt,
                  path: tuple[int, ...] = ()) -> None:
        t = type(target)
        if t is ast.Name:
            self._bind(ctx.scope, target.id,  # type: ignore[attr-defined]
                       Binding("for", it, path, ctx, st, target.id, end_pos(target)))  # type: ignore[attr-defined]
        elif t is ast.Tuple or t is ast.List:
            for i, el in enumerate(target.elts):  # type: ignore[attr-defined]
                self._bind_for(el, it, ctx, st, path + (i,))
        elif t is ast.Starred:
            self._bind_target(target.value, "opaque", None, ctx, st)  # type: ignore[attr-defined]
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
        for d in args.kw_defaults:
            if d is not None:
                self._expr(d, ctx, fn)
        self._bind(outer, fn.name, Binding("opaque", None, (), ctx, fn, fn.name, pos(fn)))
        is_static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
        scope = Scope("function", fn, outer, cls if outer.kind == "class" else None)
        self.functions.append(scope)
        inner = Ctx(scope)
        allargs = args.posonlyargs + args.args
        if scope.cls is not None and allargs and not is_static:
            scope.self_name = allargs[0].arg
        at = pos(fn)
        for a in allargs + args.kwonlyargs:
            self._bind(scope, a.arg, Binding("param", a, (), inner, fn, a.arg, at))
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self._bind(scope, a.arg, Binding("opaque", None, (), inner, fn, a.arg, at))
        self._walk_body(fn.body, inner, None)

    def _expr(self, node: ast.AST, ctx: Ctx, st: ast.stmt) -> None:
        """Record the calls, operators and accelerator literals of one expression.

        The hot loop of the whole checker: the commonest node types get their children
        pushed directly instead of through the generic field loop."""
        scope = ctx.scope
        stack = [node]
        pop = stack.pop
        push = stack.append
        extend = stack.extend
        Call, Attribute, Constant, Name = ast.Call, ast.Attribute, ast.Constant, ast.Name
        BinOp, Compare, Subscript, Tuple, List = ast.BinOp, ast.Compare, ast.Subscript, ast.Tuple, ast.List
        keyword = ast.keyword
        fields = _FIELDS
        calls, scope_calls, by_tail = self.calls, scope.calls, self.calls_by_tail
        while stack:
            n = pop()
            t = type(n)
            if t is Name or n is None:
                continue
            if t is Attribute:
                v = n.value  # type: ignore[attr-defined]
                if type(v) is Name:
                    if n.attr in TENSORISH_USES:  # type: ignore[attr-defined]
                        scope.tensorish.add(v.id)  # type: ignore[attr-defined]
                else:
                    push(v)
                continue
            if t is Call:
                site = Site(n, ctx, st)
                calls.append(site)
                scope_calls.append(site)
                func = n.func  # type: ignore[attr-defined]
                ft = type(func)
                if ft is Attribute:
                    key = func.attr
                    if key in MOVE_METHODS or key == "type_as":
                        self.move_receivers.add(id(func.value))
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
                extend(n.args)  # type: ignore[attr-defined]
                for k in n.keywords:  # type: ignore[attr-defined]
                    push(k.value)
                continue
            if t is Constant:
                v = n.value  # type: ignore[attr-defined]
                if type(v) is str and v[:1] in "cmx" and ACCEL_LITERAL.match(v):
                    self.accel_consts.append(Site(n, ctx, st))
                continue
            if t is Subscript:
                push(n.value)  # type: ignore[attr-defined]
                push(n.slice)  # type: ignore[attr-defined]
                continue
            if t is Tuple or t is List:
                extend(n.elts)  # type: ignore[attr-defined]
                continue
            if t is BinOp:
                scope.ops.append(Site(n, ctx, st))
                push(n.left)  # type: ignore[attr-defined]
                push(n.right)  # type: ignore[attr-defined]
                continue
            if t is Compare:
                scope.ops.append(Site(n, ctx, st))
                push(n.left)  # type: ignore[attr-defined]
                extend(n.comparators)  # type: ignore[attr-defined]
                continue
            if t is keyword:
                push(n.value)  # type: ignore[attr-defined]
                continue
            if t is ast.ListComp or t is ast.SetComp or t is ast.GeneratorExp or t is ast.DictComp:
                for g in n.generators:  # type: ignore[attr-defined]
                    names = frozenset(x.id for x in ast.walk(g.target) if type(x) is Name)
                    scope.comps.append((pos(n), end_pos(n), names, g.iter, ctx))
            elif t is ast.Lambda:
                a = n.args  # type: ignore[attr-defined]
                names = frozenset(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
                scope.comps.append((pos(n), end_pos(n), names, None, ctx))
            elif t is ast.NamedExpr:
                tg = n.target  # type: ignore[attr-defined]
                self._bind(scope, tg.id, Binding("expr", n.value, (), ctx, st, tg.id, end_pos(n)))  # type: ignore[attr-defined]
            fl = fields.get(t)
            if fl is None:
                fl = _fields(t)
            for f in fl:
                v = getattr(n, f)
                if v.__class__ is list:
                    extend(v)  # may hold None (``{**d}`` keys, kw_defaults): skipped on pop
                elif v is not None:
                    push(v)

    # ----------------------------------------------------------------- classes
    def _resolve_classes(self) -> None:
        for info in self.class_list:
            for b in info.node.bases:
                q = self.qualname(b) or dotted(b) or ""
                info.bases.append(q)
                last = q.rsplit(".", 1)[-1]
                if (q.startswith("torch.nn.") and last[:1].isupper()) or last.endswith("Module"):
                    info.is_module = True
        changed = True
        while changed:  # transitively: subclasses of the file's own modules
            changed = False
            for info in self.class_list:
                if info.is_module:
                    continue
                for q in info.bases:
                    other = self.classes.get(q)
                    if other is not None and other.is_module:
                        info.is_module = True
                        changed = True
                        break

    def is_module_class(self, name: str) -> bool:
        info = self.classes.get(name)
        return info is not None and info.is_module

    # ----------------------------------------------------------------- lookups
    def binding(self, name: str, scope: Scope, at: int) -> Binding | None:
        """The binding of ``name`` visible at position ``at`` (the last one before it)."""
        s: Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if s.comps:
                for start, end, names, it, cctx in s.comps:
                    if start <= at <= end and name in names:
                        return Binding("for", it, (), cctx, cctx.scope.node, name, start) if it is not None else None
            lst = s.binds.get(name)
            if lst:
                if s.kind == "function" and first:
                    i = bisect_right(lst, at, key=lambda x: x[0]) - 1
                    return lst[i][1] if i >= 0 else None
                return lst[-1][1] if s.kind != "module" or not first else self._before(lst, at)
            first = False
            s = s.parent
        return None

    @staticmethod
    def _before(lst: list[tuple[int, Binding]], at: int) -> Binding | None:
        i = bisect_right(lst, at, key=lambda x: x[0]) - 1
        return lst[i][1] if i >= 0 else None

    def nograd(self, ctx: Ctx) -> bool:
        """Inside ``torch.no_grad()`` / ``inference_mode()`` or a function decorated so."""
        if ctx._nograd is None:
            ng = False
            for w in ctx.withs:
                for item in w.items:  # type: ignore[attr-defined]
                    e = item.context_expr
                    q = self.qualname(e.func if type(e) is ast.Call else e) or ""
                    if q.endswith(("no_grad", "inference_mode")):
                        ng = True
                    elif q.endswith("set_grad_enabled") and type(e) is ast.Call and e.args and \
                            type(e.args[0]) is ast.Constant and e.args[0].value is False:
                        ng = True
            s: Scope | None = ctx.scope
            while not ng and s is not None and s.kind == "function":
                for d in s.node.decorator_list:  # type: ignore[attr-defined]
                    q = self.qualname(d.func if type(d) is ast.Call else d) or ""
                    if q.endswith(("no_grad", "inference_mode")):
                        ng = True
                s = s.parent
            ctx._nograd = ng
        return ctx._nograd

    # ----------------------------------------------------------------- facts
    def fact(self, node: ast.AST, ctx: Ctx, depth: int = 0) -> Fact | None:
        """What ``node`` (an expression inside ``ctx``) is, or None when unknown."""
        if depth > 40:
            return None
        t = type(node)
        if t is ast.Name:
            b = self.binding(node.id, ctx.scope, pos(node))  # type: ignore[attr-defined]
            f = self.binding_fact(b, depth) if b is not None else None
            if f is None:
                return self._by_name(node.id, b)  # type: ignore[attr-defined]
            return f
        if t is ast.Call:
            return self._call_fact(node, ctx, depth)  # type: ignore[arg-type]
        if t is ast.Attribute:
            return self._attr_fact(node, ctx, depth)  # type: ignore[arg-type]
        if t is ast.BinOp:
            return self._combine(self.fact(node.left, ctx, depth + 1),  # type: ignore[attr-defined]
                                 self.fact(node.right, ctx, depth + 1))  # type: ignore[attr-defined]
        if t is ast.UnaryOp:
            f = self.fact(node.operand, ctx, depth + 1)  # type: ignore[attr-defined]
            return f if f is not None and f.tensorlike else None
        if t is ast.Compare:
            fs = [self.fact(x, ctx, depth + 1) for x in [node.left, *node.comparators]]  # type: ignore[attr-defined]
            ts = [f for f in fs if f is not None and f.tensorlike]
            if not ts:
                return None
            return Fact(TENSOR, dev=any(f.dev for f in ts), inp=any(f.inp for f in ts),
                        guessed=_guessed(ts),
                        weak=all(f.weak for f in ts))
        if t is ast.Subscript:
            f = self.fact(node.value, ctx, depth + 1)  # type: ignore[attr-defined]
            if f is None:
                return None
            if f.kind == TENSOR:
                return f.but(cpu_new=None)
            if f.kind == BATCH:
                return f.but(whole=False)
            if f.kind in (LOAD, LOADER):  # ``checkpoint["model"]``, ``dataloaders["train"]``
                return f
            return None
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if type(v) is str:
                if v == "cpu":
                    return Fact(DEVICE, dev=False)
                if ACCEL_LITERAL.match(v):
                    return Fact(DEVICE, dev=True)
            return None
        if t is ast.IfExp:
            a = self.fact(node.body, ctx, depth + 1)  # type: ignore[attr-defined]
            b = self.fact(node.orelse, ctx, depth + 1)  # type: ignore[attr-defined]
            if a is not None and b is not None and a.kind == b.kind:
                if a.kind == TENSOR and a.dev != b.dev and _home_either_way(node):  # type: ignore[arg-type]
                    return a if not a.dev else b
                return a.but(dev=a.dev or b.dev)
            return None
        if t is ast.NamedExpr:
            return self.fact(node.value, ctx, depth + 1)  # type: ignore[attr-defined]
        if t is ast.Starred:
            return None
        return None

    def _by_name(self, name: str, b: Binding | None) -> Fact | None:
        """Last-resort guesses from a name that is not otherwise known."""
        if b is not None and b.how not in ("param", "opaque", "with"):
            return None  # assigned from something we do not understand
        if MODEL_NAME.match(name):
            return _MODULE
        if LOADER_NAME.search(name) and not self.graph_lib():
            return Fact(LOADER)
        if DEVICE_NAME.match(name):
            return Fact(DEVICE, dev=True)
        return None

    def graph_lib(self) -> bool:
        """Does the file use PyTorch Geometric or DGL, whose batches move in place?"""
        return any(q.startswith(("torch_geometric", "dgl")) for q in self.imports.values())

    def binding_fact(self, b: Binding, depth: int = 0) -> Fact | None:
        key = id(b)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return None
        self._busy.add(key)
        try:
            f = self._binding_fact(b, depth)
        finally:
            self._busy.discard(key)
        self._memo[key] = f
        return f

    def _binding_fact(self, b: Binding, depth: int) -> Fact | None:
        how = b.how
        if how == "expr":
            return self.fact(b.value, b.ctx, depth + 1)  # type: ignore[arg-type]
        if how == "unpack":
            v = b.value
            if type(v) in (ast.Tuple, ast.List) and len(v.elts) > b.path[0]:  # type: ignore[union-attr]
                el = v.elts[b.path[0]]  # type: ignore[union-attr]
                return None if type(el) is ast.Starred else self.fact(el, b.ctx, depth + 1)
            f = self.fact(v, b.ctx, depth + 1)  # type: ignore[arg-type]
            if f is None:
                return None
            if f.kind == TENSOR:
                return f.but(cpu_new=None)
            if f.kind == BATCH:
                return f.but(whole=False)
            return None
        if how == "for":
            return self._iter_item(b.value, b.path, b.ctx, depth, b.stmt)  # type: ignore[arg-type]
        if how == "param":
            return self._param_fact(b)
        if how == "aug":
            st = b.value
            prev = self.fact(st.target, b.ctx, depth + 1)  # type: ignore[union-attr]
            return self._combine(prev, self.fact(st.value, b.ctx, depth + 1))  # type: ignore[union-attr]
        return None

    def _iter_item(self, it: ast.AST, path: tuple[int, ...], ctx: Ctx, depth: int,
                   loop: ast.AST | None = None) -> Fact | None:
        if loop is None:
            loop = it
        while type(it) is ast.Call:
            fn = tail(it.func)  # type: ignore[attr-defined]
            if fn == "enumerate" and it.args:  # type: ignore[attr-defined]
                if not path:
                    return None
                if path[0] == 0:
                    return _OTHER
                path = path[1:]
                it = it.args[0]  # type: ignore[attr-defined]
            elif fn in ("tqdm", "iter", "trange") and it.args:  # type: ignore[attr-defined]
                it = it.args[0]  # type: ignore[attr-defined]
            else:
                break
        f = self.fact(it, ctx, depth + 1)
        if f is None:
            return None
        if f.kind == LOADER:
            return Fact(BATCH, loop=loop, whole=not path)
        if f.kind == TENSOR:
            return f.but(cpu_new=None, made=False)
        return None

    def _param_fact(self, b: Binding) -> Fact | None:
        arg: ast.arg = b.value  # type: ignore[assignment]
        scope = b.ctx.scope
        fn = scope.node
        if arg.arg == scope.self_name:
            if scope.cls is not None and scope.cls.is_module:
                return _MODULE
            return None
        ann = arg.annotation
        if ann is not None:
            text = dotted(ann) or ""
            if type(ann) is ast.Subscript:  # Optional[Tensor] and the like
                text = dotted(ann.slice) or ""  # type: ignore[arg-type]
            if type(ann) is ast.Constant and type(ann.value) is str:
                text = ann.value
            last = text.rsplit(".", 1)[-1]
            if last == "Tensor":
                return Fact(TENSOR, dev=True, inp=True)
            if last == "Module" or (last in self.classes and self.classes[last].is_module):
                return _MODULE
            if last in ("device",):
                return Fact(DEVICE, dev=True)
        name = fn.name  # type: ignore[attr-defined]
        if scope.cls is not None and scope.cls.is_module and name == "forward":
            return Fact(TENSOR, dev=True, inp=True)
        if arg.arg in scope.tensorish and not DEVICE_NAME.match(arg.arg):
            return Fact(TENSOR, dev=True, inp=True, weak=True)
        return None

    def _combine(self, a: Fact | None, b: Fact | None) -> Fact | None:
        ta = a is not None and a.tensorlike
        tb = b is not None and b.tensorlike
        if not (ta or tb):
            return None
        fs = [f for f in (a, b) if f is not None and f.tensorlike]
        cpu_new = None
        if len(fs) == 1:
            cpu_new = fs[0].cpu_new
        return Fact(TENSOR, dev=any(f.dev for f in fs), grad=any(f.grad for f in fs),
                    made=all(f.made for f in fs), inp=any(f.inp for f in fs), cpu_new=cpu_new,
                    weak=all(f.weak for f in fs), guessed=_guessed(fs))

    def _attr_fact(self, node: ast.Attribute, ctx: Ctx, depth: int) -> Fact | None:
        v = node.value
        scope = ctx.scope
        if type(v) is ast.Name:
            s: Scope | None = scope
            while s is not None and s.kind == "function" and s.self_name is None:
                s = s.parent  # a closure inside a method still sees ``self``
            if s is not None and s.self_name == v.id and s.cls is not None:
                lst = s.cls.attrs.get(node.attr)
                if lst:
                    f = self.binding_fact(lst[-1][1], depth + 1)
                    if f is not None:
                        return f.but(cpu_new=None)
                if MODEL_NAME.match(node.attr) or node.attr.endswith(("_net", "Net", "encoder", "decoder")):
                    return _MODULE
                if LOADER_NAME.search(node.attr) and not self.graph_lib():
                    return Fact(LOADER)
                return None
        q = self.qualname(node)
        if q is not None:
            if q.startswith("torch.") and q[6:] in DTYPES:
                return Fact(DTYPE)
            return None
        if node.attr in TENSOR_ATTRS:
            f = self.fact(v, ctx, depth + 1)
            if f is not None and f.tensorlike:
                return f.but(kind=TENSOR, grad=f.grad and node.attr != "data", cpu_new=None, whole=False)
            return None
        if node.attr == "device":
            f = self.fact(v, ctx, depth + 1)
            if f is not None and f.tensorlike:
                return Fact(DEVICE, dev=f.dev)
            return Fact(DEVICE, dev=True)
        if node.attr in ("dtype",):
            return Fact(DTYPE)
        return None

    def _device_arg_dev(self, e: ast.AST, ctx: Ctx, depth: int, sure: bool = True) -> bool | None:
        """For a device argument: True/False when it names a device that may be / is not an
        accelerator, None when it is a dtype (or unknown and dtype-looking).

        ``sure`` says the argument can only be a device (``device=e``).  For ``.to(e)``,
        which also casts (``.to(torch.float32)``, ``.to(target)`` with ``target`` a dtype
        computed elsewhere), an argument the analysis cannot place is a device only when
        its name says so (``device``, ``dev``, ``*_device``, ``x.device``, ``rank``,
        ``gpu``...); otherwise it is None: the tensor stays where it was."""
        f = self.fact(e, ctx, depth + 1)
        if f is not None:
            if f.kind == DTYPE:
                return None
            if f.kind == DEVICE:
                return f.dev
            if f.tensorlike:
                return f.dev
        te = type(e)
        if te is ast.Call:
            name = tail(e.func) or ""  # type: ignore[attr-defined]
            if (self.qualname(e.func) or "").endswith("device"):  # type: ignore[attr-defined]
                a = e.args[0] if e.args else kwarg(e, "type")  # type: ignore[attr-defined]
                if type(a) is ast.Constant and a.value == "cpu":
                    return False
        elif te is ast.Subscript:  # ``devices[i]``
            v = e.value  # type: ignore[attr-defined]
            name = (dotted(v) or "").rsplit(".", 1)[-1] if type(v) is not ast.Call else tail(v.func) or ""  # type: ignore[attr-defined]
        else:
            name = (dotted(e) or "").rsplit(".", 1)[-1]
        if "dtype" in name or "type" in name:
            return None
        if sure:
            return True
        return True if DEVICE_ARG_NAME.search(name) else None

    def _is_dtype(self, e: ast.AST, ctx: Ctx, depth: int) -> bool:
        """Is ``e`` known to be a dtype (``torch.float16``, ``x.dtype``, ``target_dtype``)?"""
        f = self.fact(e, ctx, depth + 1)
        if f is not None:
            return f.kind == DTYPE
        name = (dotted(e) or "").rsplit(".", 1)[-1] if type(e) is not ast.Call else tail(e.func) or ""  # type: ignore[attr-defined]
        return "dtype" in name or "type" in name

    def is_module_ctor(self, call: ast.Call, ctx: Ctx) -> bool:
        func = call.func
        q = self.qualname(func)
        if q is not None:
            last = q.rsplit(".", 1)[-1]
            if q.startswith("torch.nn.") and last[:1].isupper():
                parts = q.split(".")
                return parts[2] not in ("functional", "init", "utils", "parameter") and last not in (
                    "Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer")
            if q.startswith("torchvision.models.") and last[:1].islower() and last not in (
                    "get_weight", "list_models", "get_model_weights"):
                return True
            if q in ("timm.create_model", "torchvision.models.get_model", "torch.hub.load"):
                return True
            if q.startswith("transformers.") and last == "from_pretrained":
                return "Tokenizer" not in q and "Processor" not in q and "Config" not in q
            if q.startswith("transformers.") and last.endswith(("Model", "LMHeadModel")) or \
                    "For" in last and q.startswith("transformers."):
                return True
            return False
        if type(func) is ast.Name:
            return self.is_module_class(func.id)
        return False

    def _call_fact(self, node: ast.Call, ctx: Ctx, depth: int) -> Fact | None:
        func = node.func
        ft = type(func)
        if tail(func) in ("tqdm", "iter") and node.args:  # ``pbar = tqdm(loader)``
            f = self.fact(node.args[0], ctx, depth + 1)
            return f if f is not None and f.kind == LOADER else None
        q = self.qualname(func)
        if q is not None:
            return self._qual_call_fact(q, node, ctx, depth)
        if ft is ast.Name:
            name = func.id  # type: ignore[attr-defined]
            if self.is_module_class(name):
                return _MODULE
            if name in ("float", "int", "bool", "len", "str", "list", "range", "enumerate"):
                return _OTHER
            f = self.fact(func, ctx, depth + 1)
            if f is not None and f.kind == MODULE:
                return self._model_output(node, ctx, depth)
            return None
        if ft is not ast.Attribute:
            return None
        meth = func.attr  # type: ignore[attr-defined]
        recv = self.fact(func.value, ctx, depth + 1)  # type: ignore[attr-defined]
        if recv is None:
            return None
        kind = recv.kind
        if kind == MODULE:
            if meth in MODULE_SELF_METHODS:
                return recv
            if meth == "forward":
                return self._model_output(node, ctx, depth)
            # a submodule attribute called (``model.fc(x)``) or another method: unknown
            sub = self._attr_fact(func, ctx, depth + 1)  # type: ignore[arg-type]
            if sub is not None and sub.kind == MODULE:
                return self._model_output(node, ctx, depth)
            return None
        if kind == BATCH:
            if recv.whole:
                return None  # the batch object's own methods: unknown (could be anything)
            recv = recv.but(kind=TENSOR)
            kind = TENSOR
        if kind == TENSOR:
            if meth in NON_TENSOR_METHODS:
                if meth == "numpy":
                    return Fact(ARRAY)
                return _OTHER
            if meth == "type" and not node.args and not node.keywords:
                return _OTHER
            if meth in ("to", "cuda", "cpu", "type_as", "xpu", "mps"):
                return self._moved(recv, meth, node, ctx, depth)
            if meth in ("chunk", "split", "unbind", "tensor_split"):
                return recv.but(cpu_new=None, made=False)
            grad = recv.grad and meth not in NO_GRAD_METHODS and not self.nograd(ctx)
            return recv.but(grad=grad)  # a tensor method keeps the device (moves are above)
        if kind == LOAD:
            return recv if meth in ("get", "pop") else None
        if kind == LOADER:
            return None
        if kind == ARRAY:
            return Fact(ARRAY) if meth in ("astype", "reshape", "copy", "transpose") else None
        return None

    def _model_output(self, node: ast.Call, ctx: Ctx, depth: int) -> Fact:
        """A model's output: on the model's device, which is the inputs' device when those
        are known (a model on the GPU given CPU tensors would have crashed)."""
        fs = [self.fact(a, ctx, depth + 1) for a in node.args]
        ts = [f for f in fs if f is not None and f.sure_tensor]
        if not ts:  # inputs of unknown origin: the model may be anywhere
            return Fact(TENSOR, dev=True, grad=not self.nograd(ctx), guessed=True)
        return Fact(TENSOR, dev=any(f.dev for f in ts), grad=not self.nograd(ctx),
                    guessed=_guessed(ts))

    def _moved(self, recv: Fact, meth: str, node: ast.Call, ctx: Ctx, depth: int) -> Fact:
        if meth in ("cuda", "xpu", "mps"):
            return recv.but(kind=TENSOR, dev=True, moved=True, cpu_new=None, whole=False,
                            guessed=False)
        if meth == "cpu":
            return recv.but(kind=TENSOR, dev=False, moved=True, cpu_new=None, whole=False)
        target = node.args[0] if node.args else kwarg(node, "device") or kwarg(node, "other")
        if meth == "type_as" or target is None:
            dev = recv.dev if target is None else (
                self._device_arg_dev(target, ctx, depth, sure=False) or recv.dev)
            return recv.but(kind=TENSOR, dev=dev, moved=target is not None, whole=False,
                            cpu_new=recv.cpu_new if target is None else None)
        # ``.to(x)`` casts or moves; ``.to(x, dtype=...)`` / ``.to(x, non_blocking=True)``
        # / ``.to(device=x)`` only move
        sure = not node.args or any(k.arg in ("dtype", "non_blocking") for k in node.keywords)
        d = self._device_arg_dev(target, ctx, depth, sure=sure)
        if d is None:  # a dtype, or unknown: same device as before
            if not sure and not self._is_dtype(target, ctx, depth):
                return recv.but(kind=TENSOR, cpu_new=None, whole=False)  # may have moved
            return recv.but(kind=TENSOR, whole=False)
        return recv.but(kind=TENSOR, dev=d, moved=True, cpu_new=None, whole=False, guessed=False)

    def _qual_call_fact(self, q: str, node: ast.Call, ctx: Ctx, depth: int) -> Fact | None:
        if q.startswith("torch."):
            rest = q[6:]
            if rest in FACTORIES:
                dv = kwarg(node, "device")
                if dv is None:
                    if rest in DEVICE_FACTORIES:
                        return Fact(TENSOR, made=True, cpu_new=node, grad=_requires_grad(node))
                    return Fact(TENSOR, made=True)
                d = self._device_arg_dev(dv, ctx, depth)
                return Fact(TENSOR, made=True, dev=bool(d), grad=_requires_grad(node))
            if rest in MAKERS:
                dv = kwarg(node, "device")
                d = bool(self._device_arg_dev(dv, ctx, depth)) if dv is not None else False
                return Fact(TENSOR, made=True, dev=d)
            if rest == "load":
                return Fact(LOAD)
            if rest == "device":
                a = node.args[0] if node.args else kwarg(node, "type")
                if type(a) is ast.Constant and a.value == "cpu":
                    return Fact(DEVICE, dev=False)
                return Fact(DEVICE, dev=True)
            if rest.endswith("is_available") or rest.endswith("device_count"):
                return Fact(AVAIL)
            if rest in ("nn.Parameter", "nn.parameter.Parameter", "nn.Buffer"):
                return Fact(PARAMETER)
            if rest.startswith("utils.data") and rest.endswith("DataLoader"):
                return Fact(LOADER)
            if self.is_module_ctor(node, ctx):
                return _MODULE
            if rest.startswith(("nn.functional.", "fft.", "linalg.", "special.")) or (
                    "." not in rest and rest[:1].islower() and rest not in NON_TENSOR_TORCH):
                fs = [self.fact(a, ctx, depth + 1) for a in node.args]
                for a in node.args:
                    if type(a) in (ast.List, ast.Tuple):
                        fs.extend(self.fact(x, ctx, depth + 1) for x in a.elts)  # type: ignore[attr-defined]
                ts = [f for f in fs if f is not None and f.tensorlike]
                if not ts:  # a torch function returns a tensor: where it lives is unknown
                    return Fact(TENSOR)
                # the result is a tensor for sure, even if the inputs were only guessed to be
                return Fact(TENSOR, dev=any(f.dev for f in ts),
                            grad=any(f.grad for f in ts) and not self.nograd(ctx)
                            and not rest.startswith(("argmax", "argmin", "nn.functional.one_hot")),
                            inp=any(f.inp for f in ts), made=all(f.made for f in ts),
                            cpu_new=ts[0].cpu_new if len(ts) == 1 else None, guessed=_guessed(ts))
            return None
        if q.startswith(("numpy.",)):
            return Fact(ARRAY)
        if self.is_module_ctor(node, ctx):
            return _MODULE
        return None

    # ----------------------------------------------------------------- loops
    def loop_iter_kind(self, loop: ast.AST, ctx: Ctx) -> str | None:
        """"loader" for loops over a DataLoader (possibly through enumerate/tqdm),
        "range" for ``range(epochs)``-style or ``while`` loops, else None."""
        if type(loop) is ast.While:
            return "range"
        if type(loop) not in (ast.For, ast.AsyncFor):
            return None
        it = loop.iter  # type: ignore[attr-defined]
        while type(it) is ast.Call and tail(it.func) in ("enumerate", "tqdm", "iter", "trange") and it.args:  # type: ignore[attr-defined]
            if tail(it.func) == "trange":  # type: ignore[attr-defined]
                return "range"
            it = it.args[0]  # type: ignore[attr-defined]
        if type(it) is ast.Call and tail(it.func) == "range":  # type: ignore[attr-defined]
            text = " ".join(dotted(a) or "" for a in it.args) + " " + " ".join(  # type: ignore[attr-defined]
                x.id for x in ast.walk(loop.target) if type(x) is ast.Name)  # type: ignore[attr-defined]
            return "range" if EPOCHISH.search(text) else "range?"
        f = self.fact(it, ctx)
        if f is not None and f.kind == LOADER:
            return "loader"
        return None

    def loop_index_names(self, loop: ast.AST) -> set[str]:
        """Counter names of a loop: enumerate's index, range's variable."""
        names: set[str] = set()
        if type(loop) in (ast.For, ast.AsyncFor):
            it = loop.iter  # type: ignore[attr-defined]
            tg = loop.target  # type: ignore[attr-defined]
            if type(it) is ast.Call and tail(it.func) == "enumerate":
                if type(tg) is ast.Tuple and tg.elts and type(tg.elts[0]) is ast.Name:
                    names.add(tg.elts[0].id)
            elif type(it) is ast.Call and tail(it.func) in ("range", "trange") and type(tg) is ast.Name:
                names.add(tg.id)
        return names

    def direct_calls(self, loop: ast.AST, ctx: Ctx) -> Iterator[Site]:
        """Calls directly in a loop's body (not inside a nested loop)."""
        for s in ctx.scope.calls_between(pos(loop), end_pos(loop)):
            if s.ctx.loops and s.ctx.loops[-1] is loop:
                yield s

    def is_training_loop(self, loop: ast.AST, ctx: Ctx) -> bool:
        """A loop over a DataLoader (or ``range(epochs)``, ``while``) whose own body calls a
        model, ``.backward()`` or ``optimizer.step()``."""
        key = id(loop)
        r = self._training.get(key)
        if r is None:
            r = False
            k = self.loop_iter_kind(loop, ctx)
            if k is not None and k != "loader" and self._has_inner_batch_loop(loop, ctx):
                k = None  # an epoch loop around a batch loop: its own body runs once per epoch
            if k is None and type(loop) in (ast.For, ast.AsyncFor):
                # Any other iterable (a list of batches, a generator): a body that both
                # back-propagates and steps an optimizer is a training loop whatever it
                # iterates.  Both are required: either alone is not evidence enough here.
                seen = {_learning_step(s.node) for s in self.direct_calls(loop, ctx)}
                r = "backward" in seen and "step" in seen
            if k is not None:
                for s in self.direct_calls(loop, ctx):
                    call = s.node
                    if _learning_step(call) is not None:
                        r = True
                    elif k in ("loader", "range"):  # a model called on the batch
                        f = self.fact(call.func, s.ctx)  # type: ignore[attr-defined]
                        r = f is not None and f.kind == MODULE
                    if r:
                        break
            self._training[key] = r
        return r

    def _has_inner_batch_loop(self, loop: ast.AST, ctx: Ctx) -> bool:
        lo, hi = pos(loop), end_pos(loop)
        for other, octx in self.loops:
            if other is not loop and lo < pos(other) <= hi and loop in octx.loops and \
                    self.loop_iter_kind(other, octx) == "loader":
                return True
        return False

    def guarded(self, site_ctx: Ctx, loop: ast.AST) -> bool:
        """Is a node inside ``loop`` under an ``if`` that looks like a logging interval?"""
        lo, hi = pos(loop), end_pos(loop)
        idx = self.loop_index_names(loop)
        for ifnode, in_body in site_ctx.ifs:
            if not (lo <= pos(ifnode) <= hi) or not in_body:
                continue
            for x in ast.walk(ifnode.test):
                tx = type(x)
                if tx is ast.BinOp and type(x.op) is ast.Mod:
                    return True
                if tx is ast.Name:
                    if x.id in idx or GUARD_NAME.search(x.id):
                        return True
                elif tx is ast.Attribute and GUARD_NAME.search(x.attr):
                    return True
        return False

    # ----------------------------------------------------------------- misc
    def mentions_availability(self, node: ast.AST) -> bool:
        for x in ast.walk(node):
            tx = type(x)
            if tx is ast.Call and tail(x.func) in ("is_available", "device_count", "is_built"):  # type: ignore[attr-defined]
                return True
            if tx is ast.Name and AVAIL_NAME.search(x.id):
                return True
            if tx is ast.Attribute and AVAIL_NAME.search(x.attr):
                return True
        return False

    def device_var(self, scope: Scope, at: int, exclude_stmt: ast.AST | None = None) -> str | None:
        """A device variable visible at ``at`` (``device``, ``dev``, ``*_device``), if any."""
        s: Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent
                continue
            names = self._device_names.get(id(s))
            if names is None:
                names = self._device_names[id(s)] = sorted(n for n in s.binds if DEVICE_NAME.match(n))
            for name in names:
                lst = s.binds[name]
                b = self._before(lst, at) if (first or s.kind == "function") else lst[-1][1]
                if b is None or b.stmt is exclude_stmt:
                    continue
                if b.how == "param":
                    return name
                f = self.binding_fact(b)
                if f is not None and f.kind == DEVICE and not _is_accel_literal(b.value):
                    return name
            first = False
            s = s.parent
        return None

    def text(self, node: ast.AST) -> str:
        """The source text of ``node`` (like ``Context.text``, without re-splitting the file
        on every call)."""
        ctx = self.source_ctx
        lines = ctx.lines  # type: ignore[attr-defined]
        line, col, end_line, end_col = ctx.span(node)  # type: ignore[attr-defined]
        if line == end_line:
            return lines[line - 1][col:end_col] if line <= len(lines) else ""
        parts = [lines[line - 1][col:], *lines[line:end_line - 1], lines[end_line - 1][:end_col]]
        return "\n".join(parts)

    def parents(self, stmt: ast.AST) -> dict[int, ast.AST]:
        """:func:`header_parents` of a statement, memoised (big statements hold many literals)."""
        p = self._parents.get(id(stmt))
        if p is None:
            p = self._parents[id(stmt)] = header_parents(stmt)
        return p

    def availability_checks(self, scope: Scope) -> list[Site]:
        """``is_available()`` / ``device_count()`` calls in a scope's ``assert``/``if`` tests."""
        if self._avail_checks is None:
            self._avail_checks = {}
            for name in ("is_available", "device_count"):
                for s in self.calls_by_tail.get(name, ()):
                    test = getattr(s.stmt, "test", None)
                    if type(s.stmt) in (ast.Assert, ast.If) and test is not None and \
                            pos(test) <= s.pos <= end_pos(test):
                        self._avail_checks.setdefault(id(s.ctx.scope), []).append(s)
        return self._avail_checks.get(id(scope), [])


GUARD_NAME = re.compile(r"log|print|verbose|interval|freq|every|debug|display|report", re.I)
AVAIL_NAME = re.compile(r"cuda|gpu|device|accel|mps|xpu", re.I)


def _guessed(facts: list[Fact]) -> bool:
    """Combined facts are "dev only by guess" when every operand that may be on the
    device is so only by guess."""
    devs = [f for f in facts if f.dev]
    return bool(devs) and all(f.guessed for f in devs)


def _home_either_way(node: ast.IfExp) -> bool:
    """``x.cpu() if x.is_cuda else x`` (or the mirror image): one branch brings ``x`` home,
    the other keeps it where it is, and the test asks where ``x`` lives."""
    body, orelse = node.body, node.orelse
    for moved, kept in ((body, orelse), (orelse, body)):
        if type(moved) is ast.Call and type(moved.func) is ast.Attribute and \
                moved.func.attr == "cpu" and not moved.args and \
                _same(moved.func.value, kept):
            break
    else:
        return False
    for x in ast.walk(node.test):
        if type(x) is ast.Attribute and x.attr in ("is_cuda", "device", "is_mps", "is_xpu"):
            return True
        if type(x) is ast.Call and tail(x.func) == "get_device":
            return True
    return False


def _same(a: ast.AST, b: ast.AST) -> bool:
    da = dotted(a)
    if da is not None:
        return da == dotted(b)
    return type(a) is type(b) and ast.dump(a) == ast.dump(b)


def _is_accel_literal(node: ast.AST | None) -> bool:
    if type(node) is ast.Constant and type(node.value) is str:
        return bool(ACCEL_LITERAL.match(node.value))
    if type(node) is ast.Call and node.args and type(node.args[0]) is ast.Constant:
        v = node.args[0].value
        return type(v) is str and bool(ACCEL_LITERAL.match(v))
    return False


def _requires_grad(call: ast.Call) -> bool:
    v = kwarg(call, "requires_grad")
    return type(v) is ast.Constant and v.value is True


def header_parents(stmt: ast.AST) -> dict[int, ast.AST]:
    """Parent map of a statement's own expressions (not the bodies of compound statements)."""
    parents: dict[int, ast.AST] = {}
    roots: list[ast.AST] = []
    for f in _fields(type(stmt)):
        if f in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        v = getattr(stmt, f, None)
        if isinstance(v, ast.AST):
            roots.append(v)
        elif type(v) is list:
            roots.extend(x for x in v if isinstance(x, ast.AST))
    for r in roots:
        parents[id(r)] = stmt
        for n in ast.walk(r):
            for c in ast.iter_child_nodes(n):
                parents[id(c)] = n
    return parents


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def needs_parens(node: ast.AST) -> bool:
    """Whether ``node`` must be parenthesised before appending ``.method()`` to it."""
    return type(node) not in (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant,
                              ast.List, ast.Tuple, ast.Dict, ast.ListComp)


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters for messages."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _learning_step(call: ast.AST) -> str | None:
    """``"backward"`` for ``x.backward()``, ``"step"`` for ``optimizer.step()``, else None."""
    fn = tail(call.func)  # type: ignore[attr-defined]
    if fn == "backward":
        return "backward"
    if fn == "step" and type(call.func) is ast.Attribute and \
            OPTIM_NAME.search(dotted(call.func.value) or ""):  # type: ignore[attr-defined]
        return "step"
    return None
