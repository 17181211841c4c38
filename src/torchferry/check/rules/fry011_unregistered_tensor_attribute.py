"""Tensor attribute of an `nn.Module` that is neither a parameter nor a buffer.

## What it does
Flags `self.x = <tensor>` in the `__init__` of an `nn.Module` subclass, where the value is
a tensor the module creates (`torch.zeros(...)`, `torch.tensor(...)`, `torch.arange(...)`,
`torch.from_numpy(...)`, a legacy constructor such as `torch.Tensor(n)`, an expression on
those (`torch.cat((padding, torch.eye(k)), 1)`), or what a function of the checked files returns when the device-flow analysis
establishes it is a tensor made on the CPU; for each `self` target of an unpacking,
`self.edges, self.values = self.edge_info()`, the item at its position, as
`self.edges = self.edge_info()[0]` stores it), is neither an `nn.Parameter` nor
registered with `self.register_buffer` (a `self.register_buffer("mask", self.mask)` after
`self.mask = <tensor>` does not register it: PyTorch raises `KeyError: "attribute 'mask'
already exists"`, and older versions let the plain attribute shadow the buffer), and another method of the class (`forward`, a
helper, a closure inside one; also a helper that `__init__` calls too, when another method
calls it again: `self._refresh()` comparing `torch.eq(self.previous, self.params)` in
`__init__` and in `forward`) combines it, unmoved, with a tensor that follows the model
to its device: a `forward` input (of a subclass of torchmetrics' `Metric` that defines no
`forward`, an input of `update`, which the library's `forward` hands its own arguments;
`metric.to(device)` moves the states of `add_state` and the buffers, not a plain
attribute), a submodule's output, an `nn.Parameter` -- in an
operator (`x * self.scale`, `self.mask[:t, :t] == 0` fed to `x.masked_fill`), a torch
function (`torch.cat([x, self.extra])`) or a tensor method (`x.matmul(self.table)`),
directly or through a local name computed from it, or through a helper method's parameter
that a method gives such a tensor (`self.normalize(self.head(h))` with `normalize`
computing `t - self.mean`; a torch function of such a tensor and an object's attribute
the analysis cannot place, `torch.stft(x, n, window=self.window)` in a helper, computes on
the device of the first, since only a 0-dim CPU tensor meets a tensor of another device),
or in a function
of the checked files
it is handed to with such a tensor (`apply_mask(self.fc(x), self.mask)` where `apply_mask`
computes `h * mask`) -- or is indexed by such a tensor
(`self.betas[t]` with `t` an input annotated as a tensor or used as one in the method,
`labels.view(-1)`, or whose device the method reads, `self.pe[t].to(t.device)` -- a
number has no `.device`, and a module that has one indexes nothing --, or a helper's
parameter that every `self.<helper>(...)` call of the file that runs it gives such a
tensor, `self.p_losses(x, torch.randint(0, n, (b,), device=self.device))`, or computed
from a buffer without a move), also through `gather`,
`index_select`, `take` or `take_along_dim` (`self.alpha.gather(0, labels.view(-1))`).

The same holds for such a tensor that `__init__` (or a method only `__init__` calls) puts on
a device that nothing ties to the module's parameters: a device of its own (`.to("cuda")`,
`.cuda()`, `device=torch.device("cuda" if torch.cuda.is_available() else "cpu")`), the
device of an argument (`device=x_example.device`), or a `device` parameter with a default
(`def __init__(self, device="cpu")`) where no layer is built: `model.to(device)` moves the
parameters and leaves the attribute where it was put. And for a tensor that another method
makes on the CPU (`self.O = torch.from_numpy(...)` in `fit`, `self.state = torch.zeros(b, n)`
in `reset`) and a different method combines with the model's tensors.

Also flags `self.w = nn.Parameter(t).to(device)` (or `.cuda()`) in `__init__`, with `self.w`
read by another method, where the move is not written as one to the CPU nor to a dtype
only: `Tensor.to` returns the tensor itself only when it is already on that device, and
otherwise a copy, which is a plain tensor (`nn.Parameter` disables `__torch_function__`, so
no operation returns one). On an accelerator the attribute is then no parameter: not in
`model.parameters()`, never trained, not saved, not moved by `model.to()`. (Where `device`
is the CPU at run time it stays the parameter.)

## Why is this bad
`model.to(device)` moves parameters and buffers -- and nothing else. A plain tensor
attribute stays on the CPU while the rest of the model goes to the GPU, and `forward`
fails with "Expected all tensors to be on the same device" the first time it uses it
(indexed by a tensor on the GPU: "indices should be either on cpu or on the same device as
the indexed tensor (cpu)").
It is also missing from `state_dict()`, so it is not saved with the model.

## Example
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = torch.tril(torch.ones(8, 8))

    def forward(self, x):
        return x.masked_fill(self.mask == 0, 0.0)
```

## Use instead
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)), persistent=False)

    def forward(self, x):
        return x.masked_fill(self.mask == 0, 0.0)
```

## Fix safety
Unsafe: the fix registers a non-persistent buffer, so `model.to()` moves it and existing
checkpoints still load (it does not enter `state_dict`; drop `persistent=False` if it should
be saved). It changes what the program computes where the model is cast: `model.half()`
or `model.to(torch.float64)` now casts a floating-point buffer too. It fails if the
statement runs before `super().__init__()`, and later assignments to the attribute must
then be tensors (or `None`). None is offered outside `__init__`: there the name may be set
already, and `register_buffer` refuses it (`KeyError: "attribute 'state' already exists"`);
nor for one target of an unpacking (`self.edges, self.values = ...`).

Not flagged, because nothing can go wrong or the author already handles it:
* an attribute a method moves where it uses it (`self.alpha.to(x.device)`,
  `self.bbox.view(...).to(x.device)`, `(self.feats if f is None else f).type_as(x)`),
  in that method, unless it also indexes it, unmoved, by a tensor on the device (another
  method that combines it unmoved is flagged); also one a method
  reassigns from a call that is handed the attribute and may move it: one the analysis
  cannot follow, or a function of the checked files that moves what it returns on some
  path (`self.hist = c_f.to_device(self.hist, tensor=x)`), or from a value it moves to a
  device (`self.grid = self._make_grid(nx, ny).to(x.device)`, `self.alpha =
  self.alpha.type_as(x)`, also item by item in a tuple written out: `self.shift, self.scale =
  self.shift.to(device), self.scale.to(device)`);
* a use that every path of its method reaches only after the attribute was put where
  another tensor is (`self.alpha = self.alpha.type_as(x)`, `.to(x.device)`, `.to(x)`,
  stored back on `self`; on an arm that returns, the other arm's placement counts), also
  when the conversion is under a test of its place (`if self.alpha.type() != x.type():`,
  `if self.alpha.device != x.device:`: where the test is false, it is there already),
  or converted into a local name that the use reads (`alpha = self.alpha.to(x.device)`);
* an attribute that an `_apply` override in the file moves with the module
  (`def _apply(self, fn): ...; self.head.stride = fn(self.head.stride)`: `.to()` and
  `.cuda()` go through `_apply`);
* a tensor created with `device=`, or moved to a device in `__init__`
  (`torch.tensor([0.5]).to(device)`, or `self.t = self.t.to(device)` as a statement of
  `__init__`'s own body), where the module's construction ties that device to its
  parameters: taken from them (`next(self.parameters()).device`, `self.fc.weight.device`,
  `next(model.parameters()).device`), one `__init__` also builds or moves a layer,
  parameter or buffer on (`nn.Linear(n, n, device=device)`, `nn.Conv1d(...).to(device)`,
  `self.to(device)`), a parameter of `__init__` with no default or with the program's
  device variable as default (the caller names the device the model is built for:
  `Attention(hid, device)`, `def __init__(self, device=DEVICE)`), one with a value as
  default (`device="cpu"`) that every construction of the class in the run names
  (`Mixer(feats, device=args.device)` in each script that builds it: the default is never
  used; a construction that leaves it out or spreads `**kwargs`, a subclass or a class
  handed on keeps it flagged), or one given to the
  `super().__init__` of a base outside the checked files; a move under a test
  (`if config.is_gpu: self.t = self.t.cuda()`) leaves it on the CPU on the other arm, where
  `model.to(device)` does not carry it, and is flagged -- unless the test is a flag of a
  parameter of `__init__` (`if args.gpu:`, no `else`, `gpu` assigned nowhere in the files
  that may build the module) and every instance of the class in the run is built into a
  local name (`explainer = Explain(..., args=self.args)`), moved at least once and only in
  the true arm of the same flag as the builder reads it (`if self.args.gpu: explainer =
  explainer.cuda()`; what is handed for `args` a name bound once there or a `self`
  attribute only `__init__` methods assign), and otherwise only called or read from: the
  tensor is then on the CPU exactly where the module is.  A module moved whatever the
  flag, under another flag, another object handed for `args`, or an instance handed on
  (`nn.DataParallel(model)`) keep it flagged;
* a tensor that a statement of `__init__`'s own body puts on a device written out
  (`.cuda()`, `.to("cuda")`, `device=torch.device("cuda")`, also through a `self.device`
  set to one) where every instance of the class is moved by the code of the run that holds
  it to that same device and nowhere else: each construction (`self.model = Encoder(...)`,
  `model = Encoder(...)`) is stored in a name or a `self` attribute, and every use of it in
  the run (an attribute of that name read in any file, a local name in its function, one
  that a move is bound to, the model an instance is an attribute of) calls it, reads an
  attribute of it or moves it -- `model = self.model.cuda()`, then `model()`,
  `model.parameters()` --, with at least one move, each a statement its function runs
  whenever it runs (not under an `if`, in a loop or a `try`); the attribute is then where the
  parameters are on every machine the program runs on.  A move to another device
  (`model.cpu()`, `.cuda(1)`, a device chosen apart: `"cuda" if ... else "cpu"`), a
  model never moved or moved under a test (`if args.cuda: model.cuda()`), one handed to
  any function (`nn.DataParallel(model)`, `torch.compile(model)`, `model.apply(fn)`),
  returned or stored elsewhere, a construction used otherwise, or
  one the class's name does not show (`model_class(args)`) keep it flagged;
* a tensor a method other than `__init__` puts on a device (a cache built on the input's
  device: `self.grid = torch.arange(n, device=x.device)`), puts on the CPU by a move of its
  own (`self.w = w.cpu().clone()`), builds with `torch.tensor` of data that is not a
  sequence written out (`torch.tensor(self.init_lambda)`: 0-dim, maybe), or makes and
  combines with the model's tensors only in that same method (a factory without a device:
  FRY010);
* a use in a method that only `__init__` calls (`self._check()`): it runs while the model
  is built, with every tensor still on the CPU;
* an attribute the class never combines with the model's tensors: unused, used only with
  CPU tensors and Python numbers (`torch.empty(1).uniform_(self.log_ratio[0], ...)`), or only
  to build another attribute that is moved where used;
* a 0-dim tensor by construction (`torch.scalar_tensor(v)`, `torch.zeros(())`, or
  `torch.tensor(v)`, with at most `dtype=` and `requires_grad=`, where `v` is a number
  literal, a parameter of `__init__` whose default is one and that has no annotation but
  `int`/`float`, an unannotated one `__init__` also gives a `torch.nn` layer as a size
  (`nn.Linear(d, out_channels)`, `nn.Embedding(n, embedding_dim=d)`: an integer), a
  module-level name bound only to numbers, or a NumPy or `math` function of
  those, `torch.tensor(np.log(init_alpha))`: `self.clip = torch.tensor(clip, dtype=torch.float)`;
  also an elementwise torch function of such a tensor, `torch.sqrt(torch.tensor(d,
  dtype=torch.float))`) that meets the
  model's tensors only in operations that take a 0-dim CPU tensor with tensors on any device
  (TensorIterator's CPU scalars; `device_check: NoCheck   # TensorIterator` in PyTorch's
  `native_functions.yaml`): an arithmetic operator other than `@`, a comparison,
  `torch.min/max/minimum/maximum(a, b)` -- the attribute itself, its arithmetic with number
  literals or an elementwise method of those without arguments (`self.log_alpha.exp()`) is
  the operand (`torch.min(self.clip, ratio)`, `h / (h.abs() + self.eps)`), and what
  such an operation computes with a model's tensor, on the model's device, may go anywhere
  (`r = torch.min(self.clip, h)`, then `r.masked_fill(...)`). Any other use keeps it flagged:
  through a local name bound to the attribute, in `torch.cat`, `@`, `torch.where` (not
  established here), a tensor method (`h.mul_(self.t)`), a function of the checked files, an
  index; so does a tensor whose data may be a sequence (`torch.tensor(scale)` of a parameter
  with no default, or annotated otherwise);
* a 1-D tensor of numbers by construction (`torch.FloatTensor([w / 2 ** s for s in
  range(n)])`, `torch.tensor([0.5, 0.25])`: numbers as above, and a comprehension's loop
  variable over `range`) that meets the model's tensors only through items taken with a
  Python integer (a literal, a loop variable of `range(...)`, the counter of
  `enumerate(...)`: `self.loss_weights[i] * loss`), in the same operations: each item is a
  0-dim CPU tensor. Used whole or indexed by a tensor, it is flagged.

## Known limits
Only tensors the module makes are checked, and an attribute registered as a buffer
anywhere in the file (e.g. by a base class) is accepted; a tensor passed in as an argument and
stored as it is (`self.mask = mask` in `__init__`) is flagged only where every construction of
the class in the run is known and passes a tensor made on the CPU that is not 0-dim by
construction (`Coupling(n, torch.arange(n) % 2)`, in the class's file or one that imports it;
a construction in a function the analysis skips, or a class named other than in a
construction, a subclass included, keeps it quiet), and only where a use takes it whole (one
used only through items taken with an integer stays quiet: its dimensions are not known);
the default rule set does not report it (a module whose instances are never moved, or whose
use hands it to a method that moves it first, is not told apart), nor is one another method caches on the device of its first input
and reuses after the model moved (`self.mask = make_mask(..., device=x.device)` rebuilt
only when the shape changes). Uses are looked for in the
class's own methods and in those of its subclasses in the same file (`class
Latent(Base)`, also through a class between) or in a checked file that imports it (every
class between in that file) that neither store, delete nor register the
attribute (nor does that other file register a buffer or parameter of its name), and in the
methods of its bases in the same file that it inherits or calls through `super()`
(`return super().forward(x)`), read as run on an instance of the class: their
`self.<name>(...)` calls the class's overrides (a base's `torch.mv(self.M, mu)` with `mu =
self.mu_f(out)`, the subclass's `mu_f` computing from the input), unless a base stores,
deletes or registers the attribute outside `__init__`, or stores it in `__init__` while the
class stores its own before calling `super().__init__(...)`: an
attribute read by other code (`volume.bbox_min` in a free
function, a subclass in a file that does not import the class's file, or through a class
between of a third file), or combined with a tensor the analysis cannot place
(a parameter of a helper method that no method of the file gives a tensor of the model,
and that is never used as a tensor), is not flagged. A `forward` input that `forward` only
hands on, as it is, to a helper that uses it as a tensor (`self.transform(x)` whose
`torch.stft(x, n, window=self.window)` meets the attribute, or `self.density(state)` whose
`torch.cat((state, self.context), -1)` joins it: `cat`, `stack` and the other joining
functions take a sequence of tensors) follows the model: the
helper's use tells its kind; an input used nowhere as a tensor does not. An attribute handed to a function
or method of the checked files counts as combined only where that function's own body
combines the argument, as it came in on some path, with another argument that moves with the
model (`h * w`, `torch.cat([h, w])`): not where it moves it first (`w = w.to(self.device)`,
`w.type_as(h)`), nor where it hands it on to a further function. An
index that may hold one element -- a reduction without a dimension (`self.table[x.sum()]`)
or an item of another tensor (`self.table[t[0]]`), which PyTorch reads as an integer -- is
not flagged (an item of a list the method writes out from tensors that follow the model,
`entities = [v]`, grown only by such tensors or by ones moved with `.to(...)`/`.cuda()`, is
one of those tensors, and is flagged; a list grown any other way, `extend` or `+=`, is not), nor is one the analysis cannot place, nor an input used directly as the index
without a `Tensor` annotation that the method never uses as a tensor and whose device
it never reads (`self.schedule[epoch]`; `idx.shape` and `idx.dtype` say nothing, a NumPy
array has them), unless every call of the method in the file gives it such a tensor. A
placement before a use is followed through the method's own statements only: a loop
body is taken as entered from the statement before the loop, and a call that reassigns the
attribute elsewhere is not seen. A rebinding before the use to a value that holds nothing
of the attribute (`self.weight = w.reshape(o, i)` of `w = self.calculate_weights(t)`, a
method that names no attribute of that name) counts as such a placement: what `__init__`
stored never reaches the use. A store that a later store of the same method replaces on
every path while the model is built is not reported when the later value does not read the
attribute or is known to be no tensor (`self.bands = self.bands.numpy().tolist()`); a later
store that keeps it as a tensor (`self.std = self.std.cuda()`, a cast) leaves the finding on
the first -- unless a store after it, on every path that goes on through the method, wraps
the attribute as a parameter (`self.alpha = self.alpha.view(1, -1)`, then `self.alpha =
nn.Parameter(self.alpha)`; also after an unpacking, `self.w, s, v = torch.svd(self.w)`):
`Module.__setattr__` takes the name out of the plain attributes and registers the
parameter, which moves with the module (no plain tensor can be stored over it after).  A
wrap on one arm of an `if` only, or after a `return` that may leave first, keeps the
finding, and so does `nn.Buffer(...)` or `self.register_buffer("<name>", ...)` over the
plain attribute: PyTorch refuses the name. A method of another object that the rebinding calls (`self.net.weights()`), or a
subclass's override of the class's own method, is not read: its value counts as fresh. An
`_apply` override in another file is not seen. A device computed at run time that every
instance is moved to (`self.device = args.device` and `model.to(args.device)` of the same
`args`) is not compared: flagged when the rule is named (`--select FRY011`, `ALL`). The default
rule set does not report an attribute that `__init__` (or a method only it calls) puts on a
device the program chooses when it runs: a choice between devices (`"cuda" if
torch.cuda.is_available() else "cpu"`), or an attribute of a parameter of `__init__` that the
method reads as an object of attributes, a configuration (`args.device`,
`torch.device(cfg.MODEL.DEVICE)`), directly, through a name bound once or through a
`self.device` that `__init__` or a base's `__init__` of the run sets so. Such an attribute is
where the program puts the model wherever it moves the model to that same choice (on real code
every such finding was harmless); a device written out (`.cuda()`, `"cuda:0"`), a parameter's
default or the device of a tensor handed in (`x_example.device`) stay in the default set. Those uses of an instance are read off the syntax of the
run's files, also of files outside the check's dependencies, and a result kept by the
cache is not redone when such a file alone changes. An attribute placed in `__init__` on a
device tied to the parameters is left behind when the model later moves to another device
(`model.cpu()` for inference, `DataParallel` replicas); that is not flagged. A value that
joins such an attribute with the model's tensors has no known place, and a further use of
it is not flagged (`f = torch.exp(x + self.m)`, then `f * self.c`) unless a `torch.nn`
layer with weights computed it (`self.ln(...)`); nor is the attribute given to a submodule
(`self.gate(self.h)`). A class whose base is
neither a module class of the checked files nor `torch.nn`'s nor another package's known by
name (Lightning's `LightningModule`, a transformers model: `PreTrainedModel`,
`RobertaPreTrainedModel`, `BertForTokenClassification`; fairseq's `FairseqEncoder`, PyG's
`MessagePassing`; torchmetrics' `Metric`, by its qualified name only: a bare `Metric` of
unknown origin, ignite's, is no module), such as allennlp's `Model`, is checked only when its own code shows it
is a module: `__init__` assigns `torch.nn` layers or `nn.Parameter`s to `self` and the
class defines `forward`, or it calls `self.register_buffer`, `self.parameters()` or their kin.
A tensor a method makes or moves at a plain device attribute of `self` (`self.device =
device`, assigned by the class, no property or method of that name), or a `torch.*_like`
of one, does not move with the model (`.to()` leaves the attribute), so an attribute put on
a device while the model is built (`device=device` in `__init__`) is not flagged for meeting
it; a property that reads the parameters' device still counts as the model's. An attribute
made on the CPU that meets such a tensor is flagged as before: the device attribute may
name an accelerator. A 0-dim attribute (`torch.sqrt(torch.tensor(d))` of a `d` that
`__init__` gives a layer or a torch factory as one size, `torch.zeros((d, d))`) whose
divisions or products landed on the model's device are then only given to torch functions
(`softmax(score, -1)`) is not flagged; a lone factory argument (`torch.zeros(d)`) may be a
shape, so it tells nothing.
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

from torchferry.check.api import Context, Evidence, Finding, Fix, Selected, walk
from torchferry.check.flow import CPU, Basis, Callee, Kind, Op, Value, Where
from torchferry.check.flow.arms import init_flag_move
from torchferry.check.flow.converted import param_names, read_as_an_object
from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.evidence import step
from torchferry.check.flow.holders import (
    construction_arguments,
    instance_moves,
    passed_by_every_construction,
)
from torchferry.check.flow.lattice import (
    ELEMENTWISE,
    element,
    is_number,
    join,
    number_defaults,
    param,
    sizes_given,
    zero_dim_made,
)
from torchferry.check.flow.program import ClassInfo as FlowClass
from torchferry.check.flow.program import FileFlow, in_file, mro
from torchferry.check.flow.queries import is_tensor, moves, on_device_tensor, value_of
from torchferry.check.flow.rebound import fresh_value, later_stores, overwritten_after
from torchferry.check.flow.vocab import (
    MOVE_NAMES,
    PARAM_LAYERS,
    REDUCTIONS,
    REGISTERED,
    RETYPES,
    SAME_PLACE_ATTRS,
    SHAPE_ONLY,
)
from torchferry.check.names import NON_TENSOR_METHODS, end_pos, kwarg, pos, short
from torchferry.check.scopes import (
    Binding,
    ClassInfo,
    Ctx,
    How,
    Scope,
    ScopeKind,
    Site,
    Walker,
    on_the_other_arm,
)

CODE = "FRY011"
NAME = "unregistered-tensor-attribute"
FIX = "unsafe"

# methods that move a tensor (the author carries the attribute by hand)
_MOVES = MOVE_NAMES | RETYPES
# what takes an index tensor: the index's position, the indexed tensor first
# (``torch.gather(t, dim, idx)``, ``t.gather(dim, idx)`` read as ``gather(t, dim, idx)``)
_INDEX_TAKING = {"gather": 2, "index_select": 2, "take": 1, "take_along_dim": 1}


def check(ctx: Context) -> Iterable[Finding]:
    m = ctx.syntax
    per_class: dict[int, _Class] = {}

    def info_of(cls: ClassInfo) -> _Class:
        info = per_class.get(id(cls))
        if info is None:
            info = per_class[id(cls)] = _Class(ctx, m, cls)
        return info

    for stmt, sctx, cls, attr in m.self_assigns:
        value = getattr(stmt, "value", None)
        if not cls.is_module or value is None:
            continue
        moved = _moved_parameter(m, value)
        if moved is not None:
            info = info_of(cls)
            if attr not in info.registered and info.read(attr):
                yield _moved_parameter_finding(ctx, stmt, attr, value, moved)
            continue
        yield from _plain_tensor(ctx, info_of, _Assign(stmt, sctx.scope, attr, value, _Where.INIT))
    helpers: set[int] | None = None  # (worked out for the first such assignment)
    for stmt, sctx, cls, attr in m.method_assigns:
        value = getattr(stmt, "value", None)
        if cls.is_module and value is not None:
            if helpers is None:
                helpers = _construction_helpers(m)
            where = _Where.SETUP if id(sctx.scope) in helpers else _Where.METHOD
            yield from _plain_tensor(ctx, info_of, _Assign(stmt, sctx.scope, attr, value, where))
    for a in _unpacked_assigns(ctx, m):
        yield from _plain_tensor(ctx, info_of, a)


def _unpacked_assigns(ctx: Context, m: Walker) -> Iterator[_Assign]:
    """``self.a, self.b = <value>`` in a method of an ``nn.Module`` class of the file, one
    :class:`_Assign` per ``self`` attribute of the targets, whose value is the item at its
    position of what the analysis knows ``<value>`` is (a tuple a method returns,
    ``return edges, values``), as ``self.a = <value>[0]`` would store."""
    helpers: set[int] | None = None
    for fs in m.functions:
        fn, cls, me = fs.function, fs.cls, fs.self_name
        if fn is None or cls is None or not cls.is_module or me is None:
            continue
        for st in _own_statements(fn):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1
                    and isinstance(st.targets[0], (ast.Tuple, ast.List))):
                continue
            elts = st.targets[0].elts
            found = value_of(ctx.flow, st.value)
            if found is None or any(isinstance(e, ast.Starred) for e in elts):
                continue
            if helpers is None:
                helpers = _construction_helpers(m)
            where = _Where.INIT if fs.name == "__init__" else \
                _Where.SETUP if id(fs) in helpers else _Where.METHOD
            for i, e in enumerate(elts):
                if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me:
                    item = ast.copy_location(ast.Subscript(st.value, ast.Constant(i), ast.Load()), st.value)
                    yield _Assign(st, fs, e.attr, item, where, (i, element(found[1], i)))


def _own_statements(fn: ast.AST) -> Iterator[ast.stmt]:
    """The statements of ``fn``'s body, in blocks nested in it, not in nested functions or
    classes."""
    stack = list(getattr(fn, "body", []))
    while stack:
        st = stack.pop()
        yield st
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(st, field, None) or [])
        stack.extend(c for case in getattr(st, "cases", None) or [] for c in case.body)


class _Where(enum.Enum):
    """Which method stores a tensor on ``self``."""

    INIT = "__init__"
    SETUP = "a method only __init__ calls"  # (it runs while the model is built)
    METHOD = "another method"


class _Assign(NamedTuple):
    """``self.<attr> = <value>`` in the method ``scope``; ``item``: for one target of
    ``self.a, self.b = <value>``, its position and the value the analysis gives it
    (``value`` then stands for ``<value>[position]``)."""

    stmt: ast.stmt
    scope: Scope
    attr: str
    value: ast.expr
    where: _Where
    item: tuple[int, Value] | None = None


def _plain_tensor(ctx: Context, info_of: Callable[[ClassInfo], _Class],
                  a: _Assign) -> Iterator[Finding]:
    """The finding for ``a`` if it stores a tensor the module makes, neither a parameter nor
    a buffer, that another method combines, unmoved, with a tensor that moves with the
    model: a tensor made on the CPU, or -- while the model is built -- put on a device that
    nothing ties to the module's own parameters (``.to("cuda")``, ``device=x.device`` of
    an argument, ``device=device`` where no layer is built there)."""
    stored = _stored_tensor(ctx, a)
    if stored is None:
        return
    v, given = stored
    cls = a.scope.cls
    assert cls is not None
    self_name = a.scope.self_name or "self"
    if _replaced_while_built(ctx, a, self_name):
        return  # (the later store is judged on its own)
    dev = _placement(ctx.syntax, a.value)
    if _left_where_placed(ctx, a, cls, v, dev, self_name):
        return
    info = info_of(cls)
    if a.attr in info.registered and not _registered_after(a.scope.function, a.stmt, self_name, a.attr):
        return
    later = _placed_later(ctx, a.scope.function, self_name, a.attr)
    if _moved_later(ctx, a, cls, dev, later):
        return
    met = _met_on_the_device(ctx, info, a, dev)
    if met is None:
        return  # never meets a tensor that moves with the model: nothing can go wrong
    user, use, text = met
    if a.attr not in info.moved and _accepted_as_numbers(ctx.syntax, a, user, given):
        return
    placed = dev if dev is not None else later
    if placed is not None and ctx.selected(CODE) is Selected.BY_DEFAULT and \
            a.where is not _Where.METHOD and _chosen_when_run(ctx, cls, a.scope, placed):
        return  # (the default set: where the program also puts the model, unless moved apart)
    f = _plain_finding(ctx, info, a, placed, use, text)
    yield f if given is None else replace(f, evidence=_construction_evidence(ctx, a, given))


def _stored_tensor(ctx: Context, a: _Assign) -> tuple[Value, Value | None] | None:
    """The value ``a`` stores, and what every construction passes for it when it stores a
    constructor argument as it came in (:func:`_given_by_every_construction`, then the
    value itself); None where the analysis knows no value, where a constructor argument is
    not reported (the default set), or where ``**kwargs`` may carry the device."""
    found = value_of(ctx.flow, a.value if a.item is None else getattr(a.stmt, "value", a.value))
    if found is not None and a.item is not None:
        found = (found[0], a.item[1])
    if found is not None and ctx.selected(CODE) is Selected.BY_DEFAULT and _as_it_came_in(a, found[1]):
        return None  # (a constructor argument: reported when the rule is named; made nowhere here)
    given = _given_by_every_construction(ctx, a, found[1]) if found is not None else None
    if found is not None and given is not None:
        found = (found[0], given)  # (``self.mask = mask``: what the constructions pass)
    value = a.value
    if found is None or isinstance(value, ast.Call) and any(k.arg is None for k in value.keywords):
        return None  # (``**factory_kwargs`` may carry the device)
    return found[1], given


def _left_where_placed(ctx: Context, a: _Assign, cls: ClassInfo, v: Value, dev: ast.expr | None,
                       self_name: str) -> bool:
    """Is the tensor ``v`` that ``a`` stores (put on ``dev`` where it is made) not one the
    rule weighs: not made here nor on the CPU, placed where the module is built (or, in a
    later method, where the author chose), or in a later method not made there on the CPU?"""
    m, value = ctx.syntax, a.value
    if dev is None and not _made_here(v) and not _made_on_cpu(v):
        return True
    if dev is not None and (a.where is _Where.METHOD or not _made_data(v) or
                            _reads(value, self_name, a.attr) or _tied(ctx, cls, a.scope, dev) or
                            _where_every_move_goes(ctx, cls, a, dev)):
        return True  # placed where the module is built (or, in a later method, where the author chose)
    if a.where is _Where.INIT:
        return False
    # (``self.table = self.table.float()``: the tensor stored before, where it was)
    return not _made_within(v, a.scope.function) or \
        dev is None and (not _made_on_cpu(v) or _moved_or_scalar(m, value))


def _moved_later(ctx: Context, a: _Assign, cls: ClassInfo, dev: ast.expr | None,
                 later: ast.expr | None) -> bool:
    """Is the stored tensor moved later in its method (to ``later``), where it is all the
    same or tied to the module; or in ``__init__`` under the flag that alone moves every
    instance (on the CPU only with it)?"""
    if later is not None and (a.where is _Where.METHOD or _tied(ctx, cls, a.scope, later)):
        return True
    return later is None and dev is None and a.where is _Where.INIT and \
        a.scope.function is not None and \
        init_flag_move(ctx.flow, cls.node, a.scope.function, a.stmt, a.attr)


def _met_on_the_device(ctx: Context, info: _Class, a: _Assign, dev: ast.expr | None,
                       ) -> tuple[_Class, Site, Callable[[ast.AST], str]] | None:
    """Where the stored attribute meets a tensor that moves with the model: the class whose
    method does (``info``'s, else a subclass's of another file), the use and that file's
    text; None where it never does.  Moved by hand somewhere, only an unmoved read that
    indexes it on the device counts."""
    use = info.mixed_use(a.attr, indexed_only=a.attr in info.carried,
                         elsewhere=a.scope if a.where is _Where.METHOD else None,
                         placed=dev is not None or _names_a_device(a.value))
    if use is not None:
        return info, use, ctx.text
    away = _use_in_foreign_subclass(ctx, info, a.attr)
    if away is None:
        return None
    return away[0], away[1], away[0].text


def _accepted_as_numbers(m: Walker, a: _Assign, user: _Class, given: Value | None) -> bool:
    """Does PyTorch accept the stored CPU tensor where it is used: a 0-dim tensor in
    elementwise operations, or only its items taken with an integer (0-dim CPU tensors
    too)?"""
    value = a.value
    if _zero_dim(m, value, a.scope) and user.scalar_tolerant(a.attr):
        return True
    return (_numbers_1d(m, value, a.scope) or given is not None) and \
        user.scalar_tolerant(a.attr, element=True)


def _given_by_every_construction(ctx: Context, a: _Assign, v: Value) -> Value | None:
    """For ``self.<attr> = <param>`` in ``__init__``, the parameter as it came in: what
    every construction of the class in the run passes for it (``Coupling(mask)`` with
    ``mask = torch.arange(n) % 2``), where each is a tensor made on the CPU and not 0-dim by
    construction (``torch.tensor(0.5)``); None otherwise, or where not every construction
    is known (:func:`~torchferry.check.flow.holders.construction_arguments`) or one leaves
    the parameter to its default."""
    fn, cls = a.scope.function, a.scope.cls
    if not _as_it_came_in(a, v) or fn is None or cls is None or not isinstance(a.value, ast.Name):
        return None
    init = ctx.flow.class_info(cls.node).method("__init__")
    args = construction_arguments(ctx.flow, cls.node, a.value.id) if init is not None and init[1] is fn else None
    out: Value | None = None
    for other, arg in args or ():
        found = value_of(other, arg)
        given = in_file(other.placed(found[0], found[1]), other, ctx.flow) if found is not None else None
        if given is None or not _made_on_cpu(given) or any(
                not isinstance(o.node, ast.Call) or zero_dim_made(other.qualname(o.node.func), o.node)
                for o in given.origins):
            return None
        out = given if out is None else join(out, given)
    return out


def _as_it_came_in(a: _Assign, v: Value) -> bool:
    """Is ``a`` ``self.<attr> = <param>`` in ``__init__`` of a class, storing the parameter
    (not the first) as it came in (``v``, its value there)?  Such a store is judged only
    by what the constructions pass (:func:`_given_by_every_construction`): the module
    makes nothing there.
    """
    fn = a.scope.function
    if a.where is not _Where.INIT or a.item is not None or not isinstance(a.value, ast.Name) \
            or fn is None or a.scope.cls is None:
        return False
    names = param_names(fn)
    k = names.index(a.value.id) if a.value.id in names else -1
    return k > 0 and v.places == frozenset((param(k),)) and all(o.op is Op.PARAM for o in v.origins)


def _construction_evidence(ctx: Context, a: _Assign, given: Value) -> tuple[Evidence, ...]:
    """Where the tensors every construction passes for ``self.<attr> = <param>`` were made."""
    name = ctx.text(a.value)
    return tuple(step(ctx, o, f"`{short(o.text, 40)}` made on the CPU here is what a construction "
                              f"passes for `{name}`") for o in given.origins)


def _replaced_while_built(ctx: Context, a: _Assign, self_name: str) -> bool:
    """Does a later store of the same method, while the model is built, replace the
    tensor of ``a`` on every path (:func:`~torchferry.check.flow.rebound.overwritten_after`)
    with a value that holds nothing of it, or with one the analysis knows is no tensor
    (``self.bands = self.bands.numpy().tolist()``)?  A later store that keeps it as a
    tensor (``self.std = self.std.cuda()``, a cast) leaves it to the first store's finding."""
    if a.where is _Where.METHOD or a.scope.function is None:
        return False
    if _ends_a_parameter(ctx.syntax, a.scope.function, a.stmt, self_name, a.attr):
        return True
    later = overwritten_after(a.scope.function, a.stmt, self_name, a.attr)
    if later is None:
        return False
    if not any(isinstance(n, ast.Attribute) and n.attr == a.attr for n in ast.walk(later)):
        return True
    found = value_of(ctx.flow, later)
    kinds = found[1].kinds if found is not None else None
    return kinds is not None and bool(kinds) and Kind.TENSOR not in kinds and Kind.BATCH not in kinds


