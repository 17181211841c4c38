"""Facts: what an expression is, as far as the analysis can tell.

:class:`Facts` extends the :class:`~torchferry.check.scopes.Walker` with
:meth:`Facts.fact`, which evaluates lazily (memoised per binding) what an expression
inside a scope is -- a :class:`Fact` such as "tensor that may be on an accelerator and
needs grad", "module", "DataLoader", "item of a batch from loop L", "device" -- from the
last binding of each name before that point.  Whatever it cannot place is ``None``.

>>> import ast
>>> src = "import torch\\nx = torch.ones(2).cuda()\\ny = x + 1\\n"
>>> f = Facts(ast.parse(src))
>>> site = f.calls_by_tail["cuda"][0]
>>> f.fact(site.node, site.ctx)
Fact(tensor, dev, made, moved)
"""

from __future__ import annotations

import ast

from torchferry.check.names import (
    ACCEL_LITERAL,
    ARRAY,
    AVAIL,
    BATCH,
    DEVICE,
    DEVICE_ARG_NAME,
    DEVICE_FACTORIES,
    DEVICE_NAME,
    DTYPE,
    DTYPES,
    FACTORIES,
    LEGACY_CONSTRUCTORS,
    LOAD,
    LOADER,
    LOADER_NAME,
    MAKERS,
    MODEL_NAME,
    MODULE,
    MODULE_SELF_METHODS,
    NO_GRAD_METHODS,
    NON_TENSOR_METHODS,
    NON_TENSOR_TORCH,
    OTHER,
    PARAMETER,
    STATE,
    TENSOR,
    TENSOR_ATTRS,
    dotted,
    kwarg,
    pos,
    same_expr,
    tail,
)
from torchferry.check.scopes import Binding, ClassInfo, Ctx, Scope, Walker


class Fact:
    """What an expression is, as far as the analysis can tell.

    ``kind`` is one of the kinds in :mod:`torchferry.check.names` (``"tensor"``,
    ``"module"``...).  For tensors: ``dev`` -- may live on an accelerator; ``grad`` -- may
    require grad; ``made`` -- created here by a factory or from data; ``inp`` -- derived
    from a function's tensor parameter; ``moved`` -- result of an explicit move; ``weak`` --
    only guessed (a parameter used as ``x.shape``: could be an ndarray); ``guessed`` --
    ``dev`` only because a model was called on inputs of unknown origin.  For batch items: ``loop`` is the loop they
    came from and ``whole`` says it is the whole batch object.
    """

    __slots__ = ("kind", "dev", "grad", "made", "inp", "moved", "loop", "whole", "weak",
                 "guessed")

    def __init__(self, kind: str, dev: bool = False, grad: bool = False, made: bool = False,
                 inp: bool = False, moved: bool = False, loop: ast.AST | None = None,
                 whole: bool = False, weak: bool = False, guessed: bool = False) -> None:
        self.kind = kind
        self.dev = dev
        self.grad = grad
        self.made = made
        self.inp = inp
        self.moved = moved
        self.loop = loop
        self.whole = whole
        self.weak = weak
        self.guessed = guessed

    def but(self, **kw: object) -> Fact:
        """A copy with some fields changed."""
        f = Fact(self.kind, self.dev, self.grad, self.made, self.inp, self.moved, self.loop,
                 self.whole, self.weak, self.guessed)
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

    @property
    def on_device(self) -> bool:
        """Surely a tensor, and it may live on an accelerator."""
        return self.sure_tensor and self.dev

    def __repr__(self) -> str:
        flags = [k for k in ("dev", "grad", "made", "inp", "moved", "whole") if getattr(self, k)]
        return f"Fact({self.kind}{', ' + ', '.join(flags) if flags else ''})"


_MODULE = Fact(MODULE)
_OTHER = Fact(OTHER)


def guessed(facts: list[Fact]) -> bool:
    """Combined facts are "dev only by guess" when every operand that may be on the
    device is so only by guess."""
    devs = [f for f in facts if f.dev]
    return bool(devs) and all(f.guessed for f in devs)


def _home_either_way(node: ast.IfExp) -> bool:
    """``x.cpu() if x.is_cuda else x`` (or the mirror image): one branch brings ``x`` home,
    the other keeps it where it is, and the test asks where ``x`` lives."""
    body, orelse = node.body, node.orelse
    for moved, kept in ((body, orelse), (orelse, body)):
        if isinstance(moved, ast.Call) and isinstance(moved.func, ast.Attribute) and \
                moved.func.attr == "cpu" and not moved.args and same_expr(moved.func.value, kept):
            break
    else:
        return False
    for x in ast.walk(node.test):
        if isinstance(x, ast.Attribute) and x.attr in ("is_cuda", "device", "is_mps", "is_xpu"):
            return True
        if isinstance(x, ast.Call) and tail(x.func) == "get_device":
            return True
    return False


