"""Two devices in one op: which operand is on the odd device, and the fix that moves it.

Used by the device-mismatch families of :mod:`torchferry.diagnose.families`
(``mixed_devices``, ``index_device``, ``rnn_hidden``).  The odd device is decided
by the first of these rules that applies (:data:`ODD_DEVICE_RULES`):

1. the code names its device (a ``device`` / ``dev`` variable in scope): off it is odd;
2. the CPU against one accelerator: the CPU side missed the ferry;
3. the device PyTorch's message names as the odd one;
4. the minority device among the operands (a tie broken by the family, else the CPU);
5. the message's own fallback (the family's).

The fix is the first of :data:`FIX_STEPS` that applies: move a module, register a
buffer, add ``device=`` to a factory on the line or where the tensor was made, or move
the tensor with the others.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry.diagnose import operands as ops
from torchferry.diagnose.handler import ErrorKind, Fix, FixContext

__all__ = ["Vote", "ODD_DEVICE_RULES", "FIX_STEPS", "culprits", "fix"]

DEVICE_NAMES = ("device", "dev", "DEVICE", "torch_device", "target_device")

def is_accel(dev: str) -> bool:
    return dev.split(":")[0] != "cpu"


def same_dev(a: str, b: str) -> bool:
    """``cuda`` and ``cuda:0`` are the same device here; ``cuda:0`` and ``cuda:1`` are not."""
    if a == b:
        return True
    return a.split(":")[0] == b.split(":")[0] and (":" not in a or ":" not in b)


def _device_variables(frame: FrameType) -> Iterator[tuple[str, str]]:
    """``(name, device)`` for each ``device``-like variable in scope, locals first.

    A value torch does not read as a device (``device = "gpu"``) is passed over.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return
    for scope in (frame.f_locals, frame.f_globals):
        for name in DEVICE_NAMES:
            v = scope.get(name)
            if isinstance(v, (str, torch.device)):
                try:
                    yield name, str(torch.device(v))
                except (RuntimeError, TypeError, ValueError):
                    continue


def intended_device(frame: FrameType) -> str | None:
    """The device the code means to use: a ``device``-like variable in scope, if any."""
    return next((dev for _, dev in _device_variables(frame)), None)


# ------------------------------------------------------------------ the odd device
@dataclass(frozen=True)
class Vote:
    """The devices of one failing line: those the message names and the operands are on."""

    kind: ErrorKind
    present: tuple[str, ...]  # devices the message names or an operand is on, with votes
    votes: dict[str, int]  # device -> number of operands on it
    intent: str | None  # the code's own ``device`` variable
    tie_break: Callable[[ErrorKind, list[str]], str | None]  # the family's, for a tie
    fallback: Callable[[ErrorKind], str | None]  # the family's, when no operand was read


def _named_in_code(v: Vote) -> str | None:
    wanted = [d for d in v.present if v.intent is not None and same_dev(d, v.intent)]
    others = [d for d in v.present if d not in wanted]
    if len(v.present) >= 2 and len(wanted) == 1 and len(others) == 1:
        return others[0]
    return None


def _cpu_against_one(v: Vote) -> str | None:
    # PyTorch reports against the first tensor's device, whichever argument that is
    if len(v.present) == 2 and sum(not is_accel(d) for d in v.present) == 1:
        return next(d for d in v.present if not is_accel(d))
    return None


def _named_in_message(v: Vote) -> str | None:
    return v.kind.odd if v.kind.odd is not None and v.votes.get(v.kind.odd) else None


def _minority(v: Vote) -> str | None:
    if len(v.present) < 2:
        return None
    low = min(v.votes[d] for d in v.present)
    lows = [d for d in v.present if v.votes[d] == low]
    if len(lows) == 1:
        return lows[0]
    tied = v.tie_break(v.kind, lows)
    if tied is not None:
        return tied
    nonacc = [d for d in lows if not is_accel(d)]
    return nonacc[0] if nonacc else lows[-1]


def _message_fallback(v: Vote) -> str | None:
    return v.kind.odd if v.kind.odd is not None else v.fallback(v.kind)


ODD_DEVICE_RULES: tuple[Callable[[Vote], str | None], ...] = (
    _named_in_code, _cpu_against_one, _named_in_message, _minority, _message_fallback,
)


def _vote(kind: ErrorKind, cands: list[ops.Operand], frame: FrameType | None,
          tie_break: Callable[[ErrorKind, list[str]], str | None],
          fallback: Callable[[ErrorKind], str | None]) -> Vote:
    votes: dict[str, int] = {}
    for o in cands:
        assert o.device is not None
        votes[o.device] = votes.get(o.device, 0) + 1
    devs = list(kind.devices)
    for o in cands:
        if not any(same_dev(o.device or "", d) for d in devs) and o.device not in devs:
            devs.append(o.device or "")
    present = tuple(d for d in dict.fromkeys(devs) if votes.get(d))
    intent = intended_device(frame) if frame is not None else None
    return Vote(kind, present, votes, intent, tie_break, fallback)


