"""Hard-coded accelerator device.

## What it does
Flags a literal accelerator device -- `"cuda"`, `"cuda:0"`, `"mps"`, `"xpu"` -- used as a
device (`torch.device("cuda")`, `device="cuda"`, `.to("cuda")`, `map_location="cuda"`,
`device = "cuda"`, `torch.set_default_device("cuda")`), an integer device ordinal given to
torch as a device (`torch.device(0)`, `device=0` of a torch function or layer, `.to(0)` and
`.to(device=0)` of a tensor or a module: device 0 of the accelerator, which torch 2.13 refuses
without one, "Cannot access accelerator device when none is available"), every `.cuda()` call, the legacy
CUDA constructors (`torch.cuda.FloatTensor(...)`, `torch.cuda.LongTensor(...)`...),
`torch.set_default_tensor_type("torch.cuda.FloatTensor")` and the `torch.cuda` functions
that initialise CUDA and so raise without it (`torch.cuda.synchronize()`,
`current_device()`, `get_device_name()`, `get_device_properties()`,
`get_device_capability()`, `mem_get_info()`, `can_device_access_peer()`, `ipc_collect()`,
`get_sync_debug_mode()`, `set_sync_debug_mode()`, `current_blas_handle()`,
`current_solver_handle()`, `cudart()`: each calls `torch.cuda._lazy_init()`, which raises
"Torch not compiled with CUDA enabled" on the CPU wheel and "Found no NVIDIA driver" on a
CUDA build without a GPU), where the code does not check that the accelerator is available.
Those that answer without CUDA are not flagged: `is_available()`, `device_count()`,
`is_initialized()`, `empty_cache()`, `manual_seed()`, `manual_seed_all()`, `seed()` and the
memory statistics (`memory_allocated()`, `max_memory_allocated()`, `memory_reserved()`,
`memory_stats()`: 0 or empty there).

A parameter default (`def f(x, device="cuda")`, `device=torch.device("cuda")`) of a
parameter the function places something with (a `device=` argument, `.to(device)`,
`torch.device(device)`, or `self.device = device` that a method of the class uses so) is the
caller's to override: it is flagged where a call of the run leaves the parameter to it (`f(x)`, `Block(dim)` of a module whose
`__init__` has the default), binding positional and keyword arguments as Python does, at the
default, with that call as evidence. The function must be defined at the file's top level
(or be the `__init__` of a class there) and every use of its name, in the file and in the
files of the run that import it, a call that can be bound: a name handed on as a value
(`map(f, xs)`, a subclass), an attribute call (`mod.f(x)`), a call spreading `*args` or a
dict, a decorator or a star import leaves it unflagged, and so does a call under a test on
availability. A call spreading the `**kw` of the top-level function it stands in (`def
g(cfg, **kw): return f(cfg, **kw)`), `kw` used nowhere else there, passes the parameter
only where a caller of `g` puts it in `kw`: a call of `g` in the run that passes no
`device=` relies on the default (and is the evidence), and so does the forwarding call
itself where `g` takes `device` as its own parameter; where no call of `g` is seen the
forwarder relies on nothing and hides no other call; a call of `g` spreading `**` leaves it
unflagged. In the same way, a test of a parameter whose default is None against None
(`if device is not None: ... else: model.cuda()`, `if device is None: x = x.cuda()`) says
nothing of the accelerator: the arm that runs on the default is no guard where such a call
leaves the parameter to it (the evidence names the call; no fix is offered, the device
variable being None there).

An `argparse` option's default (`parser.add_argument("--device", default="cuda")`, or
`default=torch.device("cuda")`) is what the program runs on when the option is not given.
It is flagged, at the default, where the file uses the parsed value as a device
(`device=args.device` of any call, `.to(args.device)`, `torch.device(args.device)`,
`device = args.device`; `args` bound to `parser.parse_args()` or the first value of
`parse_known_args()`), with that use as evidence, and the program has no CPU fallback (as
defined below, in the file or a file of its program). It is quiet where the file assigns the
option again (`if not torch.cuda.is_available(): args.device = "cpu"`), where every such use
is under a test of availability, and where the default is computed from availability.

The portable line `device = "cuda" if torch.cuda.is_available() else "cpu"`, literals
under an `if torch.cuda.is_available():` (or `if use_cuda:`, `if args.gpu:`) guard or in a
conditional expression testing one (`x.cuda() if self.use_cuda else x`), code
after an `assert torch.cuda.is_available()` or after an `if` on availability with an arm
that leaves (`if not torch.cuda.is_available(): return x`, `raise`, `sys.exit()`,
`pytest.skip()`, `continue` in a loop), and comparisons such as
`x.device.type == "cuda"` are fine. A test of a device's type or name guards the arm where
it holds an accelerator, whatever the device is called: `dev.type == "cuda"`,
`x.device.type != "cpu"`, `x.is_cuda`, `dev.type in ("cuda", "mps")`, `dev ==
torch.device("cuda")`, `"cuda" in str(dev)`, `str(dev).startswith("cuda")`, an `and`
holding one, a name bound once to one (`on_gpu = dev.type == "cuda"`) or to
`torch.cuda.is_available()`; and so does an earlier `assert` of one, or an earlier `if` on
one whose arm without the accelerator leaves (`if dev.type != "cuda": return`), for what
follows it in the function. So is code in a function or class decorated with a
check (`@unittest.skipIf(not torch.cuda.is_available(), ...)`, `@requires_cuda`,
`@RunIf(min_cuda_gpus=1)`), a test module with such a `pytestmark`, a device string
handed to a mock, and code that is CUDA-only by design: in a function or class named for
an accelerator (`CUDAAccelerator`, `_probe_gpus`), in a file that uses a CUDA-only library
(bitsandbytes, triton, apex, Megatron-LM...) or places parts on two or more numbered GPUs
(`.cuda(0)` and `.cuda(2)`, `.to(0)` and `.to(1)`, `torch.device("cuda", 0)` and
`torch.device("cuda", 1)`: pipeline or model parallelism), or next to CUDA streams, `torch.cuda.set_device(local_rank)`,
an NCCL process group or CUDA memory statistics (`torch.cuda.max_memory_allocated()`...)
called without testing for a GPU, in the same function or class, an enclosing one, or a
function of the same file that one of those calls (`ddp_setup(rank, world_size)`,
`print_memory_usage()`).

A call of one of the `torch.cuda` functions above is also quiet where the device it is
handed is one the analysis knows is on the accelerator (`gpu = torch.device("cuda")`, then
`torch.cuda.synchronize(gpu)`: the literal is the finding), where it is a parameter that
every call of the run gives such a device or leaves to an accelerator default (`def
bench(dev="cuda")`), and where every call of its function is itself guarded (`if
dev.type == "cuda": sync()`), followed up to three calls out, with all the calls known to
the analysis (a function or method of the file's top level, called only by its name, each
call resolved to it, in a file no other file of the run imports).

A move in the body of a `try` whose handler catches its failure on every machine and goes
on without it is guarded too: `try: _, idx = torch.sort(s.cuda()) except: _, idx =
torch.sort(s)`. Catching means a bare `except:`, `except Exception` or `except
BaseException`, or, for a move to CUDA, a tuple holding both `AssertionError` (what torch
2.13's CPU wheel raises: "Torch not compiled with CUDA enabled") and `RuntimeError` (what a
CUDA build without a driver or a GPU raises); `except RuntimeError:` alone is no guard. The
handlers up to the catching one must not raise, nor read a value that the failed statement
or a later one of the `try` body would have bound, and must bind each such value again or
end by leaving (`return`, `continue`, `break`, `sys.exit()`): else the program fails after
the `try` with the value missing (`try: y = x.cuda() except: pass`, then `y`), and the
move is flagged.

Which are reported depends on how the run selects the rule (the rule module's `REPORTED`):
where a selector names it (`--select FRY001`, `--select ALL`, `extend-select = ["FRY001"]`),
every one; where only the default rule set runs it, those in a program whose own code picks
its device with a CPU fallback -- `"cuda" if torch.cuda.is_available() else "cpu"`,
`torch.device("cuda" if torch.cuda.is_available() else "cpu")`, or an `if
torch.cuda.is_available():` (or `torch.backends.mps`'s, `torch.xpu`'s) whose arm assigns
`"cpu"` or `torch.device("cpu")` -- in the file itself, a file of the run it imports, or a
file of the run that imports it, directly or not (as for FRY010, when at most eight do; and,
as every default rule's, none in an arm of a function that no call of the run takes). Such a
program is written to run without the accelerator, and that run crashes at the literal: the
training scripts that call `.cuda()` on every batch after a helper they import chose
`torch.device("cuda" if torch.cuda.is_available() else "cpu")`. The finding's evidence names
the fallback. Only the code counts: a flag (`args.cuda`, `--no-cuda`) or a variable's name
says nothing here. On seven labelled sets of real code (development data) this part kept 32
of 590 findings: 28 real, 2 debatable, 2 false (88% actionable, against 17% for the whole
rule); 21 of the 28 are of one project. On 36 code bases it was not chosen on (measured
blind, 161,611 lines) it kept 7 findings: 1 real, 5 debatable (a renderer that only exists for
CUDA, a data generator sized for a GPU, a script that fails earlier without one), 1 false
(a branch no configured loss takes); on 20 public bug reports it caught 12 of the 22
hard-coded accelerators.

Where a selector names the rule, it also reports the wrong GPU: a `.cuda()` with no argument
in the body of an `if` whose test is `<expr>.is_cuda` (`if x.is_cuda:`,
`if next(model.parameters()).is_cuda:`). Such a test is a guard for the lesson above, but
`.cuda()` moves to the *current* CUDA device (cuda:0 unless `torch.cuda.set_device` says
otherwise), not to the device of `<expr>`, which the code has at hand: with `x` on `cuda:1`
the value lands on `cuda:0` and meets `x` there ("Expected all tensors to be on the same
device"). The message suggests `.to(x.device)`; the evidence names the test. `x.cuda()` of
the tested value itself is not reported. So is a `.cuda()` with no argument of a value the
same function has just moved to a device it chose: `x = x.to(self.device)` (or a parameter,
`x.to(device)`) and later in the same block, with `x` neither bound nor called on in between,
`if self.cuda: x = x.cuda()`. That second move sends `x` from the chosen device (`cuda:1`,
say) to the current one; the evidence names the first move.

## Why is this bad
"Code with a literal `"cuda"` inside crashes on every machine without one -- including your
reader's." The device line at the top costs nothing and makes the file portable: pick the
device once, into a variable, and use that variable everywhere.

## Example
```python
import torch

model = torch.nn.Linear(4, 2).cuda()
x = torch.ones(8, 4, device="cuda")
```

## Use instead
```python
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(4, 2).to(device)
x = torch.ones(8, 4, device=device)
```

## Fix safety
Unsafe. When a device variable (`device`, `dev`, `*_device`) is in scope, the literal is
replaced by it and `.cuda()` by `.to(device)`; `device = "cuda"` itself becomes the portable
line. The program then runs on the CPU where it used to crash -- usually what you want, but a
deliberate "this needs a GPU" turns into a silent slow run, so review it. The `torch.cuda`
functions get no fix: wrapping the call in a guard changes what runs on some machines.

## Known limits
`.cuda()` of a `torch.nn` module built from constants that holds no tensor
(`nn.CrossEntropyLoss().cuda()`, `nn.ReLU().cuda()`) is not flagged: it moves nothing and runs
on a machine without a GPU; the same module bound to a name first (`criterion.cuda()`) still is.
A `torch.device("cuda")` only compared with (`x.device == torch.device("cuda")`,
`torch.device("cuda").type`) is not flagged: building the descriptor needs no GPU.
A parameter default is flagged only through a call of the run that relies on it: the
default of a public function no file of the run calls, or of a method (`obj.run(x)`), is
not; nor one reached only through a public `**kw` forwarder no file of the run calls. A
forwarder is followed one step: its callers must name the parameter or leave it, not
forward `**kw` again. Device strings built at run time (`f"cuda:{rank}"`) and `device_type=` arguments
(`torch.autocast("cuda")` only warns on a CPU machine) are not flagged. Of the `torch.cuda`
functions only those named above are: others that raise without CUDA are not read (the
random state's `initial_seed()`, `get_rng_state()`; `set_device()` and
`reset_peak_memory_stats()`, an `AttributeError` on the CPU wheel; `Event()`, `Stream()`,
`current_stream()`, which mark code written for CUDA; `init()`, which asks for CUDA by
name), and a function bound to a name and
called through it (`sync = torch.cuda.synchronize`) is not flagged. A test that admits
another accelerator (`dev.type in ("cuda", "mps")`, `x.device.type != "cpu"`) guards a
`torch.cuda` call too, although on a Mac it raises there. The calls of a function are read
only where the analysis knows them all: a function another file imports, one handed on as
a value (`Thread(target=sync)`), a nested one, or a method called through an object of
unknown class leaves its `torch.cuda` call flagged, however its callers test the device. An integer ordinal is
flagged only where it is a device of torch: `.to(0)` of a value the analysis does not know as
a tensor or a module (a parameter never used as one) is not, nor a `device=0` handed to
another library (`pipeline(..., device=0)` of transformers: what its int means is that
library's, read nowhere in the code checked), nor one of the accelerator's own APIs
(`torch.cuda.memory_allocated(device=0)`). Any `if` whose test mentions the device, cuda, gpu
or availability counts as a guard of its arms, even if it tests something else, but for the
arm of a parameter's default None above: which arm a flag's name vouches for is not in the
code (`if args.no_cuda:` / `if args.cuda:`), so a test is not read for what it establishes
otherwise; but a test that asks only whether another accelerator is available
(`torch.backends.mps.is_available()`, `is_xpu_available()`, `torch.npu.is_available()`, a
name bound once to one) guards no CUDA code (`.cuda()`, a `"cuda"` literal, a `torch.cuda`
function) in either arm: its `else` runs on a machine with neither. One that also names CUDA
(`mps.is_available() or torch.cuda.is_available()`) still guards both arms. An earlier
`if torch.cuda.is_available():` whose arms both go on (a CPU `else`, or none) guards only
its arms: a literal after it is flagged. One arm that leaves anywhere in it (a `return`
under a further `if`) counts as leaving. "CUDA-only by design" is
read from the code around the literal; a module-level call of a setup function that pins the
GPU quiets the whole file, including a library function in it that was meant to be portable.
The default part knows a fallback only as written out: one chosen by a flag (`"cuda" if
args.cuda else "cpu"`) is none, and a notebook is not read for the other files of the run. A
file checked alone (`ferry check train.py`, the language server) knows only its own; past
eight files importing it, the importers are not read. Every finding of a program with a
fallback is in the default part, also one on a path that only the accelerator's run takes
without testing for it there (`if device.type == "cuda": helper()`, the `.cuda()` inside
`helper`).
An option default is read only for `add_argument` of the file whose option string (or
`dest=`) names the attribute read off a namespace the file gets from `parse_args()`: a
namespace handed to the file as a parameter (`def main(args)`), an option whose value
reaches a device through another file (`run(args)` with `args.device` read there), a
configuration file (Hydra's YAML, `OmegaConf`) and `set_defaults(device="cuda")` are not
read. It is never in the default part (it is quiet wherever the program has a fallback).
A `try` guards only what fails inside it: a call (`.cuda()`, a legacy constructor) or a
literal device of a `.to(...)` or of `device=` / `map_location=` of a torch function; a
device bound to a name in the `try` (`device = torch.device("cuda")`) fails later, where it
is used, and stays flagged. A handler's value counts as bound again only where a top-level
assignment of the handler binds it (not under an `if` of the handler), and names are
compared by their text; a legacy constructor (`TypeError` on the CPU wheel) and a move to
another accelerator are guarded by a catch-all handler only.
The wrong-GPU part reads only a test that is exactly `<expr>.is_cuda` (not `not x.is_cuda`,
not `x.is_cuda and ...`, not `x.device.type == "cuda"`) and only a `.cuda()` with no
argument; `.to("cuda")` under such a test is not reported. A value moved twice is read in
one function, by the text of the value (`x`, `self.net`) and a device that is `self.<attr>`
or a parameter: a `.cuda()` of another value that meets the moved one (`y.cuda() + x`), a
device kept in a local variable, a first move in an enclosing block's sibling arm, or any call
on the value between the two moves (`x.float()`) leaves it unreported. It offers no fix.
"""