# methods that, on something also called, show it is a module
_MODULE_EVIDENCE = frozenset(
    "eval train parameters named_parameters state_dict load_state_dict cuda to modules "
    "children zero_grad apply requires_grad_ half float bfloat16".split()
)


# module methods returning the module on the device it was on
_KEEPS_DEVICE = frozenset({"eval", "train", "float", "half", "double", "bfloat16",
                           "requires_grad_"})
# torch.nn layers that hold parameters by default (their output is where those are)
_PARAMETER_LAYERS = frozenset(
    "Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
    "Embedding EmbeddingBag BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm RMSNorm "
    "RNN LSTM GRU RNNCell LSTMCell GRUCell MultiheadAttention Transformer "
    "TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer "
    "PReLU".split()
)
# builtins that only look at an object
_LOOKS_AT = frozenset({"print", "repr", "str", "type", "isinstance", "id", "display",
                       "hasattr", "getattr"})
# module attributes that move (or may move) its parameters
_MOVES_MODULE = frozenset({"to", "cuda", "xpu", "mps", "ipu", "to_empty", "apply", "_apply",
                           "type", "share_memory"})


_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _is_self(node: ast.AST, scope: Scope) -> bool:
    return isinstance(node, ast.Name) and scope.self_name is not None and node.id == scope.self_name


#: Lightning's step methods: called with a batch already on the module's device
STEP_METHODS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})


def _requires_grad(call: ast.Call) -> bool:
    v = kwarg(call, "requires_grad")
    return isinstance(v, ast.Constant) and v.value is True


