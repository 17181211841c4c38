"""Tensor created on the CPU, then moved.

## What it does
Flags a tensor factory -- `torch.randn`, `rand`, `randint`, `randperm`, `zeros`, `ones`,
`empty`, `full`, `arange`, `eye`, `linspace`, `logspace` -- with `.to(device)`, `.cuda()` or
`.type_as(t)` chained onto it, directly or through the legacy `Variable(...)` wrapper
(which returns the tensor itself, detached, on its device: `Variable(torch.zeros(b,
n)).to(x.device)`): `torch.randn(64, 100).to(device)`,
`torch.zeros(m, n).type_as(t)` (`type_as` copies to `t`'s device and casts to its dtype),
and `torch.eye(n).to(t)` where the code itself establishes that `t` is a tensor
(`Tensor.to(other)` also copies to `other`'s device and casts to its dtype): made,
computed or returned as one, a parameter its function uses as one (`t.norm()`,
`t.size(0)`), one that every call of the run gives such a tensor, or, in a subclass of
`torch.optim.Optimizer`, a parameter of `self.param_groups` or its gradient
(`torch.zeros(grad.shape[:-1]).to(grad)` of `grad = p.grad`); an annotation alone
does not establish it.

## Why is this bad
The tensor is built in host memory, then copied to the device: two allocations, a transfer
and a wait, where the factory could have written it on the device directly. The lessons
show both forms (`x = torch.ones(3); x = x.to(device)` and
`y = torch.ones(3, device=device)  # or create it there directly`); in code that runs
often, create it there.

## Example
```python
noise = torch.randn(64, 100).to(device)
steps = torch.arange(10).to(device, torch.float32)
```

## Use instead
```python
noise = torch.randn(64, 100, device=device)
steps = torch.arange(10, device=device).to(torch.float32)
```

## Fix safety
Safe for `zeros`, `ones`, `empty`, `full` and `eye` where the target of the move is a
device by construction (a string such as `"cuda"`, `torch.device(...)`, `.cuda()`, the
`.device` of a tensor made in the same scope, or a name bound to one of these in that
scope): the fix passes the device to the factory and drops the move; the values are the
same on every device. Where the target is a device only by its name (a parameter
`device`, `self.device`, a global), the fix is unsafe: such a value may be a tensor, whose
`.to(t)` also casts to `t`'s dtype, and `device=t` raises. A dtype given to
`.to` is never folded into the factory (a float32 `linspace` cast to bfloat16 differs from
a bfloat16 `linspace` by up to 4.0 at 1000): it stays as `.to(dtype)`. Unsafe for the
random factories (`rand`, `randn`, `randint`, `randperm` draw from the device's own
generator, so a seeded run gets other numbers) and for `arange`, `linspace` and `logspace`
(another kernel computes the floating-point steps). The fix is not offered when `.to` has
other arguments (`non_blocking`, `copy`, `memory_format`), when the factory already has
`device=`, or when a comment sits inside the chain. Nor when the factory has `out=` or
`pin_memory=` (other than `False`): on the GPU the fixed call fails where the original ran
("Expected out tensor to have device ...", "Only dense CPU tensors can be pinned"). With `requires_grad=` on the factory the
fix is unsafe: the moved copy is a non-leaf whose `.grad` stays None, the tensor made on the
device is the leaf that receives the gradient; so with `requires_grad=` on a `Variable(...)`
wrapper (`Variable(torch.zeros(n), requires_grad=True).cuda()`), whose fix keeps the
wrapper and passes the device to the factory inside it. The fix of `.type_as(t)` and of `.to(t)` (for a plain
name or attribute `t`, and no `requires_grad=`) is always unsafe:
`torch.zeros(m, n, device=t.device, dtype=t.dtype)` for zeros, ones, empty and eye (the same
values in every dtype), `torch.arange(n, device=t.device).to(t.dtype)` for the others. Eager
code computes the same, but code traced with `torch.jit.trace` or exported to ONNX records
`device=t.device` as a constant, where `type_as` and `.to(t)` follow `t` at run time.

Quiet for `.type_as(t)` where the analysis places `t` on the CPU on every path, made without a device
(`ends = torch.cumsum(torch.tensor(dims), 0)`; `torch.zeros(1).type_as(ends)`): both are
on the default device, nothing is copied. Quiet for `.type_as(self.x)` while the module is being built -- in `__init__`, or in a
method of the class that this file calls only from `__init__` -- when `__init__` made
`self.x` just before with a factory that takes no `device=` (`self.register_buffer("x",
torch.empty(n))`): both tensors are on the default device, so nothing is copied.

Quiet for a `.to` whose device is the CPU on every path the analysis sees: `"cpu"`, a
name bound only to `torch.device("cpu")`, `mask.device` of `mask = torch.from_numpy(a)`,
a device parameter that every call of the run points at the CPU, or one of a test that
pytest runs with its default `device="cpu"`: the tensor is already there, and `.to`
returns it without a copy.

## Known limits
Factories given a `generator=` are not flagged (the generator fixes the device the
numbers are drawn on). Only a `.to` whose argument is clearly a device (a device variable, `torch.device`, a
string, `x.device`) or a tensor by the code's own facts is flagged; `.to(t)` of a `t` known
as a tensor only by its annotation, and dtype-only `.to`, are not. `torch.tensor(data)` is
not one of the factories: given `device=`, it still converts the data into a tensor on the
CPU and copies it to the device (torch's own note on `torch.tensor`), the same work as
`torch.tensor(data).to(device)`.
The `Variable(...)` wrapper is seen through only where it is torch's
(`torch.autograd.Variable`) and given the factory alone, with `requires_grad=` or
`volatile=` at most.
`type_as` is sometimes chosen on purpose in export code (for the tracing reason above):
silence those lines with `# noqa: FRY009`.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterable
from dataclasses import dataclass

from torchferry.check.api import Context, Edit, Finding, Fix
from torchferry.check.flow.queries import cpu_device, cpu_tensor, established_tensor, is_device
from torchferry.check.flow.safety import device_by_construction
from torchferry.check.flow.vocab import DTYPES
from torchferry.check.names import DEVICE_FACTORIES, DEVICE_NAME, end_pos, kwarg, pos, short
from torchferry.check.scopes import ScopeKind, Site, Walker

CODE = "FRY009"
NAME = "create-then-move"
FIX = "safe"


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    for meth in ("to", "cuda"):
        for site in m.calls_by_tail.get(meth, ()):
            call = site.node
            made = _factory_receiver(m, call)
            if made is None:
                continue
            name = made.name
            dev_text, dtype_text, clean = _split_to(ctx, m, call, site)
            if dev_text is None:
                continue
            fix = _fix(ctx, made, call, dev_text, dtype_text) if clean else None
            if fix is not None and fix.safe and not _device_made_here(ctx, call):
                fix = Fix(fix.edits, False, fix.message)
            yield ctx.finding(
                CODE, call,
                f"`torch.{name}(...)` builds the tensor on the CPU and `.{meth}(...)` copies it; "
                f"create it on the device: `torch.{name}(..., device={dev_text})`",
                fix,
            )
    yield from _type_as(ctx, m)


@dataclass(frozen=True)
class _Made:
    """The tensor a method is called on: made by ``factory``, ``torch.<name>(...)``, and
    handed on as it is or through the legacy ``Variable(...)`` wrapper (``receiver``)."""

    factory: ast.Call
    name: str
    #: the method's receiver: the factory call itself, or ``Variable(<factory>)``
    receiver: ast.Call

    @property
    def grad(self) -> bool:
        """Is ``requires_grad=`` given, to the factory or to the wrapper?"""
        return any(kwarg(c, "requires_grad") is not None for c in (self.factory, self.receiver))


#: the legacy autograd wrapper: ``Variable(t, requires_grad=False)`` returns ``t.detach()``
#: with ``requires_grad`` set, on ``t``'s device (``THPVariable_pynew`` of
#: torch/csrc/autograd/python_legacy_variable.cpp, pytorch/pytorch at 00895504; torch
#: 2.13.0's torch/autograd/variable.py makes ``Variable`` that C type's subclass)
_VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
#: what ``Variable(...)`` takes besides the tensor that the fix may keep as it is
_VARIABLE_KEYWORDS = frozenset({"requires_grad", "volatile"})


def _factory_receiver(m: Walker, call: ast.Call) -> _Made | None:
    """The factory when ``call`` is a method called on ``torch.<factory>(...)`` made
    without ``device=`` or ``generator=`` (a generator lives on one device: creating the
    tensor elsewhere would fail), directly or through ``Variable(<factory>)``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return None
    recv = fac = func.value
    if m.qualname(recv.func) in _VARIABLE:
        if len(recv.args) != 1 or not isinstance(recv.args[0], ast.Call) \
                or any(k.arg not in _VARIABLE_KEYWORDS for k in recv.keywords):
            return None
        fac = recv.args[0]
    q = m.qualname(fac.func) or ""
    if not q.startswith("torch.") or q[6:] not in DEVICE_FACTORIES:
        return None
    if kwarg(fac, "device") is not None or kwarg(fac, "generator") is not None:
        return None
    return _Made(fac, q[6:], recv)


