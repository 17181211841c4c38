"""Host synchronisation on every iteration of a training loop.

## What it does
Flags `.item()`, `.tolist()`, `.cpu()`, `float(t)` / `int(t)` / `bool(t)` and `print(t)`
(also inside an f-string) of a tensor that the device-flow analysis establishes may live
on an accelerator (moved or made there, the output of a module there, a loss of such
tensors, also where it comes from a helper or a method of the checked files:
`loss = self.compute_loss(x, y)`; `float(loss)`; or from a method of a module parameter's
class, where every call of the run passes a module of classes of the run for it:
`model.penalty().item()` in `train(model, ...)`, called as `train(MLP().to(device), ...)`,
is what `MLP.penalty` returns, its `self` where `model` is, and so is a name bound once
to it; or computed from a batch such a loop fetches with `next(it)` in its own body, a loop
whose body calls `.backward()` and an optimizer's `.step()`, whatever the iterator is named:
`x, y = next(data_iterator)`; `x = x.to(device)`), in the body
of a training or evaluation loop: a loop over a DataLoader (also through `enumerate` or
`tqdm`), over `range(epochs)`-style ranges or a `while`, whose own body calls a model,
`loss.backward()` or `optimizer.step()`, directly or in a loop nested in that body (`for
head_loss in losses: logs.append(head_loss.item())` runs on every step, once per item). It
stays quiet when the read sits under a logging interval in any of those loops -- `if step %
100 == 0:`, `if i == 0:` on a loop's counter, `if verbose:` or `if log_...`, or a test on a
name the guarded body rebinds (`if nimg >= last + tick:` with `last = nimg` in it) -- and
for reads in an outer loop that run once per epoch. A read in a function
that does one training step (it calls `.backward()` or `optimizer.step()`, not in a loop of
its own) counts as in the loop that calls it on every iteration: `return {"loss": loss.item()}` in `train_step`, called
as `self.train_step(batch)` in `for batch in loader:` (in another method, in a base class for
an override, or as a free function).

## Why is this bad
Each of these waits for the accelerator to finish all queued work and copies the value to
the host, so the CPU can no longer run ahead of the GPU: "bouncing results back per step
for printing drowns the GPU's speed in ferry rides. Accumulate metrics on-device and bring
one number back per epoch."

## Example
```python
for inputs, labels in loader:
    inputs, labels = inputs.to(device), labels.to(device)
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
    total_loss += loss.item()
```

## Use instead
```python
total_loss = torch.zeros((), device=device)
for step, (inputs, labels) in enumerate(loader):
    inputs, labels = inputs.to(device), labels.to(device)
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
    total_loss += loss.detach()
    if step % 100 == 0:
        print(f"step {step}: {loss.item():.4f}")
print("epoch loss:", total_loss.item() / len(loader))
```

## Fix safety
No fix: the rewrite (an on-device accumulator, a logging interval) changes what is printed
and when.

A read that decides what the loop does (in an `if` or `while` test: `if bool(done.all()):
break`, a distributed stop flag; or bound to a name that the loop's `while` test or a later
`if` that leaves the loop with `break`/`return`/`raise` tests: `cur = loss.item()` ...
`if abs(cur - prev) < tol: break`) or that follows an explicit `synchronize()` in the same
iteration is not flagged: it cannot be deferred, or it costs no extra wait. Nor is a read
that follows, in the same iteration, a host read of a tensor that may be on the
accelerator with no device work in between: `losses.append(loss.item())` then
`accs.append(acc.item() * 100)` -- the first waited for everything queued, the second
waits for nothing more (the first is reported). "No device work" is read strictly: every
statement in between, and the read's own, only reads tensors to the host, does Python
arithmetic on what was read, binds names, or stores into a list or dict that the code
binds only to a `[...]`/`{...}` display (`logs["acc"] = acc.item()`); any other statement,
an `if` whose test calls something, or entering a `with` or a nested loop between the two
reads may queue work, and the read is reported.

Quiet in a file that never names an accelerator or a device and calls nothing that could
move a model there (`.to`, `torch.load`, `prepare`, ...), as FRY003 is: its tensors are on
the CPU, and reading them waits for nothing.

A device parameter that every call of the run points at the CPU (`device =
torch.device("cpu")`, then `test(model, device, loader)`) is the CPU: what the function
moves there and computes from it is read without a wait.

## Known limits
A device is the CPU only where the code establishes it on every path: one chosen by
`torch.cuda.is_available()`, an argument, the environment or a configuration may be an
accelerator, and so may a parameter left to a `device="cpu"` default by a call.
Reads in helper functions are seen only in a step function (one that calls `.backward()` or
`optimizer.step()` itself) called from the loop in the same file; a read in any other helper
called per step is not (values computed there are followed). A
tensor that comes in as a parameter counts as possibly on the accelerator only where the
function uses it as a tensor; a value the analysis cannot place (a call it cannot follow)
is not flagged; a function sees a module-level name as the module leaves it, so a model
rebound later in the module (`model = torch.load(f)` after training) is unknown there.
An earlier read silences a later one only where the earlier tensor may be on the
accelerator for a reason the analysis sees: after `lossG.item()` of a module of another
library whose output it cannot place, `loss_l2.item()` is still reported. The two reads
are taken to wait on the same stream of the same device; code that spreads the iteration
over several devices or streams (model parallelism) may still wait at the second read. A
helper of the run that synchronizes is not counted as a wait (what it does after its wait
is not followed). Collecting per-batch predictions with
`.cpu()` for a metric computed after the loop is flagged too; when that is what you want,
silence the line with `# noqa: FRY007`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from torchferry.check.api import Context, Finding
from torchferry.check.flow.drained import waited_before
from torchferry.check.flow.queries import on_device_tensor
from torchferry.check.names import AVAIL_NAME, GUARD_NAME, end_pos, learning_step, pos, short
from torchferry.check.scopes import ClassInfo as ScopeClass
from torchferry.check.scopes import Scope, ScopeKind, Site, Walker
from torchferry.check.training_loops import LoopKind, Loops, guarded

CODE = "FRY007"
NAME = "sync-in-loop"
FIX = "none"

# the fix in one line: also what `ferry run --trips` says for a read on every step
HINT = ("accumulate on the device (`total += loss.detach()`) and read once per epoch, or "
         "guard it with a logging interval (`if step % 100 == 0:`)")


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    if _no_accelerator_in_file(ctx, m):
        return  # nothing can be on an accelerator: the reads wait for nothing (as FRY003)
    for _ in ctx.flow.results():  # every scope interpreted: what the calls of the run give known
        pass
    for meth in ("item", "tolist", "cpu"):
        for site in m.calls_by_tail.get(meth, ()):
            func = site.node.func
            if not isinstance(func, ast.Attribute) or not _in_hot_loop(ctx, site):
                continue
            if on_device_tensor(ctx.flow, func.value):
                yield ctx.finding(
                    CODE, site.node,
                    f"`{short(ctx.text(site.node))}` waits for the accelerator on every iteration "
                    f"of the training/evaluation loop; {HINT}",
                )
    for name in ("float", "int", "bool", "print"):
        for site in m.calls_by_tail.get(name, ()):
            call = site.node
            if not isinstance(call.func, ast.Name) or name in site.ctx.scope.binds:
                continue
            args = list(call.args)
            if name != "print" and len(args) != 1:
                continue
            if name == "print":  # look inside f-strings: ``print(f"loss {loss}")``
                flat: list[ast.expr] = []
                for a in args:
                    if isinstance(a, ast.JoinedStr):
                        flat.extend(v.value for v in a.values if isinstance(v, ast.FormattedValue))
                    else:
                        flat.append(a)
                args = flat
            if not args or not _in_hot_loop(ctx, site):
                continue
            hit = next((a for a in args if on_device_tensor(ctx.flow, a)), None)
            if hit is None:
                continue
            what = "printing" if name == "print" else f"`{name}()` of"
            yield ctx.finding(
                CODE, call,
                f"{what} tensor `{short(ctx.text(hit), 40)}` waits for the accelerator on every "
                f"iteration of the training/evaluation loop; {HINT}",
            )


def _in_hot_loop(ctx: Context, site: Site[ast.Call]) -> bool:
    """Does the read run on every iteration of a training/evaluation loop: in its body, or
    in a loop nested in it (``for head, loss in enumerate(losses): logs.append(loss.item())``
    inside the step loop runs each step, once per item)?  The nearest enclosing training
    loop counts; no loop from it to the read may guard the read with a logging interval,
    need its value to decide what it does, or have waited before it in the same iteration
    (a ``synchronize()``, or a host read of a device value with no device work since)."""
    lp = ctx.loops
    loops = site.ctx.loops
    if not loops:
        return _in_step_function(lp, site)
    for k in range(len(loops) - 1, -1, -1):
        if lp.is_training_loop(loops[k], site.ctx):
            return not any(guarded(site.ctx, loop) or _decides_control_flow(site, loop) or
                           _after_synchronize(site, loop) or waited_before(ctx.flow, site, loop)
                           for loop in loops[k:])
    return False


def _in_step_function(lp: Loops, site: Site[ast.Call]) -> bool:
    """A read outside any loop of a function that does one training step (it calls
    ``.backward()`` or ``optimizer.step()``, not in a loop of its own) and that a training/evaluation loop of the
    file calls on every iteration (``metrics = self.train_step(batch)`` in ``for batch in
    loader:``): the read runs once per step, as if it were written in that loop."""
    scope = site.ctx.scope
    fn = scope.function
    if fn is None or _logging_guard(site.ctx.ifs, set()) or _decides_control_flow(site, fn):
        return False
    if not any(learning_step(c.node) is not None and not c.ctx.loops for c in scope.calls):
        return False  # (a function that steps in a loop of its own runs many steps per call)
    for call in _callers(lp.syntax, scope, fn.name):
        if not call.ctx.loops:
            continue
        loop = call.ctx.loops[-1]
        kind = lp.loop_iter_kind(loop, call.ctx)
        if kind is None or kind is LoopKind.RANGE or \
                (kind is not LoopKind.LOADER and lp.has_inner_batch_loop(loop)):
            continue
        if not guarded(call.ctx, loop):
            return True
    return False


def _callers(m: Walker, scope: Scope, name: str) -> Iterator[Site[ast.Call]]:
    """The calls of the function ``scope`` in its file: ``name(...)`` of a module-level
    function, ``self.name(...)`` in a method of its class or of a class it inherits from
    (``self`` may be an instance of the subclass)."""
    cls = scope.cls
    top = cls is None and scope.parent is not None and scope.parent.kind is ScopeKind.MODULE
    for call in m.calls_by_tail.get(name, ()):
        func = call.node.func
        if top and isinstance(func, ast.Name):
            yield call
        elif cls is not None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == call.ctx.scope.self_name and call.ctx.scope.cls is not None \
                and _inherits(m, cls, call.ctx.scope.cls.name, 0):
            yield call


def _inherits(m: Walker, cls: ScopeClass, base: str, depth: int) -> bool:
    """Is ``cls`` the class ``base`` of the file, or a subclass of it?"""
    if cls.name == base:
        return True
    if depth > 8:
        return False
    for b in cls.bases:
        other = m.classes.get(b.rsplit(".", 1)[-1])
        if other is not None and other is not cls and _inherits(m, other, base, depth + 1):
            return True
    return False


def _logging_guard(ifs: tuple[tuple[ast.If, bool], ...], counters: set[str]) -> bool:
    """Under an ``if`` body whose test looks like a logging interval (``%``, a counter,
    ``verbose``, ``log_...``)."""
    for ifnode, in_body in ifs:
        if not in_body:
            continue
        for x in ast.walk(ifnode.test):
            if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Mod):
                return True
            if isinstance(x, ast.Name) and (x.id in counters or GUARD_NAME.search(x.id)):
                return True
            if isinstance(x, ast.Attribute) and GUARD_NAME.search(x.attr):
                return True
    return False


_EXITS = (ast.Break, ast.Return, ast.Raise)


def _decides_control_flow(site: Site[ast.Call], loop: ast.AST) -> bool:
    """The value is needed now: it is read in an ``if``/``while`` test (``if bool(done.all()):
    break``, a distributed stop flag), or bound to a name that the loop's ``while`` test or a
    later ``if`` that leaves the loop tests (``cur = loss.item()`` ... ``if abs(cur - prev)
    < tol: break``, an early stop); deferring it would change what the loop does."""
    st = site.stmt
    if isinstance(st, (ast.If, ast.While)):
        return pos(st.test) <= site.pos <= end_pos(st.test)
    if not isinstance(st, ast.Assign) or not pos(st.value) <= site.pos <= end_pos(st.value):
        return False
    names = {t.id for t in st.targets if isinstance(t, ast.Name)}
    if not names:
        return False

    def tests_names(test: ast.expr) -> bool:
        return any(isinstance(x, ast.Name) and x.id in names for x in ast.walk(test))

    if isinstance(loop, ast.While) and tests_names(loop.test):
        return True
    for node in ast.walk(loop):
        if isinstance(node, ast.If) and pos(node) > pos(st) and tests_names(node.test) and \
                any(isinstance(b, _EXITS) for b in node.body):
            return True
    return False


def _after_synchronize(site: Site[ast.Call], loop: ast.AST) -> bool:
    """An explicit ``synchronize()`` earlier in the same iteration already waited: the read
    costs no extra wait."""
    for s in site.ctx.scope.calls_between(pos(loop), site.pos - 1):
        func = s.node.func
        if isinstance(func, ast.Attribute) and func.attr == "synchronize" and \
                s.ctx.loops and s.ctx.loops[-1] is loop:
            return True
    return False


# calls that may put a model or its inputs on an accelerator without naming one
_MAY_MOVE = ("to", "load", "prepare", "from_pretrained", "to_empty", "set_default_device",
             "set_default_tensor_type", "DataParallel", "DistributedDataParallel")


def _identifiers(ctx: Context) -> Iterator[str]:
    """The names, attribute names and keyword names of the file."""
    yield from (n.id for n in ctx.nodes.get(ast.Name, ()) if isinstance(n, ast.Name))
    yield from (n.attr for n in ctx.nodes.get(ast.Attribute, ()) if isinstance(n, ast.Attribute))
    yield from (n.arg for n in ctx.nodes.get(ast.keyword, ()) if isinstance(n, ast.keyword) and n.arg)


def _no_accelerator_in_file(ctx: Context, m: Walker) -> bool:
    """Nothing in the file names an accelerator or a device (no ``cuda``/``gpu``/``device``/
    ``mps``/``xpu`` identifier, keyword or literal) or calls what may move a model there
    (``.to``, ``torch.load``, ``accelerator.prepare``...): a model called on inputs of
    unknown origin is then on the CPU (the udacity exercise notebooks)."""
    # the cheap tests first: the walk over every node is most of this rule's time
    # (each identifier once, searched together: no word of the pattern spans a line break)
    return not m.accel_consts and not any(m.calls_by_tail.get(n) for n in _MAY_MOVE) and \
        not AVAIL_NAME.search("\n".join(set(_identifiers(ctx))))