def _ends_a_parameter(m: Walker, fn: ast.AST, stmt: ast.stmt, self_name: str, attr: str) -> bool:
    """Is ``self.<attr>``, stored by ``stmt``, stored again later in ``fn`` as an
    ``nn.Parameter`` on every path that goes on through it (``self.alpha =
    nn.Parameter(self.alpha)``, maybe after other stores,
    :func:`~torchferry.check.flow.rebound.later_stores`)?  ``Module.__setattr__`` then
    takes the name out of the plain attributes and registers the parameter, which moves with
    the module; a later plain tensor cannot be stored over it (PyTorch raises
    ``TypeError: cannot assign ... as parameter``).  A buffer stored so (``nn.Buffer``) or
    ``self.register_buffer("<attr>", ...)`` over the plain attribute does not count:
    PyTorch refuses the name (``KeyError: "attribute '<attr>' already exists"``)."""
    return any(isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Call)
               and m.qualname(st.value.func) in _PARAMETER
               for st in later_stores(fn, stmt, self_name, attr))


def _names_a_device(value: ast.expr) -> bool:
    """Does ``value`` make or move a tensor to a device it names (``device=d``, ``.to(d)``)?"""
    return any(isinstance(n, ast.Call) and (kwarg(n, "device") is not None or
               isinstance(n.func, ast.Attribute) and n.func.attr == "to" and bool(n.args))
               for n in ast.walk(value))