from __future__ import annotations

import ast
import enum
import os
import re
import weakref
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, replace

from torchferry.check.api import Context, Edit, Evidence, Finding, Fix, Selected, walk
from torchferry.check.caught import LEAVING_CALLS, catching_try
from torchferry.check.cpu_fallback import checks_availability, program_fallback
from torchferry.check.default_calls import Reliance, relying_call
from torchferry.check.flow import FileFlow
from torchferry.check.flow.binding import default_of
from torchferry.check.flow.lattice import Kind, Where
from torchferry.check.flow.queries import is_device, value_of
from torchferry.check.names import (
    DEVICE_NAME,
    EMPTY_MODULES,
    LEGACY_CONSTRUCTORS,
    dotted,
    end_pos,
    is_accel_literal,
    kwarg,
    pos,
    tail,
)
from torchferry.check.scopes import How, Scope, ScopeKind, Site, Walker, _before, visible_scopes

CODE = "FRY001"
NAME = "hardcoded-accelerator"
FIX = "unsafe"

_DEVICE_KWARGS = frozenset({"device", "map_location"})


class Certainty(enum.IntEnum):
    """What the program's own code says of running without the accelerator (ordered)."""

    #: nothing: the accelerator may be required on purpose (code that is CUDA-only by design)
    MAY = 1
    #: the program picks its device with a CPU fallback (``"cuda" if
    #: torch.cuda.is_available() else "cpu"``) in the file, a file it imports or a file of
    #: the run that imports it: it is written to run without the accelerator, and that run
    #: crashes at the hard-coded one
    CPU_PATH = 2


#: the findings reported, by how the run selects the rule: those at least this certain
REPORTED: dict[Selected, Certainty] = {
    Selected.BY_DEFAULT: Certainty.CPU_PATH,
    Selected.NAMED: Certainty.MAY,
}


def check(ctx: Context) -> Iterable[Finding]:
    if ctx.selected(CODE) is Selected.NAMED:
        yield from _wrong_gpus(ctx)
    found = list(_findings(ctx))
    if not found:
        return
    fallback = program_fallback(ctx.tree, ctx.path, ctx.project)
    certainty = Certainty.MAY if fallback is None else Certainty.CPU_PATH
    if certainty < REPORTED[ctx.selected(CODE)]:
        return
    for f in found:
        yield f if fallback is None else replace(f, evidence=(*f.evidence, fallback))