def _type_as(ctx: Context, m: Walker) -> Iterable[Finding]:
    """``torch.zeros(m, n).type_as(t)``: built on the CPU, then copied to ``t``'s device
    and cast to its dtype (``type_as`` is ``.to(t.options())``: device and dtype); also
    ``torch.zeros(m, n).to(t)`` of a tensor ``t`` (``Tensor.to(other)``: ``other``'s device
    and dtype), where the code itself establishes that ``t`` is a tensor."""
    for meth in ("type_as", "to"):
        for site in m.calls_by_tail.get(meth, ()):
            call = site.node
            found = _factory_receiver(m, call) if len(call.args) == 1 and not call.keywords else None
            if found is None:
                continue
            other = call.args[0]
            if meth == "to" and (_kind(ctx, m, other) is not None or not _tensor_given(ctx, other)):
                continue  # (a device or a dtype: :func:`check`; or not surely a tensor)
            finding = _to_a_tensor(ctx, m, site, found, meth)
            if finding is not None:
                yield finding


def _tensor_given(ctx: Context, other: ast.expr) -> bool:
    """Is ``other`` (of ``.to(other)``) a tensor by the code's own facts?"""
    for _ in ctx.flow.results():  # every scope interpreted: the calls of the run known
        pass
    return established_tensor(ctx.flow, other)