def _plain_attribute(cls: FlowClass, name: str) -> bool:
    """Is ``self.<name>`` a plain attribute of instances of ``cls``: no method or property of
    the class or of a base in the run, and assigned (``self.<name> = ...``) in one of their
    methods?  (A base outside the run may still define it: the assignment would fail
    where that is a property without a setter, so the assignment is the evidence.)"""
    if cls.method(name) is not None:
        return False
    for c in cls.lineage():
        for fn in c.methods.values():
            args = fn.args.posonlyargs + fn.args.args
            me = args[0].arg if args else None
            if me is not None and any(
                    isinstance(n, ast.Assign) and any(
                        isinstance(t, ast.Attribute) and t.attr == name and
                        isinstance(t.value, ast.Name) and t.value.id == me for t in n.targets)
                    for n in ast.walk(fn)):
                return True
    return False


def _use_in_foreign_subclass(ctx: Context, info: _Class, attr: str) -> tuple[_Class, Site] | None:
    """The first device use of ``self.<attr>`` (:meth:`_Class.mixed_use`) in the methods of a
    subclass of ``info``'s class defined in another file of the run that imports this one
    (``class Latent(DDPM)`` in ``latent.py``), with that subclass: every class between is
    of that file, and none of them stores, deletes or re-registers the attribute, nor does
    the file register a buffer or parameter of that name anywhere.  None when there is no
    such use, or the run's importers of this file are not known."""
    project = ctx.project
    base = info.cls.node
    # (a file whose text names the class in no class statement's bases derives none from it)
    deriving = re.compile(rb"^[ \t]*class[ \t]+\w+[ \t]*\([^)]*\b" + re.escape(base.name.encode()) + rb"\b",
                          re.MULTILINE)
    naming = {p for p in (project.importers(ctx.flow.path) or ()) if p != ctx.flow.path
              and deriving.search(project.files.get(p, b""))} if project is not None else set()
    others = project.importer_flows(ctx.flow) if naming and project is not None else None
    for other in others or ():
        if other.path not in naming:
            continue
        octx = info.foreign.get(other.path)
        if octx is None:
            octx = info.foreign[other.path] = ctx.of_file(other)
        om = octx.syntax
        if attr in _registered_names(om):
            continue
        for wc in om.classes.values():
            between = _between(other, wc.node, ctx.flow.path, base)
            if not between or any(_stores(fs, fs.self_name, attr) for fs in om.functions
                                  if fs.self_name is not None and fs.cls is not None
                                  and fs.cls.node in between):
                continue
            sub = _Class(octx, om, wc)
            use = sub.mixed_use(attr, indexed_only=attr in info.carried)
            if use is not None:
                return sub, use
    return None


def _between(other: FileFlow, node: ast.ClassDef, path: str, base: ast.ClassDef) -> list[ast.ClassDef]:
    """The classes from ``node`` (a class of ``other``) up to, not including, the class
    ``base`` of the file ``path`` it derives from, when all of them are of ``other``;
    empty when it does not derive from ``base`` or a class between is of another file."""
    out: list[ast.ClassDef] = []
    for k in other.class_info(node).lineage():
        if k.ff.path == path and k.node.name == base.name and k.node.lineno == base.lineno:
            return out
        if k.ff is not other:
            return []
        out.append(k.node)
    return []


def _plain_finding(ctx: Context, info: _Class, a: _Assign, dev: ast.expr | None,
                   use: Site, text: Callable[[ast.AST], str]) -> Finding:
    """The finding for a plain tensor attribute ``a`` that ``use`` combines with the model's
    tensors; ``dev`` is the device it was put on (None: the CPU); ``text`` gives the source
    of ``use`` (of another file, for a subclass there)."""
    self_name = a.scope.self_name or "self"
    fix = None
    if a.where is _Where.INIT and isinstance(a.stmt, ast.Assign) and len(a.stmt.targets) == 1 \
            and a.item is None:
        fix = Fix((ctx.edit(a.stmt, f'{self_name}.register_buffer("{a.attr}", '
                                    f'{ctx.text(a.value)}, persistent=False)'),), False,
                  f'Register it: `self.register_buffer("{a.attr}", ...)`')
    # (a plain attribute a later ``register_buffer`` of the name cannot turn into one)
    shadow = f' (the `register_buffer("{a.attr}", ...)` after it raises KeyError "attribute ' \
        f"'{a.attr}' already exists\"; older PyTorch let the attribute shadow the buffer)" \
        if a.attr in info.registered else ""
    made = "" if a.where is _Where.INIT else f" made in `{a.scope.name}`"
    owner = _method(use.ctx.scope)
    user = use.ctx.scope.name if owner is None or owner.cls is None or owner.cls is a.scope.cls \
        else f"{owner.cls.name}.{use.ctx.scope.name}"  # (a subclass's method)
    where = "on the CPU" if dev is None else \
        f"where `{short(ctx.text(dev), 30)}` put it while the model was built, " \
        "a device nothing ties to the module's parameters"
    return ctx.finding(
        CODE, a.stmt,
        f"{_stored(ctx, a)} is a plain tensor attribute{made}"
        f"{shadow}: `model.to(device)` leaves it behind {where}, and `{user}` "
        f"combines it with a tensor that moves with the model "
        f"(`{short(' '.join(text(use.node).split()), 60)}`); "
        f'register it: `self.register_buffer("{a.attr}", ...)` (or make it an `nn.Parameter`)',
        fix,
    )


def _stored(ctx: Context, a: _Assign) -> str:
    """How the finding shows the store: ``self.mask = torch.ones(...)``, or for one target
    of an unpacking ``self.a`` of ``self.a, self.b = self.info()`` (item 0)."""
    if a.item is None:
        return f"`self.{a.attr} = {short(ctx.text(a.value), 40)}`"
    return f"`self.{a.attr}` (item {a.item[0]} of `{short(ctx.text(a.stmt), 50)}`)"


