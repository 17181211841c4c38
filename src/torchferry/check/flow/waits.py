"""Which functions of the run wait for the device on every path before they return.

A call *waits* (:func:`call_waits`, the one reading of the question, which FRY006 asks at
a clock read) when it blocks until the queued accelerator work is done
(:func:`direct_wait`): ``torch.cuda.synchronize()`` (any ``.synchronize()``), ``.item()``,
``.cpu()``, ``.tolist()``, ``.numpy()``, an event's or a collective's ``.wait()`` /
``.elapsed_time()`` / ``.query()``, ``float(t)`` / ``int(t)`` / ``bool(t)`` of a tensor,
``print`` of a tensor that may be on the device, ``torch.save(model.state_dict(), ...)``
(the parameters are copied to the host); when it is a call of a function of the run that
waits itself; or, for the call asked about (not one met inside a function followed from
it), when its name says it synchronizes (``sync_all()``, ``xm.sync()``, not ``run_async()``:
its body may wait through calls that cannot be followed).
A function *waits* when each way through its body, before it returns normally, makes such a
call or tests a tensor (the test of an ``if`` or ``while``).  Calls are followed over
the call graph of every file of the run: a function of this file or one it imports
(``from .eval import evaluate``, ``utils.evaluate(...)``), a method of the class
(``self.decode(...)``), of the class of an attribute (``self.model.predict(...)``, where
the class's methods store an instance built by a class of the run, directly or through a
``staticmethod``/``classmethod`` that returns one) or of a value whose class is known
(``predictor = Predictor(...)``, then ``predictor.predict_batch(...)``).

A wait inside a branch (``if verbose: print(loss.item())``), the body of a ``while`` (it
may run zero times; the body of a ``for`` is taken to run, unless a ``break`` or
``continue`` may skip the wait), a conditional expression, a short-circuit operand, a
comprehension or a lambda does not count; a path that returns (or falls off the end) before any wait makes the function
not wait, except a leading guard that returns a constant or a parameter as it is (``if x is
None: return None``: degenerate input, no work queued).  A path that raises is not a
return.  A recursive call does not wait.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("def f(x):\\n    return x.cpu()\\n"
...        "def g(x, v):\\n    if v:\\n        x.item()\\n    return x\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> [waits(ff, ff.defs[n], None) for n in ("f", "g")]
[True, False]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from torchferry.check.flow.lattice import Kind, Op, Value
from torchferry.check.flow.program import ClassInfo, FileFlow
from torchferry.check.flow.queries import is_module, is_tensor, on_device_tensor, value_of

#: methods that copy a value to the host or block until the device (an event, a
#: collective's work handle) is done
WAIT_METHODS = frozenset({"synchronize", "item", "cpu", "tolist", "numpy", "wait", "elapsed_time",
                          "query"})
#: builtins that read a tensor's value on the host
_HOST_READS = frozenset({"float", "int", "bool", "complex"})
#: a function named like this is taken to wait for the device (not ``*async*``)
_SYNC_NAME = re.compile(r"(?<!a)sync", re.I)
#: a name or string of a test that asks which device runs
_DEVICE_WORD = re.compile(r"cuda|mps|xpu|gpu|device|accelerator|is_available|^cpu$", re.I)
#: methods of a module that return the object itself
_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "xpu", "float", "half", "double", "bfloat16",
                           "train", "eval", "requires_grad_", "share_memory"})
#: how deep calls are followed from the function asked about
MAX_DEPTH = 6

Fn = ast.FunctionDef | ast.AsyncFunctionDef


def waits(ff: FileFlow, fn: Fn, cls: ClassInfo | None, depth: int = 0) -> bool:
    """Does ``fn`` (defined in ``ff``; a method of ``cls``, if given) wait for the device on
    every path before it returns?"""
    memo = ff.waits_memo
    key = id(fn)
    hit = memo.get(key)
    if hit is not None:
        return hit
    if depth > MAX_DEPTH:
        return False
    memo[key] = False  # a recursive call does not wait through itself
    w = _Walk(ff, cls, depth)
    done, escaped = w.seq(_past_guards(fn))
    memo[key] = done and not escaped
    return memo[key]


def _past_guards(fn: Fn) -> list[ast.stmt]:
    """The body of ``fn`` past its docstring and its leading guards: an ``if`` with no
    ``else`` that only returns a constant or a parameter (``if x is None: return None``,
    ``if start >= end: return start``).  A guard is the path of degenerate input, which
    queues no work: ``to_numpy`` waits when given a tensor."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    body = fn.body
    i = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    while i < len(body):
        st = body[i]
        if not (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1
                and isinstance(st.body[0], ast.Return) and _plain_test(st.test)):
            break
        value = st.body[0].value
        if not (value is None or isinstance(value, ast.Constant)
                or isinstance(value, ast.Name) and value.id in params):
            break
        i += 1
    return body[i:]