def _factory_on_the_line(operands: list[ops.Operand], odd: str) -> None:
    """No operand as written is on the odd device: a factory call on the line made it."""
    if odd != "cpu" or any(o.culprit for o in operands):
        return
    for o in operands:
        if (o.kind == ops.OperandKind.CALL and o.device is None and isinstance(o.node, ast.Call)
                and ops.is_factory_call(o.node) and not ops.has_device_kw(o.node)):
            o.device, o.culprit = "cpu", True
            o.note = "created on this line without device= (so on the CPU)"


def culprits(kind: ErrorKind, operands: list[ops.Operand], frame: FrameType | None,
             tie_break: Callable[[ErrorKind, list[str]], str | None],
             fallback: Callable[[ErrorKind], str | None]) -> tuple[str | None, str | None]:
    """Mark the operands on the odd device; return (odd device, good device)."""
    # 0-dim cpu tensors mix with anything: never the culprit
    cands = [o for o in operands if o.device is not None
             and not (o.kind == ops.OperandKind.TENSOR and o.device == "cpu" and o.shape == [])]
    vote = _vote(kind, cands, frame, tie_break, fallback)
    odd = next((d for rule in ODD_DEVICE_RULES if (d := rule(vote)) is not None), None)
    good = next((d for d in vote.present if d != odd), None)
    if good is None:
        good = next((d for d in kind.devices if d != odd), None)
    if odd is not None:
        for o in cands:
            if o.device == odd:
                o.culprit = True
        _factory_on_the_line(operands, odd)
    return odd, good


# ------------------------------------------------------------------ the fix
def device_expr(good: str | None, frame: FrameType, operands: list[ops.Operand]) -> str:
    """How the user's code names the good device: a variable, or another operand's .device."""
    if good is None:
        return "device"
    return _device_variable(good, frame) or _operand_device(good, operands) or "device"


def _device_variable(good: str, frame: FrameType) -> str | None:
    return next((name for name, dev in _device_variables(frame) if same_dev(dev, good)), None)


def _operand_device(good: str, operands: list[ops.Operand]) -> str | None:
    # ``good`` may be a device type (conv's message says ``torch.cuda.FloatTensor``)
    named = [o for o in operands if o.device is not None and same_dev(o.device, good)
             and isinstance(o.node, (ast.Name, ast.Attribute))]
    for o in named:
        if o.kind == ops.OperandKind.TENSOR:
            return f"{o.expr}.device"
    for o in named:
        if o.kind == ops.OperandKind.MODULE:
            return f"next({o.expr}.parameters()).device"
    return None


def _argument_device(good: str | None, frame: FrameType, operands: list[ops.Operand]) -> str | None:
    """``x.device`` for a tensor made in a function that receives tensors on ``good``, as
    FRY010 fixes it: another operand of the line when it is a plain local name, else
    the function's first tensor argument (never a global ``device``, which ties the
    function to it)."""
    torch = sys.modules.get("torch")
    code = frame.f_code
    if torch is None or good is None or code.co_name == "<module>":
        return None
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    first = next((p for p in params if isinstance(v := frame.f_locals.get(p), torch.Tensor)
                  and same_dev(str(sim.device_of(v)), good)), None)
    if first is None:
        return None
    for o in operands:
        if (o.device == good and o.kind == ops.OperandKind.TENSOR and isinstance(o.node, ast.Name)
                and o.node.id in frame.f_locals):
            return f"{o.expr}.device"
    return f"{first}.device"


def _add_device_kw(source: str, dev: str) -> str | None:
    """``labels = torch.randint(0, 10, (64,))`` -> ``... (64,), device=device)``."""
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ops.is_factory_call(node) and not ops.has_device_kw(node):
            if ops.call_name(node).endswith("from_numpy"):
                return None
            node.keywords.append(ast.keyword(arg="device", value=ast.parse(dev, mode="eval").body))
            return ast.unparse(tree)
    return None


def _register_buffer_fix(source: str) -> str | None:
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    stmt = tree.body[0] if tree.body else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return f"self.register_buffer({t.attr!r}, {ast.unparse(stmt.value)})"
    return None


def _unregistered_attr(op: ops.Operand, frame: FrameType) -> bool:
    torch = sys.modules.get("torch")
    node = op.node
    if torch is None or not isinstance(node, ast.Attribute):
        return False
    owner = ops.resolve(node.value, frame)
    if not isinstance(owner, torch.nn.Module):
        return False
    d = object.__getattribute__(owner, "__dict__")
    return node.attr in d and isinstance(d[node.attr], torch.Tensor)


_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Loop = ast.For | ast.AsyncFor | ast.While