class _Class:
    """What one ``nn.Module`` class does with its attributes outside ``__init__``."""

    def __init__(self, ctx: Context, m: Walker, cls: ClassInfo) -> None:
        self.ctx = ctx
        self.m = m
        self.ff = ctx.flow  # what a value is and where it lives
        self.text = ctx.text
        self.cls = cls
        self._placed = False
        self.registered = _registered_names(m)
        self._scopes: list[tuple[Scope, str]] | None = None
        #: the classes of the file that derive from this one, each with the classes between
        #: (see :meth:`_subclasses`)
        self.subclasses = self._subclasses()
        #: attributes that follow the model: moved by an ``_apply`` override, or stored back
        #: on ``self`` moved by a method
        self.carried = _moved_by_apply(m) | set(self._moved_by_methods())
        #: attributes moved by hand where a method uses them (of the class or a subclass of
        #: the file), with those methods
        self.moved_in = _moved_where_used(m, cls)
        for sub, _ in self.subclasses:
            for name, where in _moved_where_used(m, sub).items():
                self.moved_in.setdefault(name, set()).update(where)
        self.moved = self.carried | set(self.moved_in)
        #: methods only ``__init__`` calls: they run while the model is built, on the CPU
        self.building = _construction_helpers(m)
        #: the views of the run's other files read for subclasses there, by path
        self.foreign: dict[str, Context] = {}
        #: the bases' methods of the file run on an instance of this class, interpreted as
        #: such (see :meth:`inherited_scopes`), by id of the method
        self.views: dict[int, ScopeResult] = {}

    def scopes(self) -> list[tuple[Scope, str]]:
        """The class's methods other than ``__init__`` and ``_apply`` (with the functions
        nested in them), each with the name ``self`` has there."""
        if self._scopes is None:
            self._scopes = []
            for fs in self.m.functions:
                s: Scope | None = fs
                while s is not None and s.kind is ScopeKind.FUNCTION and s.self_name is None:
                    s = s.parent
                if s is not None and s.cls is self.cls and s.self_name is not None and \
                        s.name not in ("__init__", "_apply"):
                    self._scopes.append((fs, s.self_name))
        return self._scopes

    def _subclasses(self) -> list[tuple[ClassInfo, list[ClassInfo]]]:
        """The classes of this file that derive from this one (``class Latent(Base)``,
        also through ``class Mid(Base)``), each with itself and the classes between, when
        every class between is of this file too: an instance of one runs ``__init__`` of
        this class and the subclass's methods on the same ``self``."""
        mine: dict[int, ClassInfo] = {}
        for c in [*self.m.classes.values(), *(fs.cls for fs in self.m.functions)]:
            if c is not None and c is not self.cls:
                mine.setdefault(id(c.node), c)
        out: list[tuple[ClassInfo, list[ClassInfo]]] = []
        for c in mine.values():
            between: list[ClassInfo] = []
            for k in self.ff.class_info(c.node).lineage():
                if k.node is self.cls.node or \
                        not any(b.node is self.cls.node for b in k.lineage()):
                    continue
                w = mine.get(id(k.node))
                if w is None or k.ff is not self.ff:
                    break  # (a class between in another file: not seen)
                between.append(w)
            else:
                if between:
                    out.append((c, between))
        return out

    def scopes_for(self, attr: str) -> list[tuple[Scope, str]]:
        """:meth:`scopes`, and the methods of the subclasses of the file (see
        :meth:`_subclasses`) where neither the subclass nor a class between stores,
        deletes or re-registers ``self.<attr>``: there it is the tensor this class's
        ``__init__`` stored."""
        out = list(self.scopes()) + self.inherited_scopes(attr)
        for _, between in self.subclasses:
            methods = [(fs, fs.self_name) for fs in self.m.functions
                       if fs.cls is not None and any(fs.cls is b for b in between)]
            if any(_stores(fs, name, attr) for fs, name in methods if name is not None):
                continue
            for fs in self.m.functions:
                s: Scope | None = fs
                while s is not None and s.kind is ScopeKind.FUNCTION and s.self_name is None:
                    s = s.parent
                if s is not None and s.cls is between[0] and s.self_name is not None and \
                        s.name not in ("__init__", "_apply"):
                    out.append((fs, s.self_name))
        return out

    def inherited_scopes(self, attr: str) -> list[tuple[Scope, str]]:
        """The methods of the class's bases in this file (with the functions nested in
        them) that run on an instance of the class and read the ``self.<attr>`` its own
        ``__init__`` stores: one it inherits (no class up to the base defines the name),
        or one a method of the class calls through ``super()`` (``return
        super().forward(x)``).  Not when a base stores, deletes or registers the attribute
        outside ``__init__``, nor when a base's ``__init__`` stores it and the class stores
        it before its ``super().__init__(...)`` (the base's value wins).  Each is
        interpreted as a method of the class (:meth:`FileFlow.as_method_of`): its
        ``self.<name>(...)`` calls the class's overrides."""
        own = self.ff.class_info(self.cls.node)
        init = own.methods.get("__init__")
        supered = _super_called(self.cls.node)
        fns: dict[int, ast.AST] = {}
        for base in own.lineage():
            if base.node is self.cls.node or base.ff is not self.ff:
                continue
            stored = [fn for fn in base.methods.values() if _assigns_attr(fn, attr)]
            if any(fn.name != "__init__" for fn in stored) or \
                    stored and (init is None or not _stored_after_super_init(init, attr)):
                continue
            for name, fn in base.methods.items():
                if name in ("__init__", "_apply"):
                    continue
                found = own.method(name)
                inherits = found is not None and found[1] is fn
                called = name in supered and any(
                    (f := b.method(name)) is not None and f[1] is fn for b in own.bases)
                if inherits or called:
                    fns[id(fn)] = fn
        out: list[tuple[Scope, str]] = []
        for fs in self.m.functions:
            s = _method(fs)
            method = s.function if s is not None else None
            if s is None or s.self_name is None or method is None or id(method) not in fns:
                continue
            if id(method) not in self.views:
                view = self.ff.as_method_of(method, own)
                if view is None:
                    continue
                self.views[id(method)] = view
            out.append((fs, s.self_name))
        return out

    def read(self, attr: str) -> bool:
        """Does a method of the class other than ``__init__`` read ``self.<attr>``?"""
        for scope, self_name in self.scopes():
            fn = scope.function
            for n in ast.walk(fn) if fn is not None else ():
                if isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Load) \
                        and isinstance(n.value, ast.Name) and n.value.id == self_name:
                    return True
        return False

    def _moved_by_methods(self) -> Iterator[str]:
        """Attributes a method reassigns from a call (``self.x = <call>``) that moves them
        or may: a move (``self.grid = self._make_grid(nx, ny).to(x.device)``,
        ``self.alpha = self.alpha.type_as(x)``: the class carries them by hand where it
        uses them), or a call handed the attribute that the analysis cannot follow or
        that is a function of the run moving what it returns on some path
        (``self.hist = c_f.to_device(self.hist, tensor=x)``), also as an item of a tuple
        assignment (``self.a, self.b = self.a.to(d), self.b.to(d)``)."""
        for scope, self_name in self.scopes():
            fn = scope.function
            for st in ast.walk(fn) if fn is not None else ():
                if isinstance(st, ast.Assign):
                    for targets, call in _calls_stored(st):
                        yield from self._moved_back(targets, call, self_name)

    def _moved_back(self, targets: list[ast.expr], call: ast.Call, self_name: str) -> Iterator[str]:
        """The attributes among ``targets`` (``self.<name>``) that receive ``call``'s value
        where it moves them or may (see :meth:`_moved_by_methods`)."""
        back = {t.attr for t in targets if isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name) and t.value.id == self_name}
        if moves(self.ff, call):
            yield from back
            return
        handed = {a.attr for a in [*call.args, *(k.value for k in call.keywords)]
                  if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name)
                  and a.value.id == self_name}
        res = self.ff.scope_of(call) if handed & back else None
        ev = res.calls.get(id(call)) if res is not None else None
        if ev is not None and (ev.callee is Callee.UNRESOLVED or
                               any(o.op is Op.MOVED for o in ev.result.origins)):
            yield from handed & back

    def mixed_use(self, attr: str, indexed_only: bool = False,
                  elsewhere: Scope | None = None, placed: bool = False) -> Site | None:
        """The first place where ``self.<attr>`` (or a value computed from it without a
        move) meets, in one operation, a tensor that may be on the accelerator: a
        ``forward`` input, a submodule's output, an ``nn.Parameter``.  None when there is
        no such place (used only with CPU tensors or Python numbers, or not used here).
        Of several, the message quotes the shortest that names the attribute.  With
        ``indexed_only``, only indexing by such a tensor counts, as it does in a method
        that moves the attribute by hand where it uses it; with ``elsewhere``, only
        places outside that method (and the functions nested in it).  With ``placed`` (the
        attribute was put on a device while the model was built), a tensor made or moved
        only to a plain device attribute of ``self`` does not count: ``.to()`` moves
        neither (:meth:`_at_plain_device`)."""
        self._placed = placed
        found: list[Site] = []
        by_hand = self.moved_in.get(attr, set())
        for scope, self_name in self.scopes_for(attr):
            if elsewhere is not None and _within(scope, elsewhere) or \
                    id(_method(scope)) in self.building:
                continue
            if not indexed_only and id(_method(scope)) not in by_hand:
                found.extend(self._mixed_in(scope, attr, self_name))
            found.extend(self._indexed_on_device(scope, attr, self_name))
            found = [s for s in found if not self._placed_before(s, attr, self_name)]
            if found:
                break
        def key(s: Site) -> tuple[bool, int, int]:
            text = self.text(s.node)
            return f".{attr}" not in text, len(text), s.pos

        return min(found, key=key, default=None)

    def scalar_tolerant(self, attr: str, element: bool = False) -> bool:
        """Does ``self.<attr>`` meet a tensor that moves with the model only directly (or
        through arithmetic with Python numbers) in operations that take a 0-dim CPU tensor
        with tensors on any device: an arithmetic operator other than ``@``, a comparison,
        ``torch.min/max/minimum/maximum(a, b)`` (TensorIterator's CPU scalars)?  Never
        when a method indexes it by such a tensor.  With ``element``, the attribute is 1-D
        and what counts as 0-dim is an item of it taken with a Python integer
        (``self.w[i]``, see :func:`_int_index`), not the attribute itself."""
        sites: list[Site] = []
        for scope, self_name in self.scopes_for(attr):
            sites.extend(s for s in self._indexed_on_device(scope, attr, self_name)
                         if not self._placed_before(s, attr, self_name))
            if sites:
                return False
            for s in self._mixed_in(scope, attr, self_name):
                if self._placed_before(s, attr, self_name):
                    continue
                if not self._tolerant_at(s.node, attr, self_name, scope, 0, element):
                    return False
        return True

    def _tolerant_at(self, node: ast.AST, attr: str, self_name: str, scope: Scope,
                     depth: int, element: bool = False) -> bool:
        """Does ``node`` take what it computes from ``self.<attr>`` only as a 0-dim CPU
        tensor where PyTorch accepts one, or as a tensor already on the model's device?
        Each operand computed from the attribute is either a local name bound to an
        operation that combines it, so, with a tensor that moves with the model
        (``r = torch.min(self.clip, h)``: on the model's device), or, where ``node``
        accepts a CPU scalar (:func:`_scalar_operands`), 0-dim (:func:`_scalar_of`)."""
        if depth > 8 or isinstance(node, ast.Call) and \
                self._run_target(node, scope, self_name) is not None:
            return False
        scalar = _scalar_operands(self.m, node)
        operands = scalar if scalar is not None else \
            self._call_operands(node) if isinstance(node, ast.Call) else None
        if not operands:
            return False
        for e in operands:
            if not self._carries(e, attr, self_name, scope, 0) or \
                    scalar is not None and _scalar_of(e, attr, self_name, self._item(scope, element)):
                continue
            if not self._landed(e, attr, self_name, scope, depth + 1, element):
                return False
        return True

    def _item(self, scope: Scope, element: bool) -> Callable[[ast.expr], bool] | None:
        """With ``element``, what an item taken with a Python integer looks like here."""
        return (lambda e: _int_index(self.m, e, scope)) if element else None

    def _landed(self, e: ast.AST, attr: str, self_name: str, scope: Scope, depth: int,
                element: bool = False) -> bool:
        """Is ``e``, computed from ``self.<attr>``, on the model's device: an operation
        that accepts the attribute as a CPU scalar (see :meth:`_tolerant_at`) with a
        tensor that moves with the model or one that landed there (``torch.min(self.clip,
        h)``, ``h.abs() + self.eps``), a torch function or tensor method of such tensors
        only (``softmax(h / self.scale, -1)``), or a local name of the scope bound to one?"""
        if isinstance(e, ast.Name):
            b = self.m.binding(e.id, scope, pos(e))
            if b is None or b.how is not How.EXPR or b.value is None or b.ctx.scope is not scope:
                return False
            e = b.value
        inner = _scalar_operands(self.m, e)
        if inner is None and isinstance(e, ast.Call) and depth <= 8 and \
                self._run_target(e, scope, self_name) is None:
            # a torch function or tensor method of landed tensors (``softmax(score, -1)``)
            carried = [x for x in self._call_operands(e) if self._carries(x, attr, self_name, scope, 0)]
            return bool(carried) and all(
                self._landed(x, attr, self_name, scope, depth + 1, element) for x in carried)
        if inner is None or not self._tolerant_at(e, attr, self_name, scope, depth, element):
            return False
        ctx = Ctx(scope)
        return any(self._landed(x, attr, self_name, scope, depth + 1, element)
                   if self._carries(x, attr, self_name, scope, 0) else self._on_model(x, ctx)
                   for x in inner)

    def _placed_before(self, site: Site, attr: str, self_name: str) -> bool:
        """Is ``self.<attr>`` put where another tensor is on every path of the method to
        ``site`` (``self.alpha = self.alpha.type_as(x)`` before ``self.alpha.gather(0, t)``,
        also under ``if self.alpha.type() != x.type():``)?  See :class:`_Placement`."""
        fn = site.ctx.scope.function
        if fn is None or isinstance(fn, ast.Lambda):
            return False
        return _Placement(self.ff, attr, self_name, site.node, fn, self._method_body).before(fn.body) is True

    def _method_body(self, name: str) -> ast.AST | None:
        """The method ``name`` of the class (its own or a base's of the run), or None."""
        found = self.ff.class_info(self.cls.node).method(name)
        return found[1] if found is not None else None

    def _mixed_in(self, scope: Scope, attr: str, self_name: str) -> list[Site]:
        """The operators and calls of one scope that combine ``self.<attr>`` with a tensor
        that may be on the accelerator."""
        found: list[Site] = []
        for op in scope.ops:
            n = op.node
            operands = [n.left, n.right] if isinstance(n, ast.BinOp) else \
                [n.left, *n.comparators]
            if self._mixes(operands, attr, self_name, op.ctx):
                found.append(op)
        for call in scope.calls:
            if self._run_target(call.node, scope, self_name) is not None:
                # a function or method of the run: what its body combines decides
                # (``self.helper(h, self.mask)`` is no tensor method of ``self``)
                if self._mixed_by_callee(call, attr, self_name):
                    found.append(call)
                continue
            operands = self._call_operands(call.node)
            if operands and self._mixes(operands, attr, self_name, call.ctx):
                found.append(call)
        return found

    def _run_target(self, node: ast.AST, scope: Scope,
                    self_name: str) -> tuple[FileFlow, ast.AST, int] | None:
        """The function of the run ``call`` calls (``helper(h, m)``, ``self.merge(a, b)``,
        ``Fn.apply(x, w)``), with its file and the index of the first parameter the call's
        arguments fill; None for a call of anything else."""
        if not isinstance(node, ast.Call):
            return None
        fn = scope.function
        return self.ctx.flow.target_of(
            node, self.ctx.flow.method_of.get(id(fn)) if fn else None, self_name)

    def _mixed_by_callee(self, call: Site, attr: str, self_name: str) -> bool:
        """Does a function of the run, given ``self.<attr>`` (or a value computed from it)
        and a tensor that moves with the model, combine the two in its body
        (``Fn.apply(x, self.weight, self.mask)`` whose ``forward`` computes ``weight *
        mask``, ``apply_mask(h, self.mask)``)?"""
        node = call.node
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            return False
        target = self._run_target(node, call.ctx.scope, self_name)
        if target is None:
            return False
        owner, fn, first = target
        pairs = owner.meeting_params(fn)
        if not pairs:
            return False
        scope = call.ctx.scope
        carried = {k + first for k, a in enumerate(node.args)
                   if self._carries(a, attr, self_name, scope, 0)}
        if not carried:
            return False
        for k, a in enumerate(node.args):
            i = k + first
            if i in carried or not any((min(i, c), max(i, c)) in pairs for c in carried):
                continue
            if self._on_model(a, call.ctx):
                return True
        return False

    def _indexed_on_device(self, scope: Scope, attr: str, self_name: str) -> list[Site]:
        """``self.<attr>[t]`` (or a value computed from it) indexed by a tensor that follows
        the model to its device: a CPU tensor takes indices only on the CPU or on its own
        device ("indices should be either on cpu or on the same device as the indexed
        tensor (cpu)")."""
        fn = scope.function
        if fn is None:
            return []
        ctx = Ctx(scope)
        found: list[Site] = []
        for stmt, sub in _subscripts(fn.body):
            if isinstance(sub, ast.Call):
                taken = _index_taking(self.m, sub)
                if taken is not None and self._follows_model(taken[1], self_name, scope, 0) \
                        and self._carries(taken[0], attr, self_name, scope, 0):
                    found.append(Site(sub, ctx, stmt))
                continue
            key = sub.slice
            items = key.elts if isinstance(key, ast.Tuple) else [key]
            if any(self._follows_model(x, self_name, scope, 0) for x in items) and \
                    self._carries(sub.value, attr, self_name, scope, 0):
                found.append(Site(sub, ctx, stmt))
        return found

    def _follows_model(self, e: ast.AST, self_name: str, scope: Scope, depth: int) -> bool:
        """Is ``e`` a tensor index with more than zero dimensions that moves with the model:
        an input annotated as a tensor, a submodule's output, a parameter or registered
        buffer, or an operation on one that does not move it
        (``(y @ self.pc_matrix).long().sum(-1)``)?
        What may hold one element -- a reduction without a dimension (``x.sum()``), an item
        (``t[0]``) -- indexes like an integer (PyTorch reads a 0-dim integer index with
        ``.item()``), so it is not one."""
        if depth > 8 or isinstance(e, (ast.Slice, ast.Constant)):
            return False
        d = depth + 1
        if isinstance(e, ast.Subscript):
            return self._list_item_follows(e, self_name, scope, d)
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and \
                e.value.id == self_name and e.attr in self.registered:
            return True
        if isinstance(e, ast.Name):
            b = self.m.binding(e.id, scope, pos(e))
            if b is not None and b.how is How.EXPR and b.value is not None and b.ctx.scope is scope:
                return self._follows_model(b.value, self_name, scope, d)
            if b is not None and b.how is How.PARAM:
                # an input indexes as a tensor only where it is annotated as one, or where
                # the function uses it as one (``labels.view(-1)``): ``epoch: int | None``
                # is an integer, an input used as nothing else may be one
                note = getattr(b.value, "annotation", None)
                return note is not None and "Tensor" in self.text(note) or \
                    self._used_as_tensor(e) or self._reads_device(e, b, scope) or \
                    self._given_by_calls(e, scope, d)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            meth = e.func.attr
            if meth in _MOVES or meth in NON_TENSOR_METHODS or meth in SHAPE_ONLY or \
                    meth in REDUCTIONS and not e.args and not e.keywords:
                return False
        if on_device_tensor(self.ff, e):
            return True
        if isinstance(e, ast.BinOp):
            return self._follows_model(e.left, self_name, scope, d) or \
                self._follows_model(e.right, self_name, scope, d)
        if isinstance(e, ast.Call):
            q = self.m.qualname(e.func)
            if q is not None:
                return q.startswith("torch.") and kwarg(e, "device") is None and any(
                    self._follows_model(a, self_name, scope, d) for a in e.args)
            if isinstance(e.func, ast.Attribute):
                return self._follows_model(e.func.value, self_name, scope, d)
            return False
        return False

    def _list_item_follows(self, e: ast.Subscript, self_name: str, scope: Scope, depth: int) -> bool:
        """Is ``e`` an item of a list that the function writes out (``entities = [v]``) and
        grows only by what moves with the model or is moved itself (``entities.append(
        nb.to(device))``), every item it writes out following the model?  An item of a
        tensor (``t[0]``) is no such list's: it indexes like an integer."""
        if not isinstance(e.value, ast.Name) or isinstance(e.slice, ast.Slice):
            return False
        b = self.m.binding(e.value.id, scope, pos(e.value))
        if b is None or b.how is not How.EXPR or b.ctx.scope is not scope or \
                not isinstance(b.value, ast.List) or not b.value.elts:
            return False
        if not all(self._follows_model(x, self_name, scope, depth) for x in b.value.elts):
            return False
        fn = scope.function
        for n in ast.walk(fn) if fn is not None else ():
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    isinstance(n.func.value, ast.Name) and n.func.value.id == e.value.id:
                if n.func.attr not in ("append", "insert") or not n.args:
                    return False  # (``extend``, ``+=`` and the like: what they add is not read)
                if not self._follows_or_moved(n.args[-1], self_name, scope, depth):
                    return False
        return True

    def _follows_or_moved(self, e: ast.expr, self_name: str, scope: Scope, depth: int) -> bool:
        """Does ``e`` follow the model, or is it a tensor moved to a device by ``.to(...)``
        or ``.cuda()`` (directly or through a name bound to such a move)?"""
        if self._follows_model(e, self_name, scope, depth):
            return True
        if isinstance(e, ast.Name):
            b = self.m.binding(e.id, scope, pos(e))
            if b is not None and b.how is How.EXPR and isinstance(b.value, ast.expr):
                e = b.value
        if not isinstance(e, ast.Call) or not isinstance(e.func, ast.Attribute):
            return False
        if e.func.attr == "cuda":
            return True
        return e.func.attr == "to" and bool(e.args) and not (
            isinstance(e.args[0], ast.Constant) and e.args[0].value == "cpu")

    def _used_as_tensor(self, name: ast.Name) -> bool:
        """Does the device-flow analysis see the function use the parameter ``name`` as a
        tensor (a tensor method called on it: ``labels.view(-1)``, ``t.float()``)?

        The interpretation's record (:attr:`ScopeResult.param_uses`: the first use it met;
        a torch function's argument counts too), not the syntactic questions of the flow
        (``places._tensor_used``, ``batches.used_as_a_tensor``): a parameter whose first
        use is a module's method is no tensor here."""
        res = self.ctx.flow.scope_of(name)
        if res is None or name.id not in res.params:
            return False
        return res.param_uses.get(res.params.index(name.id)) is Kind.TENSOR

    def _reads_device(self, name: ast.Name, b: object, scope: Scope) -> bool:
        """Does the function read the device of the parameter ``name`` (``t.device``,
        ``t.is_cuda``)?  A number, a list or a NumPy array (before NumPy 2) has none; a
        module or a Hugging Face model may, but indexes nothing -- here ``name`` is an
        index.  (``t.shape`` and ``t.dtype`` say nothing: a NumPy array has them.)"""
        fn = scope.function
        for n in ast.walk(fn) if fn is not None else ():
            if isinstance(n, ast.Attribute) and n.attr in ("device", "is_cuda") and \
                    isinstance(n.value, ast.Name) and n.value.id == name.id and \
                    self.m.binding(name.id, scope, pos(n.value)) is b:
                return True
        return False

    def _given_by_calls(self, name: ast.Name, scope: Scope, depth: int) -> bool:
        """Is the parameter ``name`` of a method a tensor index that moves with the model
        because every call ``self.<method>(...)`` of the file that runs this method (in its
        class, a base or a subclass that does not override it) gives one (:meth:`_follows_model` of the argument in the caller:
        ``self.term(x, torch.randint(..., device=x.device))``, ``self._pick(h,
        labels=y.long())``)?  None of them may leave it to its default or to a
        spread ``*args``/``**kwargs``, or give what may hold one element (``t.sum()``,
        ``t[0]``)."""
        fn = scope.function
        method = _method(scope)
        if depth > 4 or method is not scope or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        if name.id not in params and name.id not in [a.arg for a in fn.args.kwonlyargs]:
            return False
        k = params.index(name.id) if name.id in params else None
        given = 0
        for caller in self.m.functions:
            owner = _method(caller)
            self_name = owner.self_name if owner is not None else None
            if owner is None or owner.cls is None or self_name is None:
                continue
            for site in caller.calls:
                call = site.node
                func = call.func
                if not (isinstance(func, ast.Attribute) and func.attr == fn.name and
                        isinstance(func.value, ast.Name) and func.value.id == self_name) or \
                        site.ctx.scope is not caller:
                    continue
                found = self.ff.class_info(owner.cls.node).method(fn.name)
                if found is None or found[1] is not fn:
                    continue  # (``self.p_losses`` of a class whose own method it is not)
                arg = next((kw.value for kw in call.keywords if kw.arg == name.id), None)
                if arg is None and k is not None and 0 < k <= len(call.args) and \
                        not any(isinstance(a, ast.Starred) for a in call.args[:k]):
                    arg = call.args[k - 1]  # (``*args`` after it fills later parameters)
                if arg is None or not self._follows_model(arg, self_name, caller, depth + 1):
                    return False
                given += 1
        return given > 0

    def _call_operands(self, call: ast.Call) -> list[ast.expr]:
        """The tensors a call combines: a torch function's arguments, or a tensor method's
        receiver and arguments (``x.masked_fill(mask, v)``, ``torch.cat([x, y])``)."""
        func = call.func
        args: list[ast.expr] = []
        for a in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(a, (ast.List, ast.Tuple)):
                args.extend(a.elts)
            elif not isinstance(a, ast.Starred):
                args.append(a)
        q = self.m.qualname(func)
        if q is not None:
            return args if q.startswith("torch.") else []
        if isinstance(func, ast.Attribute):
            meth = func.attr
            if meth in _MOVES or meth in SHAPE_ONLY or meth in NON_TENSOR_METHODS or \
                    meth.startswith("new_"):
                return []
            return [func.value, *args]
        return []

    def _mixes(self, operands: list[ast.expr], attr: str, self_name: str, ctx: Ctx) -> bool:
        carried = [self._carries(e, attr, self_name, ctx.scope, 0) for e in operands]
        if not any(carried):
            return False
        return any(not c and self._on_model(e, ctx) and
                   not (self._placed and self._at_plain_device(e, ctx, attr))
                   for e, c in zip(operands, carried, strict=True))

    def _at_plain_device(self, e: ast.expr, ctx: Ctx, attr: str, depth: int = 0) -> bool:
        """Is ``e`` a tensor placed, on every origin the analysis sees, by a factory's
        ``device=self.<name>`` or a ``.to(self.<name>)`` where ``self.<name>`` is a plain
        attribute that the class's methods assign (``self.device = device``), not a
        property or method reading the parameters' device; or by ``torch.ones_like(t)``
        (``zeros_like``, ...) of such a tensor or of one computed from ``self.<attr>``?
        ``model.to(...)`` leaves such an attribute, and so such a tensor, where the
        constructor put it."""
        found = value_of(self.ff, e)
        method = _method(ctx.scope)
        self_name = method.self_name if method is not None else None
        if depth > 4 or found is None or not found[1].origins or self_name is None:
            return False
        return all(isinstance(o.node, ast.Call) and (
            self._plain_target(o.node, self_name) or
            self._like_of(o.node, ctx, attr, self_name, depth)) for o in found[1].origins)

    def _like_of(self, call: ast.Call, ctx: Ctx, attr: str, self_name: str, depth: int) -> bool:
        """Is ``call`` ``torch.<f>_like(t)`` of a ``t`` that :meth:`_at_plain_device` places,
        or that is computed from ``self.<attr>`` (where the attribute meets it, so is ``t``)?"""
        q = self.m.qualname(call.func) or ""
        if not (q.startswith("torch.") and q.endswith("_like")) or not call.args or \
                kwarg(call, "device") is not None:
            return False
        t = call.args[0]
        return self._carries(t, attr, self_name, ctx.scope, 0) or \
            self._at_plain_device(t, ctx, attr, depth + 1)

    def _plain_target(self, call: ast.Call, self_name: str) -> bool:
        """Does ``call`` place its tensor at a plain device attribute of ``self``?"""
        func = call.func
        where = kwarg(call, "device")
        if where is None and isinstance(func, ast.Attribute) and func.attr == "to" and call.args:
            where = call.args[0]
        return isinstance(where, ast.Attribute) and isinstance(where.value, ast.Name) and \
            where.value.id == self_name and \
            _plain_attribute(self.ff.class_info(self.cls.node), where.attr)

    def _on_model(self, e: ast.expr, ctx: Ctx) -> bool:
        """Is ``e`` a tensor that moves with the model: a ``forward`` input, a submodule's
        output, an ``nn.Parameter``, or a helper's parameter that a method of the file
        gives one (``self.normalize(self.head(h))``, see ``FileFlow.follows_model``)?"""
        found = self._view_value(e, ctx) or value_of(self.ff, e)
        if found is None:
            return False
        res, v = found
        if isinstance(e, ast.Name) and e.id in res.params and v.kinds is None:
            # a parameter known as a tensor only by its uses: where its callers' values are
            return self.ff.follows_model(res, v)
        if on_device_tensor(self.ff, e) or _layer_output(v):
            return True
        # (only a name the analysis places: ``x.device`` is no tensor)
        return isinstance(e, ast.Name) and self.ff.follows_model(res, v)

    def _view_value(self, e: ast.expr, ctx: Ctx) -> tuple[ScopeResult, Value] | None:
        """``e`` in a base's method run on an instance of the class (see
        :meth:`inherited_scopes`): its value there; None elsewhere."""
        method = _method(ctx.scope)
        view = self.views.get(id(method.function)) if method is not None else None
        v = view.value(e) if view is not None else None
        return (view, v) if view is not None and v is not None else None

    def _carries(self, e: ast.AST, attr: str, self_name: str, scope: Scope, depth: int) -> bool:
        """Is ``e`` ``self.<attr>``, or a tensor computed from it without a move
        (``self.mask[:t, :t] == 0``, ``self.tem.sum()``, a local name bound to one)?"""
        if depth > 8:
            return False
        d = depth + 1
        if isinstance(e, ast.Attribute):
            if isinstance(e.value, ast.Name) and e.value.id == self_name:
                return e.attr == attr
            return e.attr in SAME_PLACE_ATTRS and self._carries(e.value, attr, self_name, scope, d)
        if isinstance(e, ast.Subscript):
            return self._carries(e.value, attr, self_name, scope, d)
        if isinstance(e, ast.BinOp):
            return self._carries(e.left, attr, self_name, scope, d) or \
                self._carries(e.right, attr, self_name, scope, d)
        if isinstance(e, ast.UnaryOp):
            return self._carries(e.operand, attr, self_name, scope, d)
        if isinstance(e, ast.Compare):
            return any(self._carries(x, attr, self_name, scope, d)
                       for x in [e.left, *e.comparators])
        if isinstance(e, ast.IfExp):
            return self._carries(e.body, attr, self_name, scope, d) or \
                self._carries(e.orelse, attr, self_name, scope, d)
        if isinstance(e, ast.Call):
            func = e.func
            q = self.m.qualname(func)
            if q is not None:
                # (``torch.as_tensor(self.mean, device=x.device)`` moves it)
                return q.startswith("torch.") and kwarg(e, "device") is None and any(
                    self._carries(a, attr, self_name, scope, d) for a in e.args)
            if isinstance(func, ast.Attribute):
                if func.attr in _MOVES or func.attr in NON_TENSOR_METHODS:
                    return False
                return self._carries(func.value, attr, self_name, scope, d)
            return False
        if isinstance(e, ast.Name):
            reaching = _reaching(self.m, e.id, scope, pos(e))
            # (on a path around the last binding, an element picked by a number index,
            # ``t = self.schedule[epoch]``, may be a 0-dim tensor, which meets any device)
            return any(b.how is How.EXPR and b.value is not None and
                       (k == 0 or not self._picks_element(b.value)) and
                       self._carries(b.value, attr, self_name, scope, d)
                       for k, b in enumerate(reaching))
        return False

    def _picks_element(self, e: ast.AST) -> bool:
        """Is ``e`` a subscript by one index that is not known as a tensor (``t[epoch]``;
        a parameter only guessed to be one from this very use counts as not known)?"""
        if not isinstance(e, ast.Subscript) or isinstance(e.slice, (ast.Slice, ast.Tuple)):
            return False
        found = value_of(self.ff, e.slice)
        return found is None or not found[1].is_(Kind.TENSOR) or found[1].basis is Basis.HINT


