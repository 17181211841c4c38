"""`torch.load` without `weights_only=True`.

## What it does
Flags `torch.load(...)` calls that do not pass `weights_only` at all.

Quiet when the project's oldest torch is 2.6 or newer (`target-torch-version`, given in
`[tool.torchferry]` or inferred from the declared torch requirement, see
[check.md](check.md#configuration)): there the default is already `weights_only=True`.

Also quiet where the bytes are the program's own: a buffer or path the same function (or
script, or notebook) wrote with `torch.save` earlier in the same scope -- an object
serialized and read back, or broadcast to the other processes of the same job
(`torch.save(obj, buffer)` ... `torch.load(io.BytesIO(received))`).

## Why is this bad
A checkpoint is a pickle, and unpickling can run arbitrary code: loading a file downloaded
from the internet with `weights_only=False` hands it your machine. `weights_only=True`
restricts unpickling to tensors, primitive types and dictionaries. PyTorch 2.6 made it the
default, but code without the argument behaves differently (and unsafely) on older
versions, which is why pinning it explicitly is recommended.

## Example
```python
state = torch.load("checkpoint.pt", map_location="cpu")
```

## Use instead
```python
state = torch.load("checkpoint.pt", map_location="cpu", weights_only=True)
```

## Fix safety
Unsafe: checkpoints that pickle whole objects (a full `nn.Module`, an optimizer with custom
classes, `argparse.Namespace`) fail to load with `weights_only=True` and need
`torch.serialization.add_safe_globals` or an explicit, reviewed `weights_only=False`.

## Known limits
An explicit `weights_only=False` is a deliberate choice and is not flagged; neither are calls
that pass `pickle_module` (incompatible with `weights_only=True`) or `**kwargs`, nor calls in
a function that has its own `weights_only` variable (a compatibility path for old torch).
Bytes received from elsewhere (`torch.load(io.BytesIO(response.content))`) are flagged: a
server can send a crafted pickle.
"""

from __future__ import annotations

from collections.abc import Iterable

from torchferry.check.api import Context, Finding, Fix
from torchferry.check.loads import saved_here
from torchferry.check.names import has_star_kwargs, kwarg

CODE = "FRY005"
NAME = "unsafe-load"
FIX = "unsafe"


#: from this torch on, ``torch.load`` defaults to ``weights_only=True``
WEIGHTS_ONLY_DEFAULT = (2, 6, 0)


def check(ctx: Context) -> Iterable[Finding]:
    target = ctx.target_torch_version
    if target is not None and target >= WEIGHTS_ONLY_DEFAULT:
        return  # the default is already weights_only=True: the argument changes nothing
    m = ctx.syntax
    for site in m.calls_by_tail.get("load", ()):
        call = site.node
        if m.qualname(call.func) != "torch.load" or has_star_kwargs(call):
            continue
        if kwarg(call, "weights_only") is not None or kwarg(call, "pickle_module") is not None \
                or len(call.args) >= 3:
            continue
        if "weights_only" in site.ctx.scope.binds:
            continue  # the code decides ``weights_only`` itself (e.g. a fallback for old torch)
        if saved_here(m, site):
            continue  # bytes this function has just serialized itself: nothing foreign
        edit = ctx.add_keyword(call, "weights_only=True")
        fix = Fix((edit,), False, "Add `weights_only=True`") if edit is not None else None
        yield ctx.finding(
            CODE, call,
            "`torch.load` without `weights_only=True` unpickles arbitrary objects, and a pickle "
            "can run code; pass `weights_only=True`",
            fix,
        )