class Facts(Walker):
    """The walker plus fact evaluation (see the module docstring)."""

    def __init__(self, tree: ast.Module, module_classes: frozenset[str] = frozenset()) -> None:
        self._memo: dict[int, Fact | None] = {}
        self._busy: set[int] = set()
        self._module_uses: dict[int, frozenset[str]] = {}
        self._following: set[int] = set()  # helper methods being followed (no recursion)
        self._escaping: frozenset[str] | None = None
        super().__init__(tree, module_classes)

    # ----------------------------------------------------------------- entry points
    def fact(self, node: ast.AST, ctx: Ctx, depth: int = 0) -> Fact | None:
        """What ``node`` (an expression inside ``ctx``) is, or None when unknown."""
        if depth > 40:
            return None
        if isinstance(node, ast.Name):
            b = self.binding(node.id, ctx.scope, pos(node))
            f = self.binding_fact(b, depth) if b is not None else None
            if f is None:
                if node.id in self.used_as_module(ctx.scope):
                    return _MODULE
                f = self._by_name(node.id, b)
            if f is not None and f.tensorlike and ctx.ifs and self._not_a_tensor_here(node.id, ctx):
                return None
            return f
        if isinstance(node, ast.Call):
            return self._call_fact(node, ctx, depth)
        if isinstance(node, ast.Attribute):
            return self._attr_fact(node, ctx, depth)
        if isinstance(node, ast.BinOp):
            return self._combine(self.fact(node.left, ctx, depth + 1),
                                 self.fact(node.right, ctx, depth + 1))
        if isinstance(node, ast.UnaryOp):
            f = self.fact(node.operand, ctx, depth + 1)
            return f if f is not None and f.tensorlike else None
        if isinstance(node, ast.Compare):
            fs = [self.fact(x, ctx, depth + 1) for x in [node.left, *node.comparators]]
            ts = [f for f in fs if f is not None and f.tensorlike]
            if not ts:
                return None
            return Fact(TENSOR, dev=any(f.dev for f in ts), inp=any(f.inp for f in ts),
                        guessed=guessed(ts), weak=all(f.weak for f in ts))
        if isinstance(node, ast.Subscript):
            f = self.fact(node.value, ctx, depth + 1)
            if f is None and isinstance(node.value, ast.Name) and self._a_sequence_here(node.value.id, ctx):
                # ``outputs[0]`` under ``if isinstance(outputs, tuple):``: an item of what a
                # model returned is where the model is
                b = self.binding(node.value.id, ctx.scope, pos(node.value))
                f = self.binding_fact(b, depth) if b is not None else None
                return f.but() if f is not None and f.kind == TENSOR else None
            if f is None:
                return None
            if f.kind == TENSOR:
                return f.but()
            if f.kind == BATCH:
                return f.but(whole=False)
            if f.kind in (LOAD, LOADER):  # ``checkpoint["model"]``, ``dataloaders["train"]``
                return f
            if f.kind == STATE:  # ``model.state_dict()[k]``: a parameter's or buffer's data
                return Fact(TENSOR, dev=f.dev)
            return None
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, str):
                if v == "cpu":
                    return Fact(DEVICE, dev=False)
                if ACCEL_LITERAL.match(v):
                    return Fact(DEVICE, dev=True)
            return None
        if isinstance(node, ast.IfExp):
            fa = self.fact(node.body, ctx, depth + 1)
            fb = self.fact(node.orelse, ctx, depth + 1)
            if fa is not None and fb is not None and fa.kind == fb.kind:
                if fa.kind == TENSOR and fa.dev != fb.dev and _home_either_way(node):
                    return fa if not fa.dev else fb
                return fa.but(dev=fa.dev or fb.dev)
            return None
        if isinstance(node, ast.NamedExpr):
            return self.fact(node.value, ctx, depth + 1)
        return None

    def binding_fact(self, b: Binding, depth: int = 0) -> Fact | None:
        """What the value bound by ``b`` is (memoised)."""
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

    def used_as_module(self, scope: Scope) -> frozenset[str]:
        """Names of ``scope`` used as modules are: both called (``net(x)``) and given a
        method only modules have or that a tensor cannot be called after (``net.eval()``,
        ``net.parameters()``, ``net.to(device)``, ``net.cuda()``...).  A tensor is never
        called; a function has no ``.to()``."""
        key = id(scope)
        r = self._module_uses.get(key)
        if r is None:
            called: set[str] = set()
            methods: set[str] = set()
            for s in scope.calls:
                func = s.node.func
                if isinstance(func, ast.Name):
                    called.add(func.id)
                elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                        func.attr in _MODULE_EVIDENCE:
                    methods.add(func.value.id)
            r = self._module_uses[key] = frozenset(called & methods)
        return r

    def self_attrs_used_as_module(self, cls: ClassInfo) -> frozenset[str]:
        """``self.x`` attributes of a class used as modules (called and moved, as above)."""
        key = id(cls)
        r = self._module_uses.get(key)
        if r is None:
            called: set[str] = set()
            methods: set[str] = set()
            for scope in cls.methods.values():
                for s in scope.calls:
                    func = s.node.func
                    if not isinstance(func, ast.Attribute):
                        continue
                    if _is_self(func.value, scope):  # self.x(...)
                        called.add(func.attr)
                    elif func.attr in _MODULE_EVIDENCE and isinstance(func.value, ast.Attribute) \
                            and _is_self(func.value.value, scope):  # self.x.eval()
                        methods.add(func.value.attr)
            r = self._module_uses[key] = frozenset(called & methods)
        return r

    def _not_a_tensor_here(self, name: str, ctx: Ctx) -> bool:
        """Branch-aware type facts: in the ``else`` of ``if torch.is_tensor(x)`` /
        ``isinstance(x, torch.Tensor)`` (or the body of their negation), and in the body of
        ``isinstance(x, np.ndarray)`` / ``type(x) is Image`` / ``np.isscalar(x)``, ``x`` is
        not a tensor."""
        for ifnode, in_body in ctx.ifs:
            test = ifnode.test
            negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            if negated and isinstance(test, ast.UnaryOp):
                test = test.operand
            verdict = self._type_test(test, name)  # True: tensor, False: something else
            if verdict is None:
                continue
            if verdict != (in_body != negated):
                return True
        return False

    def _a_sequence_here(self, name: str, ctx: Ctx) -> bool:
        """In the body of ``if isinstance(name, tuple)`` (or ``list``, or both)."""
        for ifnode, in_body in ctx.ifs:
            t = ifnode.test
            if in_body and isinstance(t, ast.Call) and tail(t.func) == "isinstance" and \
                    len(t.args) == 2 and isinstance(t.args[0], ast.Name) and t.args[0].id == name:
                kinds = t.args[1].elts if isinstance(t.args[1], ast.Tuple) else [t.args[1]]
                if kinds and all(isinstance(k, ast.Name) and k.id in ("tuple", "list")
                                 for k in kinds):
                    return True
        return False

    def _type_test(self, test: ast.expr, name: str) -> bool | None:
        """Does ``test`` say ``name`` is a tensor (True), something else (False), or neither?"""
        if isinstance(test, ast.Call) and test.args and isinstance(test.args[0], ast.Name) \
                and test.args[0].id == name:
            q = self.qualname(test.func) or tail(test.func) or ""
            if q.endswith("is_tensor"):
                return True
            if q == "numpy.isscalar":  # true for Python and NumPy scalars, never a tensor
                return False
            if q == "isinstance" and len(test.args) == 2:
                return self._names_tensor(test.args[1])
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
                isinstance(test.ops[0], (ast.Is, ast.Eq)) and isinstance(test.left, ast.Call) and \
                tail(test.left.func) == "type" and test.left.args and \
                isinstance(test.left.args[0], ast.Name) and test.left.args[0].id == name:
            return self._names_tensor(test.comparators[0])
        return None

    def _names_tensor(self, e: ast.expr) -> bool | None:
        """``torch.Tensor`` -> True, another class -> False; a tuple mixing both -> None."""
        parts = e.elts if isinstance(e, ast.Tuple) else [e]
        kinds = {((self.qualname(p) or dotted(p) or "").rsplit(".", 1)[-1] in
                  ("Tensor", "Parameter")) for p in parts}
        return kinds.pop() if len(kinds) == 1 else None

    def graph_lib(self) -> bool:
        """Does the file use PyTorch Geometric or DGL, whose batches move in place?"""
        return any(q.startswith(("torch_geometric", "dgl")) for q in self.imports.values())

    # ----------------------------------------------------------------- names and bindings
    def _by_name(self, name: str, b: Binding | None) -> Fact | None:
        """Last-resort guesses from a name that is not otherwise known."""
        if b is not None and b.how not in ("param", "opaque", "with"):
            return None  # assigned from something we do not understand
        if MODEL_NAME.match(name) and not name[:1].isupper() and not (
                b is not None and b.how == "opaque" and isinstance(b.stmt, _DEFINITIONS)):
            # (a function or class named ``unwrap_model`` / ``TransformerModel`` is not a
            # model: calling it is no forward pass)
            return _MODULE
        if LOADER_NAME.search(name) and not self.graph_lib():
            return Fact(LOADER)
        if DEVICE_NAME.match(name):
            return Fact(DEVICE, dev=True)
        return None

    def _binding_fact(self, b: Binding, depth: int) -> Fact | None:
        how = b.how
        v = b.value
        if how == "expr" and v is not None:
            return self.fact(v, b.ctx, depth + 1)
        if how == "unpack" and v is not None:
            if isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) > b.path[0]:
                el = v.elts[b.path[0]]
                return None if isinstance(el, ast.Starred) else self.fact(el, b.ctx, depth + 1)
            f = self.fact(v, b.ctx, depth + 1)
            if f is None:
                if isinstance(v, ast.Call) and len(b.path) == 1:
                    return self._unpacked_return(v, b.path[0], b.ctx, depth)
                return None
            if f.kind == TENSOR:
                return f.but()
            if f.kind == BATCH:
                return f.but(whole=False)
            return None
        if how == "for" and v is not None:
            return self._iter_item(v, b.path, b.ctx, depth, b.stmt)
        if how == "param" and isinstance(v, ast.arg):
            return self._param_fact(v, b.ctx.scope)
        if how == "aug" and isinstance(v, ast.AugAssign):
            prev = self.fact(v.target, b.ctx, depth + 1)
            return self._combine(prev, self.fact(v.value, b.ctx, depth + 1))
        return None

    def _iter_item(self, it: ast.AST, path: tuple[int, ...], ctx: Ctx, depth: int,
                   loop: ast.AST | None = None) -> Fact | None:
        if loop is None:
            loop = it
        while isinstance(it, ast.Call):
            fn = tail(it.func)
            if fn == "enumerate" and it.args:
                if not path:
                    return None
                if path[0] == 0:
                    return _OTHER
                path = path[1:]
                it = it.args[0]
            elif fn in ("tqdm", "iter", "trange") and it.args:
                it = it.args[0]
            else:
                break
        f = self.fact(it, ctx, depth + 1)
        if f is None:
            return None
        if f.kind == LOADER:
            return Fact(BATCH, loop=loop, whole=not path)
        if f.kind == TENSOR:
            return f.but(made=False)
        return None

    def _param_fact(self, arg: ast.arg, scope: Scope) -> Fact | None:
        cls = scope.cls
        if arg.arg == scope.self_name:
            if cls is not None and cls.is_module:
                return _MODULE
            return None
        ann = arg.annotation
        if ann is not None:
            text = dotted(ann) or ""
            if isinstance(ann, ast.Subscript):  # Optional[Tensor] and the like
                text = dotted(ann.slice) or ""
            if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                text = ann.value
            last = text.rsplit(".", 1)[-1]
            if last == "Tensor":
                return Fact(TENSOR, dev=True, inp=True)
            if last == "Module" or self.is_module_class(last):
                return _MODULE
            if last == "device":
                return Fact(DEVICE, dev=True)
        if cls is not None and cls.is_module and (scope.name == "forward" or (
                scope.name in STEP_METHODS and not arg.arg.endswith("idx"))):
            # ``forward`` inputs, and the batch of Lightning's ``training_step`` & co.
            # (Lightning moves it to the module's device before the call)
            return Fact(TENSOR, dev=True, inp=True)
        if arg.arg in scope.tensorish and not DEVICE_NAME.match(arg.arg):
            return Fact(TENSOR, dev=True, inp=True, weak=True)
        return None

    @staticmethod
    def _combine(a: Fact | None, b: Fact | None) -> Fact | None:
        fs = [f for f in (a, b) if f is not None and f.tensorlike]
        if not fs:
            return None
        return Fact(TENSOR, dev=any(f.dev for f in fs), grad=any(f.grad for f in fs),
                    made=all(f.made for f in fs), inp=any(f.inp for f in fs),
                    weak=all(f.weak for f in fs), guessed=guessed(fs))

    # ----------------------------------------------------------------- attributes
    def self_scope(self, scope: Scope, name: str) -> Scope | None:
        """The method scope in which ``name`` is ``self`` (a closure inside a method still
        sees it), or None."""
        s: Scope | None = scope
        while s is not None and s.kind == "function" and s.self_name is None:
            s = s.parent
        if s is not None and s.self_name == name and s.cls is not None:
            return s
        return None

    def _attr_fact(self, node: ast.Attribute, ctx: Ctx, depth: int) -> Fact | None:
        v = node.value
        if isinstance(v, ast.Name):
            s = self.self_scope(ctx.scope, v.id)
            if s is not None and s.cls is not None:
                lst = s.cls.attrs.get(node.attr)
                if lst:
                    f = self.binding_fact(lst[-1][1], depth + 1)
                    if f is not None:
                        return f.but()
                if node.attr in s.cls.methods:
                    return None  # ``self._prompt_embedding_model()``: a method, not a submodule
                if MODEL_NAME.match(node.attr) or node.attr.endswith(("_net", "Net", "encoder", "decoder")):
                    return _MODULE
                if node.attr in self.self_attrs_used_as_module(s.cls):
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
                return f.but(kind=TENSOR, grad=f.grad and node.attr != "data", whole=False)
            return None
        if node.attr == "device":
            f = self.fact(v, ctx, depth + 1)
            if f is not None and f.tensorlike:
                return Fact(DEVICE, dev=f.dev)
            return Fact(DEVICE, dev=True)
        if node.attr == "dtype":
            return Fact(DTYPE)
        return None

    # ----------------------------------------------------------------- devices and dtypes
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
        if isinstance(e, ast.Call):
            name = tail(e.func) or ""
            if (self.qualname(e.func) or "").endswith("device"):
                a = e.args[0] if e.args else kwarg(e, "type")
                if isinstance(a, ast.Constant) and a.value == "cpu":
                    return False
        elif isinstance(e, ast.Subscript):  # ``devices[i]``
            v = e.value
            name = tail(v.func) or "" if isinstance(v, ast.Call) else (dotted(v) or "").rsplit(".", 1)[-1]
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
        name = tail(e.func) or "" if isinstance(e, ast.Call) else (dotted(e) or "").rsplit(".", 1)[-1]
        return "dtype" in name or "type" in name

    # ----------------------------------------------------------------- calls
    def is_module_ctor(self, call: ast.Call) -> bool:
        """Does ``call`` construct an ``nn.Module`` (a torch.nn layer, a torchvision/timm/
        transformers model, a module class of this file)?"""
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
            if q.startswith("transformers.") and (last.endswith(("Model", "LMHeadModel")) or "For" in last):
                return True
            # a module class of another file of the run, imported here
            if q.startswith(("torch.", "numpy.")):
                return False
            # a module class of another file of the run, imported here; or a loss class
            # (``losses.CharbonnierLoss()``: losses are modules by PyTorch's convention)
            return last in self.module_classes or (
                last.endswith("Loss") and last[:1].isupper())
        if isinstance(func, ast.Name):
            return self.is_module_class(func.id)
        return False

    def _call_fact(self, node: ast.Call, ctx: Ctx, depth: int) -> Fact | None:
        func = node.func
        if tail(func) in ("tqdm", "iter") and node.args:  # ``pbar = tqdm(loader)``
            f = self.fact(node.args[0], ctx, depth + 1)
            return f if f is not None and f.kind == LOADER else None
        q = self.qualname(func)
        if q is not None:
            return self._qual_call_fact(q, node, ctx, depth)
        if isinstance(func, ast.Name):
            name = func.id
            if self.is_module_class(name):
                return _MODULE
            if name in ("float", "int", "bool", "len", "str", "list", "range", "enumerate"):
                return _OTHER
            f = self.fact(func, ctx, depth + 1)
            if f is not None and f.kind == MODULE:
                if self._unmoved_module(func, ctx):  # its parameters, so its output, on the CPU
                    return Fact(TENSOR, grad=not self.nograd(ctx))
                return self._model_output(node, ctx, depth)
            return None
        if not isinstance(func, ast.Attribute):
            return None
        meth = func.attr
        helper = self._helper_fact(func, ctx, depth)
        if helper is not None:
            return helper
        recv = self.fact(func.value, ctx, depth + 1)
        if recv is None:
            # ``self.model(x)`` in a class that is not itself a module, when the class also
            # moves or evaluates ``self.model`` (a name alone is not evidence enough here)
            if isinstance(func.value, ast.Name):
                s = self.self_scope(ctx.scope, func.value.id)
                if s is not None and s.cls is not None and \
                        func.attr in self.self_attrs_used_as_module(s.cls):
                    return self._model_output(node, ctx, depth)
            return None
        kind = recv.kind
        if kind == MODULE:
            if meth in MODULE_SELF_METHODS:
                return recv
            if meth == "state_dict" and not node.args and not node.keywords:
                # its values share the parameters' memory: on the device when the module is
                return Fact(STATE, dev=self._module_moved(func.value, ctx, depth))
            if meth == "forward":
                return self._model_output(node, ctx, depth)
            # a submodule attribute called (``model.fc(x)``) or another method: unknown
            sub = self._attr_fact(func, ctx, depth + 1)
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
                return recv.but(made=False)
            grad = recv.grad and meth not in NO_GRAD_METHODS and not self.nograd(ctx)
            return recv.but(grad=grad)  # a tensor method keeps the device (moves are above)
        if kind == LOAD:
            return recv if meth in ("get", "pop") else None
        if kind == STATE:
            return Fact(TENSOR, dev=recv.dev) if meth in ("get", "pop") and node.args else None
        if kind == ARRAY:
            return Fact(ARRAY) if meth in ("astype", "reshape", "copy", "transpose") else None
        return None

    def _helper_fact(self, func: ast.Attribute, ctx: Ctx, depth: int) -> Fact | None:
        """``self.helper(...)``: what a method of the same class returns, followed one level
        (its ``return`` expressions, evaluated in the helper; all must agree on a tensor)."""
        if not isinstance(func.value, ast.Name):
            return None
        s = self.self_scope(ctx.scope, func.value.id)
        if s is None or s.cls is None or func.attr == "forward":
            return None
        helper = s.cls.methods.get(func.attr)
        if helper is None or not helper.returns or id(helper) in self._following:
            return None
        self._following.add(id(helper))
        try:
            fs = [self.fact(r.node.value, r.ctx, depth + 1) if r.node.value is not None else None
                  for r in helper.returns]
        finally:
            self._following.discard(id(helper))
        if not fs or any(f is None or f.kind != TENSOR or f.inp for f in fs):
            return None  # (computed from the helper's parameters: the caller's values decide)
        ts = [f for f in fs if f is not None]
        return Fact(TENSOR, dev=any(f.dev for f in ts), grad=any(f.grad for f in ts),
                    made=all(f.made for f in ts), inp=any(f.inp for f in ts), guessed=guessed(ts))

    def _unmoved_module(self, name: ast.Name, ctx: Ctx) -> bool:
        """Is ``name`` (at this point) a module constructed here without a device
        (``conv = nn.Conv2d(3, 8, 3)``, ``net = Net().eval()``) and never moved, passed on
        or stored anywhere in the file, with no default device set?  Its parameters are
        then on the CPU, and so is its output (other inputs would have crashed it)."""
        b = self.binding(name.id, ctx.scope, pos(name))
        if b is None or b.how != "expr" or b.ctx.withs:  # (``with torch.device("cuda"):``)
            return False
        v = b.value
        while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                v.func.attr in _KEEPS_DEVICE:
            v = v.func.value  # ``Net().eval()``
        if not isinstance(v, ast.Call) or not self._has_parameters(v) or any(
                k.arg is None or "device" in k.arg for k in v.keywords):
            return False  # (a loss or an activation computes where its inputs are)
        if "set_default_device" in self.calls_by_tail or "set_default_tensor_type" in self.calls_by_tail:
            return False  # (new parameters may be made on an accelerator)
        return name.id not in self._escaping_names()

    def _has_parameters(self, call: ast.Call, depth: int = 0) -> bool:
        """Does ``call`` construct a module known to hold parameters: a torch.nn layer with
        weights, a torchvision/timm/transformers model, a ``Sequential`` of such layers, a
        module class of this file whose ``self.x`` include one (one level)?"""
        if depth > 2 or not self.is_module_ctor(call):
            return False
        q = self.qualname(call.func) or ""
        last = q.rsplit(".", 1)[-1]
        if q.startswith("torch.nn."):
            if last in ("Sequential", "ModuleList", "ModuleDict"):
                items = [x for a in call.args for x in
                         (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])]
                return any(isinstance(x, ast.Call) and self._has_parameters(x, depth + 1)
                           for x in items)
            return last in _PARAMETER_LAYERS
        if q.startswith(("torchvision.models.", "timm.", "transformers.")):
            return True
        cls = self.classes.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if cls is None:
            return False  # a class of another file: unknown
        for binds in cls.attrs.values():
            for _, b in binds:
                v = b.value
                if isinstance(v, ast.Call) and (
                        (self.qualname(v.func) or "").endswith("Parameter") or
                        self._has_parameters(v, depth + 1)):
                    return True
        return False

    def _escaping_names(self) -> frozenset[str]:
        """Names read anywhere in the file other than as ``name(...)`` or ``name.attr``
        for an attribute that cannot move a module: moved (``.to``, ``.cuda``, ``.apply``),
        passed to a call (which may move it), stored, returned...  Computed once."""
        if self._escaping is None:
            out: set[str] = set()
            allowed: set[int] = set()
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    allowed.add(id(node.func))
                    if node.func.id in _LOOKS_AT:  # ``print(model)``
                        allowed.update(id(a) for a in node.args)
                elif isinstance(node, ast.Expr):  # ``model`` alone (a notebook shows it)
                    allowed.add(id(node.value))
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                        node.attr not in _MOVES_MODULE:
                    allowed.add(id(node.value))
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                        id(node) not in allowed:
                    out.add(node.id)
            self._escaping = frozenset(out)
        return self._escaping

    def _module_moved(self, recv: ast.expr, ctx: Ctx, depth: int) -> bool:
        """Is the module named ``recv`` known to have been moved to an accelerator: bound to
        ``Net().cuda()`` / ``....to(device)``, or given ``recv.cuda()`` / ``recv.to(device)``
        earlier in the same scope (the same binding)?"""
        if not isinstance(recv, ast.Name):
            return False
        at = pos(recv)
        b = self.binding(recv.id, ctx.scope, at)
        if b is None:
            return False
        v = b.value if b.how == "expr" else None
        while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute):
            if self._moves_to_device(v, ctx, depth):
                return True
            if v.func.attr not in _KEEPS_DEVICE:
                break
            v = v.func.value
        for meth in ("cuda", "to", "xpu", "mps"):
            for s in self.calls_by_tail.get(meth, ()):
                func = s.node.func
                if s.ctx.scope is ctx.scope and s.pos < at and isinstance(func, ast.Attribute) \
                        and isinstance(func.value, ast.Name) and func.value.id == recv.id and \
                        self.binding(recv.id, ctx.scope, s.pos) is b and \
                        self._moves_to_device(s.node, s.ctx, depth):
                    return True
        return False

    def _moves_to_device(self, call: ast.Call, ctx: Ctx, depth: int) -> bool:
        """``m.cuda()`` or ``m.to(x)`` with ``x`` a device that may be an accelerator."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr in ("cuda", "xpu", "mps"):
            return True
        if func.attr != "to":
            return False
        target = call.args[0] if call.args else kwarg(call, "device")
        return target is not None and bool(
            self._device_arg_dev(target, ctx, depth, sure=not call.args))

    def _callee(self, call: ast.Call, ctx: Ctx) -> Scope | None:
        """The function of this file a call runs, when that is certain enough: a
        module-level function called by name (``make_batch(...)``), ``self.helper(...)``, or
        ``obj.method(...)`` on an object the analysis cannot place when exactly one class of
        the file defines ``method`` and no module-level function shares the name."""
        func = call.func
        if isinstance(func, ast.Name):
            b = self.binding(func.id, self.module_scope, 1 << 62)
            if b is None or b.how != "opaque" or \
                    not isinstance(b.stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return None
            return next((f for f in self.functions if f.node is b.stmt), None)
        if not isinstance(func, ast.Attribute) or func.attr.startswith("__"):
            return None
        if isinstance(func.value, ast.Name):
            s = self.self_scope(ctx.scope, func.value.id)
            if s is not None and s.cls is not None:
                return s.cls.methods.get(func.attr)
        if self.fact(func.value, ctx) is not None or func.attr in self.module_scope.binds:
            return None
        found = [c.methods[func.attr] for c in self.class_list if func.attr in c.methods]
        return found[0] if len(found) == 1 else None

    def _unpacked_return(self, call: ast.Call, index: int, ctx: Ctx, depth: int) -> Fact | None:
        """Item ``index`` of the tuple a same-file function returns (``t, w = f(...)``),
        followed one level: every ``return`` must be a tuple whose item there is surely a
        tensor not computed from the function's parameters (the caller's values decide
        those)."""
        callee = self._callee(call, ctx)
        if callee is None or not callee.returns or id(callee) in self._following:
            return None
        self._following.add(id(callee))
        try:
            fs: list[Fact | None] = []
            for r in callee.returns:
                v = r.node.value
                if not isinstance(v, ast.Tuple) or len(v.elts) <= index or \
                        isinstance(v.elts[index], ast.Starred):
                    return None
                fs.append(self.fact(v.elts[index], r.ctx, depth + 1))
        finally:
            self._following.discard(id(callee))
        if any(f is None or f.kind != TENSOR or not f.sure_tensor or f.inp for f in fs):
            return None
        ts = [f for f in fs if f is not None]
        return Fact(TENSOR, dev=any(f.dev for f in ts), grad=any(f.grad for f in ts),
                    made=all(f.made for f in ts), guessed=guessed(ts))

    def _model_output(self, node: ast.Call, ctx: Ctx, depth: int) -> Fact:
        """A model's output: on the model's device, which is the inputs' device when those
        are known (a model on the GPU given CPU tensors would have crashed)."""
        fs = [self.fact(a, ctx, depth + 1) for a in node.args]
        ts = [f for f in fs if f is not None and f.sure_tensor]
        if not ts:  # inputs of unknown origin: the model may be anywhere
            return Fact(TENSOR, dev=True, grad=not self.nograd(ctx), guessed=True)
        return Fact(TENSOR, dev=any(f.dev for f in ts), grad=not self.nograd(ctx),
                    guessed=guessed(ts))

    def _moved(self, recv: Fact, meth: str, node: ast.Call, ctx: Ctx, depth: int) -> Fact:
        if meth in ("cuda", "xpu", "mps"):
            return recv.but(kind=TENSOR, dev=True, moved=True, whole=False,
                            guessed=False)
        if meth == "cpu":
            return recv.but(kind=TENSOR, dev=False, moved=True, whole=False)
        target = node.args[0] if node.args else kwarg(node, "device") or kwarg(node, "other")
        if meth == "type_as" or target is None:
            dev = recv.dev if target is None else (
                self._device_arg_dev(target, ctx, depth, sure=False) or recv.dev)
            return recv.but(kind=TENSOR, dev=dev, moved=target is not None, whole=False)
        # ``.to(x)`` casts or moves; ``.to(x, dtype=...)`` / ``.to(x, non_blocking=True)``
        # / ``.to(device=x)`` only move
        sure = not node.args or any(k.arg in ("dtype", "non_blocking") for k in node.keywords)
        d = self._device_arg_dev(target, ctx, depth, sure=sure)
        if d is None:  # a dtype, or unknown: same device as before
            if not sure and not self._is_dtype(target, ctx, depth):
                return recv.but(kind=TENSOR, whole=False)  # may have moved
            return recv.but(kind=TENSOR, whole=False)
        return recv.but(kind=TENSOR, dev=d, moved=True, whole=False, guessed=False)

    def _qual_call_fact(self, q: str, node: ast.Call, ctx: Ctx, depth: int) -> Fact | None:
        if q.startswith("torch."):
            rest = q[6:]
            if rest in FACTORIES:
                dv = kwarg(node, "device")
                if dv is None:
                    if rest in DEVICE_FACTORIES:
                        return Fact(TENSOR, made=True, grad=_requires_grad(node))
                    # ``*_like``: where its input is
                    src = self.fact(node.args[0], ctx, depth + 1) if node.args else None
                    dev = src is not None and src.tensorlike and src.dev
                    return Fact(TENSOR, made=True, dev=dev, grad=_requires_grad(node))
                d = self._device_arg_dev(dv, ctx, depth)
                return Fact(TENSOR, made=True, dev=bool(d), grad=_requires_grad(node))
            if rest in MAKERS:
                dv = kwarg(node, "device")
                if dv is None and rest in ("tensor", "as_tensor") and node.args and \
                        isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp)):
                    # ``torch.tensor([...])``: built on the CPU from Python data
                    return Fact(TENSOR, made=True)
                d = bool(self._device_arg_dev(dv, ctx, depth)) if dv is not None else False
                return Fact(TENSOR, made=True, dev=d)
            if rest in LEGACY_CONSTRUCTORS:
                return Fact(TENSOR, made=True)
            if rest.startswith("cuda.") and rest[5:] in LEGACY_CONSTRUCTORS:
                return Fact(TENSOR, made=True, dev=True)
            if rest == "load":
                return Fact(LOAD)
            if rest == "device":
                a = node.args[0] if node.args else kwarg(node, "type")
                if isinstance(a, ast.Constant) and a.value == "cpu":
                    return Fact(DEVICE, dev=False)
                return Fact(DEVICE, dev=True)
            if rest.endswith("is_available") or rest.endswith("device_count"):
                return Fact(AVAIL)
            if rest in ("nn.Parameter", "nn.parameter.Parameter", "nn.Buffer"):
                return Fact(PARAMETER)
            if rest.startswith("utils.data") and rest.endswith("DataLoader"):
                return Fact(LOADER)
            if self.is_module_ctor(node):
                return _MODULE
            if rest.startswith(("nn.functional.", "fft.", "linalg.", "special.")) or (
                    "." not in rest and rest[:1].islower() and rest not in NON_TENSOR_TORCH):
                fs = [self.fact(a, ctx, depth + 1) for a in node.args]
                for a in node.args:
                    if isinstance(a, (ast.List, ast.Tuple)):
                        fs.extend(self.fact(x, ctx, depth + 1) for x in a.elts)
                ts = [f for f in fs if f is not None and f.tensorlike]
                if not ts:  # a torch function returns a tensor: where it lives is unknown
                    return Fact(TENSOR)
                # the result is a tensor for sure, even if the inputs were only guessed to be
                return Fact(TENSOR, dev=any(f.dev for f in ts),
                            grad=any(f.grad for f in ts) and not self.nograd(ctx)
                            and not rest.startswith(("argmax", "argmin", "nn.functional.one_hot")),
                            inp=any(f.inp for f in ts), made=all(f.made for f in ts), guessed=guessed(ts))
            return None
        if q.startswith("numpy."):
            return Fact(ARRAY)
        if self.is_module_ctor(node):
            return _MODULE
        return None