def _findings(ctx: Context) -> Iterable[Finding]:
    """Every hard-coded accelerator of the file that no check of availability guards."""
    m = ctx.syntax
    for const in m.accel_consts:
        yield from _literal(ctx, m, const)
    yield from _ordinals(ctx, m)
    yield from _legacy(ctx, m)
    yield from _cuda_queries(ctx, m)
    for site in m.calls_by_tail.get("cuda", ()):
        call = site.node
        if not isinstance(call.func, ast.Attribute):
            continue
        steps = _unguarded(ctx, m, site)
        if steps is None:
            continue
        if site.ctx.scope.name == "cuda":
            continue  # implementing a ``cuda()`` method of one's own
        if _moves_nothing(m, call.func.value):
            continue
        recv = ctx.text(call.func.value)
        fix = None
        # (in an arm that runs on a parameter's default None, that parameter is None there)
        var = None if steps else _device_var(m, ctx.flow, site.ctx.scope, site.pos)
        if var is not None and not call.args:
            rest = ", ".join(ctx.text(k) for k in call.keywords)
            _, _, el, ec = ctx.span(call.func.value)
            _, _, cl, cc = ctx.span(call)
            new = f".to({var}{', ' + rest if rest else ''})"
            fix = Fix((Edit(el, ec, cl, cc, new),), False, f"Replace `.cuda()` with `.to({var})`")
        shown = f"{recv}.cuda()" if len(recv) <= 30 and "\n" not in recv else ".cuda()"
        _, _, rl, rc = ctx.span(call.func.value)
        _, _, el, ec = ctx.span(call)
        yield Finding(
            CODE,
            f"`{shown}` hard-codes CUDA and crashes on machines without a GPU; "
            "pick the device once (`device = \"cuda\" if torch.cuda.is_available() else \"cpu\"`) "
            "and use `.to(device)`",
            rl, rc, el, ec, fix, steps,
        )


def _wrong_gpus(ctx: Context) -> Iterable[Finding]:
    """The ``.cuda()`` calls that an ``is_cuda`` test guards, sent to the current GPU where
    the tested tensor's device is at hand (:func:`_wrong_gpu`)."""
    m = ctx.syntax
    guarded: dict[int, Site[ast.Call]] = {}
    for site in m.calls_by_tail.get("cuda", ()):
        if isinstance(site.node.func, ast.Attribute) and _guarded(m, site):
            guarded[id(site.node)] = site
    reported: set[int] = set()
    for site in guarded.values():
        for f in _wrong_gpu(ctx, site):
            reported.add(id(site.node))
            yield f
    for scope in m.functions:
        fn = scope.function
        if fn is None:
            continue
        for move, call in _moved_twice(ctx, fn):
            if id(call) in guarded and id(call) not in reported:
                reported.add(id(call))
                yield _twice_finding(ctx, move, call)


def _twice_finding(ctx: Context, move: ast.Assign, call: ast.Call) -> Finding:
    """The finding for ``call``, a ``.cuda()`` of the value that ``move`` sent to a device
    the program chose."""
    assert isinstance(call.func, ast.Attribute) and isinstance(move.value, ast.Call)
    recv = ctx.text(call.func.value)
    dev = ctx.text(_device_arg(move.value) or move.value)
    ml, mc, _, _ = ctx.span(move)
    return _at_cuda(
        ctx, call,
        f"`{_shown_cuda(recv)}` moves `{recv}` again, to the current CUDA device (cuda:0 unless "
        f"set), not necessarily `{dev}` the code chose for it: with several GPUs the value "
        f"meets tensors of another device; keep `.to({dev})` alone",
        Evidence(f"`{recv}` is moved to `{dev}` here", ml, mc),
    )


def _shown_cuda(recv: str) -> str:
    """``recv.cuda()`` as a message shows it: whole where short, else ``.cuda()``."""
    return f"{recv}.cuda()" if len(recv) <= 30 and "\n" not in recv else ".cuda()"


def _at_cuda(ctx: Context, call: ast.Call, message: str, evidence: Evidence) -> Finding:
    """A wrong-GPU finding at ``.cuda()`` of ``call`` (from the end of its receiver to the
    call's end), with no fix."""
    assert isinstance(call.func, ast.Attribute)
    _, _, rl, rc = ctx.span(call.func.value)
    _, _, el, ec = ctx.span(call)
    return Finding(CODE, message, rl, rc, el, ec, None, (evidence,))


def _device_arg(call: ast.Call) -> ast.expr | None:
    """The device of a ``.to(...)`` call: its first argument or ``device=``."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "device"), None)


def _chosen_device(fn: ast.FunctionDef | ast.AsyncFunctionDef, e: ast.expr | None) -> bool:
    """``self.<attr>`` or a parameter of ``fn``: a device the program (or its caller) chose,
    not a literal."""
    if isinstance(e, ast.Attribute):
        return isinstance(e.value, ast.Name) and e.value.id == "self"
    a = fn.args
    params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    return isinstance(e, ast.Name) and e.id in params


def _moved_to_chosen(ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef, st: ast.stmt) -> str | None:
    """The text of ``T`` where ``st`` is ``T = T.to(D)`` with ``D`` a chosen device."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
        return None
    v = st.value
    if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "to"):
        return None
    target = ctx.text(st.targets[0])
    if ctx.text(v.func.value) != target or not _chosen_device(fn, _device_arg(v)):
        return None
    return target


def _moved_twice(ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterable[tuple[ast.Assign, ast.Call]]:
    """``T = T.to(D)`` (``D`` chosen) and, later in the same block with ``T`` not bound
    again in between, a no-argument ``T.cuda()``."""
    for block in _blocks(fn):
        for i, st in enumerate(block):
            target = _moved_to_chosen(ctx, fn, st)
            if target is None:
                continue
            assert isinstance(st, ast.Assign)
            first = _first_event(ctx, block[i + 1:], target)
            if first is not None:
                yield st, first


def _first_event(ctx: Context, rest: list[ast.stmt], target: str) -> ast.Call | None:
    """The no-argument ``target.cuda()`` call, when that is the first thing the statements
    ``rest`` do to ``target`` (a call of it, a binding of it) in source order."""
    events: list[tuple[tuple[int, int], ast.AST]] = []
    for st in rest:
        for n in ast.walk(st):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return None  # a nested scope: out of this reading
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and ctx.text(n.func.value) == target:
                events.append(((n.lineno, n.col_offset), n))
            elif isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)) \
                    and isinstance(n.ctx, ast.Store) and ctx.text(n) == target:
                events.append(((n.end_lineno or n.lineno, 10**6), n))
    if not events:
        return None
    _, first = min(events, key=lambda e: e[0])
    if isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) \
            and first.func.attr == "cuda" and not first.args and not first.keywords:
        return first
    return None


