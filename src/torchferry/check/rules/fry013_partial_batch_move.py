"""Part of a batch moved to the device, another part left behind.

## What it does
In a loop over a DataLoader, flags an item of the batch (a loop target such as `labels`
in `for inputs, labels in loader`, or `batch[1]`, `batch["labels"]` of a tokenizer's batch)
that is used unmoved in a model or loss call (positional or keyword: `model(ids,
labels=labels)`), a torch function, arithmetic or a comparison (or a tensor method that spells
one: `preds.eq(labels)`, `out.add(bias)`, `a.mm(b)`), or a metric's `update` (of a
metric moved to the device: `f1.update(out, data.gt_label)`) together with tensors that
may be on the device, or that is indexed by a tensor that may be on the device
(`data[:, :, permute]` of `permute = permute.cuda()`: a tensor is indexed only by indices
on the CPU or on its own device; a tensor on the device indexed by an item on the CPU is
fine, and is not reported) -- while other items of the same batch were moved with `.to(device)` /
`.cuda()` in that loop (in any arm of an `if`/`elif`: the analysis joins the arms, so an
item moved on every path counts as moved and one moved on none does not; an item moved on
one arm of an `if`/`else` whose other arm moves another item of the batch and not this one,
`if args.gpu is not None: images = images.cuda(args.gpu)` / `else: images, target =
images.to(device), target.to(device)`, is flagged where it meets a tensor that may be on
the device after the test: on that arm it stays on the CPU), or what a call
made of one was (a tokenizer's output, `encoded = tokenizer(batch["text"],
return_tensors="pt").to(device)`, meeting `batch["label"]` in `model(**encoded,
labels=...)`). The output of a module called on a moved item is on the device too
(`out = self.model(x.to(device))`; `criterion(out, labels)`), and `F.cross_entropy(...)`
is taken for the loss of `torch.nn.functional` when the analysis cannot see where `F`
comes from (a star import); a loss handed in as a parameter, `criterion_xent(outputs,
labels)` in `train(model, criterion_xent, loader)` of `main`'s `train(net,
nn.CrossEntropyLoss(), loader)`, is a module call when every call of the run passes one.

The item may also meet them in a function or method of the file it is handed to (or a
function of another file of the run, or a method of a plain class of another file called on
an instance the file built): a call
(`self._run_batch(source, targets)`) passes it, unmoved, by position to a parameter that,
as it came in (not moved nor converted there), meets in the callee a tensor that may be on
the device (`F.cross_entropy(output, targets)` of `output = self.model(source)`, the model
moved in `__init__`), or another argument of the call that is (`step(model(x), y)` of
`def step(out, y): return criterion(out, y)`), also through what the callee makes of it
(`accuracy(output.data, target)` whose `_, pred = output.topk(k, 1); pred = pred.t()` meets
`target` in `pred.eq(target.view(1, -1))`); reported at the argument.

Outside a loop over a loader, the tensors one call returns, unpacked by one assignment
(`train_x, train_y = data_generator(n)`), are siblings as the items of a batch are: when the
scope of the unpacking moves one of them to the device after it (`train_x =
train_x.cuda()`, also in one arm of an `if args.cuda:`), or the function of the file that
returns them moves it in its `return` (`return features.to(device), labels,
adj.to(device)`), and no statement of the file moves another by its name, that other one,
still the CPU tensor the call made, is flagged where it meets a tensor that may be on the
device (or is indexed by one), in that scope or, for an unpacking at module level, in a
function of the file that reads it as a global (`criterion(out, train_y[i:j].view(-1))`,
`pred.eq(y.view_as(pred))`), or in a function of the file it is handed to, where it meets,
as it came in, another argument of the call that may be on the device (`target[mask]` of
`train(model, labels, idx_train)`, with `idx_train` moved; reported at the argument).

A tuple handed whole to a function and unpacked there by names alone (`states, rewards =
experiences` in `learn(self, experiences)`) holds siblings too: when every call of the run
passes a tuple of as many items whose item there is a tensor made on the CPU and never
moved while another item was moved to the device (`self.learn(self.memory.sample())` of
`self.memory = ReplayBuffer(...)`, another file's class whose `sample` returns
`(states.to(self.device), rewards)`; also a tuple a caller hands on whole from a
parameter of its own), that item, as it came in and moved by its name nowhere in the file,
is flagged where it meets a tensor that may be on the device (`rewards + gamma *
self.target(next_states)`), or another item of the tuple that every call passes moved. An
item made in another file, one the calling file imports, is reported at its make, in that
file, once, with the call that hands the tuple in and the meeting as evidence. No fix is
offered: the move belongs where the others are moved, in the function that made it.

An item also misses the ferry where another item of its batch went into a data-parallel
wrapper on the device (`output = model(input)` of `model = nn.DataParallel(net).cuda()`, or of
a parameter every call of the run hands such a wrapper): the wrapper scatters that item to
its devices and gathers its output on the first one, so `criterion(output, target)` with
`target` never moved fails though no `.to()` moved `input`. The fix then moves it to the
output's device (`target.to(output.device)`).

The finding's evidence names the loop the item comes from (or the call the siblings come
from), the move of another item (or the wrapper's call), and where they meet.

## Why is this bad
"It nearly always means one tensor missed the ferry -- often the labels while the inputs
made it." The loss call fails with "Expected all tensors to be on the same device" on a GPU
machine, and only there: on a CPU-only machine every tensor is on the CPU and the bug hides.

## Example
```python
for inputs, labels in loader:
    inputs = inputs.to(device)
    loss = criterion(model(inputs), labels)
```

## Use instead
```python
for inputs, labels in loader:
    inputs = inputs.to(device)
    labels = labels.to(device)
    loss = criterion(model(inputs), labels)
```

## Fix safety
Unsafe: the fix moves the item the same way as the others -- a `labels = labels.to(device)`
line after the other item's move, or `labels.to(device)` at the use. An item that must stay
on the CPU (sequence lengths for `pack_padded_sequence`, file names) would be wrong to move;
such items are rarely passed to a loss, but check.

An item counts as left on the CPU also when it was moved and then retyped after an item
that was not (`labels.to(device).type_as(reals)` on the right of `reals, labels =
reals.to(device), ...`, where `reals` is still the CPU one: `type_as` brings `labels` back
there), and when it is computed with numbers only (`target = 1 - labels`, or its
one-hot encoding `F.one_hot(labels, 10)`, computed where the item is). A batch is also
what `next()` gives of a generator function of the run over a loader (`batches =
loop(loader)` of `def loop(it): while True: for x in it: yield x`, then `reals, labels =
next(batches)`), as it is of `next(iter(loader))`.

## Known limits
A sibling of an unpacking (`x, y = f(...)`) is followed by the name the unpacking binds:
one moved anywhere in the file by that name (even after it met the device side) counts as
moved, and one handed to a function of the file is followed into it one call deep (its
arguments bound by position or keyword as Python binds them; not a call that spreads
`*args` or `**kw`, nor one Python would refuse), as it came in: a value the callee makes of it is not,
and a 0-dimensional reduction of it (`target.sum()`) meets nothing. It is flagged only
as a tensor whose makers the analysis sees (torch factories of the run, no parameter, load
or unresolved call among them) and that keeps them unchanged up to the meeting (slicing,
views); a 0-dimensional tensor made so (`torch.tensor(0.5)`, `torch.zeros(())`) or a
number is never flagged, and a meeting that is the call of a model of no class the analysis
sees is not counted.  The fix moves it right after the sibling's `x = x.cuda()` statement,
when that statement stands on lines of its own; otherwise none is offered.
An item that the called model's `forward` hands, at every use, to torch on the CPU (the
`lengths` of `pack_padded_sequence`, by position or keyword, which torch requires there; the
targets and lengths of `ctc_loss`, directly or through its own helpers, for a model class of
the checked files) is not flagged: it must stay there; nor is one that `forward` converts
before any other use (`lengths = lengths.cpu().int()`, `lengths.to('cpu')`,
`lengths.tolist()`, `int(n)`, a helper of the run that begins with `mask.to(x.device)`;
also a view of it moved so, `dx[:, None, None].to(u.device)`, `dt[:, None].repeat(1, n).cuda()`:
an index of constants and slices, then methods that reshape or retype it),
or iterates as text (`for i, sent in enumerate(sents)` with `sent.strip()`, a method no
tensor has: a list of strings, directly, through a helper of the run, or through the
`forward` of a submodule every binding of whose attribute builds one class of the run,
`self.encoder = Encoder(...)`, three calls deep): it meets nothing where it came in.  An
item that `forward` first rebuilds of its own elements alone (`sent = sum(zip(sent, sent),
())`, `list(sent)`, `tuple(sent)`, `sorted(sent)`) is followed through the new value; one
rebuilt otherwise (`sent = sum(zip(sent, feat), ())`) is not, and is flagged.  An item `forward` also computes with as it came in
(`x * (lengths > 0)` besides the packing) is flagged.  The model's class is the one the file
builds it with, or, for a model given as a parameter (`train(loader, model, device)`), the
classes every call of the run passes for it, in this file or in the files that import it
(three calls deep; a model built on several branches, `model = CNN(...)` ... `elif ...:
model = FNO(...)`, may be each; an input counts as belonging on the CPU only when it does
for each of them); a model parameter some call leaves unbound, or passes a model of no
class of the run (a loaded one, a wrapper), is of no known class, and its later arguments
are checked as any module's.
An item handed unmoved to the call of a model of no class the analysis can see (a
parameter no call of the file binds, a model built in another package) together with moved
inputs, none of them a module's output, is not flagged when the function tests the kind of
an item of the same batch (`isinstance(data_tar, torch.Tensor)`, `isinstance(input_nodes,
dict)`: the code itself says the batch holds more than tensors) and never uses this one as
only a tensor is used (a method no container has, `labels.view(-1)`, `labels.size(0)`; an
operator; a torch function's argument): what such a model makes of it (file names, a graph
library's blocks) is not seen, and the item is of no known kind.  Where nothing tests an
item's kind, the batch is taken to hold tensors and the item is flagged as before; so is
one given to a call with a module's output (`criterion(outputs, labels)`, a loss).
An item that is a mapping given a tensor on the device in place (`targets["av"] =
targets["av"].cuda()`) is not taken to be on the CPU: which of its entries were moved is
not followed, so it is not reported, whatever the others are.  The whole batch given an
entry at a string key (`batch["x"] = batch["x"].to(device)`) holds the moved tensor there
and its other entries as they were (`batch["y"]`, never given, is still flagged; one given
in one arm of an `if` only is not); given one at a key the analysis does not know
(`for k, v in batch.items(): batch[k] = v.to(device)`), any entry may be the moved one, so
none of them is reported.
The items of a loader given a `collate_fn` of the run, a function that returns a tuple,
are what it returns: a list of numbers it builds (`lengths = [len(s) for s in batch]`) is
no tensor and is not reported; a tensor made of the samples alone (`torch.stack([a for a,
_ in batch])`) is where the samples are, an item of the batch as without a collate.  Where
one of the tuple's parts is of a kind the analysis does not know, every item is taken as
without a collate.  An item at a position where every `return` of the collate function of
every loader the loop may iterate puts numbers, strings or tuples and lists of them
(`x, n = zip(*[(a, a.shape[0]) for a in batch])`, `return torch.stack(x), n`) is no tensor
and is not reported, also when the collate function returns tuples of several lengths, the
loader is built in another file and the loop's loader is a parameter every call of the
run passes such a loader for; the item is the loop's own (`for x, n in loader`, also
under `enumerate` or `tqdm`) or one of an unpacking of the whole batch (`x, n, y = batch`,
`batch` bound by the loop alone), and every binding of its name takes that position.
The items of a loader over a dataset of a class of the run whose `__getitem__` moves what
it returns to a device (`return x.to(self.device), y`, `sample["image"].cuda()`) are not
taken to be on the CPU: which items it moved, and what a collate function makes of them, is
not followed, so none of them is reported.
Only loops over a DataLoader (constructed in the file, or a legacy torchtext iterator
given no `device`, `data.BucketIterator.splits((train, valid), batch_size=32)`; a
parameter named or annotated like one, `batches: DataLoader`, or that every call of the file passes a loader built in the
file, a constructor's such parameter kept on `self` by its class, or an
iterable whose expression names a loader: `train_loader`, `get_dataloaders(cfg)["train"]`,
`tqdm(self.val_loader)`, a name bound to `tqdm(enumerate(loader))`, or
an attribute of a record built with keywords (`for x, y in data.train` of `data =
EasyDict(train=loader)` or of a function of the run that returns one; also
`types.SimpleNamespace`, `argparse.Namespace`; not an attribute that a file the record may
reach writes, `data.train = ...`, nor any where one writes attributes by computed names,
`setattr(d, k, v)`)) are checked. A call
that made a moved value counts as made of the batch only through its first argument. Items
used as indices (`out[labels]`, where the item on the CPU is fine) or passed to functions
other than modules, losses and torch functions are not considered meetings, nor is an
item given to a function of `torch.nn.functional` whose arguments other than the input are
sizes, factors or paddings that torch reads as numbers (`F.interpolate(x, size)`, `F.pad`,
the adaptive poolings' output size: a list of integer tensors there is never moved), and an item
moved on one arm of an `if` only is not flagged (it may be on either device there), unless
the other arm of an `if`/`else` moves another item and not it; the arms are compared only
for an item read by its name after the test, whose value is the batch's item or its moves
on one arm (nothing else bound to the name between), and only for the tests within the
loop's body.  A meeting in a callee is followed one call deep, into
functions and methods of the same file and functions defined at module level in another
file of the run (`robust_loss(model=model, x=data, y=target)` of `from losses import
robust_loss`), the call's arguments bound by position or keyword as Python binds them
(not a call that spreads `*args` or `**kw`, nor one Python would refuse: a keyword no
parameter has, a parameter bound twice); a method overridden by a subclass of the file is
not followed.  The output of a module the callee runs on a parameter is on the device
there when the call gives that parameter a tensor it moved (`logits = model(x)` of
`x=data.to(device)`). A called parameter is a module (its
call a meeting) when its name is one a model or a loss has, or when every call of the run
passes a module for it (`train(model, nn.CrossEntropyLoss(), loader)`); a parameter some
call leaves unbound or passes anything else is not. In a callee, a value of no known kind is
the tensor an operator method is called on (`pred.eq(target)`) only when it is made of one
parameter alone (`_, pred = output.topk(k, 1)`; `pred = pred.t()`) that the call binds to a
tensor.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

import torchferry.check.flow.collates as collates
from torchferry.check.api import Context, Edit, Evidence, Finding, Fix
from torchferry.check.flow import (
    ACCEL,
    Callee,
    CallEvent,
    FileFlow,
    Kind,
    Op,
    Origin,
    ScopeResult,
    Value,
    Where,
)
from torchferry.check.flow.batches import (
    batch_moves,
    left_on_an_arm,
    of_unknown_kind,
    unmoved_item,
    whole_batch_of,
)
from torchferry.check.flow.converted import converted_params, param_names
from torchferry.check.flow.evidence import at, step, where
from torchferry.check.flow.feeds import callee_of
from torchferry.check.flow.lattice import substitute
from torchferry.check.flow.meetings import index_meetings, zero_dim
from torchferry.check.flow.passed_classes import passed_classes
from torchferry.check.flow.queries import data_parallel, gathered_output, gathered_there
from torchferry.check.flow.siblings import (
    Siblings,
    left_behind,
    made_on_the_cpu,
    moved_by_name,
    readers,
    sibling_groups,
)
from torchferry.check.flow.unpacked import passed_tuples, returns_cpu_items, unpacked_item
from torchferry.check.flow.vocab import INPUT_ONLY_FUNCTIONS, METRIC_UPDATES, OPERATOR_METHODS
from torchferry.check.names import short

CODE = "FRY013"
NAME = "partial-batch-move"
FIX = "unsafe"

_LOADER = frozenset((Kind.LOADER,))


def check(ctx: Context) -> Iterable[Finding]:
    reported: set[int] = set()
    scopes = list(ctx.flow.results())  # (all interpreted first: the file's call sites known)
    # a function as the file's calls see it: ``evaluate(model, valid_loader)`` iterates a loader
    called = [r for r in (ctx.flow.as_called(r, _LOADER) for r in scopes) if r is not None]
    for res in [*scopes, *called]:
        moves = batch_moves(res)
        if not moves:
            continue
        for node, operands in _meetings(ctx.flow, res):
            if not any(_on_device(res, v) for _, v in operands):
                continue
            for a, v in operands:
                loop = unmoved_item(v)
                if loop is None and id(a) not in reported and \
                        (arm := _left_on_an_arm(ctx.flow, res, node, a, v, operands, moves)) is not None:
                    reported.add(id(a))
                    yield _arm_finding(ctx, a, v, arm, node)
                if loop is None or id(loop) not in moves or id(a) in reported or whole_batch_of(a, loop):
                    continue
                if _input_of_an_unseen_model(ctx.flow, res, node, operands) and of_unknown_kind(res, a, loop):
                    continue
                if collates.not_a_tensor(ctx.flow, res, a, loop):
                    continue  # (a position the loaders' collate function fills with numbers)
                reported.add(id(a))
                yield _finding(ctx, a, v, loop, moves[id(loop)], node)
        for m in index_meetings(res):
            a, v = m.base
            loop = unmoved_item(v)
            if loop is None or id(loop) not in moves or id(a) in reported or whole_batch_of(a, loop) \
                    or not any(_on_device(res, w) for _, w in m.indices):
                continue
            reported.add(id(a))
            yield _finding(ctx, a, v, loop, moves[id(loop)], m.node)
        for a, v, loop, meet, path, how in _met_in_a_callee(ctx.flow, res, moves):
            if id(a) not in reported:
                reported.add(id(a))
                f = _finding(ctx, a, v, loop, moves[id(loop)], meet, path)
                yield replace(f, evidence=(*f.evidence[:-1], at(ctx, a, how), f.evidence[-1]))
    for res in scopes:
        for a, out, call, meet in _next_to_a_gathered_output(ctx.flow, res):
            if id(a) not in reported:
                reported.add(id(a))
                yield _gathered_finding(ctx, a, out, call, meet)
    for a, group, name, meet in _siblings_left_behind(ctx.flow):
        if id(a) not in reported:
            reported.add(id(a))
            yield _sibling_finding(ctx, a, group, name, meet)
    for a, handed, meet in _handed_siblings_left_behind(ctx.flow, scopes):
        if id(a) not in reported and handed.made.path is None:  # (else reported where made)
            reported.add(id(a))
            yield _handed_finding(ctx, a, handed, meet)
    yield from _made_for_another_file(ctx)


def _next_to_a_gathered_output(ff: FileFlow, res: ScopeResult
                               ) -> Iterator[tuple[ast.AST, ast.AST, CallEvent, ast.AST]]:
    """Items of a loop's batch used unmoved (in a meeting of ``res``) next to the output of a
    data-parallel wrapper on the accelerator that another item of the same batch was handed
    to (``output = model(input)``, ``criterion(output, target)``): the wrapper scattered
    that item to its devices and gathered the output on its first one, so the batch went
    there but for this item.  (item, output, the wrapper's call, the meeting)"""
    for node, operands in _meetings(ff, res):
        for o, w in operands:
            call = _gathering_call(ff, res, w)
            loop = unmoved_item(call.args[0]) if call is not None and call.args else None
            if call is None or loop is None:
                continue
            for a, v in operands:
                if a is not o and unmoved_item(v) is loop and not whole_batch_of(a, loop):
                    yield a, o, call, node


def _gathering_call(ff: FileFlow, res: ScopeResult, w: Value) -> CallEvent | None:
    """The call of a data-parallel wrapper on the accelerator that ``w`` is the output of:
    one the scope holds there, or a parameter every call of the run hands one."""
    if not w.origins or w.origins[0].op is not Op.OUTPUT:
        return None
    call = res.calls.get(id(w.origins[0].node))
    if call is None or call.callee not in (Callee.MODULE, Callee.UNRESOLVED):
        return None
    placed = data_parallel(call.func) and gathered_there(call.func) is not None
    return call if placed or gathered_output(ff, res, w) is not None else None


def _gathered_finding(ctx: Context, use: ast.AST, out: ast.AST, call: CallEvent, meet: ast.AST) -> Finding:
    name, output = ctx.text(use), ctx.text(out)
    if not isinstance(use, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        name = f"({name})"
    plain = isinstance(out, (ast.Name, ast.Attribute))
    fix = Fix((ctx.edit(use, f"{name}.to({output}.device)"),), False, f"Move `{name}` to `{output}`'s device") \
        if plain else None
    first = call.node.args[0] if call.node.args else call.node
    f = ctx.finding(
        CODE, use,
        f"`{name}` is used unmoved next to `{short(output, 40)}`, which the data-parallel model "
        f"`{ctx.text(call.node.func)}` gathers on its first device (it scattered "
        f"`{ctx.text(first)}`, another item of the batch, there); it missed the ferry: "
        f"move it there too: `{name}.to({output if plain else '<output>'}.device)`",
        fix,
    )
    v = ctx.flow.scope_of(use)
    item = v.value(use) if v is not None else None
    batch = next((o for o in item.origins if o.op is Op.BATCH), None) if item is not None else None
    made = Origin(Op.OUTPUT, call.node.lineno, call.node.col_offset, "")
    steps = [step(ctx, batch, f"`{name}` comes from the batch at {where(batch)} and is never moved")] \
        if batch is not None else []
    steps.append(step(ctx, made, f"`{ctx.text(first)}` goes into the data-parallel model here, "
                                 "which gathers its output on the accelerator"))
    return replace(f, evidence=(*steps, at(ctx, meet, "they meet here")))


def _siblings_left_behind(ff: FileFlow) -> Iterator[tuple[ast.AST, Siblings, str, ast.AST]]:
    """Tensors one call returned with others (``train_x, train_y = data_generator(n)``),
    never moved while a sibling was, that meet a tensor that may be on the device, where
    the unpacking's scope or a function reading them as globals computes with them: (the
    operand, the unpacking, the name left behind, the meeting)."""
    for group in sibling_groups(ff):
        for name in group.names:
            if name in group.moves:
                continue
            for res in readers(ff, group, name):
                for node, operands in _meetings(ff, res):
                    if not any(_on_device(res, w) for _, w in operands) or \
                            _input_of_an_unseen_model(ff, res, node, operands):
                        continue
                    for a, v in operands:
                        if not zero_dim(res.node, a) and left_behind(ff, group, res, v) == name:
                            yield a, group, name, node
                for m in index_meetings(res):
                    a, v = m.base
                    if any(_on_device(res, w) for _, w in m.indices) and \
                            left_behind(ff, group, res, v) == name:
                        yield a, group, name, m.node
                for a, meet in _sibling_met_in_a_callee(ff, res, group, name):
                    yield a, group, name, meet


class _Handed(NamedTuple):
    """An item left behind in a tuple handed to a function (:func:`_handed_left_behind`):
    where the item was made, where another item of the tuple was moved, the call that
    handed the tuple in, and the item's name in the function."""

    made: Origin
    moved: Origin
    call: Origin
    name: str


def _handed_siblings_left_behind(ff: FileFlow, scopes: list[ScopeResult]
                                 ) -> Iterator[tuple[ast.AST, _Handed, ast.AST]]:
    """Items that a function unpacks from a tuple parameter (``states, rewards =
    experiences``) where every call of the run passes a tuple whose item there is a tensor
    made on the CPU and never moved while another item was moved to a device
    (:func:`_handed_left_behind`), meeting, as they came in, a tensor that may be on the
    device in the function (``rewards + gamma * self.target(next_states)``), or another
    such item that every call passes moved: (the operand, the item, the meeting)."""
    for res in scopes:
        if not res.param_unpacked:
            continue
        for node, operands in _meetings(ff, res):
            items = [(a, v, _handed_left_behind(ff, res, v)) for a, v in operands]
            if not any(h is not None for _, _, h in items) or _input_of_an_unseen_model(ff, res, node, operands):
                continue
            for a, _, h in items:
                if h is not None and not zero_dim(res.node, a) and any(
                        b is not a and (_on_device(res, w) or _handed_moved(ff, res, w)) for b, w, _ in items):
                    yield a, h, node


def _handed_left_behind(ff: FileFlow, res: ScopeResult, v: Value) -> _Handed | None:
    """For ``v``, an item of a tuple parameter of ``res`` as it came in
    (:func:`~torchferry.check.flow.unpacked.unpacked_item`), whose name no statement of the
    file moves: where it was made and where another item was moved, when every tuple the
    run's calls pass there (:func:`~torchferry.check.flow.unpacked.passed_tuples`) holds a
    tensor made on the CPU and never moved at that position, and a tensor moved to a device
    at another; None otherwise."""
    item = unpacked_item(res, v)
    passed = passed_tuples(ff, res, item.param, item.names) if item is not None else None
    if item is None or not passed or not isinstance(item.node, ast.Name) or moved_by_name(ff, item.node.id):
        return None
    found: list[tuple[Origin, Origin]] = []
    for t in passed:
        elts = t.value.elts or ()
        moved = next((e.origins[0] for i, e in enumerate(elts) if i != item.position and _moved_there(e)), None)
        if len(elts) != item.names or not made_on_the_cpu(elts[item.position]) or moved is None:
            return None
        found.append((elts[item.position].origins[-1], moved))
    first = passed[0]
    call = Origin(Op.PARAM, first.call.lineno, first.call.col_offset, f"{ast.unparse(first.call.func)}(...)",
                  None if first.ff is ff else first.ff.path, node=first.call)
    return _Handed(found[0][0], found[0][1], call, item.node.id)


def _handed_moved(ff: FileFlow, res: ScopeResult, v: Value) -> bool:
    """Is ``v`` an item of a tuple parameter of ``res`` as it came in that every call of
    the run passes moved to a device (:func:`_moved_there`)?"""
    item = unpacked_item(res, v)
    passed = passed_tuples(ff, res, item.param, item.names) if item is not None else None
    return item is not None and bool(passed) and all(
        t.value.elts is not None and _moved_there(t.value.elts[item.position]) for t in passed or ())


def _moved_there(v: Value) -> bool:
    """A tensor whose latest origin is a move that may have put it on an accelerator."""
    return bool(v.origins) and v.origins[0].op is Op.MOVED and v.kinds == {Kind.TENSOR} and \
        v.may_live(Where.ACCEL)


def _handed_finding(ctx: Context, use: ast.AST, h: _Handed, meet: ast.AST) -> Finding:
    """The finding of :func:`_handed_siblings_left_behind` at ``use``, the item (or what
    the function computes of it with numbers) where it meets ``meet``, in this file."""
    text = ctx.text(use)
    if not isinstance(use, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        text = f"({text})"
    f = ctx.finding(
        CODE, use,
        f"`{text}` is used unmoved next to tensors that went to the device (`{h.name}` came in a "
        f"tuple, handed in by `{h.call.text}`, whose other items were moved: at {where(h.moved)}); "
        f"it missed the ferry: move it with the others where they are moved",
        None,
    )
    return replace(f, evidence=(
        step(ctx, h.made, f"`{h.name}` is made at {where(h.made)} and never moved"),
        step(ctx, h.moved, f"another item of its tuple is moved to the device at {where(h.moved)}"),
        step(ctx, h.call, f"the tuple is handed in by `{h.call.text}` at {where(h.call)}"),
        at(ctx, meet, "they meet here"),
    ))


def _made_for_another_file(ctx: Context) -> Iterator[Finding]:
    """Tensors this file makes on the CPU in a tuple, whose other items it moves to the
    device, that a file importing this one hands whole to a function which unpacks it and
    computes with the item next to tensors on the device (:func:`_handed_siblings_left_behind`
    of that file): reported at the make, here, where the fix goes, once per make; the
    evidence names the other file's call and meeting.  The files that import this one are
    read only when the run knows them all
    (:meth:`~torchferry.check.flow.project.Project.importer_flows`)."""
    ff: FileFlow = ctx.flow
    others = ff.project.importer_flows(ff) \
        if ff.project is not None and returns_cpu_items(ff) else None
    done: set[tuple[int, int]] = set()
    for other in others or ():
        for a, h, meet in _handed_siblings_left_behind(other, list(other.results())):
            node = _call_at(ff, h.made) if h.made.path == ff.path else None
            if node is None or (node.lineno, node.col_offset) in done:
                continue
            done.add((node.lineno, node.col_offset))
            yield _made_for_finding(ctx, other, a, h, meet, node)


def _call_at(ff: FileFlow, made: Origin) -> ast.Call | None:
    """The call of ``ff``'s tree at the line and column of ``made`` (an origin another
    file's analysis cites in ``ff``)."""
    return next((n for n in ast.walk(ff.tree) if isinstance(n, ast.Call) and n.lineno == made.line
                 and n.col_offset == made.column), None)


def _made_for_finding(ctx: Context, other: FileFlow, use: ast.AST, h: _Handed, meet: ast.AST,
                      node: ast.Call) -> Finding:
    """The finding of :func:`_made_for_another_file`, at ``node`` (the make)."""
    there = os.path.basename(other.path)
    text = ast.unparse(use)
    f = ctx.finding(
        CODE, node,
        f"`{h.made.text}` makes a tensor on the CPU that is never moved, while another item of "
        f"the tuple it is returned in is moved to the device (at {where(_here(h.moved, ctx))}); "
        f"`{text}` of {there} (handed the tuple by `{h.call.text}`) uses it next to tensors on the "
        f"device: it missed the ferry: move it with the others",
        None,
    )
    cited = (h.call if h.call.path is not None else h.call._replace(path=other.path))
    met = Origin(Op.OUTPUT, getattr(meet, "lineno", 0), getattr(meet, "col_offset", 0), "", other.path)
    return replace(f, evidence=(
        step(ctx, _here(h.made, ctx), "made here on the CPU and never moved"),
        step(ctx, _here(h.moved, ctx), f"another item of its tuple is moved to the device at {where(_here(h.moved, ctx))}"),
        step(ctx, cited, f"the tuple is handed in by `{h.call.text}` at {where(cited)}"),
        step(ctx, met, f"`{text}` meets tensors on the device at {where(met)}"),
    ))


def _here(origin: Origin, ctx: Context) -> Origin:
    """``origin`` as this file's findings cite it: without its path when it is this file."""
    return origin._replace(path=None) if origin.path == ctx.flow.path else origin


def _sibling_met_in_a_callee(ff: FileFlow, res: ScopeResult, group: Siblings, name: str
                             ) -> Iterator[tuple[ast.expr, ast.AST]]:
    """A sibling left behind that a call of a function or method of this file
    (``train(model, labels, idx_train)``) passes to a parameter that meets, as it came in,
    another argument of the call on the device (``target[mask]`` of ``def train(model,
    target, mask)``, ``criterion(model(x), target)``): (the argument, the meeting in the
    callee)."""
    for c in list(res.calls.values()):
        target = callee_of(ff, res, c)
        if target is None:
            continue
        callee, bound = target.callee, target.bound
        items = {j: a.node for j, a in target.args.items()
                 if str(j) in bound and left_behind(ff, group, res, bound[str(j)]) == name}
        if not items:
            continue
        for node, at_fault, operands in _callee_meetings(ff, callee, bound):
            given = [items[k] for _, w in at_fault if (k := _param_index(w)) in items]
            if given and any(_on_device_there(res, callee, w, bound) for _, w in operands
                             if _param_index(w) not in items):
                yield given[0], node
                break


def _callee_meetings(ff: FileFlow, callee: ScopeResult, bound: dict[str, Value]
                     ) -> Iterator[tuple[ast.AST, list[tuple[ast.AST, Value]], list[tuple[ast.AST, Value]]]]:
    """Where values of ``callee`` meet (:func:`_meetings`, and its tensor indexings): (the
    meeting, the operands that may be at fault, all operands).  Of ``base[idx]`` only the
    indexed tensor can be: a tensor on the device may be indexed by one on the CPU.  A
    0-dimensional reduction (``target.sum()``) mixes with a tensor of any device."""
    for node, operands in _meetings(ff, callee, bound):
        ops = [(e, v) for e, v in operands if not zero_dim(callee.node, e)]
        if len(ops) >= 2:
            yield node, ops, ops
    for m in index_meetings(callee):
        yield m.node, [m.base], [m.base, *m.indices]


def _met_in_a_callee(ff: FileFlow, res: ScopeResult, moves: dict[int, list[CallEvent]]
                     ) -> Iterator[tuple[ast.expr, Value, ast.AST, ast.AST, str | None, str]]:
    """Items of a batch, unmoved while another item of it is, that a call of a function or
    method of this file (``self._run_batch(source, targets)``), or of a function defined
    at module level in another file of the run (``trades_loss(model=model, y=target)``),
    or of a method of a plain class of another file called on an instance this file built,
    passes, by position or keyword, to a parameter
    that meets, as it came in, a tensor on the device in the callee (``F.cross_entropy(
    output, targets)`` of ``output = self.model(source)``, the model moved in
    ``__init__``): (the argument, its value, its loop, the meeting in the callee, the
    callee's file when it is another one, how the call hands it on)."""
    for c in list(res.calls.values()):
        target = callee_of(ff, res, c, across=True)
        if target is None:
            continue
        path = target.owner.path if target.owner is not ff else None
        callee, bound = target.callee, target.bound
        items = {j: (a, v, loop) for j, a in target.args.items() if str(j) in bound
                 and (loop := unmoved_item(v := bound[str(j)])) is not None and id(loop) in moves}
        if not items:
            continue
        for node, operands in _meetings(target.owner, callee, bound):
            given = [items[k] for _, w in operands if (k := _param_index(w)) in items]
            if given and any(_on_device_there(res, callee, w, bound) for _, w in operands
                             if _param_index(w) not in items):
                a, v, loop = given[0]
                yield a.node, v, loop, node, path, f"it is handed here to `{ast.unparse(c.node.func)}` as {a.how()}"


def _input_of_an_unseen_model(ff: FileFlow, res: ScopeResult, node: ast.AST,
                              operands: list[tuple[ast.AST, Value]]) -> bool:
    """Is ``node`` a call of a module whose ``forward`` the analysis cannot see (of no
    class of the run), given inputs only: none of its operands is the output of a module
    call (``criterion(outputs, labels)`` compares an output with a target; ``model(x,
    info)`` feeds a model, and what it makes of ``info`` is its own affair)?"""
    c = res.calls.get(id(node))
    if c is None or c.func is None or c.callee is Callee.TORCH or _functional_loss(c) or \
            _operator_method(res, c) is not None or _metric_update(res, c) is not None:
        return False
    if ff.classes_of(res, c.func):
        return False
    return not any(v.origins and v.origins[0].op is Op.OUTPUT for _, v in operands)


def _param_index(v: Value) -> int | None:
    """The parameter ``v`` is, as it came in (it lives where that parameter does and
    nowhere else, and was not moved)."""
    if not v.places or len(v.places) != 1 or any(o.op is Op.MOVED for o in v.origins):
        return None
    p = next(iter(v.places))
    return int(p.ref) if p.where is Where.PARAM else None


def _on_device_there(res: ScopeResult, callee: ScopeResult, v: Value, bound: dict[str, Value]) -> bool:
    """Is ``v``, a value of the callee, a tensor that may be on the device: in the callee's
    own terms, or, when it lives where a parameter does, in the caller's (the argument in
    its place), or the output of a module the callee calls on an argument the caller moved
    to the device (:func:`_fed_from_the_device`, in the caller's terms)?"""
    if v.places and not any(p.symbolic for p in v.places):
        return _on_device(callee, v)
    k = _param_index(v)
    given = bound.get(str(k)) if k is not None else substitute(v, bound)
    if given is None:
        return False
    if _fed_from_the_device(callee, v, bound):
        return True
    return bool(given.places) and not any(p.symbolic for p in given.places or ()) and _on_device(res, given)


def _on_device(res: ScopeResult, v: Value) -> bool:
    """A tensor that may be on the device, or anything moved there whatever its kind (a
    tokenizer's output: ``model(**encoded.to(device), labels=labels)``)."""
    if v.places == {ACCEL} and any(o.op is Op.MOVED for o in v.origins):
        return True
    kinds = res.kind_of(v)
    if kinds is not None and bool(kinds & {Kind.TENSOR, Kind.BATCH}) and res.may_be_on_device(v):
        return True
    return _fed_from_the_device(res, v)


def _fed_from_the_device(res: ScopeResult, v: Value, bound: dict[str, Value] | None = None) -> bool:
    """The output of a module, wherever it is, called on a tensor moved to the device
    (``out = self.model(x.to(device))``; with ``bound``, what a call binds to the
    parameters of ``res``, an argument the caller moved, ``logits = model(x)`` of a call
    given ``x=data.to(device)``): had its weights been elsewhere, the call would have
    failed."""
    if not v.origins or v.origins[0].op is not Op.OUTPUT:
        return False
    call = res.calls.get(id(v.origins[0].node))
    args = [substitute(a, bound) for a in call.args] if call is not None and bound else \
        call.args if call is not None else ()
    return call is not None and call.callee is Callee.MODULE and any(
        a.places == {ACCEL} and any(o.op is Op.MOVED for o in a.origins) for a in args)


def _meetings(ff: FileFlow, res: ScopeResult, bound: dict[str, Value] | None = None
              ) -> Iterator[tuple[ast.AST, list[tuple[ast.AST, Value]]]]:
    """Where values of ``res`` meet: its operators, and the calls that compute with all
    their tensors on one device (with ``bound``, what a call binds to the parameters of
    ``res``, which tells the kind of a value made of one)."""
    for m in res.meets.values():
        yield m.node, list(m.operands)
    for c in res.calls.values():
        operator = _operator_method(res, c, bound) or _metric_update(res, c)
        if operator is not None:
            yield c.node, operator
            continue
        if c.callee is Callee.TORCH and c.qualname is not None:
            q = c.qualname
            if "pack" in q or not (q.startswith("torch.nn.functional.") or q.count(".") == 1) \
                    or _input_only(q):
                continue
        elif c.callee is not Callee.MODULE and not _functional_loss(c) and \
                not _module_param(ff, res, c):
            continue
        nodes = [a for a in c.node.args if not isinstance(a, ast.Starred)]
        # (a module is also given the mapping of ``model(**encoded)``)
        nodes += [k.value for k in c.node.keywords if k.arg is not None or c.callee is Callee.MODULE]
        if c.callee is Callee.MODULE:
            nodes = _not_wanted_on_the_cpu(ff, res, c, nodes)
        ops: list[tuple[ast.AST, Value]] = [(a, v) for a in nodes if (v := res.value(a)) is not None]
        if len(ops) >= 2:
            yield c.node, ops


def _input_only(qualname: str) -> bool:
    """Is ``qualname`` a function of ``torch.nn.functional`` whose arguments other than the
    input are read as numbers (``F.interpolate(x, size)``): it meets nothing?"""
    return qualname.startswith("torch.nn.functional.") and \
        qualname.rsplit(".", 1)[-1] in INPUT_ONLY_FUNCTIONS


#: the losses of ``torch.nn.functional`` that take the input and the target on one device
def _operator_method(res: ScopeResult, c: CallEvent, bound: dict[str, Value] | None = None
                     ) -> list[tuple[ast.AST, Value]] | None:
    """The operands of a tensor method that spells an operator (``out.eq(labels)`` is
    ``out == labels``): the tensor it is called on and its positional arguments.  With
    ``bound`` (see :func:`_meetings`), a receiver of no known kind made of a parameter
    alone (``_, pred = output.topk(k, 1)``; ``pred = pred.t()``) is a tensor when the call
    binds a tensor to that parameter."""
    func = c.node.func
    if c.callee is not Callee.METHOD or c.qualname not in OPERATOR_METHODS or c.receiver is None \
            or not isinstance(func, ast.Attribute) or not (
                c.receiver.is_(Kind.TENSOR) or _made_of_a_tensor_param(c.receiver, bound)):
        return None
    ops: list[tuple[ast.AST, Value]] = [(func.value, c.receiver)]
    ops += [(a, v) for a in c.node.args if not isinstance(a, ast.Starred) and (v := res.value(a)) is not None]
    return ops if len(ops) >= 2 else None


def _made_of_a_tensor_param(v: Value, bound: dict[str, Value] | None) -> bool:
    """Is ``v``, of no known kind, made of one parameter alone (it lives where that
    parameter does, unmoved), to which ``bound`` binds a tensor?"""
    k = _param_index(v) if bound is not None and v.kinds is None else None
    given = bound.get(str(k)) if bound is not None and k is not None else None
    return given is not None and given.kinds == {Kind.TENSOR}


def _metric_update(res: ScopeResult, c: CallEvent) -> list[tuple[ast.AST, Value]] | None:
    """The tensors given to ``metric.update(preds, target)`` of a metric moved to a device
    (``_F1Max().to(DEVICE)``: a tensor has no ``update``, a dict or a set no ``.to``)."""
    func, recv = c.node.func, c.receiver
    if not isinstance(func, ast.Attribute) or func.attr not in METRIC_UPDATES or recv is None \
            or not any(o.op is Op.MOVED for o in recv.origins) or not recv.may_live(Where.ACCEL):
        return None
    ops: list[tuple[ast.AST, Value]] = [
        (a, v) for a in c.node.args if not isinstance(a, ast.Starred) and (v := res.value(a)) is not None]
    return ops if len(ops) >= 2 else None


_LOSSES = frozenset("""cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss
    binary_cross_entropy binary_cross_entropy_with_logits kl_div soft_margin_loss
    multilabel_soft_margin_loss multilabel_margin_loss multi_margin_loss poisson_nll_loss
    gaussian_nll_loss hinge_embedding_loss cosine_embedding_loss margin_ranking_loss
    triplet_margin_loss""".split())


def _module_param(ff: FileFlow, res: ScopeResult, c: CallEvent) -> bool:
    """Is ``c`` a call of a parameter, as it came in, that every call of the run passes a
    module for (``criterion(outputs, labels)`` in ``train(model, criterion, loader)``, called
    as ``train(net, nn.CrossEntropyLoss(), loader)``)?  A module of ``torch.nn`` is not
    resolved as a callee through a parameter; its call is a module call all the same."""
    k = _param_index(c.func) if c.callee is Callee.UNRESOLVED and c.func is not None else None
    given = ff.run_arguments(res.node, k) if k is not None else None
    return bool(given) and all(v.kinds == {Kind.MODULE} for _, _, v in given or ())


def _functional_loss(c: CallEvent) -> bool:
    """``F.cross_entropy(...)`` with ``F`` from where the analysis cannot see (a star
    import of another package): ``F`` names ``torch.nn.functional`` by convention."""
    func = c.node.func
    return c.callee is Callee.UNRESOLVED and isinstance(func, ast.Attribute) and \
        func.attr in _LOSSES and isinstance(func.value, ast.Name) and func.value.id == "F"


def _not_wanted_on_the_cpu(ff: FileFlow, res: ScopeResult, c: CallEvent,
                          nodes: list[ast.expr]) -> list[ast.expr]:
    """The arguments of a module call less those its ``forward`` hands to torch on the
    CPU at every use (``decoder(features, captions, lengths)`` packs with ``lengths``) or
    converts before any other use (``lengths = lengths.cpu().int()``, ``lengths.tolist()``,
    a helper of the run that does ``mask.to(x.device)``): they meet nothing as they come
    in.  The module is one this file builds, or a parameter (``def train(model, loader)``)
    every call of this file gives such a module (:meth:`FileFlow.classes_of`), or every
    call of the run, in any file, gives one of several such modules
    (:func:`~torchferry.check.flow.passed_classes.passed_classes`)."""
    classes = ff.classes_of(res, c.func)
    if classes is None:  # (a parameter bound by calls of other files, or several classes)
        classes = passed_classes(ff, res, c.func)
    wanted: set[int] | None = None
    params: tuple[str, ...] = ()
    for info in classes or ():
        method = info.method("forward")
        if method is None:
            return nodes
        mine = converted_params(method[0].ff, method[1], method[0])
        wanted = set(mine) if wanted is None else wanted & mine
        names = param_names(method[1]) if isinstance(method[1], (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else ()
        if params and names != params:
            return nodes  # (forwards that name their inputs differently)
        params = names
    if not wanted:
        return nodes
    cpu = {id(a) for i, a in enumerate(c.node.args) if i + 1 in wanted}
    cpu |= {id(k.value) for k in c.node.keywords if k.arg in params and params.index(k.arg) in wanted}
    return [a for a in nodes if id(a) not in cpu]


def _left_on_an_arm(ff: FileFlow, res: ScopeResult, node: ast.AST, a: ast.AST, v: Value,
                    operands: list[tuple[ast.AST, Value]], moves: dict[int, list[CallEvent]]
                    ) -> CallEvent | None:
    """The move of another item of ``a``'s batch on the arm of a test where ``a`` stays on
    the CPU (:func:`left_on_an_arm`), when another operand of the meeting may be on the
    device and it is no input of a model the analysis cannot see."""
    if not any(b is not a and _on_device(res, w) for b, w in operands):
        return None
    found = left_on_an_arm(res, a, v, moves)
    if found is None or _input_of_an_unseen_model(ff, res, node, operands):
        return None
    return found[1]


def _arm_finding(ctx: Context, use: ast.AST, v: Value, move: CallEvent, meet: ast.AST) -> Finding:
    name = ctx.text(use)
    f = ctx.finding(
        CODE, use,
        f"`{name}` is used unmoved next to tensors that went to the device on one arm of a "
        f"test (that arm moves the batch's other items, `{ctx.text(move.node)}`, and not "
        f"`{name}`, which the other arm moves); it missed the ferry there: move it on both",
        None,
    )
    batch = next(o for o in v.origins if o.op is Op.BATCH)
    moved = Origin(Op.MOVED, move.node.lineno, move.node.col_offset, "")
    return replace(f, evidence=(
        step(ctx, batch, f"`{name}` comes from the batch at {where(batch)}"),
        step(ctx, moved, f"another item of that batch is moved here, and `{name}` is not on this arm"),
        at(ctx, meet, "they meet here"),
    ))


def _finding(ctx: Context, use: ast.AST, v: Value, loop: ast.AST, moves: list[CallEvent],
             meet: ast.AST, path: str | None = None) -> Finding:
    """The finding of an item ``use`` left on the CPU that meets its batch's moved items at
    ``meet`` (of the file ``path`` when it is another one)."""
    name = ctx.text(use)
    if not isinstance(use, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        name = f"({name})"  # ``(1 - labels).to(device)``
    # prefer a move whose result was kept (``x = x.to(device)``) as the one to follow
    move = next((c for c in moves if _statement_of(loop, c.node) is not None), moves[0])
    recv = move.node.func.value  # type: ignore[attr-defined]
    how = ctx.text(move.node)[len(ctx.text(recv)):]
    f = ctx.finding(
        CODE, use,
        f"`{name}` is used unmoved next to tensors that went to the device (the batch's "
        f"other items were moved: `{ctx.text(move.node)}`); it missed the ferry: move it "
        f"with the others: `{name}{how}`",
        _fix(ctx, use, name, how, loop, move),
    )
    batch = next(o for o in v.origins if o.op is Op.BATCH)
    moved = Origin(Op.MOVED, move.node.lineno, move.node.col_offset, "")
    what = "another item" if move.receiver is not None and move.receiver.is_(Kind.BATCH) \
        else "made from another item"
    return replace(f, evidence=(
        step(ctx, batch, f"`{name}` comes from the batch at {where(batch)} and is never moved"),
        step(ctx, moved, f"`{ctx.text(recv)}`, {what} of that batch, is moved here"),
        at(ctx, meet, "they meet here") if path is None else Evidence(
            "they meet here", getattr(meet, "lineno", 1), getattr(meet, "col_offset", 0), path),
    ))


def _sibling_finding(ctx: Context, use: ast.AST, group: Siblings, name: str, meet: ast.AST) -> Finding:
    text = ctx.text(use)
    if not isinstance(use, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        text = f"({text})"
    moved, move = min(group.moves.items(), key=lambda m: (m[1].node.lineno, m[1].node.col_offset))
    recv = move.node.func.value  # type: ignore[attr-defined]
    how = ctx.text(move.node)[len(ctx.text(recv)):]
    call = ctx.text(group.assign.value)
    f = ctx.finding(
        CODE, use,
        f"`{text}` is used unmoved next to tensors that went to the device (`{name}` came "
        f"with `{moved}` from `{call}`, and `{moved}` was moved: `{ctx.text(move.node)}`); "
        f"it missed the ferry: move it with the others: `{name} = {name}{how}`",
        _sibling_fix(ctx, group, name, how, move),
    )
    made = Origin(Op.RETURNED, group.assign.lineno, group.assign.col_offset, "")
    moved_at = Origin(Op.MOVED, move.node.lineno, move.node.col_offset, "")
    return replace(f, evidence=(
        step(ctx, made, f"`{name}` comes with `{moved}` from this call and is never moved"),
        step(ctx, moved_at, f"`{moved}` is moved here"),
        at(ctx, meet, "they meet here"),
    ))


def _sibling_fix(ctx: Context, group: Siblings, name: str, how: str, move: CallEvent) -> Fix | None:
    """``name = name.cuda()`` on a line of its own after the sibling's ``x = x.cuda()``
    statement, where that statement stands alone on its lines; None otherwise."""
    st = next((s for s in ast.walk(group.scope.node) if isinstance(s, ast.Assign) and s.value is move.node
               and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)), None)
    if st is None:
        return None
    line = ctx.lines[st.lineno - 1]
    ind = line[: len(line) - len(line.lstrip())]
    end_line = st.end_lineno or st.lineno
    rest = ctx.lines[end_line - 1][ctx.char_col(end_line, st.end_col_offset or 0):].strip()
    if ctx.char_col(st.lineno, st.col_offset) != len(ind) or rest and not rest.startswith("#") \
            or end_line >= len(ctx.lines):
        return None
    return Fix((Edit(end_line + 1, 0, end_line + 1, 0, f"{ind}{name} = {name}{how}\n"),), False,
               f"Move `{name}` with the others")


def _statement_of(loop: ast.AST, call: ast.Call) -> ast.Assign | None:
    """The ``x = x.to(device)`` statement (directly in the loop's body) of a move."""
    for st in getattr(loop, "body", ()):
        if isinstance(st, ast.Assign) and st.value is call and len(st.targets) == 1 \
                and isinstance(st.targets[0], ast.Name):
            return st
    return None


def _bound_before(loop: ast.AST, name: str, st: ast.stmt) -> bool:
    """Is ``name`` a loop target, or bound by a statement of the body before ``st``?"""
    target = getattr(loop, "target", None)
    if target is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
        return True
    for s in getattr(loop, "body", ()):
        if s is st:
            return False
        if isinstance(s, ast.Assign) and any(isinstance(n, ast.Name) and n.id == name
                                             for t in s.targets for n in ast.walk(t)):
            return True
    return False


def _fix(ctx: Context, use: ast.AST, name: str, how: str, loop: ast.AST,
         move: CallEvent) -> Fix | None:
    st = _statement_of(loop, move.node)
    if isinstance(use, ast.Name) and st is not None and _bound_before(loop, use.id, st):
        line = ctx.lines[st.lineno - 1]
        ind = line[: len(line) - len(line.lstrip())]
        end_line = st.end_lineno or st.lineno
        rest = ctx.lines[end_line - 1][ctx.char_col(end_line, st.end_col_offset or 0):].strip()
        if ctx.char_col(st.lineno, st.col_offset) == len(ind) \
                and (not rest or rest.startswith("#")) and end_line < len(ctx.lines):
            text = f"{ind}{name} = {name}{how}\n"
            return Fix((Edit(end_line + 1, 0, end_line + 1, 0, text),), False,
                       f"Move `{name}` with the others")
    return Fix((ctx.edit(use, f"{name}{how}"),), False, f"Move `{name}` with the others")