def _to_a_tensor(ctx: Context, m: Walker, site: Site[ast.Call], found: _Made,
                 meth: str) -> Finding | None:
    """The finding of ``torch.<name>(...).<meth>(t)`` (``type_as`` or ``to``) that copies a
    factory's tensor to the tensor ``t``'s device and dtype; None where nothing is copied."""
    call = site.node
    fac, name = found.factory, found.name
    other = call.args[0]
    if _made_alike_in_init(m, site, other):
        return None
    if isinstance(other, ast.Name) and cpu_tensor(ctx.flow, other):
        return None  # ``t`` is on the CPU (made here without a device): no copy
    pure = isinstance(other, (ast.Name, ast.Attribute)) and all(
        isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for n in ast.walk(other))
    t = ctx.text(other)
    fix = None
    if pure and not found.grad:
        if name in _EXACT_IN_ANY_DTYPE and kwarg(fac, "dtype") is None:
            fix = _fold_both(ctx, found, call, t)
        else:
            fix = _fix(ctx, found, call, f"{t}.device", f"{t}.dtype")
        if fix is not None:  # never safe: traced code (torch.jit.trace, ONNX export)
            # records ``device=t.device`` as a constant, where ``type_as`` follows ``t``
            fix = Fix(fix.edits, False, fix.message)
    return ctx.finding(
        CODE, call,
        f"`torch.{name}(...)` builds the tensor on the CPU and `.{meth}({short(t)})` copies "
        f"it to that tensor's device; create it there: "
        f"`torch.{name}(..., device={short(t)}.device, dtype={short(t)}.dtype)`",
        fix,
    )


def _fold_both(ctx: Context, made: _Made, call: ast.Call, t: str) -> Fix | None:
    """``torch.zeros(m, n).type_as(t)`` -> ``torch.zeros(m, n, device=t.device, dtype=t.dtype)``
    (zeros, ones, identity and uninitialised memory are the same in every dtype)."""
    fac = made.factory
    if _cpu_only_arguments(fac):
        return None
    _, _, fl, fc = ctx.span(made.receiver)
    _, _, cl, cc = ctx.span(call)
    if _comment_inside(ctx, fl, fc, cl, cc):
        return None
    add = f"device={t}.device, dtype={t}.dtype"
    ins = ctx.add_keyword(fac, add)
    if ins is None:
        return None
    return Fix((ins, Edit(fl, fc, cl, cc, "")), False, f"Pass `{add}` to the factory")