class _Placement:
    """Whether ``self.<attr>`` holds a value put where another tensor of the method is --
    ``self.attr = <e>.type_as(t)``, ``<e>.to(t.device)``, ``<e>.to(t)`` with ``t`` a
    tensor -- on every path from a method's entry to one node, statement by statement: a
    must-analysis over the method's structure.  An ``if`` joins its arms (an arm that
    returns or raises does not reach what follows); the arm where a test such as
    ``self.attr.type() != t.type()`` or ``self.attr.device != t.device`` is false holds
    the attribute where ``t`` is (a tensor's type names its device: ``torch.cuda.FloatTensor``);
    a loop or a ``with`` body is entered as the statement before it left the attribute
    (a loop may run no time); a ``try`` handler as the ``try`` was entered.  An
    assignment of a value that holds nothing of the attribute's earlier one
    (:func:`~torchferry.check.flow.rebound.fresh_value`: ``self.weight = w.reshape(o, i)``
    of weights the method computes) counts as well: what was stored before never reaches
    ``node``.  Any other assignment to the attribute undoes the placement; a call that
    might reassign it elsewhere is not seen."""

    def __init__(self, ff: FileFlow, attr: str, self_name: str, node: ast.AST, fn: ast.AST,
                 method: Callable[[str], ast.AST | None]) -> None:
        self.ff = ff
        self.attr = attr
        self.self_name = self_name
        self.node = node
        self.fn = fn
        self.method = method

    def before(self, stmts: list[ast.stmt], placed: bool = False) -> bool | None:
        """Placed where ``node`` is evaluated, entering ``stmts`` with ``placed``; None when
        ``node`` is not in ``stmts``."""
        for st in stmts:
            if not any(n is self.node for n in ast.walk(st)):
                out = self.after(st, placed)
                if out is None:
                    return None  # (``node`` is not reached from here)
                placed = out
                continue
            if isinstance(st, ast.If):
                return self._first(placed, (st.body, placed),
                                   (st.orelse, placed or self._place_test(st.test)))
            if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                return self._first(placed, (st.body, placed), (st.orelse, placed))
            if isinstance(st, (ast.With, ast.AsyncWith)):
                return self._first(placed, (st.body, placed))
            if isinstance(st, ast.Try):
                return self._first(placed, (st.body, placed),
                                   *((h.body, placed) for h in st.handlers),
                                   (st.orelse, self.block(st.body, placed) is True),
                                   (st.finalbody, False))
            return placed  # in the statement itself: as it was entered
        return None

    def _first(self, placed: bool, *blocks: tuple[list[ast.stmt], bool]) -> bool:
        """The answer of the block holding ``node`` (in a test or a header: ``placed``)."""
        for stmts, entry in blocks:
            found = self.before(stmts, entry)
            if found is not None:
                return found
        return placed

    def block(self, stmts: list[ast.stmt], placed: bool) -> bool | None:
        """Placed after ``stmts`` (None: they return or raise, nothing follows)."""
        for st in stmts:
            out = self.after(st, placed)
            if out is None:
                return None
            placed = out
        return placed

    def after(self, st: ast.stmt, placed: bool) -> bool | None:
        """Placed after one statement (None: it returns or raises)."""
        if isinstance(st, (ast.Return, ast.Raise)):
            return None
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(self._is_attr(t) for t in targets):
                return st.value is not None and (self._places(st.value) or fresh_value(
                    self.fn, st.value, self.self_name, self.attr, self.method))
            return placed
        if isinstance(st, ast.If):
            return _all(self.block(st.body, placed),
                        self.block(st.orelse, placed or self._place_test(st.test)))
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            body = self.block(st.body, placed)
            return _all(placed and body is not False, self.block(st.orelse, placed))
        if isinstance(st, (ast.With, ast.AsyncWith)):
            return self.block(st.body, placed)
        if isinstance(st, ast.Try):
            body = self.block(st.body + st.orelse, placed)
            out = _all(body, *(self.block(h.body, placed) for h in st.handlers))
            return self.block(st.finalbody, out) if out is not None else None
        return placed

    def _is_attr(self, e: ast.expr) -> bool:
        return isinstance(e, ast.Attribute) and e.attr == self.attr and \
            isinstance(e.value, ast.Name) and e.value.id == self.self_name

    def _places(self, value: ast.expr) -> bool:
        """Is ``value`` put where another tensor is: ``e.type_as(t)``, ``e.to(t.device)``,
        ``e.to(device=t.device)``, ``e.to(t)`` with ``t`` a tensor?"""
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
            return False
        meth = value.func.attr
        where = kwarg(value, "device") or (value.args[0] if value.args else None)
        if meth == "type_as":
            return where is not None and is_tensor(self.ff, where)
        if meth != "to" or where is None:
            return False
        return isinstance(where, ast.Attribute) and where.attr == "device" and \
            is_tensor(self.ff, where.value) or is_tensor(self.ff, where)

    def _place_test(self, test: ast.expr) -> bool:
        """Is ``test`` false only where ``self.<attr>`` is where another tensor is
        (``self.attr.type() != t.type()``, ``self.attr.device != t.device``)?"""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1 or \
                not isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
            return False
        sides = [_place_of(test.left), _place_of(test.comparators[0])]
        if any(s is None for s in sides):
            return False
        mine = [s is not None and self._is_attr(s) for s in sides]
        other = sides[mine.index(False)] if mine.count(True) == 1 else None
        return other is not None and is_tensor(self.ff, other)