def _enclosing(tree: ast.AST, line: int) -> tuple[_Function | None, _Loop | None]:
    """The innermost function and the innermost loop around ``line``."""
    fn: _Function | None = None
    loop: _Loop | None = None
    for node in ast.walk(tree):
        if node is tree or not isinstance(node, ast.stmt):  # functions and loops are statements
            continue
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if fn is None or node.lineno >= fn.lineno:
                fn = node
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.lineno != line:
            if loop is None or node.lineno >= loop.lineno:
                loop = node
    return fn, loop


def _within(node: ast.stmt | None, line: int) -> bool:
    return node is not None and node.lineno <= line <= (node.end_lineno or node.lineno)


def _fresh(created: dict[str, Any], frame: FrameType, tree: ast.Module | None, line: int) -> bool:
    """Was the culprit made close to its use: in the same function, or inside the same loop?"""
    if tree is None or created.get("path") != frame.f_code.co_filename:
        return False
    cl = int(created["line"])
    if cl == line:
        return True
    fn, loop = _enclosing(tree, line)
    return _within(fn, cl) or _within(loop, cl)


def _from_factory_stmt(src: str) -> bool:
    try:
        tree = ast.parse(src.strip())
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Call) and ops.is_factory_call(n) and not ops.has_device_kw(n)
               for n in ast.walk(tree))


def _move_module(ctx: FixContext, c: ops.Operand, frame: FrameType, dev: str) -> Fix | None:
    if c.kind is not ops.OperandKind.MODULE:
        return None
    return f"{c.expr}.to({dev})  (modules move in place; do it once, before the loop)", None


def _register_buffer(ctx: FixContext, c: ops.Operand, frame: FrameType, dev: str) -> Fix | None:
    if not _unregistered_attr(c, frame):
        return None
    created = c.created_at or {}
    stmt_src = _frames.source_line(created["path"], created["line"]) if created.get("path") else ""
    fix = _register_buffer_fix(stmt_src) if stmt_src else None
    if fix:
        return f"{fix}  (in __init__: buffers move with model.to(device))", "FRY011"
    attr = c.expr.rsplit(".", 1)[-1]
    return f'self.register_buffer("{attr}", ...) in __init__, so model.to(device) moves it', "FRY011"


def _device_kw_here(ctx: FixContext, c: ops.Operand, frame: FrameType, dev: str) -> Fix | None:
    """Made on this very line by a factory without ``device=``."""
    if c.kind is not ops.OperandKind.CALL or not isinstance(c.node, ast.Call):
        return None
    new = _add_device_kw(ops.text_of(c.node), _argument_device(ctx.good, frame, ctx.operands) or dev)
    return (new, "FRY010") if new else None


def _device_kw_at_site(ctx: FixContext, c: ops.Operand, frame: FrameType, dev: str) -> Fix | None:
    """Made nearby (same function or loop) by a factory that defaulted to the CPU."""
    created = c.created_at or {}
    if not created.get("path") or c.kind is not ops.OperandKind.TENSOR or c.device != "cpu":
        return None
    stmt_src = _frames.source_line(created["path"], created["line"])
    made_by_factory = "without device=" in str(created.get("call", "")) or _from_factory_stmt(stmt_src)
    if not made_by_factory or not _fresh(created, frame, ctx.tree, ctx.line):
        return None
    new = _add_device_kw(stmt_src, _argument_device(ctx.good, frame, ctx.operands) or dev)
    if not new:
        return None
    return f"{new}  (at {_frames.display_path(created['path'])}:{created['line']})", "FRY010"


def _move_with_the_others(ctx: FixContext, c: ops.Operand, frame: FrameType, dev: str) -> Fix | None:
    node = c.node
    if isinstance(node, ast.Subscript):
        root = ops.root_name(node)
        if root is not None and isinstance(ops.resolve(ast.Name(root), frame), dict):
            return f"{root} = torchferry.to({root}, {dev})  (moves every tensor in it, {c.expr} included)", "FRY013"
        return f"{c.expr}.to({dev})", "FRY013"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{c.expr} = {c.expr}.to({dev})  (move it with the others)", "FRY013"
    return f"({c.expr}).to({dev})", "FRY013"


FIX_STEPS: tuple[Callable[[FixContext, ops.Operand, FrameType, str], Fix | None], ...] = (
    _move_module, _register_buffer, _device_kw_here, _device_kw_at_site, _move_with_the_others,
)


def fix(ctx: FixContext) -> Fix:
    """The fix of a device mismatch, and the ``ferry check`` rule that names it."""
    c = ctx.culprit
    if c is None or ctx.frame is None:
        return (f"move every operand of this line to one device ({ctx.good})" if ctx.good else None), None
    dev = device_expr(ctx.good, ctx.frame, ctx.operands)
    return next(f for step in FIX_STEPS if (f := step(ctx, c, ctx.frame, dev)) is not None)