def _blocks(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterable[list[ast.stmt]]:
    """The statement lists of ``fn``'s body, nested blocks included, nested scopes not."""
    todo: list[list[ast.stmt]] = [fn.body]
    while todo:
        block = todo.pop()
        yield block
        for st in block:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for name in ("body", "orelse", "finalbody"):
                sub = getattr(st, name, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    todo.append(sub)
            for h in getattr(st, "handlers", ()):
                todo.append(h.body)


def _wrong_gpu(ctx: Context, site: Site[ast.Call]) -> Iterable[Finding]:
    """A no-argument ``.cuda()`` in the body of an ``if <expr>.is_cuda:``: the current CUDA
    device, which need not be ``<expr>``'s, at hand as ``<expr>.device``.  Only where a
    selector names the rule, and not of ``<expr>`` itself."""
    call = site.node
    assert isinstance(call.func, ast.Attribute)
    if call.args or call.keywords or site.ctx.scope.name == "cuda":
        return
    tested = _is_cuda_test(site)
    if tested is None:
        return
    tensor = tested.test
    assert isinstance(tensor, ast.Attribute)
    owner = ctx.text(tensor.value)
    recv = ctx.text(call.func.value)
    if recv == owner:
        return
    dev = f"{owner}.device" if len(owner) <= 40 and "\n" not in owner else "<tensor>.device"
    tl, tc, _, _ = ctx.span(tensor)
    yield _at_cuda(
        ctx, call,
        f"`{_shown_cuda(recv)}` moves to the current CUDA device (cuda:0 unless set), not "
        f"necessarily the one `{owner}` is on: with several GPUs the value meets tensors of "
        f"another device; use `.to({dev})`",
        Evidence(f"`{owner}` is tested to be on CUDA here; its device is `{dev}`", tl, tc),
    )


def _is_cuda_test(site: Site[ast.Call]) -> ast.If | None:
    """The innermost ``if`` whose body holds the site and whose test is ``<expr>.is_cuda``."""
    for ifnode, in_body in reversed(site.ctx.ifs):
        t = ifnode.test
        if in_body and isinstance(t, ast.Attribute) and t.attr == "is_cuda":
            return ifnode
    return None


#: torch namespaces whose ``device=`` is a device of that accelerator's own API (code
#: written for it, see :func:`_drives_cuda`), not a placement a CPU run could take
_ACCEL_APIS = ("torch.cuda.", "torch.xpu.", "torch.mps.", "torch.accelerator.", "torch.distributed.")


def _ordinals(ctx: Context, m: Walker) -> Iterable[Finding]:
    """Integer device ordinals given to torch as a device: ``torch.device(0)``, ``device=0``
    of a torch function or class, ``.to(0)`` and ``.to(device=0)`` of a tensor or a module.
    Torch reads an int there as device N of the current accelerator, and raises without one
    ("Cannot access accelerator device when none is available").  (``.cuda(0)`` is a
    ``.cuda()`` call, reported as such.)"""
    for site in m.calls:
        found = _ordinal_of(ctx, m, site)
        if found is None or _guarded(m, site):
            continue
        const, shown = found
        n = _number(const)
        fix = None
        var = _device_var(m, ctx.flow, site.ctx.scope, site.pos)
        if var is not None:
            whole = site.node if shown.startswith("torch.device(") else const
            fix = Fix((ctx.edit(whole, var),), False, f"Use the device variable `{var}`")
        yield ctx.finding(
            CODE, const,
            f"hard-coded accelerator `{shown}`: the integer {n} is device "
            f"{n} of the accelerator, and crashes on machines without one; pick the "
            "device once (`device = \"cuda\" if torch.cuda.is_available() else \"cpu\"`) "
            "and use that variable",
            fix,
        )


def _ordinal_of(ctx: Context, m: Walker, site: Site[ast.Call]) -> tuple[ast.Constant, str] | None:
    """The integer ordinal the call of ``site`` gives torch as a device, with the text to
    show."""
    call = site.node
    func = call.func
    q = m.qualname(func) or ""
    if q == "torch.device":
        first = _ordinal(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        up = m.parents(site.stmt).get(id(call))
        if first is None or isinstance(up, (ast.Attribute, ast.Compare, ast.arguments)):
            return None  # ``torch.device(0).type``, compared, a parameter's default
        return first, f"torch.device({_number(first)})"
    kw = _ordinal(next((k.value for k in call.keywords if k.arg == "device"), None))
    if q.startswith("torch.") and not q.startswith(_ACCEL_APIS):
        return (kw, f"device={_number(kw)}") if kw is not None else None
    if not isinstance(func, ast.Attribute) or func.attr != "to":
        return None
    given = _ordinal(call.args[0]) if call.args else kw
    if given is None or not _tensor_or_module(ctx.flow, func.value):
        return None
    return given, f".to({_number(given)})" if call.args else f".to(device={_number(given)})"


def _number(c: ast.Constant) -> int:
    """The int of an ordinal :func:`_ordinal` found."""
    return c.value if isinstance(c.value, int) else -1


def _ordinal(e: ast.expr | None) -> ast.Constant | None:
    """``e`` when it is a literal non-negative int (not a bool), else None."""
    if isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0:
        return e
    return None


def _tensor_or_module(ff: FileFlow, node: ast.expr) -> bool:
    """Does the device-flow analysis know ``node`` as a tensor or a module (whose ``.to``
    is torch's)?"""
    found = value_of(ff, node)
    return found is not None and found[1].kinds is not None and \
        bool(found[1].kinds) and found[1].kinds <= {Kind.TENSOR, Kind.MODULE}


def _moves_nothing(m: Walker, recv: ast.expr) -> bool:
    """Is ``recv`` a ``torch.nn`` module built from constants that holds no tensor
    (``nn.CrossEntropyLoss()``, ``nn.ReLU(inplace=True)``)?  Its ``.cuda()`` moves nothing,
    and runs on a machine without a GPU.

    >>> import ast
    >>> from torchferry.check.scopes import Walker
    >>> w = Walker(ast.parse("import torch.nn as nn"))
    >>> [_moves_nothing(w, ast.parse(s).body[0].value) for s in
    ...  ("nn.CrossEntropyLoss(label_smoothing=0.1)", "nn.CrossEntropyLoss(weight=w)",
    ...   "nn.Linear(2, 2)")]
    [True, False, False]
    """
    if not isinstance(recv, ast.Call):
        return False
    q = m.qualname(recv.func) or ""
    if not q.startswith("torch.nn.") or q.rsplit(".", 1)[-1] not in EMPTY_MODULES:
        return False
    args = list(recv.args) + [k.value for k in recv.keywords if k.arg is not None]
    return len(args) == len(recv.args) + len(recv.keywords) and all(map(_constant, args))


def _constant(e: ast.expr) -> bool:
    """A literal number, string, bool or None (``-1`` too): never a tensor."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    return isinstance(e, ast.Constant)


def _legacy(ctx: Context, m: Walker) -> Iterable[Finding]:
    """``torch.cuda.FloatTensor(...)`` and ``torch.set_default_tensor_type("torch.cuda....")``."""
    for name in sorted(LEGACY_CONSTRUCTORS) + ["set_default_tensor_type"]:
        for site in m.calls_by_tail.get(name, ()):
            call = site.node
            q = m.qualname(call.func) or ""
            if q == "torch.set_default_tensor_type":
                a = call.args[0] if call.args else None
                if not (isinstance(a, ast.Constant) and isinstance(a.value, str)
                        and a.value.startswith("torch.cuda.")):
                    continue
                shown = f"torch.set_default_tensor_type({a.value!r})"
            elif q == f"torch.cuda.{name}":
                shown = f"torch.cuda.{name}(...)"
            else:
                continue
            steps = _unguarded(ctx, m, site)
            if steps is None:
                continue
            f = ctx.finding(
                CODE, call,
                f"`{shown}` hard-codes CUDA (a legacy constructor) and crashes on machines "
                "without a GPU; pick the device once and create tensors there: "
                "`torch.tensor(data, device=device)` / `torch.zeros(..., device=device)`",
            )
            yield replace(f, evidence=steps)


#: ``torch.cuda`` functions that initialise CUDA and so raise on every machine without it
#: (torch 2.13.0, ``torch/cuda/__init__.py``): each calls ``_lazy_init()`` first
#: (``get_device_name`` and ``get_device_capability`` through ``get_device_properties``;
#: ``mem_get_info`` of ``torch/cuda/memory.py`` through ``current_device``).  ``_lazy_init``
#: raises ``AssertionError("Torch not compiled with CUDA enabled")`` on a build without CUDA
#: (run on the CPU wheel: each of them raises it) and ``torch._C._cuda_init()`` fails with
#: ``RuntimeError`` ("Found no NVIDIA driver") on a CUDA build without a driver or a GPU.
#: Not here: those that answer without CUDA (``is_available()``, ``device_count()``,
#: ``is_initialized()``, ``empty_cache()``, ``manual_seed()``, ``manual_seed_all()``,
#: ``seed()``, the memory statistics ``memory_allocated()``, ``max_memory_allocated()``,
#: ``memory_reserved()``, ``memory_stats()``: 0 or empty), and the stream functions
#: (``current_stream()``, ``default_stream()``), which mark code written for CUDA
#: (:data:`_CUDA_ONLY_CALLS`), and ``init()``, which asks for CUDA by name (a CUDA kernel
#: compiler's first line, reached only where the device is CUDA).
CUDA_QUERIES = frozenset({
    "synchronize", "current_device", "get_device_name", "get_device_properties",
    "get_device_capability", "can_device_access_peer", "ipc_collect",
    "get_sync_debug_mode", "set_sync_debug_mode", "current_blas_handle",
    "current_solver_handle", "cudart", "mem_get_info",
})


def _cuda_queries(ctx: Context, m: Walker) -> Iterable[Finding]:
    """Calls of the ``torch.cuda`` functions of :data:`CUDA_QUERIES`
    (``torch.cuda.synchronize()``, ``torch.cuda.get_device_name(0)``) where the code does
    not establish that CUDA is in use: they raise without it, as ``.cuda()`` does.  No fix:
    a guard around the call changes what runs on some machines."""
    for name in sorted(CUDA_QUERIES):
        for site in m.calls_by_tail.get(name, ()):
            if m.qualname(site.node.func) != f"torch.cuda.{name}":
                continue
            steps = _unguarded(ctx, m, site)
            if steps is None or _cuda_in_use(ctx.flow, m, site, 0):
                continue
            f = ctx.finding(
                CODE, site.node,
                f"`torch.cuda.{name}()` initialises CUDA and crashes on machines without a GPU "
                "(\"Torch not compiled with CUDA enabled\"); call it only where the device is "
                "CUDA (`if device.type == \"cuda\":` or `if torch.cuda.is_available():`)",
            )
            yield replace(f, evidence=steps)


def _cuda_in_use(ff: FileFlow, m: Walker, site: Site[ast.Call], depth: int) -> bool:
    """Does the code establish, beyond the rule's guards, that CUDA is in use where a
    :data:`CUDA_QUERIES` call runs: the device it is handed is one the analysis knows is on
    the accelerator (``dev = torch.device("cuda")``: the literal is the finding), a parameter
    of the function that every call of the run gives a CUDA device (or leaves to a CUDA
    default), or the function is only called where a guard covers the call?"""
    arg = _device_argument(site.node)
    if arg is not None and _accel_value(ff, arg):
        return True
    fn = site.ctx.scope.function
    if fn is None or depth >= 3:
        return False
    sites = _known_calls(ff, fn)
    if not sites:
        return False
    if arg is not None and isinstance(arg, ast.Name) and _given_accel(ff, m, fn, arg.id, sites):
        return True
    by_node = _call_sites(m)
    for event_node in sites:
        caller = by_node.get(id(event_node))
        if caller is None or not (_guarded(m, caller) or _caught(m, caller)
                                  or _cuda_in_use(ff, m, caller, depth + 1)):
            return False
    return True


def _device_argument(call: ast.Call) -> ast.expr | None:
    """The device a ``torch.cuda`` function is handed: its first argument or ``device=``."""
    if call.args:
        return None if isinstance(call.args[0], ast.Starred) else call.args[0]
    return kwarg(call, "device")


def _accel_value(ff: FileFlow, node: ast.AST) -> bool:
    """Is ``node`` a value the analysis knows is on the accelerator, on every path?"""
    found = value_of(ff, node)
    if found is None:
        return False
    places = found[1].places
    return places is not None and len(places) > 0 and all(p.where is Where.ACCEL for p in places)


def _known_calls(ff: FileFlow, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """Every call of ``fn`` in the run, where the analysis knows them all
    (:meth:`FileFlow.callers_of`: a function or method of the file's top level, run only by
    calls of its name, each resolved to it, in a file no other file of the run imports);
    else none."""
    for _ in ff.results():  # every relevant scope interpreted: the file's call sites known
        pass
    points = ff.callers_of(fn)
    if not points or any(not isinstance(p.node, ast.Call) for p in points):
        return []
    return [p.node for p in points if isinstance(p.node, ast.Call)]


def _call_sites(m: Walker) -> dict[int, Site[ast.Call]]:
    """Every call site of the file by the ``id`` of its node (worked out once per file)."""
    done = _CALL_SITES.get(m)
    if done is None:
        done = _CALL_SITES[m] = {id(s.node): s for sites in m.calls_by_tail.values() for s in sites}
    return done


#: :func:`_call_sites`' answer for each file's model (dropped with it)
_CALL_SITES: weakref.WeakKeyDictionary[Walker, dict[int, Site[ast.Call]]] = weakref.WeakKeyDictionary()


def _given_accel(ff: FileFlow, m: Walker, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                 calls: list[ast.Call]) -> bool:
    """Does every call of ``fn`` (``calls``, at least one) give its parameter ``name`` a
    device the analysis knows is on the accelerator, or leave it to an accelerator default
    (``def bench(dev="cuda")``)?  The parameter must not be bound again in ``fn``."""
    a = fn.args
    params = [x.arg for x in (*a.posonlyargs, *a.args)]
    if name not in params and name not in {x.arg for x in a.kwonlyargs}:
        return False
    scope = next((s for s in m.functions if s.function is fn), None)
    if scope is None or len(scope.binds.get(name, ())) != 1:
        return False
    for call in calls:
        given = _bound_argument(call, params, name)
        if given is None:
            if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
                return False
            if not is_accel_literal(default_of(a, name)):
                return False
        elif not (_accel_value(ff, given) or is_accel_literal(given)):
            return False
    return True


def _bound_argument(call: ast.Call, params: list[str], name: str) -> ast.expr | None:
    """The argument ``call`` gives the parameter ``name`` (by position or keyword)."""
    k = params.index(name) if name in params else -1
    if 0 <= k < len(call.args) and not any(isinstance(x, ast.Starred) for x in call.args[:k + 1]):
        return call.args[k]
    return kwarg(call, name)


@dataclass(frozen=True)
class _Place:
    """Where a literal accelerator is used: as the value of a device variable's own
    definition (``target``), wrapped in ``torch.device(...)`` (``wrapper``), or neither
    (a ``device=`` keyword, ``.to("cuda")``, ``torch.set_default_device``)."""

    target: ast.Assign | ast.AnnAssign | None = None
    wrapper: ast.Call | None = None


def _literal(ctx: Context, m: Walker, site: Site[ast.Constant]) -> Iterable[Finding]:
    const = site.node
    parents = m.parents(site.stmt)
    parent = parents.get(id(const))
    if parent is None or _chosen(parents, parent, site.stmt):
        return
    place = yield from _place(ctx, m, site, parents, parent)
    if place is None or _handed_to_mock(parents, parent):
        return
    steps = _unguarded(ctx, m, site)
    if steps is None:
        return
    value = str(const.value)
    shown = ctx.text(place.wrapper) if place.wrapper is not None else repr(value).replace("'", '"')
    f = ctx.finding(
        CODE, const,
        f"hard-coded accelerator `{shown}` crashes on machines without one; pick the device once "
        "(`device = \"cuda\" if torch.cuda.is_available() else \"cpu\"`) and use that variable",
        _literal_fix(ctx, m, site, place, bool(steps)),
    )
    yield replace(f, evidence=steps)


def _chosen(parents: dict[int, ast.AST], parent: ast.AST, stmt: ast.stmt) -> bool:
    """``"cuda" if ... else "cpu"``: a choice, made consciously."""
    up: ast.AST | None = parent
    while up is not None and up is not stmt:
        if isinstance(up, ast.IfExp):
            return True
        up = parents.get(id(up))
    return False


def _handed_to_mock(parents: dict[int, ast.AST], parent: ast.AST) -> bool:
    """A device string handed to a mock by keyword: nothing runs on it."""
    call = parents.get(id(parent)) if isinstance(parent, ast.keyword) else None
    return isinstance(call, ast.Call) and "mock" in (dotted(call.func) or "").lower()


def _place(
    ctx: Context, m: Walker, site: Site[ast.Constant], parents: dict[int, ast.AST],
    parent: ast.AST,
) -> Generator[Finding, None, _Place | None]:
    """Where the literal is used, or None when it places nothing itself; an option's or a
    parameter's default is judged by :func:`_option_default` and :func:`_default`, whose
    findings this yields."""
    const = site.node
    if isinstance(parent, ast.keyword):
        if parent.arg == "default":
            yield from _option_default(ctx, m, site, parent, const)
        return _Place() if parent.arg in _DEVICE_KWARGS else None
    if isinstance(parent, ast.Call):
        if const not in parent.args:
            return None
        return (yield from _call_place(ctx, m, site, parents, parent))
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return _Place(target=parent) if _device_target(parent) else None
    if isinstance(parent, ast.arguments):
        yield from _default(ctx, m, site, parent, const)  # a parameter default
    return None  # comparisons, IfExp branches, f-strings, containers, defaults...


def _call_place(
    ctx: Context, m: Walker, site: Site[ast.Constant], parents: dict[int, ast.AST],
    call: ast.Call,
) -> Generator[Finding, None, _Place | None]:
    """The literal as a call's first argument: ``torch.device("cuda")`` (judged by where
    the device goes), ``x.to("cuda")`` or ``torch.set_default_device("cuda")`` (every
    tensor created afterwards goes there); any other call places nothing."""
    q = m.qualname(call.func) or ""
    first = call.args[0] is site.node
    if q == "torch.device" and first:
        gp = parents.get(id(call))
        if isinstance(gp, (ast.Assign, ast.AnnAssign)) and _device_target(gp):
            return _Place(target=gp, wrapper=call)
        if isinstance(gp, ast.keyword) and gp.arg not in _DEVICE_KWARGS:
            if gp.arg == "default":
                yield from _option_default(ctx, m, site, gp, call)
            return None
        if isinstance(gp, ast.arguments):
            yield from _default(ctx, m, site, gp, call)  # a parameter default
            return None
        if isinstance(gp, (ast.Attribute, ast.Compare)):
            # ``torch.device("cuda").type``, ``x.device == torch.device("cuda")``: a
            # descriptor built to compare with, nothing is placed there (stable-baselines3)
            return None
        return _Place(wrapper=call)
    moves = tail(call.func) == "to" and isinstance(call.func, ast.Attribute)
    return _Place() if first and (moves or q == "torch.set_default_device") else None


def _literal_fix(
    ctx: Context, m: Walker, site: Site[ast.Constant], place: _Place, stepped: bool
) -> Fix | None:
    """A device variable's definition falls back to the CPU; a use elsewhere takes the
    device variable of its scope, when there is one and the literal reaches it directly."""
    const = site.node
    value = str(const.value)
    torch_alias = m.alias_of("torch")
    if place.target is not None:
        if torch_alias is None:
            return None
        check = (f"{torch_alias}.backends.mps.is_available()" if value.startswith("mps")
                 else f"{torch_alias}.xpu.is_available()" if value.startswith("xpu")
                 else f"{torch_alias}.cuda.is_available()")
        return Fix((ctx.edit(const, f'"{value}" if {check} else "cpu"'),), False,
                   "Fall back to the CPU when the accelerator is missing")
    var = None if stepped else _device_var(m, ctx.flow, site.ctx.scope, site.pos)
    if var is None:
        return None
    w = place.wrapper
    node = w if w is not None and len(w.args) == 1 and not w.keywords else const
    return Fix((ctx.edit(node, var),), False, f"Use the device variable `{var}`")


def _default(ctx: Context, m: Walker, site: Site[ast.Constant], args: ast.arguments,
             default: ast.expr) -> Iterable[Finding]:
    """A parameter default ``device="cuda"`` (or ``torch.device("cuda")``): flagged where a
    call of the run leaves the parameter to it (:func:`relying_call`), at the default,
    with that call as evidence; the caller chooses otherwise."""
    fn = m.parents(site.stmt).get(id(args))
    param = _defaulted(args, default)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or param is None:
        return
    cls = next((st for st in ctx.tree.body if isinstance(st, ast.ClassDef) and fn in st.body), None)
    if not _places_with(fn, param, cls):
        return  # (``device_type = "cuda" if "cuda" in device else "cpu"``: nothing placed)
    scope = next((s for s in m.functions if s.node is fn), None)
    if _guarded(m, site) or scope is None or _cuda_only_by_design(m, scope):
        return
    relied = _relied(ctx, m, fn, param)
    if relied is None:
        return
    shown = ctx.text(default) if default is not site.node else repr(site.node.value).replace("'", '"')
    where = "" if relied.path is None else f" of {os.path.basename(relied.path)}"
    f = ctx.finding(
        CODE, site.node,
        f"hard-coded accelerator default `{param}={shown}` crashes on machines without one: "
        f"`{relied.name}(...)` at line {relied.line}{where} leaves `{param}` to it; pass the "
        "device the program picked once (`device = \"cuda\" if torch.cuda.is_available() else "
        "\"cpu\"`), or default to None and pick it there",
    )
    step = Evidence(f"`{relied.name}(...)` here leaves `{param}` to its default", relied.line,
                    relied.column, relied.path)
    yield replace(f, evidence=(step,))


def _option_default(ctx: Context, m: Walker, site: Site[ast.Constant], kw: ast.keyword,
                    default: ast.expr) -> Iterable[Finding]:
    """An ``argparse`` option's default ``default="cuda"`` (or ``torch.device("cuda")``)
    whose parsed value the file uses as a device (:func:`_option_device_use`), in a program
    that tests for the accelerator nowhere: the run without the flag places there."""
    call = m.parents(site.stmt).get(id(kw))
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "add_argument"):
        return
    dest = _option_dest(call)
    use = None if dest is None else _option_device_use(ctx.tree, dest)
    if use is None or _unguarded(ctx, m, site) is None:
        return
    if program_fallback(ctx.tree, ctx.path, ctx.project) is not None:
        return  # ``if not torch.cuda.is_available(): args.device = "cpu"``
    shown = ctx.text(default) if default is not site.node else repr(site.node.value).replace("'", '"')
    f = ctx.finding(
        CODE, site.node,
        f"hard-coded accelerator default `{shown}` of option `{dest}` becomes the program's "
        "device and crashes on machines without one unless the option is given; default to "
        "`\"cuda\" if torch.cuda.is_available() else \"cpu\"`",
    )
    step = Evidence(f"the option's value is used as a device here: `{ctx.text(use)}`",
                    use.lineno, use.col_offset)
    yield replace(f, evidence=(step,))


def _option_dest(call: ast.Call) -> str | None:
    """The attribute of the parsed namespace that ``add_argument`` fills: its ``dest=``,
    else its first long option (``--map-device`` -> ``map_device``), else its name."""
    for k in call.keywords:
        if k.arg == "dest":
            return k.value.value if isinstance(k.value, ast.Constant) and \
                isinstance(k.value.value, str) else None
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if len(names) != len(call.args) or not names:
        return None
    long = next((n for n in names if n.startswith("--")), None)
    if long is not None:
        return long[2:].replace("-", "_")
    return None if names[0].startswith("-") else names[0]


def _option_device_use(tree: ast.AST, dest: str) -> ast.expr | ast.stmt | None:
    """The first use of ``<ns>.<dest>`` as a device, ``<ns>`` a name the file binds to a
    ``parse_args()`` (or ``parse_known_args()``) result: a ``device=`` / ``map_location=``
    argument, ``.to(...)``'s or ``torch.device(...)``'s argument, or the value of a device
    variable (``device = args.device``), outside any test of availability.  None also
    where the file assigns the attribute (``args.device = "cpu"``): its value is chosen
    again."""
    parsed = _parsed_namespaces(tree)
    parents = {id(c): n for n in walk(tree) for c in ast.iter_child_nodes(n)}
    uses = [n for n in walk(tree) if isinstance(n, ast.Attribute) and n.attr == dest
            and isinstance(n.value, ast.Name) and n.value.id in parsed]
    if any(not isinstance(n.ctx, ast.Load) for n in uses):
        return None
    for n in uses:
        if _under_availability_test(n, parents):
            continue
        up = parents.get(id(n))
        call = parents.get(id(up))
        if isinstance(up, ast.keyword) and up.arg in _DEVICE_KWARGS:
            return call if isinstance(call, ast.Call) else n
        if isinstance(up, ast.Call) and up.args and up.args[0] is n and (
                tail(up.func) == "to" and isinstance(up.func, ast.Attribute)
                or dotted(up.func) == "torch.device"):
            return up
        if isinstance(up, (ast.Assign, ast.AnnAssign)) and up.value is n and _device_target(up):
            return up
    return None


def _under_availability_test(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Is ``node`` inside an ``if`` / ``while`` / conditional expression whose test calls
    ``is_available()`` of the accelerator, or inside that test itself?"""
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, (ast.If, ast.While, ast.IfExp)) and checks_availability(up.test):
            return True
        up = parents.get(id(up))
    return False


def _parsed_namespaces(tree: ast.AST) -> set[str]:
    """The names bound to a ``parse_args()`` result (``args = parser.parse_args()``,
    ``args, _ = parser.parse_known_args()``)."""
    names: set[str] = set()
    for n in walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call)):
            continue
        which = tail(n.value.func)
        target = n.targets[0]
        if which == "parse_args" and isinstance(target, ast.Name):
            names.add(target.id)
        elif which == "parse_known_args" and isinstance(target, ast.Tuple) and target.elts \
                and isinstance(target.elts[0], ast.Name):
            names.add(target.elts[0].id)
    return names