def _place_of(e: ast.expr) -> ast.expr | None:
    """The tensor whose place ``e`` names: ``t`` of ``t.type()``, ``t.device``, ``t.data.type()``."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "type" \
            and not e.args and not e.keywords:
        t = e.func.value
    elif isinstance(e, ast.Attribute) and e.attr == "device":
        t = e.value
    else:
        return None
    while isinstance(t, ast.Attribute) and t.attr == "data":
        t = t.value
    return t


def _all(*outs: bool | None) -> bool | None:
    """The join of paths: placed on each that reaches (None: none reaches)."""
    reach = [o for o in outs if o is not None]
    return all(reach) if reach else None


def _layer_output(v: Value) -> bool:
    """Is ``v`` a tensor of no known place that a ``torch.nn`` layer with weights computed
    (``self.ln(h)`` where ``h`` joins a model's tensor with an attribute of unknown place):
    the layer's weights are on the model's device, so is what it returns."""
    if not v.is_(Kind.TENSOR) or v.places is not None:
        return False
    for o, made in zip(v.origins, v.origins[1:], strict=False):
        layer = made.text[len("torch.nn."):].split("(")[0] if made.text.startswith("torch.nn.") else ""
        if o.op is Op.OUTPUT and layer in PARAM_LAYERS:
            return True
    return False


def _reaching(m: Walker, name: str, scope: Scope, at: int) -> list[Binding]:
    """The bindings of the local ``name`` of ``scope`` that may reach ``at``: the last one
    before it, and, while that one is made on an arm of an ``if`` that ``at`` is not in,
    the ones before it that a path around that arm still carries (``w = self.inv`` under
    ``if reverse:``, ``w = self.weight`` under its ``else:``: both reach ``F.conv2d(x,
    w)`` after the ``if``).  A binding on the other arm of an ``if`` that ``at`` is in,
    and one that a later binding of the same arm (or of an arm around it) replaces on
    every path, does not reach it."""
    first = m.binding(name, scope, at)
    if first is None or first.ctx.scope is not scope:
        return []
    lst = scope.binds.get(name, [])
    out = [first]
    i = next((k for k, (_, b) in enumerate(lst) if b is first), 0)
    while i > 0 and any(not pos(st) <= at <= end_pos(st) for st, _ in out[-1].ctx.ifs):
        i -= 1
        b = lst[i][1]
        if b.pos > at or on_the_other_arm(b, at):
            continue  # (on the arm ``at`` is not on)
        if any(b.ctx.ifs[:len(c.ctx.ifs)] == c.ctx.ifs for c in out):
            continue  # (a later binding on its arm, or around it, replaces it)
        out.append(b)
    return out


def _stores(scope: Scope, self_name: str, attr: str) -> bool:
    """Does the function of ``scope`` assign, delete or register ``self.<attr>``
    (``self.logvar = nn.Parameter(self.logvar)``, ``self.register_buffer("logvar", ...)``,
    ``setattr(self, "logvar", ...)``)?"""
    return _stores_in(scope.function, self_name, attr)


def _stores_in(node: ast.AST | None, self_name: str, attr: str) -> bool:
    """:func:`_stores` of a function or a statement."""
    for n in ast.walk(node) if node is not None else ():
        if isinstance(n, ast.Attribute) and n.attr == attr and \
                isinstance(n.ctx, (ast.Store, ast.Del)) and \
                isinstance(n.value, ast.Name) and n.value.id == self_name:
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Constant) and a.value == attr
                                           for a in n.args[:2]):
            return True  # (``register_buffer("logvar", t)``, ``setattr(self, "logvar", t)``)
    return False


def _assigns_attr(fn: ast.AST, attr: str) -> bool:
    """Does the method ``fn`` store, delete or register ``self.<attr>`` (its first
    parameter's)?"""
    args = getattr(fn, "args", None)
    first = args.posonlyargs + args.args if args is not None else []
    return bool(first) and _stores_in(fn, first[0].arg, attr)


def _super_called(cls: ast.ClassDef) -> set[str]:
    """The names the class's methods call through ``super()`` (``super().forward(x)``,
    ``super(Net, self).forward(x)``), other than ``__init__``."""
    out: set[str] = set()
    for n in ast.walk(cls):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name) and \
                n.func.value.func.id == "super" and n.func.attr != "__init__":
            out.add(n.func.attr)
    return out


def _stored_after_super_init(init: ast.AST, attr: str) -> bool:
    """Does ``__init__`` store ``self.<attr>`` only after a statement of its own body that
    calls ``super().__init__(...)`` (so the class's value replaces the base's)?"""
    args = getattr(init, "args", None)
    first = args.posonlyargs + args.args if args is not None else []
    if not first:
        return False
    seen = False
    for st in getattr(init, "body", ()):
        stores = _stores_in(st, first[0].arg, attr)
        if stores and not seen:
            return False
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                isinstance(st.value.func, ast.Attribute) and st.value.func.attr == "__init__" and \
                isinstance(st.value.func.value, ast.Call) and \
                isinstance(st.value.func.value.func, ast.Name) and st.value.func.value.func.id == "super":
            seen = True
    return seen


def _method(scope: Scope) -> Scope | None:
    """The method ``scope`` is (or is nested in): the first scope up with a ``self``."""
    s: Scope | None = scope
    while s is not None and s.self_name is None:
        s = s.parent
    return s


def _within(scope: Scope | None, method: Scope) -> bool:
    """Is ``scope`` the method ``method`` or a function nested in it?"""
    while scope is not None:
        if scope is method:
            return True
        scope = scope.parent
    return False


def _subscripts(body: list[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.Subscript | ast.Call]]:
    """The subscripts read in a function body, and the calls that may take an index
    (``t.gather(0, idx)``), each with its statement, not descending into nested functions,
    lambdas or classes (scopes of their own)."""
    for stmt in body:
        todo: list[ast.AST] = [stmt]
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) or \
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in _INDEX_TAKING:
                yield stmt, n
            todo.extend(ast.iter_child_nodes(n))