def _device_made_here(ctx: Context, call: ast.Call) -> bool:
    """Is the target of ``.to(...)`` a device by construction (``"cuda"``, ``torch.device``,
    a name bound to one in this scope, ``.cuda()``), not only by its name (``device``,
    ``dev``, ``*_device`` may be a tensor, whose ``.to(t)`` also casts to its dtype)?"""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "cuda":
        return True
    dev = kwarg(call, "device")
    if dev is None and call.args:
        dev = call.args[0]
    return dev is not None and device_by_construction(ctx.flow, dev)


def _comment_inside(ctx: Context, fl: int, fc: int, cl: int, cc: int) -> bool:
    """Whether a ``#`` sits between the factory's end and the call's end (a comment the
    edit would delete); a comment after the call, on the same line, stays and is fine."""
    if fl == cl:
        return "#" in ctx.lines[fl - 1][fc:cc]
    text = "\n".join([ctx.lines[fl - 1][fc:], *ctx.lines[fl:cl - 1], ctx.lines[cl - 1][:cc]])
    return "#" in text


def _split_to(ctx: Context, m: Walker, call: ast.Call, site: Site[ast.Call]) -> tuple[str | None, str | None, bool]:
    """(device text, dtype text, whether .to has nothing else) for a ``.to``/``.cuda`` call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "cuda":
        if call.args:
            return None, None, False
        return '"cuda"', None, not call.keywords
    dev = dtype = None
    extra = False
    args = list(call.args)
    for k in call.keywords:
        if k.arg == "device":
            dev = k.value
        elif k.arg == "dtype":
            dtype = k.value
        else:
            extra = True
    if args:
        a0 = args.pop(0)
        kind = _kind(ctx, m, a0)
        if kind is _Arg.DTYPE:
            if dtype is not None:
                return None, None, False
            dtype = a0
        elif kind is _Arg.DEVICE:
            dev = a0
        else:
            return None, None, False
    if args:
        a1 = args.pop(0)
        if dtype is None and _kind(ctx, m, a1) is _Arg.DTYPE:
            dtype = a1
        else:
            extra = True
    if args:
        extra = True
    if dev is None:
        return None, None, False
    if _kind(ctx, m, dev) is not _Arg.DEVICE or cpu_device(ctx.flow, dev):
        return None, None, False  # (``.to`` the CPU of a tensor made there copies nothing)
    return ctx.text(dev), ctx.text(dtype) if dtype is not None else None, not extra


class _Arg(enum.Enum):
    """What an argument of ``.to()`` is."""

    DEVICE = "device"
    DTYPE = "dtype"


def _kind(ctx: Context, m: Walker, e: ast.AST) -> _Arg | None:
    """Whether an argument of ``.to()`` is a device, a dtype, or unclear (None)."""
    if isinstance(e, ast.Constant) and type(e.value) is str:
        return _Arg.DEVICE
    q = m.qualname(e) or ""
    if q.startswith("torch.") and q[6:] in DTYPES:
        return _Arg.DTYPE
    if isinstance(e, ast.Call) and m.qualname(e.func) == "torch.device":
        return _Arg.DEVICE
    text = ast.unparse(e) if isinstance(e, (ast.Name, ast.Attribute)) else ""
    last = text.rsplit(".", 1)[-1]
    if "dtype" in last:
        return _Arg.DTYPE
    if DEVICE_NAME.match(last):
        return _Arg.DEVICE
    return _Arg.DEVICE if is_device(ctx.flow, e) else None


# factories whose values are the same whichever device builds them; the others either draw
# from the device's own random generator (a seeded run gets other numbers) or compute
# floating-point steps with another kernel (``linspace``/``logspace``/``arange``)
_SAME_VALUES = frozenset({"zeros", "ones", "empty", "full", "eye"})
# factories whose values are also the same in every dtype (``full``'s fill value is not:
# 0.1 made in float32, then cast to float64, is not 0.1 made in float64)
_EXACT_IN_ANY_DTYPE = frozenset({"zeros", "ones", "empty", "eye"})


def _cpu_only_arguments(fac: ast.Call) -> bool:
    """Does the factory take an argument that holds only on the CPU, so that passing it a
    GPU ``device=`` fails where the original ran?  ``out=`` (a CPU tensor the factory
    writes into: "Expected out tensor to have device ...") and ``pin_memory=`` anything
    but ``False`` (page-locked host memory: "Only dense CPU tensors can be pinned")."""
    pin = kwarg(fac, "pin_memory")
    pinned = pin is not None and not (isinstance(pin, ast.Constant) and pin.value is False)
    return pinned or kwarg(fac, "out") is not None


def _fix(ctx: Context, made: _Made, call: ast.Call, dev: str, dtype: str | None) -> Fix | None:
    """Pass the device to the factory (inside a ``Variable(...)`` wrapper, which stays);
    a dtype stays in a ``.to(dtype)`` (folding it would change the values: a float32
    ``linspace`` cast to bf16 is not a bf16 ``linspace``)."""
    fac = made.factory
    if _cpu_only_arguments(fac):
        return None
    _, _, fl, fc = ctx.span(made.receiver)
    _, _, cl, cc = ctx.span(call)
    if _comment_inside(ctx, fl, fc, cl, cc):
        return None
    add = f"device={dev}"
    ins = ctx.add_keyword(fac, add)
    if ins is None:
        return None
    rest = f".to({dtype})" if dtype else ""
    # ``requires_grad=True`` (of the factory or of ``Variable``): the moved copy is a
    # non-leaf (its ``.grad`` stays None, the CPU original gets the gradient); made on the
    # device it is the leaf: gradients go elsewhere
    safe = made.name in _SAME_VALUES and not made.grad
    msg = f"Pass `{add}` to the factory" + (f", keep `{rest}`" if rest else "")
    return Fix((ins, Edit(fl, fc, cl, cc, rest)), safe, msg)


def _made_alike_in_init(m: Walker, site: Site[ast.Call], target: ast.AST) -> bool:
    """Is ``target`` a ``self.x`` that ``__init__`` last made with a device-less factory
    before ``site`` runs, with ``site`` in ``__init__`` or in a method this file calls only
    from ``__init__``?  Then the factory at ``site`` and ``self.x`` are both on the default
    device (the CPU, or what ``torch.device(...)``/``set_default_device`` made it): no copy.
    (lightly's MemoryBankModule._init_memory_bank)"""
    scope = site.ctx.scope
    fn, owner = scope.function, scope.parent
    if fn is None or owner is None or owner.kind is not ScopeKind.CLASS or scope.self_name is None:
        return False
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == scope.self_name):
        return False
    init = next((f for f in getattr(owner.node, "body", ())
                 if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return False
    lo, hi = pos(init), end_pos(init)
    if fn is init:
        cutoff = site.pos
    else:
        uses = [pos(n) for n in ast.walk(m.tree) if isinstance(n, ast.Attribute) and n.attr == fn.name]
        if not uses or not all(lo <= u <= hi for u in uses):
            return False  # called (or passed around) outside __init__: runs after .to() too
        cutoff = min(uses)
    made: ast.expr | None = None  # the value of the last assignment before ``cutoff``
    made_at = -1
    for node in ast.walk(init):
        if not isinstance(node, (ast.Assign, ast.Call)) or end_pos(node) >= cutoff or \
                pos(node) <= made_at:
            continue
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Attribute) and t.attr == target.attr and
                   isinstance(t.value, ast.Name) and t.value.id == scope.self_name
                   for t in node.targets):
                value = node.value
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "register_buffer" and \
                node.args and isinstance(node.args[0], ast.Constant) and \
                node.args[0].value == target.attr:
            value = node.args[1] if len(node.args) > 1 else kwarg(node, "tensor")
        if value is not None:
            made, made_at = value, pos(node)
    if not isinstance(made, ast.Call):
        return False
    q = m.qualname(made.func) or ""
    return q.startswith("torch.") and q[6:] in DEVICE_FACTORIES and kwarg(made, "device") is None