def _relied(ctx: Context, m: Walker, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> Reliance | None:
    """:func:`relying_call` of ``fn``'s parameter ``param``, worked out once per file."""
    memo = _RELIED.get(m)
    if memo is None:
        memo = _RELIED[m] = {}
    key = (id(fn), param)
    if key not in memo:
        memo[key] = relying_call(ctx.tree, ctx.path, ctx.project, fn, param)
    return memo[key]


#: :func:`_relied`'s answers for each file's model (dropped with it)
_RELIED: weakref.WeakKeyDictionary[Walker, dict[tuple[int, str], Reliance | None]] = weakref.WeakKeyDictionary()


def _defaulted(args: ast.arguments, default: ast.expr) -> str | None:
    """The parameter whose default is ``default``."""
    positional = [*args.posonlyargs, *args.args]
    for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True):
        if d is default:
            return a.arg
    for a, kd in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if kd is default:
            return a.arg
    return None


def _places_with(fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str, cls: ast.ClassDef | None) -> bool:
    """Does ``fn`` place something with its parameter ``param``: as a ``device=`` or
    ``map_location=`` argument, the argument of ``.to(...)`` / ``.cuda(...)`` or of
    ``torch.device(...)``, or kept on ``self.<attr>`` (``fn`` being a method of ``cls``)
    that a method of the class uses so?"""
    kept: set[str] = set()
    if _places(fn, lambda n: isinstance(n, ast.Name) and n.id == param, kept):
        return True
    if cls is None or not kept:
        return False
    def of_self(n: ast.AST) -> bool:
        return isinstance(n, ast.Attribute) and n.attr in kept and \
            isinstance(n.value, ast.Name) and n.value.id == "self"
    return any(_places(f, of_self, set()) for f in cls.body
               if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _places(root: ast.AST, ref: Callable[[ast.AST], bool], kept: set[str]) -> bool:
    """Is a value ``ref`` picks out used in ``root`` to place something (see
    :func:`_places_with`)?  The attributes of ``self`` it is stored in go to ``kept``."""
    parents = {id(c): p for p in ast.walk(root) for c in ast.iter_child_nodes(p)}
    for n in ast.walk(root):
        if not ref(n) or not isinstance(getattr(n, "ctx", None), ast.Load):
            continue
        p = parents.get(id(n))
        if isinstance(p, ast.keyword) and p.arg in _DEVICE_KWARGS:
            return True
        if isinstance(p, ast.Call) and p.args and p.args[0] is n and (
                tail(p.func) in ("to", "cuda") and isinstance(p.func, ast.Attribute)
                or (dotted(p.func) or "").endswith("device")):
            return True
        if isinstance(p, ast.Assign) and p.value is n:
            kept.update(t.attr for t in p.targets if isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name) and t.value.id == "self")
    return False