def _index_taking(m: Walker, call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """(the indexed tensor, the index) of ``t.gather(dim, idx)``, ``t.index_select(dim,
    idx)``, ``t.take(idx)``, ``t.take_along_dim(idx)`` or the ``torch.`` function of the
    same name; None for another call.  Unlike ``t[idx]``, these never read a one-element
    index as an integer: an index on another device fails whatever its shape."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    at = _INDEX_TAKING.get(func.attr)
    if at is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    q = m.qualname(func)
    args = list(call.args) if q == f"torch.{func.attr}" else \
        [func.value, *call.args] if q is None else []
    index = kwarg(call, "index") or (args[at] if len(args) > at else None)
    return (args[0], index) if args and index is not None else None


# torch functions of two tensors that TensorIterator runs with a 0-dim CPU tensor among
# tensors on another device (``device_check: NoCheck   # TensorIterator`` in
# native_functions.yaml; ``min.other`` and ``max.other`` compute ``minimum``/``maximum``)
_SCALAR_TOLERANT = {"torch.min", "torch.max", "torch.minimum", "torch.maximum"}


def _scalar_operands(m: Walker, node: ast.AST) -> list[ast.expr] | None:
    """The operands of an operation that accepts a 0-dim CPU tensor with tensors on any
    device (an arithmetic operator other than ``@``, a comparison, ``torch.min(a, b)``);
    None for any other."""
    if isinstance(node, ast.BinOp):
        return None if isinstance(node.op, ast.MatMult) else [node.left, node.right]
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call) and m.qualname(node.func) in _SCALAR_TOLERANT and \
            len(node.args) == 2 and not node.keywords and \
            not any(isinstance(a, ast.Starred) for a in node.args):
        return list(node.args)
    return None


def _scalar_of(e: ast.expr, attr: str, self_name: str,
               item: Callable[[ast.expr], bool] | None = None) -> bool:
    """Is ``e`` ``self.<attr>``, arithmetic of it with number literals (``-self.t``,
    ``self.t * 2``), or an elementwise method of one of those without arguments
    (``self.log_alpha.exp()``): 0-dim where the attribute is?  With ``item`` (a 1-D
    attribute), the 0-dim base is ``self.<attr>[k]`` with a ``k`` for which ``item`` holds,
    never the attribute itself."""
    if item is not None and isinstance(e, ast.Subscript):
        return _scalar_of(e.value, attr, self_name) and item(e.slice)
    if isinstance(e, ast.Attribute):
        return item is None and isinstance(e.value, ast.Name) and e.value.id == self_name and \
            e.attr == attr
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _ELEMENTWISE \
            and not e.args and not e.keywords:
        return _scalar_of(e.func.value, attr, self_name, item)
    if isinstance(e, ast.UnaryOp) and not isinstance(e.op, ast.Not):
        return _scalar_of(e.operand, attr, self_name, item)
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        sides = [e.left, e.right]
        return any(_scalar_of(x, attr, self_name, item) for x in sides) and all(
            is_number(x) or _scalar_of(x, attr, self_name, item) for x in sides)
    return False


#: tensor methods that compute elementwise, keeping a 0-dim tensor 0-dim and where it is
_ELEMENTWISE = frozenset({"exp", "log", "sqrt", "abs", "neg", "sigmoid", "tanh", "detach", "clone",
                          "float", "double", "half"})


def _int_index(m: Walker, k: ast.expr, scope: Scope) -> bool:
    """Is ``k`` a Python integer: written out, or a loop variable of ``range(...)`` or the
    counter of ``enumerate(...)`` (``for i, out in enumerate(outputs)``), bound only there?"""
    if isinstance(k, ast.Constant):
        return type(k.value) is int
    if not isinstance(k, ast.Name):
        return False
    b = m.binding(k.id, scope, pos(k))
    if b is None or b.how is not How.FOR or not isinstance(b.value, ast.Call) or \
            len(scope.binds.get(k.id, [])) != 1:
        return False
    f = b.value.func
    return _builtin(m, f, "range", scope) and b.path == () or \
        _builtin(m, f, "enumerate", scope) and b.path == (0,)


def _builtin(m: Walker, func: ast.expr, name: str, scope: Scope) -> bool:
    """Is ``func`` the builtin ``name``, not rebound in the file?"""
    return isinstance(func, ast.Name) and func.id == name and m.binding(name, scope, pos(func)) is None


def _numbers_1d(m: Walker, value: ast.expr, scope: Scope) -> bool:
    """Is ``value`` a 1-D tensor of numbers by construction: ``torch.tensor``,
    ``torch.Tensor`` or ``torch.FloatTensor`` (and kin) of a list written out of numbers
    (:func:`_number_data`), or of a list comprehension over ``range(...)`` whose item is
    arithmetic of numbers and its loop variable (``[w / 2 ** s for s in range(n)]``)?"""
    if not isinstance(value, ast.Call) or len(value.args) != 1 or \
            any(k.arg not in ("dtype", "requires_grad") for k in value.keywords):
        return False
    q = m.qualname(value.func) or ""
    if q != "torch.tensor" and not re.fullmatch(r"torch\.(\w+)?Tensor", q):
        return False
    data = value.args[0]
    if isinstance(data, (ast.List, ast.Tuple)):
        return bool(data.elts) and all(_number_data(m, e, scope) for e in data.elts)
    if not isinstance(data, ast.ListComp) or len(data.generators) != 1:
        return False
    g = data.generators[0]
    if g.ifs or not isinstance(g.target, ast.Name) or not isinstance(g.iter, ast.Call) or \
            not _builtin(m, g.iter.func, "range", scope):
        return False
    return _number_arith(m, data.elt, scope, g.target.id)


def _number_arith(m: Walker, e: ast.expr, scope: Scope, counter: str) -> bool:
    """Is ``e`` arithmetic (no ``@``) of numbers (:func:`_number_data`) and ``counter``?"""
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        return _number_arith(m, e.left, scope, counter) and _number_arith(m, e.right, scope, counter)
    if isinstance(e, ast.UnaryOp) and not isinstance(e.op, ast.Not):
        return _number_arith(m, e.operand, scope, counter)
    return isinstance(e, ast.Name) and e.id == counter or _number_data(m, e, scope)


def _zero_dim(m: Walker, value: ast.expr, scope: Scope) -> bool:
    """Is ``value`` a 0-dim tensor by construction (:func:`zero_dim_made`) with ``dtype=`` or
    ``requires_grad=`` at most: ``torch.scalar_tensor(...)``, ``torch.zeros(())``, or
    ``torch.tensor(x)`` where ``x`` is a number literal, a parameter of the function whose
    default is one and that has no annotation other than ``int``/``float``, or one the
    function gives a ``torch.nn`` layer as a size (``nn.Linear(d, out_channels)``), or a
    module-level name only ever bound to one; or an elementwise torch function of such a
    tensor (``torch.sqrt(torch.tensor(d, dtype=torch.float))``)?"""
    if not isinstance(value, ast.Call) or \
            any(k.arg not in ("dtype", "requires_grad") for k in value.keywords):
        return False
    q = m.qualname(value.func)
    if q in ELEMENTWISE and len(value.args) == 1 and not value.keywords:
        return _zero_dim(m, value.args[0], scope)
    return zero_dim_made(q, value, lambda x: _number_data(m, x, scope))


def _sizes_a_layer(m: Walker, fn: ast.AST | None, name: str) -> bool:
    """Does ``fn`` give its parameter ``name`` as one size (:func:`sizes_given`) to a
    ``torch.nn`` layer or a torch factory (``nn.Linear(d, name)``, ``torch.zeros((name,
    name))``)?  Such a size is an integer (a 0-dim integer tensor at most), so
    ``torch.tensor(name)`` is 0-dim."""
    for n in ast.walk(fn) if fn is not None else ():
        if isinstance(n, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == name for a in sizes_given(m.qualname(n.func), n)):
            return True
    return False


def _number_data(m: Walker, x: ast.expr, scope: Scope) -> bool:
    """Is ``x`` a number: written out, a parameter of its function whose default is one and
    that has no annotation other than ``int``/``float``, a module-level name only ever
    bound to one, or a NumPy or ``math`` function of numbers (``np.log(init_alpha)``)?"""
    if is_number(x):
        return True
    if isinstance(x, ast.Call) and x.args and not x.keywords and m.qualname(x.func) in _OF_NUMBERS:
        return all(not isinstance(a, ast.Starred) and _number_data(m, a, scope) for a in x.args)
    if not isinstance(x, ast.Name):
        return False
    b = m.binding(x.id, scope, pos(x))
    if b is None:
        return False
    if b.how is How.PARAM and isinstance(b.value, ast.arg):
        fn = b.ctx.scope.function
        return _number_param(fn, b.value) or b.value.annotation is None and _sizes_a_layer(m, fn, x.id)
    if b.how is How.EXPR and b.ctx.scope.kind is ScopeKind.MODULE:
        binds = b.ctx.scope.binds.get(x.id, [])
        return bool(binds) and all(o.how is How.EXPR and is_number(o.value) for _, o in binds)
    return False


#: functions of numbers that return a number (NumPy's return a NumPy scalar: 0-dim in torch.tensor)
_OF_NUMBERS = frozenset(f"{lib}.{f}" for lib in ("numpy", "math")
                        for f in ("log", "log2", "log10", "log1p", "exp", "sqrt", "pow"))


def _number_param(fn: ast.AST | None, arg: ast.arg) -> bool:
    """Is ``arg`` a parameter of ``fn`` with a number literal as default, unannotated or
    annotated ``int``/``float``?"""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if arg.annotation is not None and not (
            isinstance(arg.annotation, ast.Name) and arg.annotation.id in ("int", "float")):
        return False
    return number_defaults(fn.args).get(arg.arg) is arg


_PARAMETER = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")


def _moved_parameter(m: Walker, value: ast.expr) -> ast.Call | None:
    """The ``nn.Parameter(...)`` call of ``nn.Parameter(t).to(device)`` or ``.cuda()``: a
    move to a device that is not written as the CPU (``.to("cpu")``, ``.to(torch.float64)``,
    a dtype only, are not), of a ``t`` made without ``device=`` nor a move (so on the CPU);
    None for any other value."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    inner = value.func.value
    if not isinstance(inner, ast.Call) or m.qualname(inner.func) not in _PARAMETER or \
            any(isinstance(a, ast.Starred) for a in value.args) or \
            any(k.arg is None for k in value.keywords):
        return None
    if any(isinstance(n, ast.keyword) and n.arg in ("device", None) for n in ast.walk(inner)) or \
            any(isinstance(n, ast.Attribute) and n.attr in MOVE_NAMES for n in ast.walk(inner)):
        return None  # made or moved somewhere by the author: maybe on that device already
    meth = value.func.attr
    if meth == "cuda":
        return inner
    if meth != "to":
        return None
    target = kwarg(value, "device") or (value.args[0] if value.args else None)
    q = m.qualname(target) if isinstance(target, ast.Attribute) else None
    if target is None or q is not None and q.startswith("torch."):
        return None  # ``.to(torch.float64)``: a dtype
    if isinstance(target, ast.Constant) and (not isinstance(target.value, str) or
                                             target.value.split(":")[0] == "cpu"):
        return None
    if isinstance(target, ast.Call) and m.qualname(target.func) == "torch.device" and \
            target.args and isinstance(target.args[0], ast.Constant) and \
            str(target.args[0].value).split(":")[0] == "cpu":
        return None
    return inner


def _moved_parameter_finding(ctx: Context, stmt: ast.stmt, attr: str, value: ast.expr,
                             param: ast.Call) -> Finding:
    """The finding for ``self.<attr> = nn.Parameter(t).to(device)``."""
    inner = ctx.text(param.args[0]) if param.args else "..."
    meth = value.func.attr if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        else "to"
    return ctx.finding(
        CODE, stmt,
        f"`self.{attr} = {short(ctx.text(value), 40)}` stores what `.{meth}()` returns: moved to "
        f"another device than its own (the CPU), an `nn.Parameter` becomes a new plain tensor, "
        f"not registered -- not in `model.parameters()`, so the optimizer never trains it, "
        f"and `model.to(device)` does not move it; wrap the moved tensor instead: "
        f"`nn.Parameter({short(inner, 30)}.to(device))`, or let `model.to(device)` move the parameter",
    )


def _made_here(v: Value) -> bool:
    """Is ``v`` a tensor made by a constructor (``torch.zeros(n)``), at most moved to the CPU
    since (``torch.zeros(n).cpu()``), and not a registered ``nn.Parameter`` / ``nn.Buffer``?"""
    if not v.is_(Kind.TENSOR) or not v.origins or any(o.text.startswith(REGISTERED) for o in v.origins):
        return False
    ops = [o.op for o in v.origins]
    return ops[0] is Op.MADE or ops[:2] == [Op.MOVED, Op.MADE] and v.only(Where.CPU)


def _made_on_cpu(v: Value) -> bool:
    """Does the device-flow analysis establish that ``v`` (an expression's value) is a tensor
    made on the CPU (by a factory here, or returned by a function of the checked files that
    makes one)?"""
    return v.is_(Kind.TENSOR) and v.places == {CPU} and \
        v.basis is not Basis.HINT and bool(v.origins) and \
        all(o.op is Op.MADE and not o.text.startswith(REGISTERED) for o in v.origins)


def _moved_where_used(m: Walker, cls: ClassInfo) -> dict[str, set[int]]:
    """Attributes the class itself moves where it uses them: ``self.alpha.to(x.device)``,
    ``self.feats.type_as(x)``, ``self.t.cuda()`` -- the author chose to carry them by hand
    there -- each with the methods (their scopes' ids) that do.  A move in ``__init__`` is
    not one: it places the attribute once (see :func:`_placed_later`), and on one arm of a
    test (``if config.is_gpu:``) leaves it on the CPU on the other."""
    names: dict[str, set[int]] = {}
    for meth in ("to", "type_as", "cuda"):
        for s in m.calls_by_tail.get(meth, ()):
            func = s.node.func
            if s.ctx.scope.cls is not cls or not isinstance(func, ast.Attribute) or \
                    s.ctx.scope.name == "__init__":
                continue
            self_name = s.ctx.scope.self_name
            # ``self.t.to(...)``, ``self.bbox.view(...).to(...)``,
            # ``(self.feats if feats is None else feats).type_as(x)``
            for n in ast.walk(func.value):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                        n.value.id == self_name:
                    names.setdefault(n.attr, set()).add(id(s.ctx.scope))
    return names


def _placed_later(ctx: Context, fn: ast.AST | None, self_name: str, attr: str) -> ast.expr | None:
    """The device a statement of the method's own body moves ``self.<attr>`` to, on every
    path (``self.t = self.t.cuda()``, ``self.t = self.t.to(device)``, also as an item of a
    tuple assignment: ``self.t, self.u = self.t.to(device), self.u.to(device)``; a statement
    under an ``if`` is not on every path); None if there is none."""
    for st in getattr(fn, "body", ()):
        if not isinstance(st, ast.Assign):
            continue
        for target, value in _assigned_pairs(st):
            if not isinstance(value, ast.Call) or not isinstance(target, ast.Attribute) or \
                    target.attr != attr:
                continue
            func = value.func
            if isinstance(func, ast.Attribute) and moves(ctx.flow, value) and \
                    isinstance(func.value, ast.Attribute) and func.value.attr == attr and \
                    isinstance(func.value.value, ast.Name) and func.value.value.id == self_name:
                return _move_target(ctx.syntax, value) or value
    return None


def _calls_stored(st: ast.Assign) -> Iterator[tuple[list[ast.expr], ast.Call]]:
    """Each call whose value ``st`` stores, with the targets that receive it: the whole
    value for the plain targets, and the items of a tuple written out for the items of a
    tuple target (see :func:`_assigned_pairs`)."""
    plain = [t for t in st.targets if not isinstance(t, (ast.Tuple, ast.List))]
    if plain and isinstance(st.value, ast.Call):
        yield plain, st.value
    for target, value in _assigned_pairs(st):
        if isinstance(target, (ast.Tuple, ast.List)) or target in plain:
            continue
        if isinstance(value, ast.Call):
            yield [target], value


def _assigned_pairs(st: ast.Assign) -> Iterator[tuple[ast.expr, ast.expr]]:
    """Each target of ``st`` with the value it receives: the whole value for a plain
    target, and item by item where a tuple or list target of no starred item takes a tuple
    or list written out with as many items (``self.a, self.b = x, y``)."""
    for target in st.targets:
        if not isinstance(target, (ast.Tuple, ast.List)):
            yield target, st.value
        elif isinstance(st.value, (ast.Tuple, ast.List)) and len(target.elts) == len(st.value.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*target.elts, *st.value.elts)):
            yield from zip(target.elts, st.value.elts, strict=True)


def _placement(m: Walker, value: ast.expr) -> ast.expr | None:
    """The device ``value`` is put on where the module makes it: the ``device=`` of the
    factory, or where a ``.to(d)`` / ``.cuda()`` applied to it moves it (the ``.cuda()``
    call itself stands for ``"cuda"``); None where none is written (``.to(torch.float64)``
    names a dtype only)."""
    if not isinstance(value, ast.Call):
        return None
    dev = kwarg(value, "device")
    if dev is not None:
        return dev
    func = value.func
    if isinstance(func, ast.Attribute) and m.qualname(func) is None:
        if func.attr in ("to", "cuda"):
            target = _move_target(m, value)
            if target is not None:
                return target
            return value if func.attr == "cuda" else _placement(m, func.value)
        if func.attr not in MOVE_NAMES:
            return _placement(m, func.value)  # ``torch.zeros(n, device=d).t()``
    return None


def _move_target(m: Walker, call: ast.Call) -> ast.expr | None:
    """The device of ``t.to(d)`` / ``t.to(device=d)`` / ``t.cuda(d)``: None for a dtype
    (``t.to(torch.float64)``, ``t.to(x.dtype)``) and for ``t.cuda()``."""
    target = kwarg(call, "device") or (call.args[0] if call.args else None)
    if target is None or isinstance(target, ast.Starred):
        return None
    q = m.qualname(target) if isinstance(target, ast.Attribute) else None
    if q is not None and q.startswith("torch.") or \
            isinstance(target, ast.Attribute) and target.attr == "dtype":
        return None
    return target


def _moved_or_scalar(m: Walker, value: ast.expr) -> bool:
    """Is ``value`` put on the CPU by a move the author wrote (``edge_weight.cpu()``), or
    made by ``torch.tensor`` / ``torch.as_tensor`` / ``torch.scalar_tensor`` of data that is
    not a sequence written out (``torch.tensor(self.init_lambda)``: 0-dim, maybe)?"""
    for n in ast.walk(value):
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Attribute) and n.func.attr in MOVE_NAMES:
            return True
        q = m.qualname(n.func)
        if q in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor") and not (
                n.args and isinstance(n.args[0], (ast.List, ast.Tuple, ast.ListComp))):
            return True
    return False


def _reads(e: ast.AST, self_name: str, attr: str) -> bool:
    """Does ``e`` read ``self.<attr>`` (``self.t.cuda()``)?"""
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
               and n.value.id == self_name for n in ast.walk(e))


def _made_within(v: Value, fn: ast.AST | None) -> bool:
    """Was every tensor ``v`` may be made by the function ``fn`` itself (not the tensor an
    attribute held before, nor one another function returned)?"""
    first = getattr(fn, "lineno", None)
    last = getattr(fn, "end_lineno", None)
    return first is not None and last is not None and bool(v.origins) and all(
        o.path is None and (o.op is not Op.MADE or first <= o.line <= last) for o in v.origins)


def _made_data(v: Value) -> bool:
    """Is ``v`` a tensor the module makes from data of its own (made, at most moved since),
    not a registered ``nn.Parameter`` / ``nn.Buffer``, nor one known only by a hint?"""
    return v.is_(Kind.TENSOR) and v.basis is not Basis.HINT and bool(v.origins) and \
        v.origins[-1].op is Op.MADE and \
        all(o.op in (Op.MADE, Op.MOVED) and not o.text.startswith(REGISTERED) for o in v.origins)


def _tied(ctx: Context, cls: ClassInfo, scope: Scope, dev: ast.expr) -> bool:
    """Does the module's construction tie the device ``dev`` to its own parameters?  It
    does where ``dev`` is computed from them (``next(self.parameters()).device``,
    ``self.weight.device``), or where ``__init__`` (or the method ``scope`` that it calls)
    puts the module or one of its layers, parameters or buffers there too
    (``self.to(device)``, ``nn.Linear(n, n, device=device)``, ``nn.Conv1d(...).cuda()``,
    ``super().__init__(device=device)`` of a base the checked files do not define).  A
    device of its own (``.to("cuda")``, ``device=x.device`` of an argument, a
    ``device="cpu"`` parameter no layer is built on) leaves the attribute apart from the
    parameters that ``model.to(device)`` moves."""
    m = ctx.syntax
    init = cls.methods.get("__init__")
    fns = [f for f in (getattr(init, "function", None), scope.function) if f is not None]
    fns = [f for k, f in enumerate(fns) if f not in fns[:k]]
    self_name = scope.self_name or "self"
    defs = _self_defs(fns, self_name)
    init_fn = getattr(init, "function", None)

    def passed(fn: ast.AST, name: str) -> bool:  # (of ``__init__``, named by every construction)
        return fn is init_fn and passed_by_every_construction(ctx.flow, cls.node, name)

    if _from_parameters(dev, self_name, defs) or _required_device(dev, fns, self_name, defs, passed):
        return True
    key = _device_key(dev, self_name, defs)
    return any(_device_key(d, self_name, defs) == key
               for fn in fns for d in _module_placements(ctx, m, cls, fn, self_name))