def _plain_test(test: ast.expr) -> bool:
    """A test that calls nothing but ``isinstance``/``len``/``hasattr``/``callable``."""
    return all(isinstance(c.func, ast.Name) and c.func.id in ("isinstance", "len", "hasattr", "callable")
               for c in ast.walk(test) if isinstance(c, ast.Call))


def call_waits(ff: FileFlow, call: ast.Call, cls: ClassInfo | None, depth: int = 0) -> bool:
    """Does ``call`` (in ``ff``, in a method of ``cls`` if given; ``depth`` calls below the
    function first asked about) wait for the device: a direct wait, a function of the run
    that waits on every path, or -- for the call asked about itself, not one inside a
    function followed from it -- a function named as one that synchronizes?"""
    if direct_wait(ff, call):
        return True
    target = call_target(ff, call, cls)
    if target is not None and waits(target[0], target[1], target[2], depth):
        return True
    if depth:
        return False  # inside a function followed from the call asked about: its body is read
    name = call.func.id if isinstance(call.func, ast.Name) else \
        call.func.attr if isinstance(call.func, ast.Attribute) else None
    return name is not None and _SYNC_NAME.search(name) is not None


def direct_wait(ff: FileFlow, call: ast.Call) -> bool:
    """A wait of its own: ``x.item()``, ``torch.cuda.synchronize()``, ``float(loss)``,
    ``print`` of a device tensor, ``torch.save(model.state_dict(), path)``..."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in WAIT_METHODS:
        return True
    if isinstance(func, ast.Name):
        if func.id in _HOST_READS:
            return any(is_tensor(ff, a) for a in call.args)
        if func.id == "print":
            return any(is_tensor(ff, a) and on_device_tensor(ff, a) for a in call.args)
        if func.id == "synchronize":
            return True
    return ff.qualname(func) == "torch.save" and bool(call.args) and _module_state(ff, call.args[0])


def _module_state(ff: FileFlow, e: ast.expr) -> bool:
    """``model.state_dict()`` of a module: saving it copies the parameters to the host,
    after the work that wrote them."""
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute)
            and e.func.attr == "state_dict" and is_module(ff, e.func.value))


class _Walk:
    """The paths through one function's body (see the module docstring)."""

    def __init__(self, ff: FileFlow, cls: ClassInfo | None, depth: int) -> None:
        self.ff, self.cls, self.depth = ff, cls, depth

    def expr(self, node: ast.AST) -> bool:
        return any(call_waits(self.ff, c, self.cls, self.depth + 1) for c in _definite_calls(node))

    def test(self, node: ast.expr) -> bool:
        """Does evaluating a condition wait: a call in it does, or it is a tensor (Python
        calls ``Tensor.__bool__``, which reads the value on the host)?"""
        first = node
        while isinstance(first, (ast.BoolOp, ast.UnaryOp)):
            first = first.values[0] if isinstance(first, ast.BoolOp) else first.operand
        return self.expr(node) or is_tensor(self.ff, first)

    def seq(self, stmts: list[ast.stmt]) -> tuple[bool, bool]:
        """(no path runs off the end of ``stmts`` without waiting, a path returned without
        waiting)"""
        escaped = False
        for st in stmts:
            if isinstance(st, ast.Return):
                return True, escaped or not (st.value is not None and self.expr(st.value))
            if isinstance(st, (ast.Raise, ast.Break, ast.Continue)):
                return True, escaped  # leaves the block: loops never count as waiting
            done, esc = self.stmt(st)
            escaped = escaped or esc
            if done:
                return True, escaped
        return False, escaped

    def stmt(self, st: ast.stmt) -> tuple[bool, bool]:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False, False
        if isinstance(st, ast.If):
            if self.test(st.test):
                return True, False
            (b, eb), (o, eo) = self.seq(st.body), self.seq(st.orelse)
            if (b or o) and _device_test(st.test):
                # ``if dev.type == "cuda": torch.cuda.synchronize()``: the arm that does not
                # wait is taken where no accelerator queues work
                return True, (b and eb) or (o and eo)
            return b and o, eb or eo
        if isinstance(st, (ast.For, ast.AsyncFor)):
            if self.expr(st.iter):
                return True, False
            # the body of a ``for`` is taken to run (a loop over a model's layers, a
            # batch's items), when no ``break``/``continue`` skips its wait
            body, eb = self.seq(st.body)
            return body and not _skips(st.body), eb or self.seq(st.orelse)[1]
        if isinstance(st, ast.While):
            if self.test(st.test):
                return True, False
            return False, self.seq(st.body)[1] or self.seq(st.orelse)[1]
        if isinstance(st, (ast.With, ast.AsyncWith)):
            if any(self.expr(i.context_expr) for i in st.items):
                return True, False
            return self.seq(st.body)
        if isinstance(st, ast.Try) or type(st).__name__ == "TryStar":  # TryStar: 3.11+
            return self._try(st)  # type: ignore[arg-type]
        if isinstance(st, ast.Match):
            if self.expr(st.subject):
                return True, False
            return False, any(self.seq(c.body)[1] for c in st.cases)
        return self.expr(st), False

    def _try(self, st: ast.Try) -> tuple[bool, bool]:
        final, ef = self.seq(st.finalbody)
        body, eb = self.seq([*st.body, *st.orelse])
        handlers = [self.seq(h.body) for h in st.handlers]
        done = body and all(h[0] for h in handlers)
        escaped = eb or any(h[1] for h in handlers)
        if final:
            return True, ef
        return done, escaped or ef