def _device_var(m: Walker, ff: FileFlow, scope: Scope, at: int) -> str | None:
    """A device variable visible at ``at`` (``device``, ``dev``, ``*_device``), if any: a
    parameter, or a name the device-flow analysis finds bound to a device (not to an
    accelerator literal) -- the variable a fix can use instead."""
    for s, first in visible_scopes(scope):
        for name in sorted(n for n in s.binds if DEVICE_NAME.match(n)):
            lst = s.binds[name]
            b = _before(lst, at) if (first or s.kind is ScopeKind.FUNCTION) else lst[-1][1]
            if b is None:
                continue
            if b.how is How.PARAM:
                return name
            if b.how is How.EXPR and b.value is not None and not is_accel_literal(b.value) and \
                    is_device(ff, b.value):
                return name
    return None


def _device_target(stmt: ast.Assign | ast.AnnAssign) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for t in targets:
        name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
        if name is not None and DEVICE_NAME.match(name) and not name.lower().endswith("type"):
            return True
    return False


# libraries that only run on an NVIDIA GPU: a file using them is CUDA-only by design
_CUDA_ONLY_LIBS = ("bitsandbytes", "triton", "apex", "pynvml", "cupy", "flash_attn",
                   "transformer_engine", "nvidia", "megatron")
# names of functions and classes that say the code is for one accelerator
_ACCEL_SCOPE = re.compile(r"cuda|gpu|mps|xpu|nccl|triton", re.I)
# torch.cuda APIs that only make sense with a GPU, among them the memory statistics
# (they read 0 without one: code measuring GPU memory is written for a GPU)
_CUDA_ONLY_CALLS = frozenset({"Stream", "stream", "set_device", "current_stream", "Event",
                              "CUDAGraph", "graph", "nvtx",
                              "max_memory_allocated", "memory_allocated", "max_memory_reserved",
                              "memory_reserved", "reset_peak_memory_stats", "memory_stats",
                              "reset_max_memory_allocated", "max_memory_cached", "memory_cached"})


def _cuda_only_by_design(m: Walker, scope: Scope) -> bool:
    """The scope (or an enclosing function/class, or the file) is written for an accelerator:
    its name says so (``CUDAAccelerator``, ``_probe_gpus``), the file uses a CUDA-only
    library (bitsandbytes, triton...), or it (or its class) drives CUDA streams,
    ``torch.cuda.set_device(local_rank)`` or an NCCL process group."""
    memo = m.rule_memo.setdefault(CODE, {})
    r = memo.get(id(scope))
    if r is None:
        r = memo[id(scope)] = _by_design(m, scope)
    return r


def _by_design(m: Walker, scope: Scope) -> bool:
    whole_file, helpers = _file_design(m)
    if whole_file:
        return True
    s: Scope | None = scope
    while s is not None:
        if s.kind is not ScopeKind.MODULE and _accel_named(s.name):
            return True
        if s.cls is not None and _accel_named(s.cls.name):
            return True
        scopes = list(s.cls.methods.values()) if s.cls is not None else [s]
        for sc in scopes:
            if _drives_cuda(m, sc):
                return True
            # a same-file function it calls (``ddp_setup(rank, world_size)``,
            # ``print_memory_usage()``), followed one level
            for c in sc.calls:
                func = c.node.func
                helper = helpers.get(func.id) if isinstance(func, ast.Name) else None
                if helper is not None and helper is not sc and _drives_cuda(m, helper):
                    return True
        s = s.parent
    return False


def _file_design(m: Walker) -> tuple[bool, dict[str, Scope]]:
    """Whether the whole file is written for an accelerator (a CUDA-only library, model
    parallelism over several numbered GPUs: ``.cuda(0)``, ``.cuda(2)``), and its module-level
    functions by name: worked out once per file (asked for each scope, they made a file of
    a thousand functions quadratic)."""
    done = _FILE_DESIGN.get(m)
    if done is None:
        whole = any(q.split(".")[0] in _CUDA_ONLY_LIBS for q in m.imports.values()) or \
            len(_gpu_indices(m)) >= 2
        done = _FILE_DESIGN[m] = (whole, {f.name: f for f in m.functions if f.parent is m.module_scope})
    return done