def _chosen_when_run(ctx: Context, cls: ClassInfo, scope: Scope, dev: ast.expr) -> bool:
    """Is ``dev``, the device ``__init__`` (or a method only it calls) puts an attribute on,
    one the program chooses when it runs, as it chooses where the model goes: a choice
    between devices (``"cuda" if torch.cuda.is_available() else "cpu"``), or an attribute of
    a parameter of ``__init__`` read as an object of attributes, a configuration
    (``args.device``, ``torch.device(cfg.MODEL.DEVICE)``) -- directly, through a name bound
    once, or through ``self.device`` set so by ``__init__`` or a base's?  The attribute is
    then where the model is wherever the program moves it to that same choice; only a move
    elsewhere leaves it behind, which the analysis does not establish.  Not a device written
    out (``.cuda()``, ``"cuda:0"``), a parameter's default, nor the device of a tensor
    (``x_example.device``): the default rule set reports those."""
    init = cls.methods.get("__init__")
    fn: ast.AST | None = getattr(init, "function", None) or scope.function
    self_name = scope.self_name or "self"
    bases = list(mro(ctx.flow.class_info(cls.node)))[1:]
    for _ in range(4):
        if fn is None:
            return False
        if isinstance(dev, ast.Call) and len(dev.args) == 1 and not dev.keywords and \
                isinstance(dev.func, ast.Attribute) and dev.func.attr == "device":
            dev = dev.args[0]  # ``torch.device(d)``
        if isinstance(dev, ast.IfExp):
            return True
        root = dev
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if root.id == self_name and isinstance(dev, ast.Attribute) and dev.value is root:
            fn, dev, self_name = _self_value(fn, bases, self_name, dev.attr)
            continue
        params = param_names(fn)[1:] if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else ()
        if root is not dev:
            return root.id in params and read_as_an_object(fn, root.id) is not None
        if root.id in params:
            return False  # (its default, or what the callers name: decided elsewhere)
        fn, dev = _bound_once_to(fn, ctx.tree, root.id)
    return False


def _self_value(fn: ast.AST, bases: list[FlowClass], self_name: str,
                attr: str) -> tuple[ast.AST | None, ast.expr, str]:
    """The one value ``self.<attr>`` is given by ``fn`` (``__init__``) or, when it gives
    none, by the ``__init__`` of the nearest base of the run that does; with that function
    and its ``self``.  (None, the attribute, ...) when there is no one such value."""
    for f in [fn, *(b.methods.get("__init__") for b in bases)]:
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) or not f.args.args:
            continue
        me = self_name if f is fn else f.args.args[0].arg
        defs = _self_defs([f], me)
        if attr in defs:
            return f, defs[attr], me
        if any(isinstance(t, ast.Attribute) and t.attr == attr for t in ast.walk(f)
               if isinstance(getattr(t, "ctx", None), ast.Store)):
            break  # (stored more than once there)
    return None, ast.Name(attr), self_name


def _bound_once_to(fn: ast.AST, tree: ast.AST, name: str) -> tuple[ast.AST | None, ast.expr]:
    """The value of the one assignment ``name = <value>`` of ``fn`` (its own statements),
    else of the module ``tree`` when ``fn`` binds the name nowhere; with where it is bound.
    (None, the name) when there is no one such assignment."""
    for where in (fn, tree):
        binds = [n for n in ast.walk(where) if isinstance(n, ast.Name) and n.id == name
                 and not isinstance(n.ctx, ast.Load)]
        if not binds:
            continue
        stmts = [st for st in ast.walk(where) if isinstance(st, ast.Assign) and len(st.targets) == 1
                 and isinstance(st.targets[0], ast.Name) and st.targets[0].id == name]
        if len(binds) == 1 and len(stmts) == 1:
            return where, stmts[0].value
        break
    return None, ast.Name(name)


def _where_every_move_goes(ctx: Context, cls: ClassInfo, a: _Assign, dev: ast.expr) -> bool:
    """Is ``dev`` a device written out (``.cuda()``, ``"cuda"``, ``torch.device("cuda")``,
    also through the ``self.device`` that ``__init__`` sets to one) that every instance of
    the class is moved to, and only there, by the code of the run that holds it
    (:func:`~torchferry.check.flow.holders.instance_moves`: ``self.model = Encoder(...)``,
    then only ``model = self.model.cuda()``; never handed to ``nn.DataParallel`` or to any
    other function)?  Then the attribute, put there by a statement of ``__init__``'s own
    body, is where the parameters are on every machine the program runs on."""
    fn = a.scope.function
    if a.where is not _Where.INIT or fn is None or not any(st is a.stmt for st in getattr(fn, "body", ())):
        return False
    defs = _self_defs([fn], a.scope.self_name or "self")
    key = _written_device(ctx.syntax, dev, a.scope.self_name or "self", defs)
    if key is None:
        return False
    moves = instance_moves(ctx.flow, cls.node)
    return moves is not None and bool(moves) and all(
        _written_device(ctx.syntax, _move_target(ctx.syntax, c) or c, "", {}) == key for c in moves)


def _written_device(m: Walker, dev: ast.expr, self_name: str, defs: dict[str, ast.expr]) -> str | None:
    """The device ``dev`` names when it is written out: ``"cuda"`` for a ``.cuda()`` call
    with no argument, a string literal's text, ``torch.device("<text>")``'s; ``"cpu"`` for
    ``.cpu()``; None otherwise."""
    for _ in range(3):
        if isinstance(dev, ast.Attribute) and isinstance(dev.value, ast.Name) and \
                dev.value.id == self_name and dev.attr in defs:
            dev = defs[dev.attr]
    if isinstance(dev, ast.Call) and isinstance(dev.func, ast.Attribute) and \
            dev.func.attr in ("cuda", "cpu") and not dev.args and not dev.keywords:
        return dev.func.attr
    if isinstance(dev, ast.Call) and m.qualname(dev.func) == "torch.device" and \
            len(dev.args) == 1 and not dev.keywords:
        dev = dev.args[0]
    if isinstance(dev, ast.Constant) and isinstance(dev.value, str):
        return dev.value
    return None


def _self_defs(fns: list[ast.AST], self_name: str) -> dict[str, ast.expr]:
    """``self.<name>`` -> the value of its one assignment in ``fns`` (``self.device = device``)."""
    seen: dict[str, list[ast.expr]] = {}
    for fn in fns:
        for st in ast.walk(fn):
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                            t.value.id == self_name:
                        seen.setdefault(t.attr, []).append(st.value)
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _device_key(dev: ast.expr, self_name: str, defs: dict[str, ast.expr]) -> str:
    """What names the device ``dev`` for comparison: a ``.cuda()`` call is ``"cuda"``, and
    ``self.device`` the value ``__init__`` gave it."""
    for _ in range(3):
        if isinstance(dev, ast.Attribute) and isinstance(dev.value, ast.Name) and \
                dev.value.id == self_name and dev.attr in defs:
            dev = defs[dev.attr]
    if isinstance(dev, ast.Call) and isinstance(dev.func, ast.Attribute) and dev.func.attr == "cuda":
        return "'cuda'"
    if isinstance(dev, ast.Constant) and isinstance(dev.value, str):
        return repr(dev.value)
    return ast.dump(dev)


def _required_device(dev: ast.expr, fns: list[ast.AST], self_name: str,
                     defs: dict[str, ast.expr],
                     passed: Callable[[ast.AST, str], bool] = lambda _f, _n: False) -> bool:
    """Is ``dev`` (or ``torch.device(dev)``, or the ``self.device`` it was stored in) a
    parameter of ``__init__`` (or of the method that stores the attribute) with no default,
    or with the program's device variable as default (``device=DEVICE``): the caller names
    the device the module is built for (``Attention(hid, device)``, then
    ``model.to(device)``)?  One with a value as default (``device="cpu"``, ``None``) puts the
    attribute there whenever the module is built without naming one, wherever the model
    goes next -- unless every construction of the run names it (``passed``: the default is
    then never used, and the caller names the device as for one without a default)."""
    for _ in range(3):
        if isinstance(dev, ast.Attribute) and isinstance(dev.value, ast.Name) and \
                dev.value.id == self_name and dev.attr in defs:
            dev = defs[dev.attr]
    if isinstance(dev, ast.Call) and len(dev.args) == 1 and not dev.keywords and \
            isinstance(dev.func, ast.Attribute) and dev.func.attr == "device":
        dev = dev.args[0]  # ``torch.device(device)``
    if not isinstance(dev, ast.Name):
        return False
    for fn in fns:
        a = getattr(fn, "args", None)
        if not isinstance(a, ast.arguments):
            continue
        positional = a.posonlyargs + a.args
        pairs = [(x, None) for x in positional[:len(positional) - len(a.defaults)]] + \
            list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True)) + \
            list(zip(a.kwonlyargs, a.kw_defaults, strict=True))
        if any(x.arg == dev.id and (d is None or isinstance(d, (ast.Name, ast.Attribute)))
               for x, d in pairs):
            return True
        if any(x.arg == dev.id for x, _ in pairs[1:]) and passed(fn, dev.id):
            return True
    return False


def _from_parameters(dev: ast.expr, self_name: str, defs: dict[str, ast.expr]) -> bool:
    """Is ``dev`` computed from a module's parameters or buffers
    (``next(self.parameters()).device``, ``next(model.parameters()).device``,
    ``self.weight.device``, ``self.fc.weight.device``)?"""
    for n in ast.walk(dev):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("parameters", "buffers", "named_parameters", "named_buffers"):
            return True
        if isinstance(n, ast.Attribute) and n.attr == "device":
            root = n.value
            while isinstance(root, ast.Attribute) and not (
                    isinstance(root.value, ast.Name) and root.value.id == self_name):
                root = root.value
            made = defs.get(root.attr) if isinstance(root, ast.Attribute) else None
            if made is not None and _builds_module_part(made):
                return True
    return False


def _builds_module_part(e: ast.expr) -> bool:
    """Does ``e`` build a layer or a parameter (a call of ``nn.<Class>``: ``nn.Linear(...)``,
    ``nn.Parameter(...)``)?"""
    for n in ast.walk(e):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            base = f.value if isinstance(f, ast.Attribute) else None
            if name[:1].isupper() and (base is None or isinstance(base, ast.Attribute) or
                                       isinstance(base, ast.Name) and base.id == "nn"):
                return True
    return False


def _module_placements(ctx: Context, m: Walker, cls: ClassInfo, fn: ast.AST,
                       self_name: str) -> Iterator[ast.expr]:
    """The devices ``fn`` puts the module or its parts on: ``self.to(d)``, ``self.cuda()``,
    a ``device=`` or a move in what builds a layer, parameter or buffer of ``self``, and
    what ``super().__init__`` is given when the base is not a class of the file."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            recv = n.func.value
            if isinstance(recv, ast.Name) and recv.id == self_name:
                if n.func.attr in ("to", "cuda"):
                    target = _move_target(m, n)
                    yield target if target is not None else n
                elif n.func.attr in ("register_buffer", "register_parameter", "add_module"):
                    yield from _devices_in(m, n)
            elif isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and \
                    recv.func.id == "super" and n.func.attr == "__init__" and \
                    not any(b in m.classes for b in cls.bases):
                yield from [*n.args, *(k.value for k in n.keywords if k.arg is not None)]
        elif isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and
                t.value.id == self_name for t in n.targets):
            found = value_of(ctx.flow, n.value)
            if found is not None and found[1].kinds == frozenset({Kind.MODULE}) or \
                    _builds_module_part(n.value) and not (
                        found is not None and found[1].is_(Kind.TENSOR) and not any(
                            o.text.startswith(REGISTERED) for o in found[1].origins)):
                yield from _devices_in(m, n.value)


def _devices_in(m: Walker, e: ast.AST) -> Iterator[ast.expr]:
    """Every device named in ``e``: ``device=`` arguments, the targets of ``.to`` and
    ``.cuda()`` calls (the call itself for ``.cuda()``)."""
    for n in ast.walk(e):
        if not isinstance(n, ast.Call):
            continue
        dev = kwarg(n, "device")
        if dev is not None:
            yield dev
        elif isinstance(n.func, ast.Attribute) and n.func.attr in ("to", "cuda"):
            target = _move_target(m, n)
            if target is not None or n.func.attr == "cuda":
                yield target if target is not None else n


def _construction_helpers(m: Walker) -> set[int]:
    """The methods (their scopes) of module classes that ``__init__`` calls
    (``self.init_states(x)``) and no other method of the class does: they run while the
    model is built."""
    out: set[int] = set()
    for cls in m.class_list:
        init = cls.methods.get("__init__")
        if not cls.is_module or init is None:
            continue
        # the other methods are walked only when ``__init__`` calls one of them
        wanted = _self_calls(init) & cls.methods.keys() - {"__init__"}
        for name, scope in cls.methods.items():
            if not wanted:
                break
            if name != "__init__":
                wanted -= _self_calls(scope)
        out.update(id(cls.methods[k]) for k in wanted)
    return out


def _self_calls(scope: Scope) -> set[str]:
    """The names of the methods a method's code calls on its ``self`` (``self.k(...)``
    anywhere in the function's node, nested functions included)."""
    fn, self_name = scope.function, scope.self_name
    return {n.func.attr for n in (walk(fn) if fn is not None else ())
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
            isinstance(n.func.value, ast.Name) and n.func.value.id == self_name}


def _registered_after(init: ast.AST | None, stmt: ast.stmt, self_name: str, attr: str) -> bool:
    """Does a statement of the block holding ``stmt`` in ``__init__`` call
    ``self.register_buffer("<attr>", ...)`` after ``stmt`` made ``self.<attr>`` a plain
    attribute, with no ``del self.<attr>`` between?  That does not make it a buffer: PyTorch
    refuses the name (``KeyError: "attribute 'mask' already exists"``), and before it did,
    the plain attribute shadowed the buffer in ``forward``.  (One on another arm of an
    ``if`` runs on another path: not counted.)"""
    block = next((b for n in (ast.walk(init) if init is not None else ())
                  for b in (getattr(n, f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and any(x is stmt for x in b)), None)
    for st in block[[x is stmt for x in block].index(True) + 1:] if block else ():
        if isinstance(st, ast.Delete) and any(
                isinstance(t, ast.Attribute) and t.attr == attr for t in st.targets):
            return False
        call = st.value if isinstance(st, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr == "register_buffer" and isinstance(call.func.value, ast.Name) and \
                call.func.value.id == self_name and call.args and \
                isinstance(call.args[0], ast.Constant) and call.args[0].value == attr:
            return True
    return False


def _moved_by_apply(m: Walker) -> set[str]:
    """Attributes an ``_apply`` override of this file moves with the module:
    ``def _apply(self, fn): ...; m.stride = fn(m.stride)`` -- ``.to()`` and ``.cuda()`` go
    through ``_apply``, so the attribute follows the model."""
    names: set[str] = set()
    for fs in m.functions:
        fn = fs.function
        if fn is None or fn.name != "_apply" or fs.cls is None:
            continue
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if len(params) < 2:
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and \
                    isinstance(n.value.func, ast.Name) and n.value.func.id == params[1]:
                names.update(t.attr for t in n.targets if isinstance(t, ast.Attribute))
    return names


def _registered_names(m: Walker) -> set[str]:
    names: set[str] = set()
    # anywhere in the file: a base class may register the buffer a subclass assigns
    for meth in ("register_buffer", "register_parameter"):
        for s in m.calls_by_tail.get(meth, ()):
            call = s.node
            if call.args and isinstance(call.args[0], ast.Constant):
                names.add(str(call.args[0].value))
    return names
