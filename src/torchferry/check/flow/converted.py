"""Which parameters a function of the run converts before it uses them.

``forward(self, x, lengths)`` that begins with ``lengths = lengths.cpu().int()``, hands
``lengths.tolist()`` on, or a helper that does ``mask = mask.to(x.device)`` uses the
argument as it came in nowhere: the caller's tensor never meets another tensor on the
device it was given on, so leaving it where it is cannot fail there.  Nor does an argument
that every read iterates as text (``for s in sents: tokenize(s.strip())``): no tensor.
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
#: methods of ``str`` that a tensor has not: an element used with one is no tensor
_TEXT_METHODS = frozenset("""capitalize casefold center encode endswith expandtabs find
    format format_map isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric
    isprintable isspace istitle isupper ljust lower lstrip partition removeprefix removesuffix
    rfind rindex rjust rpartition rsplit rstrip splitlines startswith strip swapcase title
    translate upper zfill""".split())
#: the attributes of a tensor that are no methods (``x.shape``, ``x.device``, ``x.T``)
_TENSOR_PROPERTIES = frozenset("""H T _backward_hooks _base _cdata _grad _grad_fn
    _has_symbolic_sizes_strides _post_accumulate_grad_hooks _python_dispatch _version data
    device dtype grad grad_dtype grad_fn imag is_cpu is_cuda is_ipu is_leaf is_maia is_meta
    is_mkldnn is_mps is_mtia is_nested is_quantized is_sparse is_sparse_csr is_vulkan is_xla
    is_xpu itemsize layout mH mT name names nbytes ndim output_nr real requires_grad
    retains_grad shape volatile""".split())
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MAX_DEPTH = 3


def read_as_an_object(fn: ast.AST, name: str) -> ast.Attribute | None:
    r"""A read of an attribute of ``name`` in ``fn`` that no tensor has, not called
    (``data.y``, ``graph.edge_index`` of a graph library's batch object): ``name``, never
    rebound in ``fn``, is no tensor there.  A method read without a call (``f = x.sum``) is
    not one: only an attribute read whose name is neither a property of a tensor nor any
    method counts, and every method name of a tensor is a method's, so such a read is
    looked for among the names that are not called anywhere in ``fn``.

    >>> fn = ast.parse("def step(model, data):\n    data.to('cuda')\n    y = data.y").body[0]
    >>> ast.unparse(read_as_an_object(fn, "data"))
    'data.y'
    >>> read_as_an_object(ast.parse("def f(x):\n    n = x.shape\n    x.cuda()").body[0], "x") is None
    True
    """
    called: set[str] = set()
    reads: list[ast.Attribute] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return None  # (rebound: what it holds where is not followed here)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            called.add(n.func.attr)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name \
                and isinstance(n.ctx, ast.Load):
            reads.append(n)
    return next((a for a in reads if a.attr not in _TENSOR_PROPERTIES and a.attr not in called
                 and a.attr not in vocab.TENSOR_METHODS), None)


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
    parents: dict[int, ast.AST] | None = None  # (made when a read is asked about)
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
        if first and parents is None:
            parents = {id(c): n for n in nodes for c in ast.iter_child_nodes(n)}
        if first and parents is not None and all(_converts(ff, n, parents, cls, self_name, depth) for n in first):
            out.add(k)
    return frozenset(out)


def _before_rebinding(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                      uses: list[ast.Name]) -> list[ast.Name]:
    r"""The reads of ``name`` up to the first statement of the body that rebinds it
    (``lengths = lengths.cpu().int()``: later reads see the converted value).  A statement
    that rebuilds it of its own elements alone (``sents = sum(zip(sents, sents), ())``,
    ``sents = list(sents)``) is no rebinding: what it reads is the argument's elements,
    which the later reads see again.

    >>> fn = ast.parse("def f(s, t):\n    s = sum(zip(s, s), ())\n    g(s)\n    s = 1\n    h(s)").body[0]
    >>> [n.lineno for n in _before_rebinding(fn, "s", [n for n in ast.walk(fn) if getattr(n, "id", "") == "s"
    ...  and isinstance(n.ctx, ast.Load)])]
    [3]
    """
    rebuilt: set[int] = set()
    for st in fn.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
                continue
            if len(targets) == 1 and st.value is not None and _same_elements(st.value, name):
                rebuilt |= {id(n) for n in ast.walk(st.value)}
                continue
            inside = {id(n) for n in ast.walk(st)}
            end = (st.end_lineno or st.lineno, st.end_col_offset or 0)
            return [u for u in uses if id(u) not in rebuilt and
                    (id(u) in inside or (u.lineno, u.col_offset) < end)]
    return [u for u in uses if id(u) not in rebuilt]


def _same_elements(e: ast.expr, name: str) -> bool:
    """Is ``e`` a sequence of the elements of ``name`` alone, rebuilt by builtins:
    ``list(name)``, ``tuple(name)``, ``sorted(name)``, ``reversed(name)``, or the pairs of
    ``zip(name, name)`` flattened by ``sum(..., ())``?"""
    if isinstance(e, ast.Name):
        return e.id == name
    if not isinstance(e, ast.Call) or not isinstance(e.func, ast.Name) or e.keywords:
        return False
    f, args = e.func.id, e.args
    if f in ("list", "tuple", "sorted", "reversed"):
        return len(args) == 1 and _same_elements(args[0], name)
    if f == "sum" and len(args) == 2 and isinstance(args[1], (ast.Tuple, ast.List)) and not args[1].elts:
        z = args[0]
        return isinstance(z, ast.Call) and isinstance(z.func, ast.Name) and z.func.id == "zip" \
            and bool(z.args) and not z.keywords and all(_same_elements(a, name) for a in z.args)
    return False


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
    """Is this read of a parameter converted where it is read (or iterated as text)?"""
    up = parents.get(id(n))
    if _iterated_as_text(ff, n, parents):
        return True
    viewed = _viewed(n, parents)
    if viewed is not n:  # (``dx[:, None].to(u.device)``: a view of it, then moved)
        up = parents.get(id(viewed))
        call = parents.get(id(up)) if isinstance(up, ast.Attribute) and up.value is viewed else None
        return isinstance(call, ast.Call) and call.func is up and isinstance(up, ast.Attribute) and (
            up.attr in _CONVERTING or up.attr == "to" and _to_a_device(call))
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
    target = ff.target_of(up, cls, self_name) or _submodule_forward(up, cls, self_name)
    if target is None:
        return False
    owner, callee, first = target
    inner = owner.method_of.get(id(callee))
    return up.args.index(n) + first in converted_params(owner, callee, inner, depth + 1)


def _viewed(n: ast.expr, parents: dict[int, ast.AST]) -> ast.expr:
    """The largest expression around ``n`` made of it by indexing with constants and
    slices of constants (``dx[:, None, None]``) and methods that reshape or retype it where
    it is (``.repeat(1, k, 1)``, ``.float()``): ``n`` itself when there is none.  Such a view
    lives where ``n`` does and meets nothing on the way."""
    cur = n
    while True:
        up = parents.get(id(cur))
        if isinstance(up, ast.Subscript) and up.value is cur and isinstance(up.ctx, ast.Load) \
                and _constant_key(up.slice):
            cur = up
            continue
        call = parents.get(id(up)) if isinstance(up, ast.Attribute) and up.value is cur \
            and up.attr in _VIEWS else None
        if isinstance(call, ast.Call) and call.func is up and not call.keywords \
                and all(_plain_size(a) for a in call.args):
            cur = call
            continue
        return cur


#: tensor methods that reshape or retype a tensor where it is, given sizes or dimensions
_VIEWS = frozenset("""view reshape unsqueeze squeeze repeat expand permute transpose flatten
    contiguous float double half long int bool clone detach t""".split())


def _constant_key(key: ast.expr) -> bool:
    """A subscript of constants, ``None``, ``...`` and slices of constants only."""
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    for p in parts:
        if isinstance(p, ast.Slice):
            if not all(b is None or isinstance(b, ast.Constant) or
                       isinstance(b, ast.UnaryOp) and isinstance(b.operand, ast.Constant)
                       for b in (p.lower, p.upper, p.step)):
                return False
        elif not (isinstance(p, ast.Constant) or isinstance(p, ast.UnaryOp) and isinstance(p.operand, ast.Constant)):
            return False
    return True


def _plain_size(a: ast.expr) -> bool:
    """A size or a dimension as a view method takes it: a constant, a name or an attribute
    read (``self.pde.nx``), a ``-1``; not a call, a subscript or a starred list."""
    return isinstance(a, (ast.Constant, ast.Name, ast.Attribute)) or \
        isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant)


def _submodule_forward(call: ast.Call, cls: ClassInfo | None, self_name: str | None
                       ) -> tuple[FileFlow, ast.AST, int] | None:
    """The ``forward`` that ``self.encoder(x)``, a call in a method of ``cls``, runs: every
    binding of ``<name>.encoder`` in ``cls`` and its bases of the run is a constructor of
    one module class of the run (``self.encoder = Encoder(...)``), whose ``forward``
    (1: ``self`` is bound) it is.  None when any binding is anything else."""
    func = call.func
    if cls is None or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) \
            or func.value.id != self_name:
        return None
    built: dict[int, ClassInfo] = {}
    for c in cls.lineage():
        for t, value in attribute_bindings(c).get(func.attr, ()):
            info = c.ff.class_called(value) if isinstance(value, ast.Call) else None
            if info is None or not isinstance(t.value, ast.Name):
                return None
            built[id(info)] = info
    if len(built) != 1:
        return None
    fwd = next(iter(built.values())).method("forward")
    return (fwd[0].ff, fwd[1], 1) if fwd is not None else None


def attribute_bindings(c: ClassInfo) -> dict[str, list[tuple[ast.Attribute, ast.expr | None]]]:
    """Every binding of an attribute (``<name>.encoder = ...``, ``for o.x in ...``) in the
    text of ``c``'s class, its nested functions and classes included, by the attribute's
    name: (the target, the value when it is the statement's whole value, see
    :func:`_bindings`), in the order of :func:`ast.walk`; found by one walk, the first time
    the class is asked.

    >>> from torchferry.check.flow.program import FileFlow
    >>> ff = FileFlow(ast.parse("class A:\\n    def f(self):\\n        self.e = E()\\n        a.e, b = 1, 2\\n"), "<example>")
    >>> {k: [(ast.unparse(t), v and ast.unparse(v)) for t, v in b] for k, b in attribute_bindings(ff.classes[id(ff.tree.body[0])]).items()}
    {'e': [('self.e', 'E()'), ('a.e', None)]}
    """
    if c.attr_bindings is None:
        found: dict[str, list[tuple[ast.Attribute, ast.expr | None]]] = {}
        for st in ast.walk(c.node):
            for t, value in _bindings(st):
                if isinstance(t, ast.Attribute):
                    found.setdefault(t.attr, []).append((t, value))
        c.attr_bindings = found
    return c.attr_bindings


def _bindings(st: ast.AST) -> list[tuple[ast.AST, ast.expr | None]]:
    """The targets a statement binds, each with the value bound to it when it is the
    statement's whole value (None in a tuple, for ``+=``, a ``for`` or a ``with``)."""
    if isinstance(st, ast.Assign):
        whole = st.value if len(st.targets) == 1 and not isinstance(st.targets[0], (ast.Tuple, ast.List)) \
            else None
        return [(x, whole if x is t else None) for t in st.targets for x in ast.walk(t)]
    if isinstance(st, (ast.AnnAssign, ast.AugAssign)):
        return [(st.target, st.value if isinstance(st, ast.AnnAssign) else None)]
    if isinstance(st, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(x, None) for x in ast.walk(st.target)]
    if isinstance(st, (ast.With, ast.AsyncWith)):
        return [(x, None) for i in st.items if i.optional_vars is not None for x in ast.walk(i.optional_vars)]
    if isinstance(st, ast.NamedExpr):
        return [(st.target, None)]
    return []


def _iterated_as_text(ff: FileFlow, n: ast.Name, parents: dict[int, ast.AST]) -> bool:
    r"""Is this read the iterable of a loop (``for s in p``, ``for i, s in enumerate(p)``,
    a comprehension's) whose element is used as text (``s.strip()``: a method a tensor has
    not)?  Iterating a tensor yields tensors, so ``p`` is no tensor (a list of strings),
    and nothing of it meets a tensor on a device.

    >>> fn = ast.parse("def f(sents):\n    for i, s in enumerate(sents):\n        s.strip()").body[0]
    >>> read = fn.body[0].iter.args[0]
    >>> parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    >>> _iterated_as_text(None, read, parents)  # type: ignore[arg-type]
    True
    """
    it: ast.AST = n
    up = parents.get(id(n))
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "enumerate" \
            and up.args and up.args[0] is n and len(up.args) == 1 and not up.keywords \
            and (ff is None or "enumerate" not in ff.defs):
        it, up = up, parents.get(id(up))
    if not isinstance(up, (ast.For, ast.AsyncFor, ast.comprehension)) or up.iter is not it:
        return False
    target = up.target
    if it is not n:  # ``enumerate``: the element is the second of ``(i, s)``
        if not isinstance(target, ast.Tuple) or len(target.elts) != 2:
            return False
        target = target.elts[1]
    if not isinstance(target, ast.Name):
        return False
    scope = up.body if isinstance(up, (ast.For, ast.AsyncFor)) else [parents.get(id(up))]
    return any(isinstance(a, ast.Attribute) and a.attr in _TEXT_METHODS
               and isinstance(a.value, ast.Name) and a.value.id == target.id
               and isinstance(parents.get(id(a)), ast.Call)
               for st in scope if st is not None for a in ast.walk(st))


def _to_a_device(call: ast.Call) -> bool:
    """``p.to(x.device)``, ``p.to("cpu")``, ``p.to(device=...)``: a move, not a cast alone."""
    if any(k.arg == "device" for k in call.keywords):
        return True
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Attribute) and first.attr == "device" or \
        isinstance(first, ast.Constant) and isinstance(first.value, str)


def bound_arguments(call: ast.Call, params: tuple[str, ...]) -> dict[int, ast.expr]:
    """The arguments of ``call``, a call ``obj.method(...)`` of a method whose parameters
    are ``params`` (``self`` first), by the index of the parameter each is bound to
    (a ``*args`` or ``**kwargs`` stops the binding where it is)."""
    out: dict[int, ast.expr] = {}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        out[i + 1] = a
    for k in call.keywords:
        if k.arg is not None and k.arg in params[1:]:
            out[params.index(k.arg)] = k.value
    return out