def _skips(body: list[ast.stmt]) -> bool:
    """Does a ``break`` or ``continue`` of this loop body occur (not one of a nested loop)?"""
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            return True
        if not isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                              ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _device_test(test: ast.expr) -> bool:
    """Does an ``if`` test ask which device runs (``torch.cuda.is_available()``,
    ``dev.type == "cuda"``, ``self.use_cuda``, ``device != "cpu"``)?"""
    for n in ast.walk(test):
        word = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else \
            n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None
        if word is not None and (word == "type" or _DEVICE_WORD.search(word)):
            return True
    return False


def _definite_calls(node: ast.AST) -> Iterator[ast.Call]:
    """The calls evaluated whenever ``node`` is: not those of a branch of a conditional
    expression, of a short-circuit operand past the first, of a comprehension or a lambda."""
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return
    if isinstance(node, ast.IfExp):
        yield from _definite_calls(node.test)
        return
    if isinstance(node, ast.BoolOp):
        yield from _definite_calls(node.values[0])
        return
    for child in ast.iter_child_nodes(node):
        yield from _definite_calls(child)
    if isinstance(node, ast.Call):
        yield node


# -- the call graph -------------------------------------------------------------------------
def call_target(ff: FileFlow, call: ast.Call, cls: ClassInfo | None
                ) -> tuple[FileFlow, Fn, ClassInfo | None] | None:
    """The function of the run ``call`` (in ``ff``, in a method of ``cls`` if given) runs:
    a function of this file or one it imports, a method of ``self``'s class, of the class of
    ``self.<attr>`` or of a value whose class is known.  None when not known."""
    func = call.func
    if isinstance(func, ast.Name):
        found = named(ff, func)
        return (found[0], found[1], None) if found and isinstance(found[1], Fn) else None
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    info: ClassInfo | None = None
    if isinstance(owner, ast.Name) and owner.id == "self" and cls is not None:
        info = cls
    elif (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name)
          and owner.value.id == "self" and cls is not None):
        info = value_class(cls.ff, cls.ff.class_attr(cls, owner.attr))
    else:
        found = named(ff, func)
        if found is not None:
            return (found[0], found[1], None) if isinstance(found[1], Fn) else None
        got = value_of(ff, owner)
        info = value_class(ff, got[1]) if got is not None else None
    method = info.method(func.attr) if info is not None else None
    return (method[0].ff, method[1], method[0]) if method is not None else None