#: :func:`_file_design`'s answer for each file's model (dropped with it)
_FILE_DESIGN: weakref.WeakKeyDictionary[Walker, tuple[bool, dict[str, Scope]]] = weakref.WeakKeyDictionary()


def _gpu_indices(m: Walker) -> set[int]:
    """The GPU numbers the file places things on with ``.cuda(N)`` (or ``.to(N)``).  Two or more mean the
    code spreads a model over several GPUs on purpose (pipeline or model parallelism:
    ``block_1.cuda(0)`` ... ``block_3.cuda(2)``): it cannot fall back to one CPU.  (Device
    strings such as ``"cuda:1"`` do not count: a checkpoint mapped from one GPU to another
    is no model parallelism.)  A ``torch.device("cuda", N)`` names GPU ``N`` as well."""
    out: set[int] = set()
    for site in (*m.calls_by_tail.get("cuda", ()), *m.calls_by_tail.get("to", ())):
        args = site.node.args
        if args and isinstance(args[0], ast.Constant) and type(args[0].value) is int:
            out.add(args[0].value)
    for site in m.calls_by_tail.get("device", ()):
        index = _cuda_device_index(m, site.node)
        if index is not None:
            out.add(index)
    return out


def _cuda_device_index(m: Walker, call: ast.Call) -> int | None:
    """``N`` of ``torch.device("cuda", N)`` (or ``index=N``) with an int literal ``N``."""
    if m.qualname(call.func) != "torch.device" or not call.args:
        return None
    kind = call.args[0]
    if not isinstance(kind, ast.Constant) or kind.value != "cuda":
        return None
    index = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "index"), None)
    if isinstance(index, ast.Constant) and type(index.value) is int:
        return index.value
    return None


def _drives_cuda(m: Walker, scope: Scope) -> bool:
    """The scope itself (not a nested function) calls a CUDA-only ``torch.cuda`` API or
    starts an NCCL process group, without testing for a GPU first."""
    for c in scope.calls:
        if c.ctx.scope is not scope or any(m.mentions_availability(i.test) for i, _ in c.ctx.ifs):
            continue
        q = m.qualname(c.node.func) or ""
        if q.startswith("torch.cuda.") and q.rsplit(".", 1)[-1] in _CUDA_ONLY_CALLS:
            return True
        if q.endswith("init_process_group") and any(
                isinstance(a, ast.Constant) and a.value == "nccl"
                for a in [*c.node.args, *(k.value for k in c.node.keywords)]):
            return True
    return False


def _accel_named(name: str) -> bool:
    """Named for an accelerator, and not a test (``CudaTests.test_x`` still needs a guard)."""
    low = name.lower()
    return bool(_ACCEL_SCOPE.search(name)) and not (low.startswith("test") or low.endswith(("test", "tests")))


def _pytestmark_checks(m: Walker) -> bool:
    """A module-level ``pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), ...)``."""
    for _, b in m.module_scope.binds.get("pytestmark", ()):
        if b.value is not None and m.mentions_availability(b.value):
            return True
    return False


def _guarded(m: Walker, site: Site[ast.Call] | Site[ast.Constant]) -> bool:
    """Availability is checked: an enclosing ``if``/``while`` test, an ``assert`` /
    ``if`` on availability earlier in the same scope, a skip marker or decorator, or the
    code is CUDA-only by design."""
    if _pytestmark_checks(m) or _cuda_only_by_design(m, site.ctx.scope):
        return True
    parents = m.parents(site.stmt)  # ``x.cuda() if use_cuda else x``: a conditional expression
    child: ast.AST = site.node
    up = parents.get(id(child))
    while up is not None and up is not site.stmt:
        if isinstance(up, ast.IfExp) and child is not up.test and _arm_guard(m, site, up.test, child is up.body):
            return True
        child, up = up, parents.get(id(up))
    for ifnode, in_body in site.ctx.ifs:
        if _arm_guard(m, site, ifnode.test, in_body):
            return True
    for loop in site.ctx.loops:
        if isinstance(loop, ast.While) and m.mentions_availability(loop.test):
            return True
    for s in m.availability_checks(site.ctx.scope):
        test = getattr(s.stmt, "test", None)
        if test is not None and _cuda_site(site) and _other_accel_test(m, test, site.ctx.scope):
            continue
        if s.pos < site.pos and (isinstance(s.stmt, ast.Assert) or _an_arm_leaves(s.stmt)):
            return True
    if _left_unless_accel(m, site):
        return True
    scope: Scope | None = site.ctx.scope  # ``@skipIf(not torch.cuda.is_available(), ...)``
    while scope is not None:
        decorated: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
        if scope.function is not None:
            decorated.append(scope.function)
        if scope.cls is not None:
            decorated.append(scope.cls.node)
        for node in decorated:
            if any(m.mentions_availability(d) for d in node.decorator_list):
                return True
        scope = scope.parent
    # the literal sits in an ``if`` test itself, e.g. ``if x.is_cuda or "cuda" ...``
    return isinstance(site.stmt, (ast.If, ast.While)) and _in_test(site)


def _arm_guard(m: Walker, site: Site[ast.Call] | Site[ast.Constant], test: ast.expr, in_body: bool) -> bool:
    """Does the arm (``in_body``: the body) of an ``if`` or conditional expression on
    ``test`` guard the site: a test that mentions availability (but for the arm of a
    parameter's default None), or one that establishes an accelerator device there
    (:func:`_accel_arm`)?"""
    scope = site.ctx.scope
    if _cuda_site(site) and _other_accel_test(m, test, scope):
        return False
    if m.mentions_availability(test) and _none_arm(scope, test, in_body) is None:
        return True
    return _accel_arm(m, test, in_body, scope, 0)


_OTHER_BACKENDS = frozenset({"mps", "xpu", "npu", "mlu", "hpu", "musa", "mtia", "xla", "tpu"})
_OTHER_AVAILABLE = re.compile(r"is_(?:torch_)?(?:mps|xpu|npu|mlu|hpu|musa|mtia|xla|tpu)_available$")
_CUDA_WORD = re.compile(r"cuda|gpu", re.I)


def _cuda_site(site: Site[ast.Call] | Site[ast.Constant]) -> bool:
    """Is the site CUDA's own: a ``"cuda..."`` literal, ``.cuda()``, a ``torch.cuda``
    function, or a call given a ``"cuda..."`` literal?"""
    node = site.node
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.startswith("cuda")
    if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
        return True
    if (dotted(node.func) or "").startswith("torch.cuda."):
        return True
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("cuda")
               for a in [*node.args, *(k.value for k in node.keywords)])


def _other_accel_test(m: Walker, test: ast.expr, scope: Scope) -> bool:
    """Does ``test`` ask only whether an accelerator other than CUDA is available
    (``torch.backends.mps.is_available()``, ``is_xpu_available()``, ``not ...``, a name
    bound once to one), naming nothing of CUDA's? Neither of its arms is a guard of CUDA
    code: where it holds another accelerator is used, where it fails CUDA may be absent."""
    if isinstance(test, ast.Name):
        b = m.binding(test.id, scope, pos(test))
        if b is None or b.how is not How.EXPR or not isinstance(b.value, ast.expr) \
                or len(b.ctx.scope.binds.get(test.id, ())) != 1 or isinstance(b.value, ast.Name):
            return False
        test = b.value
    other = False
    for x in ast.walk(test):
        if isinstance(x, ast.Call):
            func = x.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("is_available", "device_count", "is_built") and isinstance(func, ast.Attribute) \
                    and tail(func.value) in _OTHER_BACKENDS or _OTHER_AVAILABLE.match(name):
                other = True
            elif name in ("is_available", "device_count", "is_built"):
                return False
        elif isinstance(x, ast.Name) and _CUDA_WORD.search(x.id) or \
                isinstance(x, ast.Attribute) and _CUDA_WORD.search(x.attr) or \
                isinstance(x, ast.Constant) and isinstance(x.value, str) and _CUDA_WORD.search(x.value):
            return False
    return other


