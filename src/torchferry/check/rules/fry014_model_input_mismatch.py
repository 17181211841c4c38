"""A model called on inputs that are not where the model is.

## What it does
Flags a call `model(x)` (also `self.model(x)`, a model reached through a helper method or a
function of another checked file) when the device-flow analysis establishes that

* the model may be on an accelerator (it was moved: `model = Net().to(device)`,
  `model.cuda()`, `self.model = model.to(device)` in `__init__`, a builder that returns
  `Net().cuda()`) and `x` is a tensor made on the CPU (`torch.from_numpy(...)`,
  `torch.tensor([...])`, a factory without `device=`, in this function or a helper it
  calls) and never moved; or
* `x` was moved to a device (`x = x.to(device)`, `img.cuda()`) and the model, a name bound
  to a model built on the CPU (`Net(...)` of a class with weights,
  `torchvision.models.resnet50(...)`, a `torch.nn` layer with weights), is never moved,
  wrapped or handed to anything that could move it anywhere in the file.

The finding's evidence names where the model was moved (or built), where the input was
made (or moved), and where they meet.

## Why is this bad
This is the most common device error on the forums: "Input type (torch.FloatTensor) and
weight type (torch.cuda.FloatTensor) should be the same" (the model moved, the input not)
or "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the
same" (the other way round). It only fails on a machine with an accelerator: on a CPU-only
machine both stay on the CPU and the mistake hides until the code reaches a GPU.

## Example
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Encoder().to(device)
x = torch.from_numpy(features).float()
out = model(x)
```

## Use instead
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Encoder().to(device)
x = torch.from_numpy(features).float().to(device)
out = model(x)
```

## Fix safety
No fix: which side should move (the input to the model, or the model to the input) is the
author's choice.

## Known limits
A model or input that comes in as a parameter is not placed: its place is its caller's,
and the analysis does not specialise a function for its call sites. A model built outside
the checked files (`from_pretrained(...)`, a library's builder), given a
`device`/`device_map`, loaded with `torch.load`, or wrapped (`DataParallel`) has an unknown
place and is not checked; the second form also skips a model handed to any call the
analysis cannot follow (`accelerator.prepare(model)`, `trainer.fit(model)`), since that
call may move it. A file that sets a default device (`torch.set_default_device`,
`with torch.device(...)`) is not checked. Inputs that are 0-dimensional tensors
(`torch.tensor(1.0)`) are not flagged.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from torchferry.check.api import Context, Finding
from torchferry.check.flow import (
    Callee,
    CallEvent,
    FileFlow,
    Kind,
    Op,
    Origin,
    ScopeResult,
    Value,
    Where,
    vocab,
)
from torchferry.check.flow.evidence import at, first, latest, step, where
from torchferry.check.flow.program import holds_parameters

CODE = "FRY014"
NAME = "model-input-mismatch"
FIX = "none"

#: callees that build a model somewhere else, possibly already on a device
_BUILDER = re.compile(r"(build|create|load|get|make|from_|init|setup|prepare|instantiate|wrap)", re.I)
_LOSSY = re.compile(r"(loss|criterion|metric|accuracy|softmax|relu|sigmoid|tanh|dropout|pool|"
                    r"flatten|identity|upsample)", re.I)
_DEFAULT_DEVICE = ("set_default_device", "set_default_tensor_type", "with torch.device(")


def check(ctx: Context) -> Iterable[Finding]:
    if any(s in ctx.source for s in _DEFAULT_DEVICE):
        return
    ff: FileFlow = ctx.flow
    results = list(ff.results())
    touched = _moved_or_handed_on(results)
    for res in results:
        for call in res.calls.values():
            if call.callee not in (Callee.MODULE, Callee.UNRESOLVED) or not call.node.args:
                continue  # (an unresolved call may be of a model the analysis cannot see into)
            found = _model_moved(ctx, call) or _input_moved(ctx, ff, call, touched)
            if found is not None:
                yield found


def _moved_or_handed_on(results: list[ScopeResult]) -> set[str]:
    """Names some scope moves in place from outside or hands to a call not followed."""
    names: set[str] = set()
    for r in results:
        names |= r.escapes
        names |= set(r.outer_moves)
    return names


def _concrete(v: Value) -> bool:
    return v.known_places and all(p.where in (Where.CPU, Where.ACCEL) for p in v.places or ())


def _args(call: CallEvent) -> list[tuple[ast.expr, Value]]:
    return [(a, v) for a, v in zip(call.node.args, call.args, strict=False)
            if not isinstance(a, ast.Starred)]


def _model_moved(ctx: Context, call: CallEvent) -> Finding | None:
    """The model may be on the accelerator, an input was made on the CPU right here."""
    model = call.func
    moved = _moved_to_accelerator(model)
    if moved is None:
        return None
    for node, v in _args(call):
        made = latest(v, Op.MADE, Op.MOVED)
        if not (v.is_(Kind.TENSOR) and v.places == {_CPU} and made is not None
                and made.op is Op.MADE and made.path is None and _built_with_data(made)):
            continue
        name, x = ctx.text(call.node.func), ctx.text(node)
        f = ctx.finding(
            CODE, call.node,
            f"`{name}` was moved to the device but `{x}` was built on the CPU and never moved: "
            "on a GPU machine this call fails with \"Input type (torch.FloatTensor) and weight "
            f"type (torch.cuda.FloatTensor) should be the same\"; move it too (`{x}.to(device)`)")
        return _with(f, (
            step(ctx, moved, f"`{name}` is moved to the device at {where(moved)}"),
            step(ctx, made, f"`{x}` is made on the CPU at {where(made)} and never moved"),
            at(ctx, call.node, f"they meet in `{name}(...)` here"),
        ))
    return None


def _moved_to_accelerator(model: Value) -> Origin | None:
    """The move that may have put the model on an accelerator: its place is known and may
    be one, or unknown only because a branch left it where an unknown call put it, while
    every move of it went to an accelerator."""
    moved = latest(model, Op.MOVED)
    if moved is None:
        return None
    if _concrete(model):
        return moved if model.may_live(Where.ACCEL) else None
    if model.places is not None:
        return None
    moves = [o for o in model.origins if o.op is Op.MOVED]
    if all(o.to and all(p.where is Where.ACCEL for p in o.to) for o in moves):
        return moved
    return None


def _built_with_data(made) -> bool:
    """A tensor from data or a shape (not a 0-dimensional ``torch.tensor(1.0)``)."""
    node = made.node
    if not isinstance(node, ast.Call):
        return False
    if made.text.startswith(("torch.tensor", "torch.as_tensor")):
        data = node.args[0] if node.args else None
        while isinstance(data, ast.UnaryOp):
            data = data.operand
        return data is not None and not isinstance(data, ast.Constant)
    return True


def _input_moved(ctx: Context, ff: FileFlow, call: CallEvent, touched: set[str]) -> Finding | None:
    """An input is on the device, the model was built here on the CPU and is never moved."""
    func = call.node.func
    if not isinstance(func, ast.Name) or func.id in touched:
        return None
    made = _cpu_model(ff, call.func)
    if made is None:
        return None
    for node, v in _args(call):
        moved = latest(v, Op.MOVED, Op.MADE)
        if moved is None or moved.op is not Op.MOVED or not _concrete(v) \
                or not v.may_live(Where.ACCEL):
            continue
        name, x = func.id, ctx.text(node)
        f = ctx.finding(
            CODE, call.node,
            f"`{x}` is moved to the device but `{name}` never is: on a GPU machine this call "
            "fails with \"Input type (torch.cuda.FloatTensor) and weight type "
            f"(torch.FloatTensor) should be the same\"; move the model once (`{name}.to(device)`)")
        return _with(f, (
            step(ctx, made, f"`{name}` is built on the CPU at {where(made)} and never moved"),
            step(ctx, moved, f"`{x}` is moved to the device at {where(moved)}"),
            at(ctx, call.node, f"they meet in `{name}(...)` here"),
        ))
    return None


def _cpu_model(ff: FileFlow, model: Value) -> Origin | None:
    """Where a model known to be on the CPU, never moved, was built: by a constructor the
    analysis knows to own weights, or by a class it cannot see into (imported from outside
    the checked files) whose name says it is one."""
    if latest(model, Op.MOVED) is not None:
        return None
    if model.places == {_CPU}:
        made = first(model, Op.MADE)
        return made if made is not None and _has_weights(ff, made) else None
    if model.places is None and len(model.origins) == 1 and model.origins[0].op is Op.RETURNED:
        made = model.origins[0]
        node = made.node
        if isinstance(node, ast.Call) and _class_like(node):
            return made
    return None


def _class_like(call: ast.Call) -> bool:
    """``Encoder(...)``, ``models.Net(...)``: a capitalised class, not a builder or a loss,
    given no device."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    zoo = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id == "models"  # ``models.vgg16()`` of a local package
    if not (name[:1].isupper() or zoo) or _BUILDER.search(name) or _LOSSY.search(name):
        return False
    if any(k.arg is None or k.arg in ("device", "device_map", "map_location") for k in call.keywords):
        return False
    return not any(isinstance(a, ast.Starred) for a in call.args)


def _has_weights(ff: FileFlow, made) -> bool:
    """Was the model built by something known to own parameters?"""
    text: str = made.text
    if text.startswith("torch.nn."):
        layer = text[len("torch.nn."):].split("(")[0]
        return layer in vocab.PARAM_LAYERS or layer in vocab.CONTAINERS
    if text.startswith(vocab.MODEL_ZOOS) and text.split("(")[0] not in vocab.MODEL_BUILDERS:
        return True
    node = made.node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = ff.definition(node.func.id)
        if isinstance(cls, ast.ClassDef):
            return holds_parameters(ff.class_info(cls))
    return False


def _with(f: Finding, evidence: tuple) -> Finding:
    from dataclasses import replace

    return replace(f, evidence=evidence)


from torchferry.check.flow import CPU as _CPU  # noqa: E402