def named(ff: FileFlow, node: ast.expr) -> tuple[FileFlow, ast.AST] | None:
    """The function or class a name (or dotted name) of ``ff`` names in the run, also one
    a ``from .layers import *`` of the run brings in."""
    if isinstance(node, ast.Name):
        local = ff.defs.get(node.id)
        if local is not None:
            return ff, local
    q = ff.qualname(node)
    if q:
        return ff.resolve(q)
    return ff.star_definition(node.id) if isinstance(node, ast.Name) else None


def value_class(ff: FileFlow, v: Value) -> ClassInfo | None:
    """The class of the run every construction of ``v`` (a value of ``ff``) builds: a call
    of the class, or of a ``staticmethod``/``classmethod`` of it that returns an instance
    (``DocReader.load(path)`` ending in ``return DocReader(...)``).  None when not known or
    when they disagree."""
    if v.kinds is not None and not (v.is_(Kind.OTHER) or v.is_(Kind.MODULE)):
        return None
    found: ClassInfo | None = None
    for o in v.origins:
        if o.op not in (Op.MADE, Op.RETURNED) or not isinstance(o.node, ast.Call):
            continue
        where = ff if o.path is None else (ff.project.file_flow(o.path) if ff.project else None)
        info = _built_by(where, o.node) if where is not None else None
        if info is None or found is not None and info is not found:
            return None
        found = info
    return found


def _built_by(ff: FileFlow, call: ast.Call) -> ClassInfo | None:
    """The class of the run whose instance ``call`` returns (see :func:`value_class`)."""
    while (isinstance(call.func, ast.Attribute) and call.func.attr in _RETURNS_SELF
           and isinstance(call.func.value, ast.Call)):
        call = call.func.value  # ``MACELoss(fn).to(device)``: the object itself
    found = named(ff, call.func)
    if found is not None and isinstance(found[1], ast.ClassDef):
        return found[0].class_info(found[1])
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    owner = named(ff, func.value)
    if owner is None or not isinstance(owner[1], ast.ClassDef):
        return None
    cls = owner[0].class_info(owner[1])
    method = cls.method(func.attr)
    if method is None or not _static_or_class(method[1]):
        return None
    returns = [n.value for n in ast.walk(method[1]) if isinstance(n, ast.Return)]
    made: ClassInfo | None = None
    for r in returns:
        if not isinstance(r, ast.Call):
            return None
        if isinstance(r.func, ast.Name) and r.func.id == _cls_param(method[1]):
            info: ClassInfo | None = cls  # ``return cls(...)``
        else:
            got = named(method[0].ff, r.func)
            info = got[0].class_info(got[1]) if got and isinstance(got[1], ast.ClassDef) else None
        if info is None or made is not None and info is not made:
            return None
        made = info
    return made


def _static_or_class(fn: Fn) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
               for d in fn.decorator_list)


def _cls_param(fn: Fn) -> str | None:
    """The name of a ``classmethod``'s first parameter (None for any other function)."""
    if fn.args.args and any(isinstance(d, ast.Name) and d.id == "classmethod"
                            for d in fn.decorator_list):
        return fn.args.args[0].arg
    return None