def _accel_arm(m: Walker, test: ast.expr, in_body: bool, scope: Scope, depth: int) -> bool:
    """Does ``test``, where it is true (``in_body``) or false, establish that an accelerator
    is in use: ``torch.cuda.is_available()``, a device's type or name compared with an
    accelerator (``dev.type == "cuda"``, ``device == "cuda"``, ``dev.type in ("cuda",
    "mps")``, ``"cuda" in str(device)``, ``str(device).startswith("cuda")``) or, on the
    other side, with the CPU (``x.device.type != "cpu"``), ``x.is_cuda``, an ``and`` holding
    one (an ``or`` where false), or a name bound once to such a test?"""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, in_body = test.operand, not in_body
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) is not in_body:
            return False
        return any(_accel_arm(m, v, in_body, scope, depth) for v in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _accel_compare(m, test.left, test.ops[0], test.comparators[0], in_body)
    if isinstance(test, ast.Call):
        return _accel_call(test, in_body)
    if isinstance(test, ast.Attribute):
        return test.attr == "is_cuda" and in_body
    if isinstance(test, ast.Name) and depth < 3:
        b = m.binding(test.id, scope, pos(test))
        if b is None or b.how is not How.EXPR or not isinstance(b.value, ast.expr) \
                or len(b.ctx.scope.binds.get(test.id, ())) != 1:
            return False
        return _accel_arm(m, b.value, in_body, b.ctx.scope, depth + 1)
    return False


def _accel_call(test: ast.Call, in_body: bool) -> bool:
    """``torch.cuda.is_available()`` (true) or ``s.startswith("cuda")`` (true; ``"cpu"``:
    false) as a test."""
    func = test.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "is_available":
        return in_body and tail(func.value) in ("cuda", "mps", "xpu")
    if func.attr == "startswith" and len(test.args) == 1:
        kind = _device_kind(test.args[0], None)
        return kind == "accel" if in_body else kind == "cpu"
    return False


def _accel_compare(m: Walker, left: ast.expr, op: ast.cmpop, right: ast.expr, in_body: bool) -> bool:
    """One comparison as a test (see :func:`_accel_arm`)."""
    if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        equal = isinstance(op, (ast.Eq, ast.Is)) == in_body  # where the arm runs, they are equal
        kind = _device_kind(left, m) or _device_kind(right, m)
        return kind == "accel" if equal else kind == "cpu"
    if not isinstance(op, (ast.In, ast.NotIn)):
        return False
    inside = isinstance(op, ast.In) == in_body
    if isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts:
        kinds = {_device_kind(e, m) for e in right.elts}
        return kinds == {"accel"} if inside else kinds == {"cpu"}
    return inside and _device_kind(left, None) == "accel"  # ``"cuda" in str(device)``


def _device_kind(e: ast.expr, m: Walker | None) -> str | None:
    """``"accel"`` for a literal accelerator (``"cuda"``, ``"cuda:0"``, with ``m``
    also ``torch.device("cuda")``), ``"cpu"`` for the CPU's, else None."""
    if m is not None and isinstance(e, ast.Call) and m.qualname(e.func) == "torch.device" \
            and len(e.args) == 1:
        e = e.args[0]
    if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
        return None
    if is_accel_literal(e):
        return "accel"
    return "cpu" if e.value == "cpu" else None


def _left_unless_accel(m: Walker, site: Site[ast.Call] | Site[ast.Constant]) -> bool:
    """Does an earlier statement of the site's path (in its scope) leave unless an
    accelerator is in use: ``assert dev.type == "cuda"``, or an ``if`` whose arm where the
    test says no accelerator (:func:`_accel_arm` of the other arm) leaves (``if dev.type !=
    "cuda": return``)?"""
    scope = site.ctx.scope
    root = scope.function.body if scope.function is not None else \
        m.tree.body if scope.kind is ScopeKind.MODULE else None
    if root is None:
        return False
    for st in _earlier(root, site.stmt):
        if isinstance(st, ast.Assert) and _accel_arm(m, st.test, True, scope, 0):
            return True
        if isinstance(st, ast.If) and any(
                arm and _leaves(arm) and _accel_arm(m, st.test, not in_body, scope, 0)
                for arm, in_body in ((st.body, True), (st.orelse, False))):
            return True
    return False


def _earlier(body: list[ast.stmt], target: ast.stmt) -> list[ast.stmt]:
    """The statements that run before ``target`` on its path: those before it in its block
    and before each enclosing statement in theirs (not into nested functions)."""
    out: list[ast.stmt] = []
    while True:
        for i, st in enumerate(body):
            if st is target:
                return out + body[:i]
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or \
                    not st.lineno <= target.lineno <= (st.end_lineno or st.lineno):
                continue
            inner = _block_holding(st, target)
            if inner is None:
                return out
            out.extend(body[:i])
            body = inner
            break
        else:
            return out


def _block_holding(st: ast.stmt, target: ast.stmt) -> list[ast.stmt] | None:
    """The block of ``st`` (a body, an ``else``, a handler's or a case's body) that holds
    ``target``, directly or deeper."""
    blocks: list[list[ast.stmt]] = [getattr(st, f) for f in ("body", "orelse", "finalbody") if hasattr(st, f)]
    blocks += [h.body for h in getattr(st, "handlers", ())] + [c.body for c in getattr(st, "cases", ())]
    for block in blocks:
        if block and block[0].lineno <= target.lineno <= (block[-1].end_lineno or block[-1].lineno):
            return block
    return None


def _unguarded(ctx: Context, m: Walker, site: Site[ast.Call] | Site[ast.Constant]) -> tuple[Evidence, ...] | None:
    """None where availability is checked (:func:`_guarded`); else the evidence of the
    arms the site is in that run on a parameter's default None (``if device is None:``, the
    ``else`` of ``if device is not None:``): a call of the run that leaves the parameter to
    its default, one per such arm.  Such a test says nothing of the accelerator, but the
    caller may pass a device; with no call of the run known to leave it None the site
    stays unflagged, as under any test naming the device."""
    if _guarded(m, site) or _caught(m, site):
        return None
    steps: list[Evidence] = []
    for fn, param in _none_arms(m, site):
        relied = _relied(ctx, m, fn, param)
        if relied is None:
            return None
        where = "" if relied.path is None else f" of {os.path.basename(relied.path)}"
        steps.append(Evidence(
            f"`{relied.name}(...)`{where} here leaves `{param}` to its default None, "
            "which takes this arm", relied.line, relied.column, relied.path))
    return tuple(steps)


def _caught(m: Walker, site: Site[ast.Call] | Site[ast.Constant]) -> bool:
    """Does a ``try`` around the site catch the failed move on every machine
    (:func:`torchferry.check.caught.catching_try`)?  The site fails where it stands when
    it is a call (``.cuda()``, a legacy constructor) or a literal device of a ``.to(...)``
    or of ``device=`` / ``map_location=`` of a torch function (``torch.zeros(3,
    device="cuda")``), also through ``torch.device(...)``; a literal bound to a name
    (``device = "cuda"``) fails later, where it is used."""
    if isinstance(site.node, ast.Call):
        func = site.node.func
        q = m.qualname(func) or ""
        cuda = (isinstance(func, ast.Attribute) and func.attr == "cuda") or \
            (q.startswith("torch.cuda.") and q.removeprefix("torch.cuda.") in CUDA_QUERIES)
    elif _literal_mover(m, site) is not None:
        cuda = str(site.node.value).startswith("cuda")
    else:
        return False
    return catching_try(m.tree, site.stmt, cuda) is not None


def _literal_mover(m: Walker, site: Site[ast.Constant]) -> ast.Call | None:
    """The call that moves to the literal device of ``site`` where it stands: ``x.to("cuda")``,
    ``torch.zeros(3, device="cuda")``, either through ``torch.device("cuda")``."""
    parents = m.parents(site.stmt)
    node: ast.AST = site.node
    up = parents.get(id(node))
    if isinstance(up, ast.Call) and m.qualname(up.func) == "torch.device" and node in up.args:
        node, up = up, parents.get(id(up))
    if isinstance(up, ast.keyword) and up.arg in _DEVICE_KWARGS:
        call = parents.get(id(up))
        if isinstance(call, ast.Call) and (_moves_to(call) or (m.qualname(call.func) or "").startswith("torch.")):
            return call
        return None
    if isinstance(up, ast.Call) and _moves_to(up) and up.args and up.args[0] is node:
        return up
    return None


def _moves_to(call: ast.Call) -> bool:
    """Is ``call`` a ``.to(...)`` method call?"""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "to"


def _none_arms(m: Walker, site: Site[ast.Call] | Site[ast.Constant]) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """The parameters (with their function) whose default None the site's arms run on:
    of each ``if`` (or conditional expression) around it whose test is ``p is None`` (the
    site in its body) or ``p is not None`` (in its ``else``)."""
    scope = site.ctx.scope
    out = []
    tests: list[tuple[ast.expr, bool]] = [(i.test, in_body) for i, in_body in site.ctx.ifs]
    parents = m.parents(site.stmt)
    child: ast.AST = site.node
    up = parents.get(id(child))
    while up is not None and up is not site.stmt:
        if isinstance(up, ast.IfExp) and child is not up.test:
            tests.append((up.test, child is up.body))
        child, up = up, parents.get(id(up))
    for test, in_body in tests:
        found = _none_arm(scope, test, in_body)
        if found is not None:
            out.append(found)
    return out


def _none_arm(scope: Scope, test: ast.expr, in_body: bool) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
    """``(function, p)`` when ``test`` compares ``p``, a parameter of the scope's function
    whose default is None and which nothing else binds, with None, and the arm (``in_body``:
    the test's body) is the one where ``p`` is None."""
    fn = scope.function
    if fn is None or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                          and isinstance(test.left, ast.Name)
                          and isinstance(test.comparators[0], ast.Constant)
                          and test.comparators[0].value is None):
        return None
    op = test.ops[0]
    if not isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        return None
    is_none = isinstance(op, (ast.Is, ast.Eq))
    name = test.left.id
    if is_none != in_body or len(scope.binds.get(name, ())) != 1:
        return None
    default = default_of(fn.args, name)
    if not (isinstance(default, ast.Constant) and default.value is None):
        return None
    return fn, name


def _an_arm_leaves(st: ast.stmt) -> bool:
    """Does an arm of the ``if`` on availability that ``st`` is leave the function or the
    loop's round (a ``return``, ``raise``, ``sys.exit()``, ``pytest.skip()``, ``continue``,
    ``break``), so that the code after the ``if`` runs only on the other side?  An ``if`` whose arms both go on (``if
    torch.cuda.is_available(): x = x.cuda() else: x = x.cpu()``) guards its arms alone."""
    if not isinstance(st, ast.If):
        return False
    return any(_leaves(arm) for arm in (st.body, st.orelse) if arm)


def _leaves(body: list[ast.stmt]) -> bool:
    """Does some statement of ``body`` (not in a nested function) leave the function or
    the loop's round?"""
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
            return True  # (``continue``: the rest of the loop's body runs with a GPU only)
        if isinstance(n, ast.Call) and tail(n.func) in LEAVING_CALLS:
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _in_test(s: Site[ast.Call] | Site[ast.Constant]) -> bool:
    test = getattr(s.stmt, "test", None)
    if test is None:
        return False
    return pos(test) <= s.pos <= end_pos(test)
