"""`torch.load` without `map_location`.

## What it does
Flags `torch.load(...)` calls that pass no `map_location` (neither as keyword nor as the
second positional argument) and read what may be a checkpoint from elsewhere. The calls
that download a checkpoint and read it with `torch.load` are flagged alike:
`torch.hub.load_state_dict_from_url(url)` and its other names
(`torch.utils.model_zoo.load_url`, torchvision's `models.utils` and
`_internally_replaced_utils` re-exports), whose `map_location` is the keyword or the third
positional argument and defaults to None, as `torch.load`'s does. So are OpenMMLab's
checkpoint readers, which hand their `map_location` (None by default) to `torch.load`:
mmcv's and mmengine's `load_checkpoint(model, filename, map_location=None, ...)`
(`map_location` its third positional argument), `_load_checkpoint(filename,
map_location=None)` and `CheckpointLoader.load_checkpoint(filename, map_location=None)`
(the second), and mmengine's `utils.dl_utils.load_url` (the third). A call of a function of
the run that loads so with one of its parameters as `map_location` (`def load(path,
map_location=None): return torch.load(path, map_location)`, in this file or another, itself
or through another such function it passes the parameter to) is flagged where it leaves that
parameter to its default None, bound as Python binds the call (`load(path)`): the load runs
without `map_location`. The wrapper's load is the evidence.

Quiet where what is read cannot hold tensors of a device this machine lacks:

* bytes or a file the same function (or script, or notebook) has just written with
  `torch.save` -- the same buffer or path expression, earlier in the same scope and not
  in the other branch of an `if` that holds the load: the load runs in the process that
  saved them, so their devices exist;
* an in-memory buffer (`io.BytesIO(...)`, directly or through a name bound to one) in a
  file whose own code also serializes into memory with `torch.save`: both ends of that
  protocol are this program's (a broadcast, a worker's result); bytes fetched from a
  server are still flagged;
* a file the file's own code writes with `torch.save` from host data -- the same string
  literal, module-level constant or `self` attribute names it in both places, and every
  value saved there holds no module, state dict, optimizer, moved or device tensor, nor a
  value of unknown origin (a dataset's processed cache or metadata file);
* a file the run's code writes with `torch.save` under the same string literal, in this
  file or another file of the run in the same directory (a training script's checkpoint
  read by its evaluation script), where every save of it holds host data as above or a model or tensor the
  analysis places on the CPU alone (`net = Net()` never moved, `torch.tensor(rows)`) in a
  file that moves nothing to a device (no accelerator string, no `.cuda()`, no `.to(...)`
  but to a `torch` dtype);
* a file the file's own code writes with `torch.save` only from values on the CPU whatever
  they are made from (`pred.cpu()`, `x.detach().cpu().numpy()`, `x.to("cpu")`, containers
  of such values and of values holding no tensor, a name of the function bound once to
  one), named by the same template in both places (`"best_pred_run{}.pt".format(run)` and
  `f"./{out}/best_pred_run{n}.pt"`: the last path component with its fields, whose fixed
  text names a file) or by the same path expression in the same function;
* a file a call earlier in the same function has just written: the same path expression
  (its names bound alike) handed to a function of the file, a method of the same class on
  `self`, or a function imported from another file of the run, that always saves to it
  with `torch.save` (a statement of its body, or of a `with` / `try` body there, before
  any `return` or `raise`): `fit(model, data, ckpt)` then `torch.load(ckpt)`;
* a file the file's own code writes only with values known to hold no tensor (numbers,
  strings, `time.time()`, `x.item()`, `json.load(f)`, an `argparse` namespace, containers
  of them, names and `self` attributes every store of which is one): named as above, or
  by the same path expression in the same function with its names bound alike (a cache
  read under `if os.path.exists(cache):` and written in the `else`), and saved by
  `torch.save` or by a helper of the file that saves its parameter to the path another
  parameter names (or to a temporary file it then renames to it);
* a load that runs only where an accelerator is known to be present: in the arm of an
  `if` (or conditional expression) whose test there says so (`torch.cuda.is_available()`,
  `torch.cuda.device_count() > 0`, a device compared equal to a CUDA device: `device ==
  torch.device("cuda")`, `device.type == "cuda"`; an `and` holding one, a name bound once
  to one), or
  whose other arm loads the same path with `map_location` to the CPU (`if use_cuda:
  torch.load(f)` / `else: torch.load(f, map_location="cpu")`: the author chose per
  device, and a machine without the accelerator takes the other arm) and whose test
  names no other accelerator (`torch.cuda.is_available() or
  torch.backends.mps.is_available()` also holds on a Mac, where a CUDA checkpoint fails);
* a NumPy array: the loaded name is only ever passed to `torch.from_numpy` (a pickled
  ndarray holds no torch storage, so there is no device to restore);
* a method of a `Dataset` class (a base named `...Dataset`): a dataset's files hold
  samples, which datasets keep on the CPU (DataLoader workers, `pin_memory`);
* a function that cannot run without torch_xla (it imports it at the top of its body):
  its checkpoints are XLA's own, written through `xm.save`, which moves tensors to the CPU.

## Why is this bad
"`torch.load(path)` tries to restore tensors to their original device and fails on
machines without one." A checkpoint saved on a GPU box cannot be loaded on a CPU-only
machine (or a Mac) without `map_location`: torch raises "Attempting to deserialize object
on a CUDA device but torch.cuda.is_available() is False". Checkpoints loaded from a path
the user gives (`args.checkpoint`, `--resume`) are the usual case.

## Example
```python
state = torch.load(args.checkpoint)
model.load_state_dict(state)
```

## Use instead
```python
state = torch.load(args.checkpoint, map_location="cpu")
model.load_state_dict(state)
model.to(device)
```

## Fix safety
Safe only where the loaded object goes straight into an `nn.Module`'s
`load_state_dict(...)` (the fix adds `map_location="cpu"`): as its argument, subscripted
(`torch.load(p)["model"]`), or through a name used for nothing else. `load_state_dict`
copies the values into the parameters wherever the model lives, so the result is exactly
the same. Anywhere else it is unsafe: a whole pickled model, cached embeddings or a tensor
used directly would come back on the CPU, and the next GPU operation would fail ("Expected
all tensors to be on the same device"); `load_state_dict(..., assign=True)` keeps the
loaded tensors as the parameters; an optimizer keeps `state["step"]` where it was loaded,
and schedulers, scalers and EMA helpers keep what they get; a file that defines its own
`load_state_dict` / `_load_from_state_dict` may keep the tensors too. The receiver must be
a module by construction: built in the same scope (`model = Net().to(device)` with `Net` an
`nn.Module` class of the checked files, `torch.nn.Linear(...)`, `torchvision.models...`),
or `self` in a method of an `nn.Module` class. The fix of a library's reader that loads
into the model itself (`load_checkpoint(model, path)`) is unsafe: the checkpoint it returns
comes back on the CPU. A receiver that is a module only by its
name (`model`, `net`) or an annotation gets the fix as unsafe: it may be a wrapper
whose `load_state_dict` keeps what it is given.

## Known limits
Lightning's `Model.load_from_checkpoint(path)` without `map_location` is not a load of this
rule in any version read: pytorch-lightning 0.8.5, 1.3.8 and 1.9.5 read with
`map_location=lambda storage, loc: storage` (every tensor to the CPU), 2.4.0 with
`_default_map_location` (each tensor to its saved device when that one is available, to the
CPU when not, then the module to the first tensor's device); none fails on a CPU-only
machine, and they disagree on where the tensors land on a GPU machine.
Calls that pass `**kwargs` are not flagged (the keyword may be inside). A wrapper around
`torch.load` is followed only where it is a function defined at a file's top level, not
decorated, whose parameter defaults to None, is never rebound and is read only to be passed
on (a wrapper that tests it, `if map_location is None:`, is not followed, even where the
value it picks is not the CPU), up to three wrappers deep; a method, or a wrapper called
through a value (`loader = load; loader(p)`), is not followed. A library's reader is known
only by its qualified name through the file's imports (a method, mmengine's
`runner.load_checkpoint(path)`, which maps to the CPU by default, is not one). A file another script of the project writes is
recognised only by a string literal both name (the path's last component), from the
same directory, and only through `torch.save` there (not its save helpers), so loading
it is otherwise still flagged unless its use shows what it is (an ndarray). A value the analysis places on the CPU may
still be moved by code in another file (a module-level model another file imports and
moves before the save). A file saved from a parameter or an unknown call's
result (a tokenizer's ids, a helper's features) is still flagged, and so is a `self`
attribute that something outside its class's methods, or an alias, fills. A flag whose other arm maps to the CPU
is taken as the device's even when it is set by hand (`--cuda` on a CPU-only machine
still takes the unmapped arm), and so is a device compared equal to a CUDA device (a
`--device cuda` given on a CPU-only machine takes the arm; the program's moves to that
device fail there too). A template names a family of files: a save of another
template or literal that happens to produce the same name, or a save of it in another
file of the run, is not seen. Quiet in a
`Dataset` method and on an XLA-only path even if the file there came from a GPU (features
computed on a GPU and saved without `.cpu()`, a CUDA checkpoint handed to an XLA
strategy). A `load_state_dict` of a module class defined in another file that keeps the
tensors (a custom `_load_from_state_dict`) is not seen, and the fix is marked safe there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import replace

from torchferry.check.api import Context, Finding, Fix
from torchferry.check.flow import FileFlow
from torchferry.check.flow.binding import bind
from torchferry.check.flow.libfacts import CHECKPOINT_LOAD_TAILS, checkpoint_load
from torchferry.check.flow.safety import module_by_construction, self_of_module
from torchferry.check.load_wrappers import callee, wrapped_load
from torchferry.check.loads import (
    dataset_method,
    device_chosen,
    host_data_file,
    in_memory,
    ndarray_only,
    saved_by_call,
    saved_here,
    xla_only,
)
from torchferry.check.names import dotted, has_star_kwargs, header_parents, kwarg
from torchferry.check.scopes import ScopeKind, Site, Walker

CODE = "FRY004"
NAME = "load-without-map-location"
FIX = "safe"


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    for site in _checkpoint_loads(m):
        call = site.node
        name = m.qualname(call.func)
        fact = checkpoint_load(name)
        if fact is None or has_star_kwargs(call):
            continue
        if len(call.args) > fact.map_at or kwarg(call, "map_location") is not None:
            continue
        if _not_a_foreign_checkpoint(m, ctx.flow, site):
            continue
        edit = ctx.add_keyword(call, 'map_location="cpu"')
        fix = None
        if edit is not None:
            fix = Fix((edit,), _feeds_load_state_dict(ctx.flow, m, site), 'Add `map_location="cpu"`')
        yield ctx.finding(
            CODE, call,
            f"`{name}` without `map_location` restores tensors to the device they were saved "
            "from and fails on machines without it; pass `map_location=\"cpu\"` (then move to "
            "`device`)",
            fix,
        )
    yield from _wrapper_calls(ctx, m)


def _wrapper_calls(ctx: Context, m: Walker) -> Iterable[Finding]:
    """The calls of a function of the run that loads a checkpoint with one of its parameters
    as ``map_location`` (:func:`~torchferry.check.load_wrappers.wrapped_load`) and that leave
    that parameter to its default None, bound as Python binds the call: the load runs
    without ``map_location``."""
    flow = ctx.flow
    for site in m.calls:
        call = site.node
        head = call.func
        while isinstance(head, ast.Attribute):
            head = head.value
        scope = site.ctx.scope
        if isinstance(head, ast.Name) and scope.kind is not ScopeKind.MODULE and head.id in scope.binds:
            continue  # (a local name: not the function of the file or the module imported)
        found = callee(flow, call)
        wrapped = wrapped_load(ctx, *found) if found is not None else None
        if found is None or wrapped is None:
            continue
        binding = bind(found[1], call)
        if binding is None or wrapped.index not in binding.defaulted:
            continue
        if _not_a_foreign_checkpoint(m, flow, site):
            continue
        name = ctx.text(call.func)
        f = ctx.finding(
            CODE, call,
            f"`{name}(...)` leaves `{wrapped.param}` to its default None, so the checkpoint "
            "load it runs has no `map_location`: it restores tensors to the device they were "
            f"saved from and fails on machines without it; pass `{wrapped.param}=\"cpu\"` "
            "(then move to `device`)",
        )
        yield replace(f, evidence=wrapped.steps)


def _checkpoint_loads(m: Walker) -> Iterable[Site[ast.Call]]:
    """The calls of the file whose name ends as a checkpoint-reading call's does."""
    for last in sorted(CHECKPOINT_LOAD_TAILS):
        yield from m.calls_by_tail.get(last, ())


def _not_a_foreign_checkpoint(m: Walker, flow: FileFlow, site: Site[ast.Call]) -> bool:
    """What the load reads cannot have been saved on a device this machine lacks: bytes or
    a file this very function has just written, an in-memory buffer, a data file the
    file's own code writes from host data, a dataset's files, an XLA-only path's
    checkpoints, a NumPy array (see :mod:`torchferry.check.loads`)."""
    return saved_here(m, site) or in_memory(m, site) or host_data_file(m, flow, site) \
        or ndarray_only(m, site) or dataset_method(m, site) or xla_only(m, site) \
        or device_chosen(m, site) or saved_by_call(m, flow, site)


# receivers whose ``load_state_dict`` keeps the loaded tensors as they come (an optimizer
# keeps ``state["step"]`` where it was loaded; a scheduler or scaler stores what it gets)
_NOT_A_MODULE = re.compile(r"optim|sched|scaler|ema", re.I)


def _module_lsd(flow: FileFlow, m: Walker, node: ast.AST | None) -> bool:
    """``x.load_state_dict(sd)`` on an ``nn.Module`` (known as one, or named like a model),
    without ``assign=`` (which keeps the loaded tensors, on their device, as parameters)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "load_state_dict" and 1 <= len(node.args) <= 2):
        return False
    if any(k.arg in ("assign", None) for k in node.keywords):
        return False
    if _custom_loading(m):
        return False
    recv = node.func.value
    name = dotted(recv)
    last = name.rsplit(".", 1)[-1] if name is not None else ""
    if _NOT_A_MODULE.search(last):
        return False
    # a module by construction (built in this scope, or ``self`` of a module class), never
    # by its name or an annotation: ``model`` may be a wrapper that keeps what it is given
    return module_by_construction(flow, recv) or self_of_module(flow, recv)


def _custom_loading(m: Walker) -> bool:
    """Does the file define its own ``load_state_dict`` / ``_load_from_state_dict`` (a
    class that may keep the loaded tensors instead of copying them)?"""
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.name in ("load_state_dict", "_load_from_state_dict")
               for info in m.class_list for n in info.node.body)


def _fed_to_lsd(flow: FileFlow, m: Walker, node: ast.AST, stmt: ast.AST) -> bool:
    """Is ``node`` -- or ``node[key]``, ``node[key][key2]`` -- the state dict argument of a
    module's ``load_state_dict``?"""
    parents = header_parents(stmt)
    parent = parents.get(id(node))
    while isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, parents.get(id(parent))
    return _module_lsd(flow, m, parent) and isinstance(parent, ast.Call) and parent.args[0] is node


def _feeds_load_state_dict(flow: FileFlow, m: Walker, site: Site[ast.Call]) -> bool:
    """Does the loaded object go straight into a module's ``load_state_dict`` (and nowhere
    else)?  Then ``map_location="cpu"`` changes nothing: the values are copied into the
    parameters wherever they live."""
    call, stmt = site.node, site.stmt
    if _fed_to_lsd(flow, m, call, stmt):
        return True
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    scope = site.ctx.scope
    if name not in scope.binds or len(scope.binds[name]) != 1:
        return False  # rebound somewhere: its other values are not followed
    uses = 0
    for site2 in m.calls_by_tail.get("load_state_dict", ()):
        if site2.ctx.scope is not scope or not site2.node.args:
            continue
        root = site2.node.args[0]
        while isinstance(root, ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name) and root.id == name and \
                _fed_to_lsd(flow, m, site2.node.args[0], site2.stmt):
            uses += 1
    if uses == 0:
        return False
    loads = sum(1 for n in ast.walk(scope.node) if isinstance(n, ast.Name) and n.id == name
                and isinstance(n.ctx, ast.Load))
    return loads == uses
