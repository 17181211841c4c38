"""Tensor factory without `device=` where it meets tensors that may be on the device.

## What it does
Flags a factory (`torch.zeros`, `ones`, `empty`, `full`, `arange`, `rand*`, `eye`,
`linspace`, the signal windows `hann_window`, `hamming_window`, `blackman_window`,
`bartlett_window`, `kaiser_window` (also kept as a value, `self.win = torch.hann_window`,
then `torch.stft(x, n, window=self.win(n))`), ..., `torch.tensor([...])`, `torch.tensor(data).unsqueeze(1)` (at least one
dimension, whatever the data), `torch.tensor(x.reshape(1, -1))` (sizes written out to
`reshape` or `view`, or `x.flatten()`, `x.ravel()`: at least one dimension, whatever `x` is;
the fix then names no device of `x`, which is no tensor on a device, or the result would be
there), `torch.tensor(mask)` of a value the analysis knows to be a
Python sequence (a list built with `append`, a tuple: no number, so at least one
dimension), `torch.tensor(a)` of a NumPy array the function made with at least one dimension
(`np.zeros([n])`, `np.arange(n)`, `np.array([...])` of data written out, `np.stack(xs)`),
`torch.tensor(a)` of a NumPy array of any rank (`X[mask, :]` of `np.genfromtxt(path)`) only
where a tensor index of at least one dimension on the device indexes it (it fails then
whatever its own size; in the function, or in a file of the run that imports this one),
and the legacy typed constructors `torch.FloatTensor`,
`torch.LongTensor`, `torch.Tensor`, ... given sizes or data written out, which build on the
CPU whatever the default device; `torch.cuda.FloatTensor` builds on the GPU; also the class
of a tensor called, `type(t)(3, 4)` or `tensortype = type(t.data)` then
`tensortype(t.data.size())`, which is `torch.Tensor`) called inside
a function, or in a script's own statements at module level, without `device=`, when the
device-flow analysis sees its result meet a tensor that may be on an accelerator: in
arithmetic or a comparison, or as an argument next to it in a call (`torch.cat([x, pad])`,
`x.masked_fill(mask, 0)`, `self.rnn(x, h0)`, `F.cross_entropy(p, t, weight=w)`; also
`crit = nn.CrossEntropyLoss(weight=w)` then `crit(out, y)`, a `torch.nn` loss whose
`forward` uses the `weight=` / `pos_weight=` it is built with beside its inputs, built and
called in one function and read there only in calls: not a loss moved with `.to(device)`
or `.cuda()`, kept by a model or handed to other code, which takes or may take those
buffers along; a method
of a model the code moved to a device: `policy.to(device)`, then `policy.act(obs, hidden,
masks)`), as an argument of such a method, of a module class of the run, that the method
hands to the model's weights (to a submodule with weights, to the model itself, `self(x)`,
or to another method of the model that does so: `vae.inference(n, c=c)` whose
`inference` runs `self.decoder(z, c)`; not one it only converts, `c.cpu()`, or keeps; in a
method of the module itself, `self.score_h(batch)` whose `score_h` runs
`self.embed(batch)`, as `self.embed(batch)` written there would), as the
input of a submodule with weights (`self.embed(positions)`; also one of a class outside the
checked files that `__init__`, or a builder it calls, stores on `self`:
`self.decoder = TransformerDecoder(args, embed)`, `cls.build_decoder(...)`, a factory
function of another file, `BertModel.from_pretrained(name)`, unless the class's name is
that of a loss, tokenizer, sampler, activation, scheduler, wrapper or another callable
without weights; and a layer that a Hugging Face model class holds and a subclass uses
without assigning it: `self.classifier`, `self.bert` of `BertForTokenClassification`, while
its `self.dropout` hands on what it is given), or indexed by a tensor on the
device (`torch.eye(n)[labels]`, `counts[labels] = 1`: a tensor is indexed only by indices on
the CPU or on its own device; an index is taken to be on the device only when the code puts
it there or it follows the model, never for its annotation alone), or written through tensor
indices of at least one dimension (a 0-dimensional integer index reads as its number) into a
tensor that may be on the device (`table[idx[0], idx[1]] = torch.arange(n)` of `idx =
torch.tril_indices(n, n)`:
a value of one or more dimensions must be on the written tensor's device; a slice, `t[0, :]
= v`, is a copy across devices and no meeting), or held in one list with a tensor that may
be on the device where a torch function joins it (`his = [torch.tensor([np.inf] * b)]`,
then `his.append(stress)` in a loop and `torch.stack(his)`; `[]` then appended: an item
written out, or appended by a statement of the list's own block, is paired with every later
append before the join). The result is followed through
names, containers and calls, through the wrappers `nn.Parameter(t)` and `Variable(t)` (a
parameter rebuilt in `forward`; one that `__init__` registers follows the model's `.to()`), also where it is joined with a value of unknown place (`b =
torch.zeros(n)` on one branch, `b = self.sampler.sample()` on the other): a factory in a helper method called from `forward`
(`self._causal_mask(n)`), in a function that returns it (`init_hidden()`), or in a free
loss function whose tensors come from a call in the file. A tensor "may be on an
accelerator" when the analysis sees it there on some path: moved or made there (`.to(d)`,
`.cuda()`, `.type(torch.cuda.FloatTensor)`; also a value of unknown kind moved there, which
only a tensor can be where it is computed with), the model's (a submodule's output, also
of one taken from an `nn.ModuleList` or `nn.Sequential` by a loop or an index, or from an
`nn.ModuleDict` by a key, or by attribute for a key written out in its construction,
`self.transformer.wpe(pos)` of `nn.ModuleDict(dict(wpe=nn.Embedding(n, d)))`, that entry
with its own weights: `self.layers[i - 1](x)`, `self.heads[name](h)`, a list extended
with `self.layers += [block]` included, `self` of a module, a
model stored on `self` and moved in place there: `self.net = Net();
self.net.to(device)`), the output of a loss (of modules without weights, one chosen on
each branch: `nn.CTCLoss() if ctc else nn.CrossEntropyLoss()`) given tensors that may be,
or a parameter that may be; a `pack_padded_sequence(x, lengths)` is
where `x` is (its data goes there), so an initial state handed to an RNN with it meets `x`.
For a parameter, the calls of the run decide
when there are any (those of the same file and, for a function defined at module level or a
method of a plain class defined there, those of the checked files that import its file,
directly or not: a helper of `utils.py` given `labels.cuda()` by `train.py`,
`sched.add_noise(x, t)` on `sched = Scheduler(...)` built there): if one passes a tensor on the device it is (followed through the
callers' own parameters); if none does (they pass tensors on the CPU, 0-dimensional ones,
`self` and its buffers in a module's `__init__`, which runs before any move, or values the
analysis cannot place, for which an annotation does not stand in) it is not known to
be. Without such calls, an input of a module's `forward` (or of the `__call__` that a module
class of the run defines in its place, which calling an instance runs, unless it hands on to
`forward`: `return super().__call__(x)`) and a
parameter annotated `Tensor` or `nn.Module` may be on a device (an annotation is a hint,
which the calls in the file override; `*deltas: Tensor` annotates each item, `for delta in
deltas`, `deltas[0]`), and so may one whose place the function follows
when it makes or converts other tensors (`torch.zeros(L, S, device=query.device)`,
`phi.new_empty(n, 3, 3)`, `torch.zeros_like(x)`, `w.type_as(x)`, `w.type(x.type())`: the
code itself says it may be anywhere, as a library's entry point is); a parameter merely
used as a tensor is not known to be. The tensors an autograd `Function`'s `backward` reads
from its context (`M, r = ctx.saved_tensors`, of a class deriving from
`torch.autograd.Function`) are where the function's inputs were, and may be on a device
when `backward` makes tensors where one of them is (`torch.eye(n, device=M.device)`); the
fix then names that tensor's device (`device=M.device`), never the context's. So is a tensor of unknown place (`mat = self.mat` of
an object that was given it, `dist` returned by another file's function) whose place the
function follows the same way (`mat.new_zeros(n)`, or the partner is such a tensor:
`torch.ones_like(dist) - torch.eye(n)`). An attribute of an object of a plain class of the
run built in the file (`c = Cores(data, device)`; `c.data @ torch.eye(n)`) is what the
class's `__init__` stores there, with the construction's arguments bound (`self.data =
data.to(device)`, `self.kept = data`), and what its other methods store (a list they fill
with `append` or `self.slots[k] = t` included); an argument of unknown kind leaves it
unknown. In the class's own methods, `self.states` that only `__init__` (its own or a base's)
stores from its parameters (`self.states = states`) is what every construction of the class
in the run gives it (`Memory(states=states.cuda())`, in the class's file or a file that
imports it), when all of them are known (none where the class is named other than in a
construction or built in a function whose text neither makes nor moves a tensor). A parameter whose own uses do not tell its kind (`len(lengths)`, `zip(ilens, olens)`)
may be on a device when a call of the file gives it a tensor that may be, or a value it
moved there (followed through the callers' parameters, a static method called on `self`
included), unless it is
annotated as a number (`fps: float | None`). A value moved to `x.device` of a parameter `x`
that its function calls a tensor's method on (`mask.to(x.device)` with `x.max()`) is where
`x` is; moved to `opts.device` of any other value, on a device the code chose.

A random factory (`torch.rand`, `randn`, `randint`, `randperm`, and their `_like` forms)
without `device=` given a `generator=` on an accelerator is flagged too: a generator must be
on the device the factory builds on, so it fails as it is built ("Expected a 'cpu' device
type for generator but found 'cuda'"), whatever its size (a 0-dimensional draw,
`torch.rand((), generator=g).item()`, included). The generator is on an accelerator where
the code builds it there: `torch.Generator(device="cuda")`, `torch.Generator(dev)` of a device
the code puts on an accelerator when there is one, in the argument itself or through a name
its function (or the module's own statements) binds once; that is a sure finding, and the
fix passes `device=g.device`. A parameter annotated `torch.Generator` (or `torch.Generator |
None`), with no default but None, that no call of the run gives a value is a hint (its
callers may build a CUDA one; a default `torch.Generator()` says the author expects the CPU's):
reported where the rule is selected by name, without a fix (it may be None). Quiet where the
file sets a default device.

Not meetings: indexing a tensor with the factory's result (a tensor on the device takes
indices on the CPU), the input of a data-parallel wrapper (`nn.DataParallel(net.to(device))`,
`DistributedDataParallel`: its forward scatters its inputs to its devices), the input of a
module every make of which is a class of the file whose `forward` moves it where the module
is before any layer sees it (`x = x.to(self.device)`, or `b(x.to(self.device))` for each
block of a `ModuleList`), a partner moved to the factory's result's own device
(`torch.cat([first, second.to(first.device)])`), a copy across devices (`copy_`, `to`,
`type`, `type_as`), the size, dimension and count arguments of a tensor method or a torch
function (`r.expand(b, max_len)`, `x.view(n, -1)`, `torch.topk(t, k)`, `F.one_hot(t,
num_classes=n)`: a 0-dimensional tensor given there is read as its number), the calls that
take some tensors on the CPU by design (the lengths of `pack_padded_sequence`, the targets
and lengths of `ctc_loss` / `nn.CTCLoss`, and the arguments a module of the checked files
hands to them, or moves to the CPU, at every use in its `forward`: of a module the file
builds, or of a model handed to a function, `predict(model, text)`, whose calls in the file
all pass such a module), and a module's `__init__` and the methods only it
calls (everything is on the CPU there), the arguments of a submodule taken from a module
list by a loop (what built it, so what it does with them, is not known), and the input of a
value stored on `self` that only
came in as a parameter of another method (`self.schedule_fn = schedule` in `__init__`: a
callable, which no construction, load or move shows to be a model with weights; nor do
the arguments such a callable is given meet: a wrapped loss may move its labels to the
embeddings' device; but where every construction of a plain class in the run gives it a
module with weights moved to a device, `HGN(transformer=nn.Linear(4, 3).to(device))` or a
module of a class outside the files moved there, and no other method stores it,
`self.transformer(z)` is a meeting). A partner that may itself hold the factory's result, or was made like
it (`torch.polar(torch.ones_like(freqs), freqs)`, `torch.cat([emb_h, emb_w])` of two
results of a function that makes positions with `torch.arange(pos)` when given a count and
takes them as given otherwise), is on another path than the one that made the result on
the CPU, which the analysis joins: on each path both are in one place. Neither
are empty placeholders (`torch.empty(0)`, replaced before use). 0-dimensional results
(`torch.zeros(())`, `torch.tensor(<scalar>)`, an item of a vector factory, of a factory
given one size that is a number (`torch.zeros(total)[k]`, also after `torch.sort`) or a shape
written out with one size (`torch.ones([len(tasks)])[i]`, `pos_weight=w[i]`) or of a
list of numbers written out (`for n, o in zip(sizes, torch.as_tensor([0, *sizes[:-1]]))`), a full
reduction such as `torch.ones(n).sum()` or `torch.min(t)`) mix with any device and are not
flagged, except where they are written in place: `total = torch.tensor(0.0)` then `total += loss` (or `total.add_(loss)`)
with `loss` on the device fails, since the tensor written keeps its place and takes no
operand from another device; and except as a bound of a clamp whose every bound is a
tensor (`torch.clamp(x, min=lo)`, `torch.clamp(x, lo, hi)`, `x.clamp_min(lo)`,
`x.clip(min=lo)`): that is the clamp's Tensor overload, which in torch 2.13.0 checks every
tensor argument's device with no allowance for a 0-dimensional CPU one (a bound written as
a number, `torch.clamp(x, lo, 1.0)`, picks the Scalar overload, which reads `lo` as its
number). A partner made on the device of the value that holds the
factory's result (`pos = torch.arange(pos)` then `torch.arange(d, device=pos.device)`) is
where that value is: not a meeting of two devices. Nor is a factory made, or its result
met, in the arm of a fixed device test where nothing of the file goes to a device: every
move, device, default tensor type and load of the file is in the other arm of a test of the
same text (`if torch.cuda.is_available(): model.cuda()` and `else: eps =
torch.FloatTensor(n)`, `if args.cuda:` / `if not args.cuda:`, `self.use_gpu` that only
`__init__` sets, `a if use_gpu else b`), so the two never exist on one run.

The finding's evidence names where the tensor is built and where it meets the other one.
Its message says how sure the analysis is that the other one is on the accelerator: "which
the code puts on the accelerator when there is one" where the run's own code puts it there
(moved or made there, `x.to(device)`, `.cuda()`; a model after `model = Net().to(device)`,
so its submodules' outputs in its methods; a value computed from them; a `*_like` copy of
one made in the same function, `torch.ones_like(mask)` of `mask = m.float().to(device)`,
which is on that tensor's device; the argument a call
of the run gives a parameter, followed through the callers' parameters), "which is a tensor
of the module and goes wherever the module is moved" where it is a parameter or buffer of
the module whose method (not `__init__`) meets it, or a result of that tensor alone
(`self.decay.view(-1, 1) ** torch.arange(n)`, `self.register_buffer("scale", ...)`, the
`weight` a `torch.nn` base layer such as `nn.Conv2d` registers), met as an operand, not as
an index, nor with a reduction of the factory's result given no dimension or arithmetic of
such reductions (`weight = lengths.sum()`, 0-dimensional: it mixes with any device): the
meeting fails on every run that puts the module on an accelerator, whoever
moves it; "which is a layer of the module whose weights go wherever the module is moved"
where the factory's result is an input of `self.<attr>` in such a method, the attribute a
`torch.nn` layer that always registers weights (`nn.Linear`, `nn.Conv2d`, `nn.Embedding`,
`nn.LSTM`, `nn.GRUCell`, `nn.PReLU`, ...) stored as built by every method of the class that
assigns it (`h0 = torch.zeros(...)` handed to `self.lstm(x, (h0, c0))`,
`self.pos(torch.arange(n))`): its weights are the module's parameters, so that meeting fails
the same way; not in a method that only `__init__` calls (the module is still on the CPU
there), nor where the run builds the class itself and moves none of its instances (`net =
Net()` of a script that never moves it: it runs on the CPU), nor for a layer whose weights may be None (`nn.LayerNorm`, `nn.BatchNorm2d`), one
held in a plain list (`self.layers[0]`: `.to()` does not reach it) or one built moved
(`nn.Linear(n, n).cuda()`); "which is where the parameters the optimizer updates are" in a method of a
subclass of `torch.optim.Optimizer` (in the run or not, by its bases' qualified names) where
it is one of the parameters of `self.param_groups` (`for group in self.param_groups: for p
in group["params"]:`), `p.grad`, `p.data`, or a result of those alone, met the same way:
the optimizer is built from the model's parameters, so they and their gradients are
wherever the model is, and the meeting fails on every run that trains the model on an
accelerator. The per-parameter state (`state = self.state[p]`) holds what any method of the
class writes there (`state["exp_avg_sq_row"] = torch.zeros(grad.shape[:-1])` in `step()`
or in a `reset()`, read by `step()` as `state["exp_avg_sq_row"].mul_(b).add_(grad.mean(dim=-1))`);
a 0-dimensional step counter (`state["step"] = torch.tensor(0.0)`) mixes with any device and is
never reported. "which may be on an accelerator" where only a hint does (an input of a module's
`forward`, `self` of a module that no code of the run moves, its submodules' outputs, a
parameter annotated as a tensor, another `self.<attr>`, a tensor whose place the function
follows). No such hint is given in a program that never asks for an accelerator: no file
of the run mentions a device, a move, a load or a library that places tensors (the words
`device`, `cuda`, `gpu`, `.to(`, `load(`, `trainer`, `parallel`, ... in its bytes), every
import is of the standard library, of torch, of the run, or of a package that does not
depend on torch (`numpy`, `pandas`, `scipy`, `sklearn`, ...), and a file is a script
(`if __name__ == "__main__":`) or a notebook: there every tensor is on the CPU. A
run of definitions only (a library, whose users may move what it builds), one checked
through the API without its files, or one with any such mention keeps its hints.
A factory met both ways is reported with its surest meeting, but for one met at
once, in the expression that builds it, by a tensor that may be on the accelerator
(`torch.arange(n).view(-1, 1, 1) * ones`, never bound to a name alone): that meeting is the
only one paired with it, as every later value is computed with that tensor and is on its
device on every run that gets past it (the product meeting `self.weight` in another method
is no fault of the factory's, and that module tensor is not named). Which are reported
depends on how the run selects the rule (the rule module's `REPORTED`): where a selector
names it (`--select FRY010`, `--select ALL`, `extend-select = ["FRY010"]`), every one;
where only the default rule set runs it, the sure ones and those meeting a tensor of the
module or a parameter an optimizer updates (and, as every default rule's, none in an arm of a function that no call of the run
takes).

The meeting may be in another file of the run: one that imports the factory's file,
directly or not (`h = self.policy.hidden; h + x.to(device)` in agent.py, the hidden state
made by `Policy.init_hidden` in policy.py; `scores * causal_mask(n)` in train.py of a
helper of utils.py that returns `torch.ones(n, n).tril()`; `self.rnn(x, init_hidden(b))`).
The finding is then at the factory, in its own file, where the fix goes, and the evidence
names the meeting's file and line. Those files are read only when at most eight files of
the run import the factory's file: they are then part of its cache key (an edit of
agent.py checks policy.py again), each is interpreted whole on a budget of its own, and
the first meeting in the order of their paths is the one named, so the findings do not
depend on `--jobs` or on the order the files are checked in. A file checked alone
(`ferry check policy.py`, the language server, which checks one file at a time) has no
such meetings.

The meeting may also be in a function of the run the tensor is handed to, where it is a
parameter: `table = torch.zeros(n, 3)`, then `gather_rows(table, idx)` of a function that
returns `table[idx]` (also a method, a function of another file, `apply_mask(scores,
make_mask(n))` in train.py of a helper of utils.py, or one defined inside the calling
function). The function's meetings of a parameter as it came in (written as its name, which
the function never binds again, `x = x.to(dev)`, nor follows to its place, `y.to(x.device)`
-- a copy made where it is, `torch.ones_like(x)` or `x.new_zeros(n)`, is on its device and
follows nothing, so it does not count --; not an item of it, `labels[i]`, which is 0-dimensional) are paired with each call's
argument, and the partner must be on the device at that same call: an argument of that call
that the caller has there (the code's own evidence, never an annotation; not a tensor the
function makes with `device=x.device` of another parameter, which is where `x` is). A helper called with tensors on the CPU in one place and on
the device in another is judged per call. The evidence names the call and the function's
meeting.

## Why is this bad
The factory builds its tensor on the CPU, whatever device the inputs are on. The function
works in CPU tests and fails on the first GPU run with "Expected all tensors to be on the
same device" -- the lessons' "freshly created tensor inside the loop" that "missed the
ferry": masks, position indices, RNN initial states.

## Example
```python
class Tagger(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1])
        x = self.embed(tokens) + self.embed(positions)
        h0 = torch.zeros(1, tokens.size(0), x.size(-1))
        return self.rnn(x, h0)
```

## Use instead
```python
class Tagger(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.embed(positions)
        h0 = torch.zeros(1, tokens.size(0), x.size(-1), device=tokens.device)
        return self.rnn(x, h0)
```

## Fix safety
Unsafe: the fix adds `device=<input>.device`, naming the tensor the factory's result meets
when that is a plain name already bound where the factory is called (never one bound
later in the function; also the name an item, a method's result or a `*_like` copy of it
is taken from: `mat[inds]`, `mat.reshape(n, n)`, `torch.ones_like(dist)`) and the
analysis knows it as a tensor there, else the function's first tensor parameter; none
where no tensor is known (a number such as `n = x.shape[1]` has no `.device`). That is
almost always the intent, but it changes where the tensor lives for every caller.

A legacy constructor gets no fix: it refuses an accelerator's `device=` ("legacy constructor
expects device type: cpu"); the message names `torch.tensor(..., dtype=..., device=...)`.

A pinned host buffer (`torch.empty(n, pin_memory=True)`) and a copy between devices
(`gpu_buf.copy_(cpu_buf, non_blocking=True)`) are deliberate and not flagged.

## Known limits
The default rule set reports only the sure meetings and those with a tensor of the module,
a layer of the module or a parameter an optimizer updates. The calls of the run do not bind the items of a
`*args` parameter, so an item of `*deltas: Tensor` is a hint whatever they pass (tensors on
the CPU included). An optimizer's parameters are known only through
`self.param_groups` read in its own methods: a helper function handed `p` and the state
(`_update(p, grad, state)`), or an `_init_group(group, params, ...)` given the group, sees
them only as unsure parameters; the state of more than eight keys is not followed.
A tensor of the module is graded so only where the meeting is in the method's own scope (a
meeting in a callee, in another file or with a kept attribute keeps its grade), and a
module that its users keep on the CPU on purpose has such meetings reported all the same.
A layer of the module is graded so only when it is a `torch.nn` layer written out in the
class: a module class of the run, a container (`nn.Sequential`) or a layer of another
package stored on `self` keeps its input's meeting a hint.
"Sure" is about the other tensor's place, not about the path: a factory in an arm where the other value is `None` (`style_ =
... if style is not None else style`), a placeholder that a flag makes the class replace
before its first use (`self.pred_cov_fac_need_update = True`), a CPU tensor a module call
takes as a size, or lengths a model moves to the CPU itself are still reported. A move to
another value's device whose place the analysis does not know (`.to(x1.device)` of a
parameter used as nothing else, `.to(other)` of a value of unknown kind) counts as a move
to a device the code chose, so a meeting with its result is graded sure. A `.to(...)` with a
string among its positional arguments after the first (`data.to(device, "x", "y")`, PyG's
`Data.to` moving only the named attributes) is no move: torch's `to` refuses a string there
(TypeError), so the object is another library's and what it holds has no known place. A
device parameter of default `None` that a call leaves to it, passes `None` or hands on such a
parameter of its own that its call leaves `None` (`def load(card, device=None): return
create(card, device=device)`, called `load(card)`) moves nothing there: `m.to(device=None)`
keeps `m` where it is. The arguments of a
module whose code the analysis cannot read (neither a `torch.nn` layer or loss nor a class of
the run that built it: a model handed in by another file, `loss = model(inputs, feats)` in a
training function whose `model` a script of its own builds) are taken to meet each other, but
never surely: its `forward` may use one as an index into another (a CPU index reads a tensor on
any device) or keep it on the CPU, so the default set does not report such a meeting.
For a module every class of which is of the run, an argument after the first counts only
where a class's `forward` hands it to the module's weights or brings it together with another
of its inputs: `model(x, torch.linspace(0, 1, n))` whose `forward` only passes the time grid
on to a solver of another file (which may move it to `x`'s device itself) is not reported, and
neither is a real mismatch that such a solver hides from the analysis. A `forward` with
`*args` or `**kwargs`, forwards that name their inputs differently, and a call the analysis
cannot bind to classes of the run (`super().forward(x, t_span)`) keep every argument.
An attribute that a plain class's `__init__` keeps from a constructor's parameter
(`self.scale = scale`) is, in the class's other methods, what every construction of the run
gives it (`Vmf(loc, torch.ones(n, 1, device=device))`), for a class whose bases are of the run
or `torch.distributions.Distribution`; a class named other than in a construction (a
decorator's argument, `register_kl(Vmf, Other)`; a list of classes) or built nowhere in the
run keeps it unknown, and so do files that more than four files of the run import.
A helper method's result computed by arithmetic from a tensor and a value of unknown kind
and place (`self.preemphasize(wav, hp.preemphasis)` returning `wav[:, 1:] - coeff * wav[:,
:-1]`) is where the tensor is, as that arithmetic written in the caller would be; one that
returns the unknown value on some path, or is a torch function's result
(`torch.cat([wav, coeff * wav])`, already a tensor in the helper's summary), keeps the
summary's places, and an argument of unknown place there makes them unknown. A window
kept as a value is followed where the file binds it on one line (`self.win =
torch.hann_window`); `torch.signal.windows.hann(n)` is not known as a factory.
Every factory whose result the met value holds is reported (`gamma ** (n - m)` of `n` and
`m`, each from `torch.arange`; the two arms' `torch.linspace` of `t_span = ...`), each
with the meeting that blames it; a factory whose result the partner may itself hold is
not. A module injected into a plain class is followed only through
the constructions of the run when no other method stores the attribute: a `load` method
that rebinds it (`self.transformer = torch.load(path, map_location=self.device)`) hides it.
An entry of an `nn.ModuleDict` is read by attribute only when every construction of the
container writes its keys out (`dict(wpe=...)`, `{"wpe": ...}`): one built from a
comprehension, a variable or with `update()` leaves `self.blocks.wpe` unknown.
A meeting is sure only through what the analysis places itself: an input of a library's
`forward`, or a model moved by a framework (a Lightning `training_step`'s batch), is never
sure, however certain its author is that it runs on the accelerator (the batch of a
`LightningModule`'s `training_step`, `validation_step`, `test_step` and `predict_step` is
where the module is, which may be an accelerator; a batch of a loader that accelerate's
`accelerator.prepare(...)` hands back, of an `Accelerator()` built in the file without
`cpu=`, `device_placement=` or `**kwargs`, is where the accelerator runs, which may be an
accelerator; no other framework's hooks are known: a batch that a Hugging Face `Trainer`
hands on has an unknown place, and a class that derives from Lightning's only through a base the run cannot
resolve is not known to be one); nor is `self.<attr>`
of a class whose attribute table does not know its place, nor a move under a test that is
false on a GPU run (`x.cuda()` under `if args.cuda:` counts as sure).  `self` of a module's
method is surely on the accelerator only by a move that can have happened before the
meeting (not `self.to(device)` after `self.forward(x)` in the same method); a module so
moved only later is still a module, which may be on the accelerator.

A factory whose tensor meets a module on the device (`h0 = torch.zeros(...)` handed to
`self.lstm(x, (h0, c0))` of a module the run moves) is reported here, with the fix at the
factory, and by FRY014 (of the default set) at the call where the tensor meets the module;
each finding's evidence names the other's line.
A result stored on `self` is followed only through the class's attribute table (joined over
its methods). A result handed to a function is followed one call deep, to that function's
operators, torch calls, tensor methods and indexing: not to a submodule it gives it to, nor
on to a function it calls in turn. A factory in a script's own statements at module level is not checked in a file that sets
a default device or tensor type (`torch.set_default_device(device)`), and is paired only where its file
meets its result (in the script's statements, or in a function that reads it as a global),
never through the parameter of a function it is handed to, nor in another file; in the
script's statements the arguments of a model meet each other only for a `torch.nn` layer or
loss (`criterion(output, label)`), not for a model of another class, which may keep some
on the CPU by design (`encoder(mel, lengths)`); in a function they do. A result that meets tensors in another file is reported only where that file
imports the factory's file and no more than eight files do, or, for a factory of a method of a
plain class, where a file those importers import calls one of the class's methods (an instance
handed on: `policy.train(buffer)` in main.py, `buffer.sample(n)` in the `train` of agent.py,
which does not import the buffer's file); not where it meets them in a file the factory's file
imports (a callback it is handed). Calls of a module's method
from other files do not count as its parameters' call sites, nor do those of a plain
class's method where another file names an attribute of the method's name other than in a
call on an instance the analysis resolves, nor those of a function
when more than eight checked files import its file or one of them names it other than in
a call; a function passed around as a value in its own file (a callback) may be called
with anything: its calls there are taken as all of them.
A free function whose tensor parameters no call of the run places (a library's public
helper) is not checked unless it follows their place as above, nor is a parameter used
only as `x.shape` (NumPy arrays look the same). Such a followed parameter also counts as an
index (`torch.arange(n)[lvl_idx]` of `lvl_idx = lvl == points[:, 2]` in a function that makes
`points.new_zeros(n)`) where the code shows the index has a dimension (a slice, a comparison
or an elementwise function of one): a 0-dimensional index reads as its number. A tensor that a class other than a module builds in its `__init__` (or in a function
that only such constructors call: `self.betas = betas_for_alpha_bar(n)`) and keeps on
`self` is checked only where another method gives it, as it is, to a module the code moved
to a device (`self.model(obs, self.memories)` after `self.model.to(device)`), or indexes it
with an index on the device (`self.alphas_cumprod[t]` of `t` drawn on the device by the
callers of the method: a CPU tensor indexed by a device index fails whatever its size), or
where another method of the same class reads it as written (`self.support`, not an item of
it) in arithmetic or a call with a tensor the run's own code puts on the device (`self.net(x)
* self.support` after `self.net = Net().to(device)`, `torch.matmul(r.to(d), self.scaling)`)
and the file binds that attribute nowhere else (no later move, no other value): a
scheduler's `betas` is read in the other methods through the attribute table joined over
them, mostly as 0-dimensional items that mix as scalars or moved there first; a partner
that may only be on the device (a parameter without calls of the run) is not enough
there, nor is a method whose text names no device operation and calls no function that
does (the analysis does not walk it). Other
0-dimensional results (`x.sum(dim)` of a 1-D tensor, an item `x[t]` of a vector computed
from a factory's, `i = row[0]` of `for row in t.nonzero()`, which indexes as its number) are
not told apart. A legacy constructor given a tensor (which
`torch.Tensor(t)` returns where it is) or `device=` (which it refuses off the CPU) is not
checked, nor is one given data of unknown kind (`torch.Tensor(flags[rows].A)`: it
returns a tensor given where it is). The class of a value, `type(e)(...)`, is taken for
`torch.Tensor` only where `e` is a tensor by the analysis or the call is given `e.size()`
alone (`type(batch)(3, 4)` of a parameter of unknown kind, `type(batch)(v for v in batch)`
rebuilding a container, is not checked); `t.new(...)` and `t.new_tensor(...)` follow `t`'s
device and are not factories. A method of a model is a meeting only where the model
was moved (`model.to(device)`), or is `self` in the module's own methods (not in one
only constructors call, nor where the run builds the model and never moves it); a model of
unknown class built elsewhere and not moved here is not followed, nor is a method of
`self` whose only version in the checked files is abstract (`raise NotImplementedError`,
overridden in a subclass of another file). A parameter that the function binds again
anywhere (`x = torch.index_select(x, i, idx)` in a loop) is not paired with its callers'
arguments, even where the new value stays where the parameter was. Device tests are paired by their text only: a move under `if args.cuda:`
and a factory that the default tensor type set under `if args.cuda and
torch.cuda.is_available():` puts on the GPU are not related. A value stored on `self` by a method that computed it from its own
parameter is of unknown place in the other methods, even when it was also on the device
there.
A list is followed item by item only where the function binds it once, to a list written
out, and uses it otherwise only in `append` statements and the join (not `extend`, `+=`,
`insert`, a list handed to another call, one built by a comprehension); two appends in
loops or branches are not paired. A write through tensor indices is checked for the value
written (a factory's result into a tensor that may be on the device), not for a table on
the CPU given a value on the device (whose rank decides). The data of `torch.tensor(data)` has
a known rank only in the forms above: `torch.tensor(self.state[ind])` of an array that
another method may replace by a value of unknown kind (`self.state = dataset["obs"]`) is
not checked, whatever the index. A factory's result joined with a
value that another path moved (`f = fast(x) if n > 1 else torch.zeros(n)`) is checked only
where each such move is known to have acted on other tensors: its receiver, as the scope
that moved it saw it, is of known place, its origins are all makes and moves of this file
(a parameter only in the factory's own function, when it does not call itself) and fewer
than the analysis keeps (eight), and the factory's function combines no operand holding the
factory's result with one holding the move (`mask.to(d) * torch.rand(n)` lives where the
mask does on that path). Where a function of another file returns the factory's result on
one path and a tensor computed from its argument on another (`return torch.tensor([[1]])`
under a condition, `return torch.argmax(logits)` otherwise), a move of the caller's joined
into the caller's value counts as acting on other tensors only where the tensor it moved
was made or moved by the caller's file alone (of known place, fewer than eight origins) and
the returning function combines the factory's result with no other operand in an operator
or a call.
A factory met at once by a tensor that may be on the accelerator is graded by that meeting
alone: where that tensor's place is only a hint (`ones = episodes.mask.unsqueeze(2)` of a
parameter whose callers are in files the run does not follow), the default set does not
report it, however sure a later meeting of the product is.
A loss's `weight=` / `pos_weight=` is paired with the loss's calls only where one function,
or a script's own statements, build the loss from a `torch.nn` class written out and call
it: a loss stored on `self`, built in a script's statements and called in a function, made
from a class held as a value (`self.lossfunction(weight=w)`), or read other than in a call
keeps that tensor unpaired. The classes are those of torch 2.13.0's
`torch/nn/modules/loss.py` (`NLLLoss`, `CrossEntropyLoss`, `BCELoss`, `BCEWithLogitsLoss`,
`MultiLabelSoftMarginLoss`, `MultiMarginLoss`).
"""
from __future__ import annotations

import ast
import enum
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Literal

import torchferry.check.flow.optimizers as optimizers
from torchferry._internal import vocabulary
from torchferry.check.api import Context, Evidence, Finding, Fix, Selected
from torchferry.check.flow import (
    ACCEL,
    CPU,
    Callee,
    CallEvent,
    Kind,
    Op,
    Origin,
    ScopeResult,
    Value,
    Where,
    libfacts,
    vocab,
)
from torchferry.check.flow.accelerated import run_may_accelerate
from torchferry.check.flow.arms import off_device_arm
from torchferry.check.flow.clamps import tensor_bounds
from torchferry.check.flow.converted import bound_arguments, param_names
from torchferry.check.flow.evidence import at, step
from torchferry.check.flow.generators import GeneratorPlace, generator_place
from torchferry.check.flow.lattice import in_order, number_value, param, zero_dim_made
from torchferry.check.flow.loss_weights import weight_arguments
from torchferry.check.flow.meetings import index_meetings
from torchferry.check.flow.order import Point
from torchferry.check.flow.program import ClassInfo, FileFlow, builds_weights, holds_parameters
from torchferry.check.flow.queries import data_parallel, moved_apart
from torchferry.check.flow.resolve import tensor_class
from torchferry.check.flow.returned import moved_away_from
from torchferry.check.flow.stores import JOINING, held_together, index_writes
from torchferry.check.flow.treeindex import tree_index
from torchferry.check.flow.weighed import forward_moves, unmet_inputs, weighed_params
from torchferry.check.names import kwarg, self_attr, short
from torchferry.check.rules.fry013_partial_batch_move import _not_wanted_on_the_cpu

CODE = "FRY010"
NAME = "factory-without-device"
FIX = "unsafe"

_FACTORIES = vocabulary.SHAPE_FACTORIES | {"tensor", "as_tensor"}
# the legacy typed constructors (``torch.FloatTensor``, ``torch.Tensor``): on the CPU whatever
# the default device ("legacy constructor expects device type: cpu"); ``torch.cuda.*`` are not
_LEGACY = vocabulary.LEGACY_CONSTRUCTORS | {"Tensor"}
# arithmetic in place: the receiver is written ("t.add_(x)")
_IN_PLACE = frozenset("add_ sub_ mul_ div_ true_divide_ addcmul_ addcdiv_ lerp_ pow_".split())
# origins that may put a value on a device (a parameter's is judged by its place)
_PLACING = frozenset({Op.MADE, Op.MOVED, Op.OUTPUT, Op.BATCH, Op.LOADED, Op.RETURNED})
_CROSS_DEVICE_METHODS = frozenset({"copy_", "to", "type", "type_as", "new_tensor", "set_"})
_NOT_MEETINGS = frozenset({"tensor", "as_tensor", "device", "load", "save"})
#: torch functions that read only their tensors' shapes: their views keep each one's device
_SHAPES_ONLY = frozenset({"torch.broadcast_tensors"})
#: factories whose first argument is the size (``torch.rand(())``: 0-dimensional)
_SIZE_FIRST = frozenset({"zeros", "ones", "empty", "rand", "randn"})


class Certainty(enum.IntEnum):
    """How the analysis knows that the tensor the factory's result meets is on the
    accelerator (ordered: a finding keeps the surest meeting it has)."""

    #: it may be there: an input of a module's ``forward`` or a parameter annotated as a
    #: tensor without calls of the run that place it, ``self.<attr>``, a tensor whose place
    #: the function follows (``x.new_zeros(n)``)
    MAY = 1
    #: it is a parameter or buffer of the module whose method meets it (``self.decay`` of
    #: ``nn.Parameter``, a view of it): wherever the module is moved it goes too, so the
    #: meeting fails on every run that puts the module on an accelerator, even where no
    #: code of the run moves it (its user does)
    OWN_TENSOR = 2
    #: the run's own code puts it there whenever the program runs on one: moved or made
    #: there (``.to(device)``, ``.cuda()``, a model after ``model.to(device)``, a value
    #: computed from such a tensor), also as the argument a call of the run gives a
    #: parameter (followed through the callers' parameters)
    SURE = 3


#: the findings reported, by how the run selects the rule: those at least this certain
#: (``Certainty.SURE``: only where the run's code establishes the partner's place)
REPORTED: dict[Selected, Certainty] = {
    Selected.BY_DEFAULT: Certainty.OWN_TENSOR,
    Selected.NAMED: Certainty.MAY,
}


@dataclass(frozen=True)
class Meeting:
    """Values that meet: an operator's operands, a call's tensors, a module and its input."""

    node: ast.AST
    operands: tuple[tuple[ast.AST, Value], ...]
    module: ast.AST | None = None  # a module with weights that may be on the device
    #: only the first operand can be the CPU tensor at fault (an indexed tensor: a tensor on
    #: the device may be indexed by one on the CPU, not the other way round)
    first_only: bool = False
    #: the first operand is written in place (``t += x``, ``t.add_(x)``): a tensor on the CPU
    #: there takes no operand on another device, not even when it is 0-dimensional
    written: bool = False
    #: the first operand is written through tensor indices into the second (``t[idx] =
    #: v``): only a tensor of at least one dimension must be on ``t``'s device
    stored: bool = False
    #: the operands are items a list holds together where a torch function joins it
    held: bool = False
    #: the operands are arguments of a module whose code the analysis cannot read (neither
    #: a ``torch.nn`` layer nor a class of the run): they meet only if its ``forward`` makes
    #: them meet, which may use one as an index, a length or a number
    presumed: bool = False
    #: the call takes every operand on one device, a 0-dimensional one included: a clamp
    #: given tensor bounds (:func:`~torchferry.check.flow.clamps.tensor_bounds`)
    whole: bool = False


#: id(a factory's call) -> the scope that makes it and the call
Pool = dict[int, tuple[ScopeResult, CallEvent]]
#: id(a factory's call) -> its scope, the call, the meeting, the partner met, the meeting's scope
Found = dict[int, tuple[ScopeResult, CallEvent, Meeting, ast.AST, ScopeResult]]


@dataclass(frozen=True)
class Pools:
    """The factories of a file, by where their result is at fault when it meets a tensor
    that may be on the device."""

    #: made outside an object's ``__init__``, in a function (or a script's statements)
    factories: Pool
    #: those and the 0-dimensional ones, at fault only where they are written in place
    written: Pool
    #: kept on ``self`` by an object's ``__init__``: at fault only as a moved module's input
    kept: Pool
    #: made by an object's ``__init__`` and indexed by a method (``self.alphas_bar[t]``):
    #: an index on the device fails on a table on the CPU whatever its size
    indexed: Pool
    #: ``torch.tensor(arr)`` of a NumPy array of unknown rank, indexed by a tensor
    arrays: Pool
    #: held in a list joined by a torch function: ``torch.tensor([np.inf] * b)`` too
    repeated: Pool


def check(ctx: Context) -> Iterable[Finding]:
    ff: FileFlow = ctx.flow
    results = list(ff.results())
    pools = _pools(ctx, results)
    if not pools.written and not pools.kept and not pools.arrays and not pools.repeated:
        yield from _drawn_from_accelerators(ctx, results, set())
        return
    found: Found = {}
    levels: dict[int, Certainty] = {}  # (how sure each factory's meeting is)
    met = _pair_in_file(ff, results, pools, found, levels)
    _kept_module_inputs(ff, results, pools.kept, found, levels)
    _kept_attributes_met(ff, results, met, pools.kept, found, levels)
    away, passed = _pair_in_other_files(ff, pools, found, levels)
    least = _least(ctx)
    for home, call, meet, partner, res in sorted(found.values(), key=lambda x: _pos(x[1].node)):
        level = levels[id(call.node)]
        if level < least:
            continue
        other = away.get(id(call.node))
        hop = passed.get(id(call.node))
        if hop is not None and found[id(call.node)][2] is hop[2]:
            yield _finding(ctx, home, call, meet, partner, res, hop[6], hop[5], level)
        else:
            there = None if other is None or found[id(call.node)][2] is not other[2] else other[5]
            yield _finding(ctx, home, call, meet, partner, res, there, level=level)
    yield from _drawn_from_accelerators(ctx, results, {k for k, v in found.items() if levels[k] >= least})


def _least(ctx: Context) -> Certainty:
    """The least certainty reported (:data:`REPORTED`); in a run that puts no tensor on an
    accelerator (:func:`~torchferry.check.flow.accelerated.run_may_accelerate`), a partner
    that only may be there (:attr:`Certainty.MAY`) is on the CPU too: no hint."""
    least = REPORTED[ctx.selected(CODE)]
    if least is Certainty.MAY and not run_may_accelerate(ctx.project):
        return Certainty.OWN_TENSOR
    return least


def _drawn_from_accelerators(ctx: Context, results: list[ScopeResult], reported: set[int]) -> Iterable[Finding]:
    """A random factory without ``device=`` given a ``generator=`` on an accelerator
    (:func:`~torchferry.check.flow.generators.generator_place`): it fails as it is built,
    whatever its size; not where the file sets a default device, nor twice."""
    if _sets_a_default_device(results):
        return
    least = _least(ctx)
    for res in results:
        for c in res.calls.values():
            last = (c.qualname or "").removeprefix("torch.")
            if c.qualname != f"torch.{last}" or last not in vocabulary.RANDOM_FACTORIES \
                    or id(c.node) in reported or kwarg(c.node, "device") is not None:
                continue
            place = generator_place(ctx.flow, c.node)
            level = Certainty.SURE if place is GeneratorPlace.SURE else Certainty.MAY if place else None
            if level is not None and level >= least:
                reported.add(id(c.node))
                yield _generator_finding(ctx, c, level)


def _generator_finding(ctx: Context, call: CallEvent, level: Certainty) -> Finding:
    gen = kwarg(call.node, "generator")
    assert gen is not None
    text = short(ctx.text(gen))
    named = isinstance(gen, (ast.Name, ast.Attribute))
    fix = None
    # (a parameter may be None: ``generator: torch.Generator | None = None``)
    edit = ctx.add_keyword(call.node, f"device={text}.device") if named and level is Certainty.SURE else None
    if edit is not None:
        fix = Fix((edit,), False, f"Pass `device={text}.device`")
    where = {Certainty.SURE: "is built on an accelerator when there is one",
             Certainty.MAY: "may be on an accelerator (its annotation says a `torch.Generator`, "
                            "which its callers may build there)"}[level]
    f = ctx.finding(
        CODE, call.node,
        f"`{call.qualname}(...)` without `device=` is built on the CPU but draws from the "
        f"generator `{text}`, which {where}; a generator must be on the factory's device: "
        f"`device={text if named else '<generator>'}.device`",
        fix,
    )
    made = Origin(Op.MADE, call.node.lineno, call.node.col_offset, "", node=call.node)
    return replace(f, evidence=(step(ctx, made, f"`{call.qualname}(...)` builds the tensor on the CPU here"),
                                at(ctx, gen, f"it draws from `{text}` here")))


def _pools(ctx: Context, results: list[ScopeResult]) -> Pools:
    """The factories of the file's scopes, each in the pools where it may be at fault."""
    ff: FileFlow = ctx.flow
    init = [r for r in results if _object_init(ff, r) or _called_by_inits(ff, r)]
    built = {id(r) for r in init}
    script = not _sets_a_default_device(results)  # (``torch.set_default_device(d)``: made there)
    scopes = [r for r in results if (_in_function(r) or script and isinstance(r.node, ast.Module))
              and not _module_init(ff, r) and id(r) not in built]
    raised = _unsqueezed(ctx)
    factories = {id(c.node): (r, c) for r in scopes for c in r.calls.values()
                 if _candidate(c) or _data_tensor(c) and (id(c.node) in raised or _sequence_data(c)
                                                          or _array_data(c) or _shaped_data(c))}
    written = factories | {id(c.node): (r, c) for r in scopes for c in r.calls.values()
                           if _scalar_candidate(c)}
    kept = {id(c.node): (r, c) for r in init for c in r.calls.values() if _candidate(c)
            or _data_tensor(c) and (_sequence_data(c) or _array_data(c) or _shaped_data(c))}
    indexed = {id(c.node): (r, c) for r in init for c in r.calls.values() if _candidate(c)}
    arrays = {id(c.node): (r, c) for r in scopes for c in r.calls.values()
              if _numpy_data(c) and id(c.node) not in factories}
    repeated = {id(c.node): (r, c) for r in scopes for c in r.calls.values() if _repeated_data(c)}
    return Pools(factories, written, kept, indexed, arrays, repeated)


def _pair_in_file(ff: FileFlow, results: list[ScopeResult], pools: Pools, found: Found,
                  levels: dict[int, Certainty]) -> dict[int, list[Meeting]]:
    """Pair the factories with the meetings of the file's scopes (into ``found``, their
    certainty into ``levels``); each scope's meetings, walked once."""
    tables = pools.written | pools.indexed | pools.arrays | pools.repeated
    factories, written = pools.factories, pools.written
    index_pool = factories | pools.indexed | pools.arrays if pools.indexed or pools.arrays else factories
    construction = _construction_helpers(ff, results)
    met: dict[int, list[Meeting]] = {}
    for res in results:
        if not _module_init(ff, res) and id(res.node) not in construction:
            met[id(res.node)] = list(_meetings(ff, res))
    pinned = _pinned(ff, results, met, factories)
    for res in results:
        for meet in met.get(id(res.node), ()):
            for i, (node, v) in enumerate(meet.operands):
                if i and meet.first_only:
                    break
                pool = written if meet.written and not i or meet.whole else factories if meet.stored \
                    else index_pool if meet.first_only else factories | pools.repeated if meet.held \
                    else factories
                for made in _made_all(v, pool, res.node, ff=ff, at=meet.node):
                    if pinned.get(id(made.node), meet.node) is meet.node:
                        _pair_here(ff, res, meet, node, made, (tables, pools.indexed, pools.arrays), found, levels)
    for k in pinned:
        factories.pop(k, None)  # (met nowhere else: not in the other files either)
    return met


def _pinned(ff: FileFlow, results: list[ScopeResult], met: dict[int, list[Meeting]],
            factories: Pool) -> dict[int, ast.AST]:
    """id(a factory's call) -> the node where its result is met at once by a partner that
    may be on the device (:func:`_pinning`): the only node where the factory is at fault."""
    pinned: dict[int, ast.AST] = {}
    for res in results:
        for meet in met.get(id(res.node), ()):
            for node, v in meet.operands:
                for made in v.origins:
                    if made.node is not None and id(made.node) in factories and id(made.node) not in pinned \
                            and _pinning(ff, res, meet, node, made):
                        pinned[id(made.node)] = meet.node
    return pinned


def _written_in(node: ast.AST, call: ast.AST) -> bool:
    """Is ``node`` the call ``call`` itself, or an item or a method's result of it
    (``torch.arange(n).view(-1, 1)``)?"""
    while node is not call:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return False
    return True


def _pinning(ff: FileFlow, res: ScopeResult, meet: Meeting, node: ast.AST, made: Origin) -> bool:
    """Is ``meet`` where the factory's result ``made`` is met at once, written in the
    operand ``node`` itself (``torch.arange(n).view(-1, 1) * ones``, not bound to a name
    first), by a partner that may be on the device?  No value ever holds the factory's
    result alone then: what later meetings see is computed with that partner, on its device
    on every run that gets past this meeting, so the factory is at fault only here (not
    where the product meets ``self.weight`` in another method)."""
    if meet.module is not None or meet.first_only or meet.written or meet.stored or meet.held \
            or meet.presumed:
        return False
    return made.node is not None and _written_in(node, made.node) \
        and _partner(ff, res, meet, node, made) is not None


def _pair_in_other_files(ff: FileFlow, pools: Pools, found: Found, levels: dict[int, Certainty]
                         ) -> tuple[dict[int, Away], dict[int, Passed]]:
    """Pair the factories of functions not surely at fault yet with the meetings of the
    other files of the run: where their result meets a tensor there (``away``), where a
    function it is handed to meets it (``passed``); into ``found`` where surer."""
    # (a script's own factories are paired in its own statements only)
    left = {k: f for k, f in pools.factories.items()
            if levels.get(k) is not Certainty.SURE and _in_function(f[0])}
    tables_left = {k: f for k, f in pools.arrays.items()
                   if levels.get(k) is not Certainty.SURE and _in_function(f[0])}
    others = ff.project.importer_flows(ff) if (left or tables_left) and ff.project is not None else None
    if others is not None and ff.project is not None:
        others = others + ff.project.handed_flows(ff, _method_needles(ff, left, tables_left))
    away = _met_elsewhere(ff, left, others, tables_left, dict(levels))
    for k, f in away.items():
        if _surer(levels, k, f[6]):
            found[k] = f[:5]
    passed = _met_in_callees(ff, left, others, dict(levels))
    for k, g in passed.items():
        if _surer(levels, k, g[7]):
            found[k] = g[:5]
    return away, passed


def _method_needles(ff: FileFlow, *pools: dict) -> tuple[bytes, ...]:
    """``.<name>(`` of each method (not a special one) of the plain classes of this file
    whose methods hold a factory of ``pools``: where another file calls one on an instance
    handed to it, the factory's result may meet its tensors there."""
    names: set[str] = set()
    for pool in pools:
        for res, _ in pool.values():
            cls = ff.method_of.get(id(res.node))
            if cls is not None and not cls.is_module:
                names.update(n for n in cls.methods if not n.startswith("__"))
    return tuple(f".{n}(".encode() for n in sorted(names))


def _pair_here(ff: FileFlow, res: ScopeResult, meet: Meeting, node: ast.AST, made: Origin,
               pools: tuple[dict, dict, dict],
               found: dict[int, tuple[ScopeResult, CallEvent, Meeting, ast.AST, ScopeResult]],
               levels: dict[int, Certainty]) -> None:
    """Pair a meeting of this file with one factory that made its operand ``node``
    (``pools``: every candidate factory, those kept by an ``__init__`` and indexed, and
    the NumPy tables), recording it in ``found`` when it is surer than the one there."""
    tables, indexed, arrays = pools
    if levels.get(id(made.node)) is Certainty.SURE:
        return
    partner = _partner(ff, res, meet, node, made)
    if partner is None or off_device_arm(ff, [n for n in (made.node, meet.node) if n is not None]):
        return  # (the arm of ``if torch.cuda.is_available():`` that moves nothing)
    if (id(made.node) in indexed or id(made.node) in arrays) and not _many_indices(ff, res, partner, 0):
        return  # (an index that may be 0-dimensional reads as its number)
    sure = _sure_partner(ff, res, meet, node, made)
    level = Certainty.SURE if sure is not None else _own_tensor_level(ff, res, meet, partner)
    if _surer(levels, id(made.node), level):
        home, call = tables[id(made.node)]
        found[id(made.node)] = (home, call, meet, partner if sure is None else sure, res)


def _own_tensor_level(ff: FileFlow, res: ScopeResult, meet: Meeting, partner: ast.AST) -> Certainty:
    """:attr:`Certainty.OWN_TENSOR` when ``partner`` is an operand (not an index, not a
    module's argument) that holds a parameter or buffer of ``self`` in a method of an
    ``nn.Module`` other than its constructor: a tensor at ``self``'s place, registered
    (``nn.Parameter(...)``, ``nn.Buffer(...)``, ``self.register_buffer(...)``, a weight a
    ``torch.nn`` base layer registers), or a view or result of one alone; in a method of a
    ``torch.optim.Optimizer`` subclass, one of the parameters it updates (``p`` of
    ``group["params"]``, ``p.grad``, ``p.data``), or a view or result of one alone, which
    are wherever the model is (:mod:`~torchferry.check.flow.optimizers`); for a module's
    input, a layer of ``self`` with weights (:func:`_own_layer`), in a method not run only
    while the object is built, of a class the run does not build and keep on the CPU
    (:func:`_kept_on_the_cpu`); else :attr:`Certainty.MAY`."""
    cls = ff.method_of.get(id(res.node))
    optimizer = optimizers.is_optimizer(cls)
    if meet.module is not None and cls is not None and cls.is_module and not meet.presumed:
        own = _own_layer(res, meet) and not ff.constructing(res.node) and not _kept_on_the_cpu(ff, res, cls)
        return Certainty.OWN_TENSOR if own else Certainty.MAY
    if cls is None or not (cls.is_module or optimizer) or meet.module is not None or meet.presumed or \
            (meet.first_only and not meet.stored) or getattr(res.node, "name", "") == "__init__":
        return Certainty.MAY
    v = next((w for n, w in meet.operands if n is partner), None)
    if v is None or any(_reduced(res, n) for n, _ in meet.operands if n is not partner):
        return Certainty.MAY
    if optimizer:
        return Certainty.OWN_TENSOR if optimizers.parameter(v) else Certainty.MAY
    if v.kinds != frozenset((Kind.TENSOR,)) or v.places != frozenset((param(0),)):
        return Certainty.MAY
    registered = not v.origins or v.origins[0].op is Op.MADE and v.origins[0].text.startswith(vocab.REGISTERED)
    return Certainty.OWN_TENSOR if registered else Certainty.MAY


def _own_layer(res: ScopeResult, meet: Meeting) -> bool:
    """Is the module ``meet`` runs ``self.<attr>`` in a method of an ``nn.Module``, a
    ``torch.nn`` layer that always registers weights (:data:`~torchferry.check.flow.vocab.
    LAYER_TENSORS`: ``nn.LSTM``, ``nn.Embedding``, ``nn.Linear``; not ``nn.LayerNorm``, whose
    weight may be None) as every method of the class builds it, so a submodule of ``self``
    whose weights go wherever the module is moved?  Not a layer held in a list
    (``self.layers[0]``), which ``.to()`` does not reach, nor one built moved."""
    module, event = meet.module, res.calls.get(id(meet.node))
    if not isinstance(module, ast.Attribute) or not isinstance(module.value, ast.Name) or \
            not res.params or module.value.id != res.params[0]:
        return False
    v = res.value(module) or (event.func if event is not None and event.callee is Callee.MODULE else None)
    if v is None or v.kinds != frozenset((Kind.MODULE,)) or v.places != frozenset((param(0),)) or \
            not v.origins:
        return False
    return all(o.op is Op.MADE and o.text.startswith("torch.nn.") and
               o.text.split("(", 1)[0].rsplit(".", 1)[-1] in vocab.LAYER_TENSORS for o in v.origins)


def _kept_on_the_cpu(ff: FileFlow, res: ScopeResult, cls: ClassInfo) -> bool:
    """Does the run build the module class ``cls`` itself (in its file or in a file that
    imports it: ``net = Net()`` of a script, not as a part of another module) and put
    none of its instances on an accelerator (a move the analysis sees, a Lightning
    trainer)?  Its layers then stay on the CPU with their inputs."""
    if ff.instance_on_device(cls) is not None or ff.trainer_placed(cls, res.node) is not None:
        return False
    files: list[FileFlow | None] = [cls.ff]
    if ff.project is not None:
        files += [ff.project.file_flow(p) for p in sorted(ff.project.importers(cls.ff.path) or ())]
    return any(_builds_alone(other, cls) for other in files if other is not None)


def _builds_alone(ff: FileFlow, cls: ClassInfo) -> bool:
    """Does a scope of ``ff`` build ``cls`` outside the methods of a module class (a
    script's statement, a plain function)?  One built in a module's method is a part of
    that module, wherever the module's users put it."""
    for res in ff.results():
        owner = ff.method_of.get(id(res.node))
        if owner is not None and owner.is_module:
            continue
        if any(ff.built.get(c) is cls for c in res.calls):
            return True
    return False


#: tensor methods that, given no dimension, reduce a tensor to a 0-dimensional one
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "norm", "std", "var", "amax", "amin",
                         "all", "any", "median", "logsumexp", "count_nonzero"})


def _reduced(res: ScopeResult, node: ast.AST, depth: int = 0) -> bool:
    """Is ``node`` a reduction given no dimension (``lengths.sum()``), arithmetic of such
    reductions and numbers (``weight * mean``), or a name the scope binds only to those
    (``weight = lengths.sum()``, three names deep)?  A 0-dimensional tensor on the CPU mixes
    with one on any device, so such an operand is no sure mistake."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS and \
            not node.args and not any(k.arg == "dim" for k in node.keywords)
    if isinstance(node, ast.BinOp):
        return all(isinstance(e, ast.Constant) or _reduced(res, e, depth) for e in (node.left, node.right))
    if not isinstance(node, ast.Name) or depth >= 3:
        return False
    bound = [st.value for st in ast.walk(res.node) if isinstance(st, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == node.id for t in st.targets)]
    return bool(bound) and all(_reduced(res, b, depth + 1) for b in bound)


def _surer(levels: dict[int, Certainty], key: int, sure: ast.AST | Certainty | None) -> bool:
    """Record the certainty of a meeting of factory ``key`` (``sure``: the partner the run's
    code puts on the accelerator, or the certainty itself; None: it may be there) if it is
    surer than the one recorded; whether it is."""
    level = sure if isinstance(sure, Certainty) else Certainty.MAY if sure is None else Certainty.SURE
    if key in levels and levels[key] >= level:
        return False
    levels[key] = level
    return True


def _moved_last(res: ScopeResult, v: Value, depth: int = 0) -> bool:
    """``v`` may be on the CPU as well as on the accelerator: is the latest step that placed
    it (past module outputs and returns, which carry a place) a move or a factory to a
    device the code chose (``x.to(device)`` of ``"cuda" if torch.cuda.is_available() else
    "cpu"``, on the CPU only where there is no accelerator), or a ``*_like`` copy of such a
    value made in ``res`` (``torch.ones_like(mask)``, on ``mask``'s device)?  Not a value
    joined from a path that left it on the CPU (``x, y = next(it)`` in a ``try`` whose
    ``except`` keeps the last round's ``y.to(device)``), whose first recorded step is that
    path's."""
    for o in v.origins:
        if o.op in (Op.OUTPUT, Op.RETURNED):
            continue
        if o.op is Op.MOVED:
            return o.to is not None and ACCEL in o.to
        if o.op is Op.MADE and isinstance(o.node, ast.Call) and any(k.arg == "device" for k in o.node.keywords):
            return True
        source = _like_source(res, o)
        return source is not None and depth < 3 and _moved_last(res, source, depth + 1)
    return False


def _like_source(res: ScopeResult, o: Origin) -> Value | None:
    """The value whose device ``o``, a ``torch.zeros_like(x)`` (any ``*_like`` factory)
    without ``device=`` made in ``res``, takes (torch: "``device`` ... Default: if None,
    defaults to the device of ``input``"); None for any other origin."""
    node = o.node
    if o.op is not Op.MADE or o.path is not None or not isinstance(node, ast.Call) or not node.args \
            or not o.text.startswith("torch.") or not o.text.split("(")[0].endswith("_like"):
        return None
    return res.value(node.args[0])


def _sure_partner(ff: FileFlow, res: ScopeResult, meet: Meeting, node: ast.AST,
                  made: Origin) -> ast.AST | None:
    """The partner of ``meet`` (its module, or an operand other than the factory's result
    ``node``) that the run's own code puts on the accelerator (:func:`_placed_by_the_run`),
    not moved to the result's device; None when there is none, or when the meeting itself is
    presumed (the arguments of a module whose code the analysis cannot read)."""
    if meet.presumed:
        return None
    if meet.module is not None:
        event = res.calls.get(id(meet.node))
        module = res.value(meet.module) or (event.func if event is not None and event.callee is Callee.MODULE
                                            else None)
        found = meet.module if module is not None and _placed_by_the_run(ff, res, module, 0, meet.node) else None
    else:
        found = next((n for n, w in meet.operands if n is not node and not _may_hold(res, n, w, made)
                      and _placed_by_the_run(ff, res, ff.built_at(res, n, w) or w, 0, meet.node)), None)
    if found is not None and _moved_to_match(res, found, made):
        return None
    return found


def _placed_by_the_run(ff: FileFlow, res: ScopeResult, v: Value, depth: int,
                       use: ast.AST | None = None) -> bool:
    """Does the run's own code put ``v`` (a tensor, a batch or a module) on the accelerator
    whenever the program runs on one: moved or made there (``x.to(device)``, ``.cuda()``,
    a model after ``model.to(device)``, a value computed from them), or a parameter that a
    call of the run gives such a value (followed through the callers' parameters)?  Never
    for a hint: an annotation, the input of a module's ``forward`` or ``self`` without
    calls of the run that place them, ``self.<attr>`` of unknown place.  ``self`` of a
    module's method (its submodules, their outputs) is where an instance that the run puts
    on the accelerator is (:meth:`FileFlow.self_placed`), one whose move can have happened
    before ``use``, the node of ``res`` where ``v`` is met, when given."""
    kinds = res.kind_of(v)
    if kinds is not None and Kind.SCALAR not in kinds and not kinds & {Kind.TENSOR, Kind.BATCH, Kind.MODULE}:
        return False
    cls = ff.method_of.get(id(res.node))
    if cls is not None and ff.self_placed(res, v, use) is not v:  # (follows ``self``, which the run moves)
        inst = ff.instance_on_device(cls, Point(res.node, use) if use is not None else None)
        if inst is not None and _placed_by_the_run(ff, res, inst._replace(kinds=None), 3):
            return True
    constructing = _module_init(ff, res)
    for p in in_order(v.places or ()):
        if p.where is Where.ACCEL:
            return CPU not in (v.places or ()) or _moved_last(res, v)
        if p.where is Where.PARAM and depth < 3 and not (constructing and p == param(0)):
            given = ff.run_arguments(res.node, int(p.ref)) or ()
            if any(_placed_by_the_run(other, caller, a, depth + 1) for other, caller, a in given):
                return True
    return False


def _partner(ff: FileFlow, res: ScopeResult, meet: Meeting, node: ast.AST,
             made: Origin) -> ast.AST | None:
    """The operand of ``meet`` (or its module) that may be on the device where the
    factory's result ``made`` is the operand ``node``; None when there is none, or it is
    moved to the result's own device (``y.to(first.device)``)."""
    plain = not meet.first_only or meet.stored  # (the partner is no index)
    partner = meet.module or next(
        (n for n, w in meet.operands if n is not node
         and not _may_hold(res, n, w, made)
         and (_on_device(ff, res, ff.built_at(res, n, w) or w, hints=plain)
              or plain and _followed_unknown(res, n, w)
              or not plain and _followed_index(ff, res, n, w))), None)
    if partner is not None and _moved_to_match(res, partner, made):
        return None
    return partner


Away = tuple[ScopeResult, CallEvent, Meeting, ast.AST, ScopeResult, FileFlow, Certainty]


def _met_elsewhere(ff: FileFlow, factories: dict, others: list[FileFlow] | None,
                   arrays: dict | None = None, levels: dict[int, Certainty] | None = None) -> dict[int, Away]:
    """The factories of this file whose result meets a tensor that may be on the device in
    another file of the run (``h = self.policy.hidden; h + x`` in agent.py, the hidden
    state made by policy.py; a helper returning ``torch.ones(n, n)`` that train.py
    multiplies with its scores on the GPU).  Only the files that import this one are
    read (where else could its tensor go), each interpreted whole, and only when they
    are known (:meth:`Project.importer_flows`): they are then part of this file's cache
    key, and the answer does not depend on the order or the worker the files are checked
    in.  The first meeting in path order, then in source order, is the one reported.
    ``arrays`` (``torch.tensor(arr)`` of an array of unknown rank) are paired only as a
    tensor indexed there by several indices on the device.  ``levels``: the certainty of
    the meetings already found (:func:`_surer`), which a meeting there replaces only when
    it is surer."""
    if not factories and not arrays or ff.project is None:
        return {}
    levels = {} if levels is None else levels
    left = {(c.node.lineno, c.node.col_offset): (r, c) for r, c in factories.values()}
    tables = {(c.node.lineno, c.node.col_offset): (r, c) for r, c in (arrays or {}).values()}
    away: dict[int, Away] = {}
    spots = left.keys() | tables.keys()
    for other in others or ():
        if other is ff:
            continue
        results = list(other.results())
        construction = _construction_helpers(other, results)
        for res in sorted(results, key=lambda r: _pos(r.node)):
            if _module_init(other, res) or id(res.node) in construction:
                continue
            if spots.isdisjoint(_factories_behind(res, ff.path)):
                continue  # (no value of the scope comes from those factories: nothing pairs)
            for meet in sorted(_meetings(other, res), key=lambda m: _pos(m.node)):
                _pair_away(ff, other, res, meet, left, away, levels)
                if meet.first_only and tables:
                    _pair_away(ff, other, res, meet, tables, away, levels, many=True)
    return away


def _factories_behind(res: ScopeResult, path: str) -> set[tuple[int, int]]:
    """The (line, column) of each factory of the file ``path`` among the origins of the
    values of ``res``: its expressions', its meetings' operands', its calls' parts', and
    their items' (every value a meeting of the scope, :func:`_meetings`, hands to
    :func:`_made_all`, and more).  A factory not among them pairs with no meeting there."""
    todo: list[Value] = [*res.values.values()]
    for m in res.meets.values():
        todo.extend(v for _, v in m.operands)
    for c in res.calls.values():
        todo.extend((c.func, c.result, *c.args, *(v for _, v in c.keywords)))
        if c.receiver is not None:
            todo.append(c.receiver)
    seen: set[int] = set()
    spots: set[tuple[int, int]] = set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        spots.update((o.line, o.column) for o in v.origins if o.op is Op.MADE and o.path == path)
        todo.extend(v.elts or ())
        todo.extend(w for _, w in v.keys or ())
        todo.extend(w for w in (v.item, v.call) if w is not None)
    return spots


def _pair_away(ff: FileFlow, other: FileFlow, res: ScopeResult, meet: Meeting,
               left: dict[tuple[int, int], tuple[ScopeResult, CallEvent]],
               away: dict[int, Away], levels: dict[int, Certainty], many: bool = False) -> None:
    """Pair a meeting of ``other`` with the factory of ``ff`` that made one of its
    operands (the first one only for an indexed tensor; each factory that made it), as the file's own are paired;
    with ``many``, only where the index has at least one dimension."""
    for i, (node, v) in enumerate(meet.operands):
        if i and meet.first_only:
            break
        for made in _made_away(v, left, ff.path, other, meet.node):
            home, call = left[(made.line, made.column)]
            if levels.get(id(call.node)) is Certainty.SURE:
                continue
            partner = _partner(other, res, meet, node, made)
            if partner is None or off_device_arm(other, [meet.node]) or off_device_arm(ff, [call.node]):
                continue
            if many and not _many_indices(other, res, partner, 0):
                continue
            sure = _sure_partner(other, res, meet, node, made)
            if _surer(levels, id(call.node), sure):
                away[id(call.node)] = (home, call, meet, partner if sure is None else sure, res, other,
                                       levels[id(call.node)])


@dataclass(frozen=True)
class Hop:
    """A call of the run that hands the factory's result to a function whose parameter
    meets a tensor on the device there."""

    call: ast.Call  # the call that passes the factory's result
    caller: ScopeResult
    at: FileFlow  # the file of the call
    callee: str  # the called function's name
    arg: ast.AST | None  # the call's argument that the partner parameter takes


Passed = tuple[ScopeResult, CallEvent, Meeting, ast.AST, ScopeResult, Hop, FileFlow | None, Certainty]


def _met_in_callees(ff: FileFlow, factories: dict, others: list[FileFlow] | None,
                    levels: dict[int, Certainty] | None = None) -> dict[int, Passed]:
    """The factories whose result is handed to a function of the run (``gather_rows(table,
    idx)``, ``apply_mask(scores, make_mask(n))`` of a helper of another file) that meets its
    parameter, as it came in, with a tensor that is on the device at that same call (an
    argument of that call the caller has there):
    the calls of this file and of the files that import it, in the order of their paths,
    then of the calls.  A helper called with CPU tensors here and with tensors on the
    device there is judged per call.  ``levels`` as for :func:`_met_elsewhere`."""
    if not factories or not ff.call_sites and not ff.calls_into and not others:
        return {}
    levels = {} if levels is None else levels
    left = {(c.node.lineno, c.node.col_offset): (r, c) for r, c in factories.values()}
    files = [ff, *(o for o in others or () if o is not ff)]
    out: dict[int, Passed] = {}
    summaries: dict[int, list[tuple[Meeting, int, str, int]]] = {}
    for there in files:
        for caller, event, owner, fn, callee, bound in _sites(there):
            if _module_init(there, caller):
                continue
            for key, made in ((k, o) for k, w in bound.items() for o in (
                    _made_all(w, factories, caller.node) if there is ff else _made_all(w, left, path=ff.path))):
                home, call = factories[id(made.node)] if there is ff else left[(made.line, made.column)]
                if levels.get(id(call.node)) is Certainty.SURE:
                    continue
                hit = _param_meeting(there, caller, event, owner, callee, int(key), bound, made, summaries)
                if hit is not None and not off_device_arm(there, [event.node]) \
                        and not off_device_arm(ff, [call.node]):
                    meet, partner, callee, arg, level = hit
                    if not _surer(levels, id(call.node), level):
                        continue
                    hop = Hop(event.node, caller, there, getattr(fn, "name", "?"), arg)
                    out[id(call.node)] = (home, call, meet, partner, callee, hop,
                                          None if owner is ff else owner, level)
    return out


Site = tuple[ScopeResult, CallEvent, FileFlow, ast.AST, ScopeResult, dict[str, Value]]


def _sites(at: FileFlow) -> list[Site]:
    """The calls of ``at`` of functions of the run, with the arguments bound to their
    parameters (by index), in source order: (caller, its call, the callee's file, the
    callee, its interpretation, bound)."""
    fns: dict[int, ast.AST] = {id(n): n for n in tree_index(at.tree).functions}
    found: list[tuple[ScopeResult, int, FileFlow, ast.AST, ScopeResult, dict[str, Value]]] = []
    for target, calls in at.call_sites.items():
        local = fns.get(target)
        if local is not None and calls:
            res = at.result(local, *(at.enclosed(local) or (None, None)))
            found.extend((caller, node, at, local, res, bound) for node, (caller, bound) in calls.items())
    for (path, name, line), calls in at.calls_into.items():
        hit = at.project.function_at(path, name, line) if at.project is not None and calls else None
        if hit is not None:
            found.extend((caller, node, hit[0], hit[1], hit[2], bound) for node, (caller, bound) in calls.items())
    out: list[Site] = []
    for caller, node, owner, fn, res, bound in found:
        event = caller.calls.get(node)
        if event is not None and bound:
            out.append((caller, event, owner, fn, res, bound))
    return sorted(out, key=lambda s: _pos(s[1].node))


def _param_meeting(at: FileFlow, caller: ScopeResult, event: CallEvent, owner: FileFlow,
                   callee: ScopeResult, k: int, bound: dict[str, Value], made: Origin,
                   summaries: dict[int, list[tuple[Meeting, int, str, int]]]
                   ) -> tuple[Meeting, ast.AST, ScopeResult, ast.AST | None, Certainty] | None:
    """A meeting of parameter ``k`` of ``callee`` (given the factory's result ``made`` by
    ``event``) with a tensor on the device at that call: (the meeting, the partner, the
    callee's scope, the call's argument the partner takes, if it is one, and how sure it
    is that the run's code puts that argument there); the first sure one, else the first."""
    if id(callee.node) not in summaries:
        summaries[id(callee.node)] = list(_param_meetings(owner, callee))
    first = None
    for meet, i, _, p in summaries[id(callee.node)]:
        if p != k:
            continue
        for j, (n, w) in enumerate(meet.operands):
            if j == i or meet.first_only and i:
                continue
            arg = _on_device_at(at, caller, callee, w, k, bound, made)
            if arg is False or first is not None and not _placed_by_the_run(at, caller, arg, 0, event.node):
                continue
            if off_device_arm(owner, [meet.node]):  # (costly: last)
                continue
            level = Certainty.SURE if _placed_by_the_run(at, caller, arg, 0, event.node) else Certainty.MAY
            hit = (meet, n, callee, _argument(caller, event, arg), level)
            if level is Certainty.SURE:
                return hit
            first = first or hit
    return first


def _param_meetings(owner: FileFlow, callee: ScopeResult) -> Iterator[tuple[Meeting, int, str, int]]:
    """The meetings of ``callee`` where a parameter meets as it came in: written as its
    name, never bound again in the function (``x = x.to(dev)`` is a move, not a meeting),
    nor followed to its place (``y.to(x.device)``, ``x.new_zeros(n)``), and as a whole (an
    item ``labels[i]`` is 0-dimensional: it mixes with any device): (the meeting, the
    operand's position, the parameter's name and index).  A copy made where the parameter
    is (``torch.ones_like(mask)``, ``mask.new_zeros(n)``) does not count as following it:
    it is on the parameter's device, so it meets the partner as the parameter does."""
    fn = callee.node
    if not _in_function(callee) or _module_init(owner, callee):
        return
    bound_again = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    for meet in sorted(_meetings(owner, callee), key=lambda m: _pos(m.node)):
        for i, (node, v) in enumerate(meet.operands):
            if i and meet.first_only:
                break
            if not isinstance(node, ast.Name) or node.id not in callee.params or node.id in bound_again:
                continue
            k = callee.params.index(node.id)
            if node.id in ("self", "cls") or v.places != {param(k)} or \
                    any(o.op is Op.MOVED for o in v.origins) or _follows_place(fn, node.id, copies=False):
                continue
            yield meet, i, node.id, k


def _on_device_at(at: FileFlow, caller: ScopeResult, callee: ScopeResult, w: Value, k: int,
                  bound: dict[str, Value], made: Origin) -> Value | Literal[False]:
    """Is the partner ``w`` (a value of ``callee``) on the device at this call: a parameter
    the call gives a tensor that is (followed through the caller's own parameters; never
    for an annotation alone)?  The argument it takes; False when not on the device, or when
    it may hold the factory's result itself."""
    kinds = callee.kind_of(w)
    if w.places is None or kinds is not None and (Kind.SCALAR in kinds or not kinds & {Kind.TENSOR, Kind.BATCH}):
        return False
    for p in in_order(w.places):  # (not one the callee makes "on the device": ``device=x.device`` of
        # another parameter reads so in its summary, and is where ``x`` is at this call)
        if p.where is not Where.PARAM or int(p.ref) == k:
            continue
        a = bound.get(str(p.ref))
        if a is None or any(o.node is made.node for o in a.origins):
            continue
        if _on_device(at, caller, a, hints=False):
            return a
    return False


def _followed_index(ff: FileFlow, res: ScopeResult, node: ast.AST, v: Value) -> bool:
    """An index computed from a parameter whose place the function follows (it makes
    tensors there: ``points.new_zeros(n)``, ``device=points.device``), without calls of the
    run that place it, of at least one dimension by the code (``points[:, 2] == lvl``): a
    CPU tensor indexed by it fails wherever that parameter is on an accelerator ("indices
    should be either on cpu or on the same device as the indexed tensor")."""
    refs = [int(p.ref) for p in v.places or () if p.where is Where.PARAM]
    if not refs or res.kind_of(v) != frozenset((Kind.TENSOR,)):
        return False
    return any(not ff.run_arguments(res.node, k) and _carries_device(res, k) for k in refs) \
        and _many_indices(ff, res, node, 0)


def _argument(caller: ScopeResult, event: CallEvent, v: Value | None) -> ast.AST | None:
    """The argument of the call whose value is ``v``."""
    if v is None:
        return None
    return next((a for a in [*event.node.args, *(kw.value for kw in event.node.keywords)]
                 if caller.value(a) is v), None)


_KEEP_DIMS = frozenset({"to", "cuda", "long", "int", "type", "clone", "detach", "contiguous"})
#: (a joined sequence has one or more dimensions: ``torch.cat`` refuses a 0-dimensional tensor)
_VECTORS = frozenset({"torch.arange", "torch.randperm", "torch.cat", "torch.concat",
                      "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack"})
_SIZED = frozenset({"torch.randint", "torch.full", "torch.ones", "torch.zeros", "torch.empty",
                    "torch.rand", "torch.randn"})


def _many_indices(ff: FileFlow, res: ScopeResult, node: ast.AST, depth: int) -> bool:
    """Does the code establish that ``node``, an index in ``res``, has at least one dimension
    (``torch.randint(0, n, (b,), device=d)``, ``torch.arange(n).to(d)``, ``i * torch.ones(b)``,
    a local bound only to such, or a parameter every call of the run gives such)?  A
    0-dimensional integer index (``for t in timesteps``) reads as its number on any device."""
    if depth > 3:
        return False
    if isinstance(node, ast.BinOp):
        return _many_indices(ff, res, node.left, depth) or _many_indices(ff, res, node.right, depth)
    if isinstance(node, ast.Compare):  # (broadcast: the most dimensions of its operands)
        return any(_many_indices(ff, res, x, depth) for x in (node.left, *node.comparators))
    if isinstance(node, ast.UnaryOp):
        return _many_indices(ff, res, node.operand, depth)
    if isinstance(node, ast.Subscript) and _slices(node.slice):
        return True  # ``x[:, 2]``: a slice keeps its dimension
    if isinstance(node, ast.Call):
        c = res.calls.get(id(node))
        if isinstance(node.func, ast.Attribute) and node.func.attr in _KEEP_DIMS and \
                (c is None or c.callee is not Callee.TORCH):
            return _many_indices(ff, res, node.func.value, depth)
        q = c.qualname if c is not None and c.callee is Callee.TORCH else None
        args = node.args
        if q in _VECTORS:
            return True
        if q in _ELEMENTWISE and len(args) == 1:
            return _many_indices(ff, res, args[0], depth)
        if q == "torch.randint":
            size = args[2] if len(args) > 2 else args[1] if len(args) == 2 \
                and isinstance(args[1], (ast.Tuple, ast.List)) else kwarg(node, "size")
            return isinstance(size, (ast.Tuple, ast.List)) and bool(size.elts)
        return q in _SIZED and bool(args) and not isinstance(args[0], ast.Starred) \
            and not zero_dim_made(q, node) and not isinstance(args[0], ast.Constant)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            isinstance(node.slice.value, int) and isinstance(node.value, ast.Name):
        return _bound_to(res, node.value.id, _INDEX_PAIRS)  # ``tidx[0]`` of ``torch.tril_indices``
    if not isinstance(node, ast.Name):
        return False
    stores = [n for n in ast.walk(res.node) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                             ast.For, ast.With, ast.NamedExpr))
              and any(isinstance(t, ast.Name) and t.id == node.id for t in _targets(n))]
    use = res.value(node)
    if stores and use is not None and Kind.SCALAR not in (res.kind_of(use) or {Kind.SCALAR}):
        # (a number bound to the name elsewhere, ``idx = 1``, is not what reaches a tensor here)
        stores = [n for n in stores if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant))]
    if stores:
        return all(isinstance(n, ast.Assign) and len(n.targets) == 1 and
                   _many_indices(ff, res, n.value, depth + 1) for n in stores)
    if node.id not in res.params or node.id in ("self", "cls"):
        return False
    return _given_many(ff, res, res.params.index(node.id), node.id, depth + 1)


#: torch functions of one tensor that keep its shape
_ELEMENTWISE = frozenset({"torch.abs", "torch.exp", "torch.log", "torch.log2", "torch.log10",
                          "torch.sqrt", "torch.floor", "torch.ceil", "torch.round", "torch.neg",
                          "torch.logical_not", "torch.sigmoid"})


def _slices(key: ast.expr) -> bool:
    """Does the subscript key hold a slice (``x[:, 2]``, ``x[1:]``)?"""
    return isinstance(key, ast.Slice) or isinstance(key, ast.Tuple) and \
        any(isinstance(e, ast.Slice) for e in key.elts)


#: torch functions that return a (2, n) tensor of indices: each row indexes with n items
_INDEX_PAIRS = frozenset({"torch.tril_indices", "torch.triu_indices"})


def _bound_to(res: ScopeResult, name: str, qualnames: frozenset[str]) -> bool:
    """Is ``name`` bound in ``res`` only by assignments of calls of ``qualnames``?"""
    stores = [n for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == name
              and not isinstance(n.ctx, ast.Load)]
    values = [a.value for a in ast.walk(res.node) if isinstance(a, ast.Assign) and len(a.targets) == 1
              and isinstance(a.targets[0], ast.Name) and a.targets[0].id == name]
    calls = [res.calls.get(id(v)) for v in values]
    return bool(stores) and len(stores) == len(values) and all(
        c is not None and c.callee is Callee.TORCH and c.qualname in qualnames for c in calls)


def _targets(n: ast.AST) -> list[ast.AST]:
    """The names a statement binds, nested in tuples."""
    roots = n.targets if isinstance(n, ast.Assign) else [n.target] if hasattr(n, "target") else \
        [i.optional_vars for i in n.items if i.optional_vars] if isinstance(n, ast.With) else []
    return [t for r in roots for t in ast.walk(r)]


def _given_many(ff: FileFlow, res: ScopeResult, k: int, name: str, depth: int) -> bool:
    """Does every call of the run give parameter ``k`` (``name``) of ``res`` an index of at
    least one dimension (:func:`_many_indices` in the caller)?  There must be calls, and all
    of them known: of this file, and of the files that import it."""
    fn = res.node
    method = ff.is_method(fn)
    if ff.project is None or method and ff.held_calls(fn):
        return False
    foreign = ff.project.foreign_method_calls(ff, fn) if method else ff.project.foreign_calls(ff, fn)
    sites = [(ff, caller, cid) for cid, (caller, _) in ff.call_sites.get(id(fn), {}).items()]
    sites += [(other, caller, cid) for other, caller, cid, _ in foreign or ()]
    if not sites:
        return False
    for other, caller, cid in sites:
        event = caller.calls.get(cid)
        call = event.node if event is not None else None
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        at = k - 1 if method and isinstance(call.func, ast.Attribute) else k
        arg = next((kw.value for kw in call.keywords if kw.arg == name), None)
        if arg is None and 0 <= at < len(call.args):
            arg = call.args[at]
        if arg is None or not _many_indices(other, caller, arg, depth):
            return False
    return True


def _kept_module_inputs(ff: FileFlow, results: list[ScopeResult], kept: dict,
                        found: dict[int, tuple[ScopeResult, CallEvent, Meeting, ast.AST,
                                               ScopeResult]], levels: dict[int, Certainty]) -> None:
    """A tensor an object's ``__init__`` keeps on ``self`` without a device, given as it is
    (``self.memories``) to a module the code moved to a device (``self.acmodel.to(device)``
    in ``__init__``, ``self.acmodel(obs, self.memories)`` in another method)."""
    if not kept:
        return
    for res in results:
        for c in res.calls.values():
            module = c.func
            if c.callee is not Callee.MODULE or module is None or \
                    module.kinds is not None and Kind.MODULE not in module.kinds or \
                    not any(o.op is Op.MOVED for o in module.origins) or \
                    not module.may_live(Where.ACCEL):
                continue
            for a in [*c.node.args, *(k.value for k in c.node.keywords)]:
                v = res.value(a) if _self_attribute(a) else None
                made = _made_by(v, kept) if v is not None else None
                if v is None or made is None or id(made.node) in found:
                    continue
                home, call = kept[id(made.node)]
                meet = Meeting(c.node, ((a, v),), module=c.node.func)
                _surer(levels, id(made.node), Certainty.SURE if _placed_by_the_run(ff, res, module, 0, c.node)
                       else Certainty.MAY)
                found[id(made.node)] = (home, call, meet, c.node.func, res)


def _kept_attributes_met(ff: FileFlow, results: list[ScopeResult], met: dict[int, list[Meeting]],
                         kept: dict, found: dict[int, tuple[ScopeResult, CallEvent, Meeting, ast.AST,
                                                            ScopeResult]],
                         levels: dict[int, Certainty]) -> None:
    """A tensor an object's ``__init__`` keeps on ``self`` without a device, read as written
    (``self.support``, no item of it) by another method of the same class where it meets,
    in arithmetic or a call, a tensor the run's own code puts on the accelerator
    (``self.net(x) * self.support`` of ``self.net = Net().to(device)``), when the file binds
    the attribute nowhere else (no later move, no other value joined into it).  ``met``:
    the meetings of each scope, by its node."""
    if not kept:
        return
    for res in results:
        cls = ff.method_of.get(id(res.node))
        if cls is None or cls.is_module or _object_init(ff, res):
            continue
        for meet in met.get(id(res.node), ()):
            if meet.written or meet.stored or meet.held or meet.first_only or meet.module is not None:
                continue
            for node, v in meet.operands:
                made = _made_by(v, kept) if _self_attribute(node) else None
                if made is None or id(made.node) in found or not isinstance(node, ast.Attribute):
                    continue
                home, _ = kept[id(made.node)]
                if ff.method_of.get(id(home.node)) is not cls or not _bound_once(ff, node.attr):
                    continue
                sure = _sure_partner(ff, res, meet, node, made)
                if sure is None or off_device_arm(ff, [n for n in (made.node, meet.node) if n is not None]):
                    continue
                _pair_here(ff, res, meet, node, made, (kept, {}, {}), found, levels)


def _bound_once(ff: FileFlow, attr: str) -> bool:
    """Does the file bind an attribute named ``attr`` (of any object) exactly once?  (Read
    from the file's attributes by name, :func:`~torchferry.check.flow.treeindex.tree_index`.)"""
    return sum(not isinstance(n.ctx, ast.Load) for n in tree_index(ff.tree).attributes.get(attr, ())) == 1


def _self_attribute(node: ast.AST) -> bool:
    """``self.memories`` as written (not an item of it, nor a value computed from it)."""
    return self_attr(node) is not None


def _pos(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _sets_a_default_device(results: list[ScopeResult]) -> bool:
    """Does the file call ``torch.set_default_device`` or ``torch.set_default_tensor_type``
    anywhere (a script's factories then build where the code chose)?"""
    return any(c.qualname in ("torch.set_default_device", "torch.set_default_tensor_type")
               for r in results for c in r.calls.values())


def _in_function(res: ScopeResult) -> bool:
    return isinstance(res.node, (ast.FunctionDef, ast.AsyncFunctionDef))


def _module_init(ff: FileFlow, res: ScopeResult) -> bool:
    """A module's ``__init__``: everything is still on the CPU there, and a tensor it
    stores on ``self`` is FRY011's business."""
    node = res.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != "__init__":
        return False
    cls = ff.method_of.get(id(node))
    return cls is not None and cls.is_module


def _object_init(ff: FileFlow, res: ScopeResult) -> bool:
    """The ``__init__`` of a class that is not a module: the tensors it keeps on ``self`` (a
    scheduler's ``betas``) are read by the other methods through the attribute table, joined
    over them, which cannot tell a 0-dimensional item (``alphas_cumprod[t]``) or a later
    move from a vector on the CPU; they are checked only as a moved module's input
    (``_kept_module_inputs``)."""
    node = res.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != "__init__":
        return False
    cls = ff.method_of.get(id(node))
    return cls is not None and not cls.is_module


def _called_by_inits(ff: FileFlow, res: ScopeResult) -> bool:
    """A function that the file calls, and calls only from the constructors of classes
    that are not modules (``self.betas = betas_for_alpha_bar(n)`` in a scheduler's
    ``__init__``): what it makes is kept on ``self`` as such a constructor's own tensors
    are.  (A module's are not moved by ``.to()`` unless registered: checked as made.)"""
    sites = ff.call_sites.get(id(res.node), {})
    return bool(sites) and all(_object_init(ff, caller) for caller, _ in sites.values())


def _construction_helpers(ff: FileFlow, results: list[ScopeResult]) -> set[int]:
    """Methods called by a module's ``__init__`` and by no other method (``self._probe()``
    runs while the model is still on the CPU)."""
    from_init: dict[str, set[int]] = {}
    elsewhere: set[str] = set()
    for r in results:
        init = _module_init(ff, r)
        for c in r.calls.values():
            func = c.node.func
            if c.callee is Callee.FUNCTION and isinstance(func, ast.Attribute) \
                    and isinstance(func.value, ast.Name) and func.value.id == "self":
                if init:
                    from_init.setdefault(func.attr, set()).add(id(r.node))
                else:
                    elsewhere.add(func.attr)
    out: set[int] = set()
    for r in results:
        node = r.node
        name = getattr(node, "name", None)
        cls = ff.method_of.get(id(node))
        if name in from_init and name not in elsewhere and cls is not None and cls.is_module:
            out.add(id(node))
    return out


def _candidate(c: CallEvent) -> bool:
    """``torch.zeros(n)`` with no ``device=`` (nor ``**kwargs``, nor a pinned buffer)."""
    if c.callee is not Callee.TORCH or c.qualname is None:
        return False
    name = c.qualname[len("torch."):]
    if name in _LEGACY:  # ``torch.FloatTensor([...])``: always on the CPU, no ``device=``
        return _legacy_data(c) and not _no_legacy_data(c.node)
    if name not in _FACTORIES:
        return False
    if any(k in ("device", "pin_memory", "out", "**") for k, _ in c.keywords):
        return False  # (``out=``: made where that tensor is)
    if name in ("tensor", "as_tensor"):  # only data written out here (a scalar mixes anywhere)
        return bool(c.node.args) and isinstance(c.node.args[0], (ast.List, ast.Tuple, ast.ListComp))
    if name == "full" and c.node.args and isinstance(c.node.args[0], (ast.Tuple, ast.List)) \
            and not c.node.args[0].elts:
        return False  # ``torch.full((), value)``: 0-dimensional
    return not (name in _SIZE_FIRST and _no_shape(c.node))


def _repeated_data(c: CallEvent) -> bool:
    """``torch.tensor([0.0] * n)`` (no ``device=``): a list written out, repeated; at least
    one dimension (its items, taken one by one, are 0-dimensional: a candidate only where
    a list holds the tensor itself, :func:`held_together`)."""
    if c.callee is not Callee.TORCH or c.qualname not in ("torch.tensor", "torch.as_tensor") or \
            not c.node.args or any(k in ("device", "out", "**") for k, _ in c.keywords):
        return False
    data = c.node.args[0]
    return isinstance(data, ast.BinOp) and isinstance(data.op, ast.Mult) and any(
        isinstance(x, (ast.List, ast.Tuple)) for x in (data.left, data.right))


def _unsqueezed(ctx: Context) -> set[int]:
    """The calls whose result is unsqueezed at once (``torch.tensor(dones).unsqueeze(1)``):
    at least one-dimensional, whatever data they were given.  (The calls the analysis's
    index of the tree holds: no other walk of the file.)"""
    return {id(n.func.value) for n in tree_index(ctx.tree).calls
            if isinstance(n.func, ast.Attribute) and n.func.attr == "unsqueeze"}


def _shaped_data(c: CallEvent) -> bool:
    """``torch.tensor(x.reshape(1, -1))``: data given a shape of at least one size written
    out (two or more sizes, one number, a non-empty tuple or list of them) by ``reshape`` or
    ``view``, or flattened (``x.flatten()``, ``x.ravel()``): at least one dimension, whatever
    ``x`` is (an array, a tensor, a value the analysis cannot place)."""
    data = c.node.args[0] if len(c.node.args) == 1 else None
    if not isinstance(data, ast.Call) or not isinstance(data.func, ast.Attribute) or data.keywords:
        return False
    name, sizes = data.func.attr, data.args
    if name in ("flatten", "ravel"):
        return not sizes
    if name not in ("reshape", "view") or not sizes:
        return False
    if len(sizes) > 1:
        return not any(isinstance(a, ast.Starred) for a in sizes)
    one = sizes[0]
    return isinstance(number_value(one), int) or isinstance(one, (ast.Tuple, ast.List)) and bool(one.elts) \
        and not any(isinstance(a, ast.Starred) for a in one.elts)


def _data_tensor(c: CallEvent) -> bool:
    """``torch.tensor(data)`` / ``torch.as_tensor(data)`` without ``device=`` (nor
    ``**kwargs``), of data that is not written out here."""
    if c.callee is not Callee.TORCH or c.qualname not in ("torch.tensor", "torch.as_tensor"):
        return False
    return len(c.node.args) == 1 and not any(k in ("device", "**") for k, _ in c.keywords)


def _sequence_data(c: CallEvent) -> bool:
    """``torch.tensor(mask)`` of a value the analysis knows to be a Python sequence (a list
    built with ``append``, a tuple, ``x.shape``): no number and no tensor, so the result has
    at least one dimension (a list of numbers) or is refused outright."""
    return len(c.args) == 1 and c.args[0].kinds == _SEQUENCE


_SEQUENCE = frozenset((Kind.OTHER,))


def _array_data(c: CallEvent) -> bool:
    """``torch.tensor(labels)`` of an array this scope's code made with at least one
    dimension: ``np.zeros([n])`` (a shape written out, or one size), ``np.arange(n)``,
    ``np.array([...])`` of data written out, ``np.stack(xs)``; never a tensor, so the result
    is made on the CPU and is no 0-dimensional number."""
    return len(c.args) == 1 and c.args[0].kinds == _ARRAY and bool(c.args[0].origins) and all(
        _array_made(o) for o in c.args[0].origins)


def _array_made(made: Origin) -> bool:
    """Is ``made`` a NumPy call that makes an array of one or more dimensions?"""
    call = made.node
    if made.op is not Op.MADE or not isinstance(call, ast.Call):
        return False
    if made.text in _NUMPY_VECTORS:
        return True
    first = call.args[0] if call.args else None
    if made.text in _NUMPY_FILLED:
        return isinstance(first, (ast.List, ast.Tuple)) and bool(first.elts) or \
            isinstance(number_value(first, signed=False) if first is not None else None, int) \
            or isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "len"
    return made.text in _NUMPY_COPIES and len(call.args) == 1 and (
        isinstance(first, (ast.List, ast.Tuple)) and bool(first.elts) or isinstance(first, ast.ListComp))


_ARRAY = frozenset((Kind.NDARRAY,))


def _numpy_data(c: CallEvent) -> bool:
    """``torch.tensor(arr)`` / ``torch.as_tensor(arr)`` of a value the analysis knows to be a
    NumPy array, of any rank (``X[mask, :]`` of ``np.genfromtxt(path)``): never a tensor, so
    the result is made on the CPU; it may be 0-dimensional, which is no matter where it is
    indexed by a tensor of one or more dimensions (a 0-dimensional tensor has no such index)."""
    return _data_tensor(c) and len(c.args) == 1 and c.args[0].kinds == _ARRAY
_NUMPY_FILLED = frozenset(f"numpy.{n}" for n in ("zeros", "ones", "empty", "full"))
_NUMPY_VECTORS = frozenset(f"numpy.{n}" for n in (
    "arange", "linspace", "stack", "vstack", "hstack", "concatenate"))
_NUMPY_COPIES = frozenset(f"numpy.{n}" for n in ("array", "asarray"))


def _scalar_candidate(c: CallEvent) -> bool:
    """``torch.tensor(0.0)``, ``torch.zeros(())``: 0-dimensional, without ``device=``; such a
    tensor mixes with any device as an operand, not as the tensor written in place."""
    if c.callee is not Callee.TORCH or c.qualname is None or c.qualname.count(".") != 1:
        return False
    if any(k in ("device", "**") for k, _ in c.keywords) or len(c.node.args) != 1:
        return False
    return zero_dim_made(c.qualname, c.node)


def _legacy_data(c: CallEvent) -> bool:
    """A legacy constructor given sizes or data written out, and nothing else: given a
    tensor, ``torch.Tensor(t)`` is ``t`` where it is (and ``torch.FloatTensor(t)`` refuses
    one off the CPU), and given ``device=`` it refuses an accelerator outright."""
    if c.node.keywords or len(c.args) != len(c.node.args):
        return False
    for a, v in zip(c.node.args, c.args, strict=True):
        if isinstance(a, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Constant)):
            continue
        if v.kinds is None or v.kinds & {Kind.TENSOR, Kind.BATCH}:
            return False
    return True


def _no_legacy_data(call: ast.Call) -> bool:
    """``torch.Tensor()``, ``torch.LongTensor([])``, ``torch.FloatTensor(0)``: no element, a
    placeholder replaced before it is used."""
    if not call.args:
        return not call.keywords
    if len(call.args) != 1:
        return False
    a = call.args[0]
    return isinstance(a, (ast.Tuple, ast.List)) and not a.elts or number_value(a, signed=False) == 0


def _no_shape(call: ast.Call) -> bool:
    """``torch.zeros(())``: 0-dimensional, it mixes with tensors on any device; and
    ``torch.empty(0)``: no element at all, a placeholder replaced before it is used."""
    if len(call.args) != 1:
        return False
    a = call.args[0]
    return isinstance(a, (ast.Tuple, ast.List)) and not a.elts or number_value(a, signed=False) == 0


def _made_by(v: Value, factories: dict, scope: ast.AST | None = None,
             path: str | None = None, ff: FileFlow | None = None,
             at: ast.AST | None = None) -> Origin | None:
    """The first of :func:`_made_all`: one candidate factory that made ``v``."""
    return next(iter(_made_all(v, factories, scope, path, ff, at)), None)


def _made_all(v: Value, factories: dict, scope: ast.AST | None = None,
              path: str | None = None, ff: FileFlow | None = None,
              at: ast.AST | None = None) -> list[Origin]:
    """Every candidate factory that made ``v`` (``gamma ** (n - m)`` of ``n`` and ``m``,
    both from ``torch.arange``: each is at fault where the value meets a tensor on the
    device, and each takes its own ``device=``), if ``v`` may be that factory's CPU result (on
    some path, the first round of a loop included) and was never moved: its places may
    be unknown (``b = torch.zeros(n)`` on one branch, ``self.sampler.sample()`` on the
    other), the factory's path is on the CPU all the same. Wrapped in ``nn.Parameter`` (or
    a buffer) outside ``scope``, the function where it meets the other tensor, it is
    registered where it was wrapped and follows the model's ``.to()``.  With ``path``, the
    factories are those of that other file of the run, by their line and column.  With
    ``ff``, a move among ``v``'s origins counts only where it may have acted on the
    factory's result (:func:`moved_apart`: not the moves of another path of a join)."""
    if v.places is not None and CPU not in v.places or not v.may_be(Kind.TENSOR):
        return []
    if ff is None and any(o.op is Op.MOVED for o in v.origins):
        return []
    if any(o.op is Op.MADE and o.text.startswith(vocab.REGISTERED) and not _inside(o, scope)
           for o in v.origins):
        return []
    if path is not None:
        return [o for o in v.origins if o.op is Op.MADE and o.path == path
                and (o.line, o.column) in factories]
    made = (o for o in v.origins if o.op is Op.MADE and o.path is None
            and o.node is not None and id(o.node) in factories)
    # (without a move that may have acted on the factory's result)
    return [o for o in made if ff is None or not any(
        m.op is Op.MOVED and not moved_apart(ff, m, o, at) for m in v.origins)]


def _made_away(v: Value, factories: dict, path: str, other: FileFlow, at: ast.AST) -> list[Origin]:
    """Every candidate factory of the file ``path`` (``factories``: by line and column)
    that made ``v``, a value of ``other`` met at ``at``, if ``v`` may be its CPU result:
    as :func:`_made_all`, a move among ``v``'s origins counting only where it may have
    acted on the factory's result (:func:`moved_away_from`: not ``other``'s moves of its
    own tensors, joined with what a function of ``path`` returned on another path)."""
    if any(o.op is Op.MOVED for o in v.origins):
        made = _made_all(v._replace(origins=tuple(o for o in v.origins if o.op is not Op.MOVED)),
                         factories, path=path)
        return [o for o in made if all(
            moved_away_from(other, m, factories[(o.line, o.column)][0], o)
            for m in v.origins if m.op is Op.MOVED)]
    return _made_all(v, factories, path=path)


def _inside(o: Origin, scope: ast.AST | None) -> bool:
    """Was ``o`` made inside ``scope`` (a function of the checked file, by its lines)?"""
    if o.path is not None or scope is None:
        return False
    return getattr(scope, "lineno", 0) <= o.line <= (getattr(scope, "end_lineno", 0) or 0)


def _may_hold(res: ScopeResult, node: ast.AST, v: Value, made: Origin) -> bool:
    """May ``v`` (of the expression ``node``) itself be the factory's result, or be made on
    its device (``torch.ones_like(freqs)``), as in ``torch.polar(torch.ones_like(freqs),
    freqs)`` of ``freqs`` from ``torch.arange(pos)`` or from a parameter ``pos``?  Then
    what puts it on the device is another path than the one that made the factory's result,
    which the analysis joins without telling apart: on each path both are in one place."""
    if any(o.node is made.node for o in v.origins):
        return True
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute) \
            and node.func.attr in vocab.LIKE_FACTORIES \
            and not any(k.arg in ("device", None) for k in node.keywords):
        like = res.value(node.args[0])
        return like is not None and any(o.node is made.node for o in like.origins)
    return False


def _on_device(ff: FileFlow, res: ScopeResult, v: Value, hints: bool = True) -> bool:
    """A tensor the analysis sees on an accelerator on some path: moved or made there, the
    model's (``self`` of a module, a submodule's output), or a parameter that is."""
    kinds = res.kind_of(v)
    if kinds is None or Kind.SCALAR in kinds:
        # of unknown kind (or a number on some path: ``n + 1`` of ``tmp.max() + 1`` or of an
        # int, 0-dimensional where a tensor, which mixes anywhere), but moved to the device (or made there) and computed with: a
        # tensor (``self.process_batch(x)`` returning ``x.to(self.device)`` of a parameter),
        # or a parameter that the calls of the file give tensors that may be there
        return v.may_live(Where.ACCEL) or v.places is not None and any(
            p.where is Where.PARAM and (_given_tensors_on_device(ff, res, int(p.ref), 0, hints)
                                        or hints and _followed_param(ff, res, int(p.ref)))
            for p in v.places)
    if not kinds & {Kind.TENSOR, Kind.BATCH}:
        return False
    return _places_on_device(ff, res, v, 0, hints)


def _places_on_device(ff: FileFlow, res: ScopeResult, v: Value, depth: int,
                      hints: bool = True) -> bool:
    constructing = _module_init(ff, res)
    for p in v.places or ():
        if constructing and p == param(0):
            continue  # ``self`` (and its buffers) while its ``__init__`` runs: on the CPU
        if p.where is Where.ACCEL or p.where is Where.ATTR:
            return True
        if p.where is Where.PARAM and _param_on_device(ff, res, int(p.ref), depth, hints):
            return True
    return False


def _param_on_device(ff: FileFlow, res: ScopeResult, k: int, depth: int,
                     hints: bool = True) -> bool:
    """May parameter ``k`` be on an accelerator?  The calls in this file decide when there
    are any: yes when one passes a value on the device (followed through the callers'
    parameters), no otherwise, also when some pass a value the analysis cannot place (an
    annotation does not stand in for it). Without calls, ``self`` of a module, an input of
    a module's ``forward`` and a parameter annotated as a tensor or module may be (the
    model's and its inputs' place); a parameter merely used as a tensor is not known to be."""
    given = ff.run_arguments(res.node, k)
    if given and depth < 3:
        return any(v.places is not None and _places_on_device(other, caller, v, depth + 1, hints)
                   for other, caller, v in given)
    if not hints:  # (indices: the model's own, not an annotation's)
        return _of_the_model(ff, res, k)
    # (``self`` of a module: MODULE)
    return res.param_hints.get(k) in (Kind.TENSOR, Kind.MODULE) or _carries_device(res, k) \
        or k == 0 and _saved_followed(ff, res)


def _saved_followed(ff: FileFlow, res: ScopeResult) -> bool:
    """In an autograd ``Function``'s ``backward``, whose context holds the tensors
    ``forward`` saved where the function's inputs were: does it make tensors where one of
    them is (``M, r = ctx.saved_tensors`` then ``torch.eye(n, device=M.device)``)?  The code
    says they may be on a device."""
    fn = res.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or not libfacts.autograd_backward(ff.method_of.get(id(fn)), fn):
        return False
    return any(_follows_place(fn, name) for name in libfacts.saved_tensor_names(fn))


def _carries_device(res: ScopeResult, k: int) -> bool:
    """Does the function make tensors where parameter ``k`` is (``torch.zeros(L, S,
    device=query.device)``, ``phi.new_empty(n, 3, 3)``, ``torch.zeros_like(phi)``)?  The
    code says it may be on a device."""
    name = res.params[k] if k < len(res.params) else None
    return name is not None and _follows_place(res.node, name)


def _follows_place(fn: ast.AST, name: str, device_attr: bool = True, copies: bool = True) -> bool:
    """Does ``fn`` make or move a tensor where the tensor named ``name`` is:
    ``name.device``, ``name.new_empty(...)`` (and the other ``new_*``),
    ``torch.zeros_like(name)`` (and the other ``*_like``, without ``device=``),
    ``t.type_as(name)``, ``t.type(name.type())``?  Then ``name`` is a tensor whose place
    the code follows, not one it knows to be on the CPU.  (Without ``device_attr``, not
    ``name.device``, which a model or a wrapper may have as well; without ``copies``, not
    the ``new_*`` and ``*_like`` copies, which are made where ``name`` is and so move
    nothing to where another tensor is.)"""
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name \
                and (n.attr == "device" and device_attr or n.attr in vocab.NEW_ON_RECEIVER and copies):
            return True
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args):
            continue
        first = n.args[0]
        if copies and n.func.attr in vocab.LIKE_FACTORIES and _named(first, name) \
                and not any(k.arg in ("device", None) for k in n.keywords):
            return True
        if n.func.attr == "type_as" and _named(first, name) or n.func.attr == "type" \
                and isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) \
                and first.func.attr == "type" and not first.args and _named(first.func.value, name):
            return True
    return False


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _followed_unknown(res: ScopeResult, node: ast.AST, v: Value) -> bool:
    """A tensor of unknown place (``mat = self.mat`` of an object given it by its caller,
    ``dist`` returned by another file's function) that the function makes tensors where it
    is: written as a name, or an item or a method's result of one (``mat[inds]``,
    ``mat.transpose(1, 2)``), of which the function makes
    tensors (``mat.new_empty(...)``), or such a tensor itself (``torch.ones_like(dist)``).
    The code follows its place, so it is not known to be on the CPU."""
    if v.places is not None or res.kind_of(v) not in (None, frozenset((Kind.TENSOR,))):
        return False
    node = _view_base(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        func = node.func
        base = func.value if func.attr in vocab.NEW_ON_RECEIVER else node.args[0] \
            if func.attr in vocab.LIKE_FACTORIES and node.args \
            and not any(k.arg in ("device", None) for k in node.keywords) else None
        like = res.value(base) if base is not None else None
        return like is not None and _from_outside(res, like, 0)
    named = res.value(node) if isinstance(node, ast.Name) else None
    return named is not None and isinstance(node, ast.Name) and _follows_place(res.node, node.id) \
        and (_from_outside(res, named, 0) or _rooted_outside(res, node.id, 0))


def _view_base(node: ast.AST) -> ast.AST:
    """The tensor an item or a method's result is taken from (``mat`` of ``mat[inds]`` and
    of ``mat.transpose(1, 2)``), down to a name or a ``new_*`` / ``*_like`` copy."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr not in vocab.NEW_ON_RECEIVER \
                and node.func.attr not in vocab.LIKE_FACTORIES:
            node = node.func.value
        else:
            return node


def _rooted_outside(res: ScopeResult, name: str, depth: int) -> bool:
    """Is local ``name`` bound only to views or items of a parameter or of ``self``'s data
    (``mat = self.mat.unsqueeze(0)``), followed through other locals bound so?"""
    stores = [n.value for n in ast.walk(res.node) if isinstance(n, ast.Assign)
              and any(_named(t, name) for t in n.targets)]
    if not stores or depth >= 3:
        return False
    for value in stores:
        root = value
        while isinstance(root, (ast.Subscript, ast.Attribute, ast.Call)):
            if isinstance(root, ast.Call):
                if not isinstance(root.func, ast.Attribute):
                    return False
                root = root.func
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if root.id not in res.params and not _rooted_outside(res, root.id, depth + 1):
            return False
    return True


def _from_outside(res: ScopeResult, v: Value, depth: int) -> bool:
    """Does ``v`` come from what the function was given (a parameter, ``self``'s data, a
    value on the device), also through calls the analysis cannot follow that were given
    such a value as an argument (``compute_distances(pos=pos)``)?  Not a value computed only from tensors
    the function itself made on the CPU (a test's ``normalizer.fit_transform(target)`` of
    a ``target`` sampled from ``torch.tensor([1.0, 1.0])``)."""
    if any(p.where in (Where.PARAM, Where.ATTR, Where.ACCEL) for p in v.places or ()) \
            or any(o.op is Op.PARAM for o in v.origins):
        return True
    if depth >= 4:
        return False
    for o in v.origins:
        call = o.node
        if o.op is not Op.RETURNED or not isinstance(call, ast.Call):
            continue
        inputs = [*call.args, *(k.value for k in call.keywords)]  # (not a receiver: an
        # object built from a test's options, ``TorchNormalizer(center=center)``)
        if any((w := res.value(a)) is not None and _from_outside(res, w, depth + 1) for a in inputs):
            return True
    return False


def _given_tensors_on_device(ff: FileFlow, res: ScopeResult, k: int, depth: int,
                             hints: bool) -> bool:
    """Parameter ``k``, of a kind its own uses do not tell (``len(lengths)``, ``zip(lengths,
    ...)``): does a call of the file give it a tensor that may be on the device (followed
    through the callers' parameters of unknown kind)?  Without calls, it is not known to be."""
    given = ff.run_arguments(res.node, k)
    if not given or depth >= 3 or _annotated_number(res.node, k):
        return False
    for other, caller, a in given:
        kinds = caller.kind_of(a)
        if kinds is None and a.places is not None:
            if a.may_live(Where.ACCEL) or any(p.where is Where.PARAM and _given_tensors_on_device(
                    other, caller, int(p.ref), depth + 1, hints) for p in a.places):
                return True
        elif kinds is not None and kinds & {Kind.TENSOR, Kind.BATCH} and a.places is not None \
                and _places_on_device(other, caller, a, depth + 1, hints):
            return True
    return False


_NUMBER_ANNOTATIONS = frozenset({"int", "float", "bool", "complex", "None", "Optional", "Union"})


def _followed_param(ff: FileFlow, res: ScopeResult, k: int) -> bool:
    """Parameter ``k``, of a kind its own uses do not tell, that no call of the file is
    given (a library's entry point), of which the function makes tensors where it is
    (``scores.new_zeros(n)``, ``w.type(scores.type())``): a tensor wherever its callers
    have it."""
    name = res.params[k] if k < len(res.params) else None
    return name is not None and name not in ("self", "cls") and not ff.run_arguments(res.node, k) \
        and not _annotated_number(res.node, k) and _follows_place(res.node, name, device_attr=False)


def _annotated_number(fn: ast.AST, k: int) -> bool:
    """Is parameter ``k`` annotated as a number (``fps: float | None``)?  Then a tensor some
    call gives it is a case the author did not mean, and the rule stays quiet."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    a = fn.args
    params = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs]
    note = params[k].annotation if k < len(params) else None
    if note is None:
        return False
    names = {n.id if isinstance(n, ast.Name) else "None" if isinstance(n, ast.Constant) and n.value is None
             else "?" for n in ast.walk(note) if isinstance(n, (ast.Name, ast.Constant, ast.Attribute))}
    return names <= _NUMBER_ANNOTATIONS and bool(names & {"int", "float", "bool", "complex"})


def _of_the_model(ff: FileFlow, res: ScopeResult, k: int) -> bool:
    """Parameter ``k`` is ``self`` of a module or an input of its ``forward``: it follows the
    model, which the structure of the code says (no annotation)."""
    cls = ff.method_of.get(id(res.node))
    name = getattr(res.node, "name", "")
    return cls is not None and cls.is_module and (k == 0 or name == "forward")


def _moved_to_match(res: ScopeResult, partner: ast.AST, made: Origin) -> bool:
    """Is the partner moved to where the factory's result is (``y.to(first.device)``,
    ``y.type_as(first)``, ``first`` holding the factory's result), or made there
    (``freqs = torch.arange(d, device=pos.device)`` with ``pos`` holding it)?"""
    for n in ast.walk(partner):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("to", "type_as")):
            continue
        if any(_holds(res, a, made) for a in [*n.args, *(k.value for k in n.keywords)]):
            return True
    return _made_on_its_device(res, partner, made)


def _holds(res: ScopeResult, a: ast.AST, made: Origin) -> bool:
    """Is ``a`` (or ``a.device``) a value that may hold the factory's result?"""
    base = a.value if isinstance(a, ast.Attribute) and a.attr == "device" else a
    v = res.value(base)
    return v is not None and any(o.node is made.node for o in v.origins)


def _made_on_its_device(res: ScopeResult, partner: ast.AST, made: Origin) -> bool:
    """Was every tensor the partner comes from made with ``device=<x>.device`` of an ``x``
    that holds the factory's result (or is that result)? Then both are where it is."""
    v = res.value(partner)
    if v is None:
        return False
    placing = [o for o in v.origins if o.op in _PLACING]
    return bool(placing) and all(
        o.node is made.node or isinstance(o.node, ast.Call) and o.op is Op.MADE and any(
            k.arg == "device" and isinstance(k.value, ast.Attribute) and _holds(res, k.value, made)
            for k in o.node.keywords)
        for o in placing)


def _meetings(ff: FileFlow, res: ScopeResult) -> Iterator[Meeting]:
    for m in res.meets.values():
        aug = isinstance(m.node, ast.AugAssign)
        yield Meeting(m.node, m.operands, written=aug)
    yield from _index_meetings(res)
    for w in index_writes(res):  # ``t[idx] = v``: ``v`` must be on ``t``'s device
        if _many_indices(ff, res, w.target.slice, 0) or isinstance(w.target.slice, ast.Tuple) and any(
                _many_indices(ff, res, x, 0) for x in w.target.slice.elts):
            yield Meeting(w.target, ((w.value, w.written), (w.target.value, w.base)),
                          first_only=True, stored=True)
    for c in res.calls.values():
        ops = _call_operands(res, c)
        if not ops:
            continue
        if c.callee is Callee.TORCH and c.qualname is not None:
            last = c.qualname.rsplit(".", 1)[-1]
            if c.qualname.count(".") == 1 and (last in _FACTORIES or last in _NOT_MEETINGS or last in _LEGACY) \
                    or last in vocab.CPU_ARGUMENTS or c.qualname in _SHAPES_ONLY:
                continue
            yield Meeting(c.node, ops, whole=tensor_bounds(res, c))
            if last in JOINING:  # ``torch.stack(his)`` of a list filled over time
                for a in c.node.args[:1]:
                    for h in held_together(res, a) if isinstance(a, ast.Name) else ():
                        yield Meeting(c.node, ((h.first, h.first_value), (h.later, h.later_value)),
                                      held=True)
        elif c.callee is Callee.METHOD and c.receiver is not None:
            func = c.node.func
            # (a move's device argument, a shape read from another tensor: no meeting)
            if c.qualname in _CROSS_DEVICE_METHODS or c.qualname in vocab.NO_MEETING or \
                    c.qualname in vocab.SIZE_METHODS or not isinstance(func, ast.Attribute):
                continue
            if Kind.TENSOR in (res.kind_of(c.receiver) or ()):
                in_place = c.qualname in _IN_PLACE
                yield Meeting(c.node, ((func.value, c.receiver), *ops), written=in_place,
                              whole=tensor_bounds(res, c))
            elif c.qualname not in vocab.MODULE_METHODS and c.qualname not in vocab.TENSOR_METHODS \
                    and _moved_model(res, c.receiver):
                if len(ops) > 1 and not isinstance(res.node, ast.Module):
                    yield Meeting(c.node, ops)
                weighed = _weighed_operands(ff, c, ops)
                if weighed:
                    yield Meeting(c.node, weighed, module=func.value)
        elif c.callee is Callee.FUNCTION and isinstance(c.node.func, ast.Attribute) and \
                (own := _own_module(ff, res, c.node.func.value)):
            weighed = _weighed_operands(ff, c, ops, own)  # ``self.score(b)``: as ``self.embed(b)``
            if weighed:
                yield Meeting(c.node, weighed, module=c.node.func.value)
        elif c.callee is Callee.MODULE:
            made = next((o for o in reversed(c.func.origins) if o.op is Op.MADE), None)
            if made is not None and made.text.split("(")[0].rsplit(".", 1)[-1] in vocab.CPU_ARGUMENTS:
                continue  # nn.CTCLoss()(log_probs, targets, lengths, ...)
            kept = {id(a) for a in _not_wanted_on_the_cpu(ff, res, c, [*c.node.args, *(
                k.value for k in c.node.keywords)])}
            ops = tuple(o for o in ops if id(o[0]) in kept or not _top_level(c.node, o[0]))
            unmet = unmet_inputs(ff, res, c)  # (a later input its forward is not shown to use there)
            ops = tuple(o for o in ops if not any(id(x) in unmet for x in _args_holding(c.node, o[0])))
            weights = _loss_tensors(res, c) if ops else ()  # (``nn.CrossEntropyLoss(weight=w)``)
            if (len(ops) > 1 or weights) and not _given_elsewhere(res, c.func) and _meets_its_arguments(res, c):
                yield Meeting(c.node, (*weights, *ops), presumed=_unread_module(ff, res, c))
            if _weights_may_be_on_device(ff, res, c.func):
                # (an input its forward moves where the module is meets no weights unmoved)
                ops = tuple(o for o in ops if not (_top_level(c.node, o[0]) and
                                                   forward_moves(ff, c.func, c.node, o[0])))
                if ops:
                    yield Meeting(c.node, ops, module=c.node.func)
        elif c.callee is Callee.UNRESOLVED and _injected_module(ff, res, c):
            yield Meeting(c.node, ops, module=c.node.func)


def _loss_tensors(res: ScopeResult, c: CallEvent) -> tuple[tuple[ast.AST, Value], ...]:
    """The tensors that the ``torch.nn`` loss ``c`` calls was built with in this scope and
    that its ``forward`` uses with the inputs (:mod:`~torchferry.check.flow.loss_weights`:
    ``crit = nn.CrossEntropyLoss(weight=w)``; ``crit(out, y)`` meets ``w``).  Only for a
    loss every make of which is such a class written out in this scope, and that the
    scope never moves: the loss is called there and never read otherwise (a move,
    ``crit.to(device)``, would take its buffers along, and so might a function it is
    handed to)."""
    origins = c.func.origins
    if not origins or any(o.op is not Op.MADE or o.path is not None or not isinstance(o.node, ast.Call)
                          or not o.text.startswith("torch.nn.") for o in origins):
        return ()
    if not _only_called(res.node, c.node.func):
        return ()
    return tuple((a, v) for o in origins for a in weight_arguments(
        o.node, o.text.split("(")[0].rsplit(".", 1)[-1]) if (v := res.value(a)) is not None)  # type: ignore[arg-type]


def _only_called(scope: ast.AST, func: ast.expr) -> bool:
    """Is ``func`` the construction itself (``nn.BCELoss(weight=w)(p, t)``) or a name that
    ``scope`` only calls (every reading of it is a call's function)?"""
    if isinstance(func, ast.Call):
        return True
    if not isinstance(func, ast.Name):
        return False
    called = {id(n.func) for n in ast.walk(scope) if isinstance(n, ast.Call)}
    return all(id(n) in called for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == func.id
               and isinstance(n.ctx, ast.Load))


def _meets_its_arguments(res: ScopeResult, c: CallEvent) -> bool:
    """Do the arguments of the module call ``c`` meet each other?  In a function, as they
    always have; in a script's statements at module level only for a ``torch.nn`` layer or
    loss (``criterion(out, label)``, ``rnn(x, h0)``), whose arguments do: a model of any
    other class may keep some on the CPU by design (the lengths it packs with)."""
    if not isinstance(res.node, ast.Module):
        return True
    made = next((o for o in reversed(c.func.origins) if o.op is Op.MADE), None)
    return made is not None and made.text.startswith("torch.nn.")


def _unread_module(ff: FileFlow, res: ScopeResult, c: CallEvent) -> bool:
    """Is the module that ``c`` calls one whose code the analysis cannot read: neither a
    ``torch.nn`` layer or loss nor a class of the run that built it (:meth:`FileFlow.classes_of`:
    in this file, or for a parameter what every call of the file passes)?  A model handed in
    from another file, or one of a library, may use an argument as an index into another
    (a CPU index reads a tensor on any device) or keep it on the CPU."""
    made = next((o for o in reversed(c.func.origins) if o.op is Op.MADE), None)
    if made is not None and made.text.startswith("torch.nn."):
        return False
    return not ff.classes_of(res, c.func)


def _injected_module(ff: FileFlow, res: ScopeResult, c: CallEvent) -> bool:
    """``self.transformer(z)`` in a method of a plain class whose ``__init__`` stores a
    parameter there, when every construction of the class in the run gives it a module
    with weights that may be on the device (``HGN(transformer=Net().to(device))``,
    :meth:`FileFlow.built_at`; a value of unknown kind moved to a device the code chose is a
    module of a class outside the files).  Not where another method stores the attribute
    too (``self.transformer = torch.load(...)``): :meth:`FileFlow.built_at` does not know it
    then."""
    func = c.node.func
    if not isinstance(func, ast.Attribute):
        return False
    built = ff.built_at(res, func, c.func)
    if built is None or not built.places or any(p.symbolic for p in built.places):
        return False
    if built.kinds is None:  # (moved to a device and called: a module, built outside the files)
        built = built._replace(kinds=frozenset((Kind.MODULE,)))
    return built.is_(Kind.MODULE) and _weights_may_be_on_device(ff, res, built)


def _moved_model(res: ScopeResult, v: Value) -> bool:
    """A model the code moved to a device (``policy.to(device)``), not known to be a
    tensor: the tensors a method of it is given (``policy.act(obs, hidden, masks)``) meet
    in its computation, as a module call's do.  (Not a method a tensor has: the receiver
    may be a tensor, ``x.scatter(0, index, src)``, whose own rules decide.)"""
    kinds = res.kind_of(v)
    return (kinds is None or kinds == {Kind.MODULE}) and v.may_live(Where.ACCEL) and \
        any(o.op is Op.MOVED for o in v.origins)


def _own_module(ff: FileFlow, res: ScopeResult, node: ast.expr) -> ClassInfo | None:
    """The module class of the run of whose method ``node`` is ``self``, if it is.  Its
    weights follow the model, as a submodule's do: what one of its methods hands to them
    (``self.score(batch)`` whose ``score`` runs ``self.embed(batch)``) meets them.  Not in
    a method that only constructors call (``self.forward(torch.zeros(shape)).shape``
    probed while a model is built, before any move), nor where the run's calls of the
    method give it a model that stays on the CPU (:func:`_param_on_device` of ``self``)."""
    if not isinstance(node, ast.Name) or node.id != "self" or not res.params or res.params[0] != "self":
        return None
    cls = ff.method_of.get(id(res.node))
    sites = ff.call_sites.get(id(res.node), {})
    if sites and all(_module_init(ff, c) or _object_init(ff, c) for c, _ in sites.values()):
        return None  # (a shape probe that constructors run: everything is on the CPU then)
    if cls is None or not cls.is_module or not _param_on_device(ff, res, 0, 0):
        return None  # (the run's calls give a model that is never moved: on the CPU)
    return cls


def _weighed_operands(ff: FileFlow, c: CallEvent, ops: tuple[tuple[ast.AST, Value], ...],
                      own: ClassInfo | None = None) -> tuple[tuple[ast.AST, Value], ...]:
    """The operands of ``model.method(...)``, a method of a module class of the run (the
    class ``own`` of ``self``, else the receiver's), that the method hands to the module's
    weights (:func:`weighed_params`: ``vae.inference(c=c)`` whose ``inference`` runs
    ``self.decoder(z, c)``)."""
    info = own or (ff.class_of(c.receiver) if c.receiver is not None and c.qualname else None)
    method = info.method(c.qualname) if info is not None and info.is_module and c.qualname else None
    if info is None or method is None or not c.qualname:
        return ()
    weighed = weighed_params(ff, info, c.qualname)
    bound = bound_arguments(c.node, param_names(method[1]))
    given = [bound[k] for k in weighed if k in bound]
    nodes = {id(x) for a in given for x in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])}
    return tuple(o for o in ops if id(o[0]) in nodes)


def _index_meetings(res: ScopeResult) -> Iterator[Meeting]:
    """``cpu[idx]`` and ``cpu[idx] = v`` with tensor indices (:func:`index_meetings`): only
    the indexed tensor can be at fault; and ``t[idx] = v``, where a ``v`` of one or more
    dimensions must be on ``t``'s device (:mod:`~torchferry.check.flow.stores`)."""
    for m in index_meetings(res):
        yield Meeting(m.node, (m.base, *m.indices), first_only=True)


def _args_holding(call: ast.Call, node: ast.AST) -> list[ast.expr]:
    """The arguments of ``call`` that are ``node`` or write it out as an item."""
    return [a for a in (*call.args, *(k.value for k in call.keywords))
            if a is node or isinstance(a, (ast.List, ast.Tuple)) and any(e is node for e in a.elts)]


def _top_level(call: ast.Call, node: ast.AST) -> bool:
    """Is ``node`` an argument of ``call`` itself (not an item of a list written in it)?"""
    return any(a is node for a in call.args) or any(k.value is node for k in call.keywords)


def _call_operands(res: ScopeResult, c: CallEvent) -> tuple[tuple[ast.AST, Value], ...]:
    """The call's arguments, the items of a list or tuple written out in it one by one."""
    out: list[tuple[ast.AST, Value]] = []
    last = c.qualname.rsplit(".", 1)[-1] if c.callee is Callee.TORCH and c.qualname else ""
    numbers = vocab.NUMBER_POSITIONS.get(last, frozenset())  # (``F.one_hot(t, n)``: ``n`` an int)
    nodes = [*(a for k, a in enumerate(c.node.args) if k not in numbers),
             *(k.value for k in c.node.keywords if k.arg is not None and not (
                 last and k.arg in vocab.NUMBER_KEYWORDS))]
    for a in nodes:
        items = a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a]
        for x in items:
            v = res.value(x)
            if v is not None and not isinstance(x, ast.Starred):
                out.extend((x, e) for e in _members(v))
    return tuple(out)


def _members(v: Value) -> list[Value]:
    """A value, or the items of a tuple or list of tensors (``self.lstm(x, (h0, c0))``)."""
    if v.elts is not None:
        return list(v.elts)
    if v.item is not None:
        return [v.item]
    return [v]


def _weights_may_be_on_device(ff: FileFlow, res: ScopeResult, module: Value) -> bool:
    """A module that follows the model (a submodule of ``self``) or was moved, and owns
    weights: its input must be where they are (not a data-parallel wrapper's, which it
    scatters to its devices)."""
    if not module.is_(Kind.MODULE) or not module.places or data_parallel(module):
        return False
    if not _places_on_device(ff, res, module, 0):
        return False
    made = next((o for o in reversed(module.origins) if o.op is Op.MADE), None)
    if made is None:  # loaded, built by a function, moved, or this function's parameter;
        # not a callable that another method was given and stored (``self.schedule_fn``)
        return not _given_elsewhere(res, module)
    if made.path is None and isinstance(made.node, ast.Call):
        # (a container of modules without weights: no; buffers alone do not count: a
        # module's forward may move its inputs to where they are, which is not followed)
        weights = builds_weights(ff, made.node, buffers=False)
        if weights is not None:
            return weights
    if made.text.startswith("torch.nn."):
        layer = made.text.split("(")[0].rsplit(".", 1)[-1]  # (``torch.nn.modules.rnn.LSTMCell``)
        return layer in vocab.PARAM_LAYERS or layer in vocab.CONTAINERS
    node = made.node
    if made.path is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = ff.definition(node.func.id)
        if isinstance(cls, ast.ClassDef):
            return holds_parameters(ff.class_info(cls), buffers=False)
    return True


def _given_elsewhere(res: ScopeResult, module: Value) -> bool:
    """A callable that only came in as a parameter of another method and was stored on
    ``self`` (``self.loss = loss`` in ``__init__``): nothing the file builds, loads, moves
    or returns, so neither its weights nor what it does with its arguments (a wrapped loss
    may move the labels to the embeddings' device) are known."""
    if any(o.op is Op.MADE for o in module.origins):
        return False
    fn = res.node
    return not any(o.op in (Op.LOADED, Op.RETURNED, Op.MOVED, Op.OUTPUT) or o.op is Op.PARAM
                   and (o.line, o.column) == (getattr(fn, "lineno", 0), getattr(fn, "col_offset", 0))
                   for o in module.origins)


def _finding(ctx: Context, home: ScopeResult, call: CallEvent, meet: Meeting,
             partner: ast.AST, res: ScopeResult, other: FileFlow | None = None,
             hop: Hop | None = None, level: Certainty = Certainty.MAY) -> Finding:
    """``other``: the file of the run where the tensor meets ``partner``, if not this one;
    ``hop``: the call that hands the tensor to the function where it meets it; ``level``:
    how sure it is that ``partner`` is on the accelerator (the message says so)."""
    fname = call.qualname
    named = hop.arg is not None and hop.caller is home if hop is not None else False
    input_name = (_local_name(home, hop.arg, home, call.node) if hop is not None and named
                  and hop.arg is not None else _local_name(home, partner, res, call.node)) \
        or _input_name(home, partner, res, ctx.flow, _data_names(call))
    # a module has no .device (only its parameters have one)
    weights = isinstance(partner, ast.Name) and partner.id == input_name and (
        partner is meet.module or partner.id in home.params
        and home.param_uses.get(home.params.index(partner.id)) is Kind.MODULE)
    device_of = f"next({input_name}.parameters()).device" if weights else f"{input_name}.device"
    legacy = fname is not None and fname[len("torch."):] in _LEGACY
    fix = None
    if input_name is not None and not legacy:  # (a legacy constructor refuses a device)
        edit = ctx.add_keyword(call.node, f"device={device_of}")
        if edit is not None:
            fix = Fix((edit,), False, f"Pass `device={device_of}`")
    where = f"device={device_of}" if input_name is not None else "device=<input>.device"
    if legacy:
        where = f"torch.tensor(..., dtype=..., {where})"
    text = (ctx.text(partner) if other is None else ast.unparse(partner))[:40]
    there = "" if other is None else f" in {os.path.basename(other.path)}"
    if hop is not None:
        there = f" in `{hop.callee}`{there}"
    made = "is always built on the CPU" if legacy else "without `device=` is built on the CPU"
    label = f"`{fname}(...)`"
    if tensor_class(call.func, call.node):  # ``type(t)(...)``: the class of a tensor
        label = f"`{ctx.text(call.node.func)[:40]}(...)` (`torch.Tensor`, the class of a tensor)"
    f = ctx.finding(
        CODE, call.node,
        f"{label} {made} but meets `{text}`{there}, which "
        f"{_placed(level, res, partner, meet)}; create it there: `{where}`",
        fix,
    )
    evidence = _evidence(ctx, call, meet, partner, text, other)
    if hop is not None:
        handed = Origin(Op.MADE, hop.call.lineno, hop.call.col_offset, "",
                        path=None if hop.at is ctx.flow else hop.at.path)
        evidence = (evidence[0], step(ctx, handed, f"it is handed to `{hop.callee}(...)` here"), *evidence[1:])
    return replace(f, evidence=evidence)


#: how the message says a layer of the module is where the module is
_OWN_LAYER = "is a layer of the module whose weights go wherever the module is moved"

_PLACED = {Certainty.MAY: "may be on an accelerator",
           Certainty.OWN_TENSOR: "is a tensor of the module and goes wherever the module is moved",
           Certainty.SURE: "the code puts on the accelerator when there is one"}


def _placed(level: Certainty, res: ScopeResult, partner: ast.AST, meet: Meeting) -> str:
    """How the message says the partner is on the accelerator: by ``level``, for a layer
    of the module (the module ``meet`` runs) that it is one, and for a parameter an
    optimizer updates (or its gradient), that it is where the model is."""
    if level is Certainty.OWN_TENSOR and partner is meet.module:
        return _OWN_LAYER
    v = res.value(partner)
    if level is Certainty.OWN_TENSOR and v is not None and optimizers.parameter(v):
        return ("is where the parameters the optimizer updates are (one, its gradient or a result of them), "
                "and goes wherever the model is moved")
    return _PLACED[level]


def _evidence(ctx: Context, call: CallEvent, meet: Meeting, partner: ast.AST,
              text: str, other: FileFlow | None = None) -> tuple[Evidence, ...]:
    made = Origin(Op.MADE, call.node.lineno, call.node.col_offset, "", node=call.node)
    why = "the model's weights" if meet.module is not None else "a tensor that may be on an accelerator"
    steps = [step(ctx, made, f"`{call.qualname}(...)` builds the tensor on the CPU here")]
    if other is None:
        steps.append(at(ctx, meet.node, f"it meets `{text}` ({why}) here"))
    else:  # (a line and column of the other file, as the analysis's origins give them)
        there = Origin(Op.MADE, getattr(meet.node, "lineno", 0), getattr(meet.node, "col_offset", 0),
                       "", path=other.path)
        steps.append(step(ctx, there, f"it meets `{text}` ({why}) here"))
    return tuple(steps)


def _data_names(call: CallEvent) -> frozenset[str]:
    """The names the data of ``torch.tensor(data)`` reads (``state`` of
    ``torch.tensor(state.reshape(1, -1))``): no tensor on a device, or the result would be
    there, so no device a fix may name."""
    if call.qualname not in ("torch.tensor", "torch.as_tensor") or not call.node.args:
        return frozenset()
    return frozenset(n.id for n in ast.walk(call.node.args[0]) if isinstance(n, ast.Name))


def _input_name(home: ScopeResult, partner: ast.AST, res: ScopeResult, ff: FileFlow,
                data: frozenset[str] = frozenset()) -> str | None:
    """The tensor whose device the fix names: the partner when it is a parameter of the
    factory's own function known as a tensor there, else the tensor parameter whose place
    the partner has, else that function's first tensor parameter (never one used as a
    module, nor one the factory's ``data`` reads; in an autograd ``backward``, a saved
    tensor it follows, never its context)."""
    if res is home and isinstance(partner, ast.Name) and partner.id in home.params:
        if _a_tensor(res.value(partner)) or \
                home.param_uses.get(home.params.index(partner.id)) in (Kind.TENSOR, Kind.MODULE):
            return partner.id  # (a module's device is read from its parameters)
    fn = home.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    # never a parameter used as a module (a model has no .device), however its outputs are placed
    tensors = [name for k, name in enumerate(home.params)
               if name not in ("self", "cls", *data) and home.param_uses.get(k) is not Kind.MODULE
               and (home.param_uses.get(k) is Kind.TENSOR or _hinted_tensor(fn, name, home))]
    v = res.value(partner) if res is home else None
    held = v.places or frozenset() if v is not None else frozenset()
    if home.params and home.params[0] in tensors and isinstance(fn, ast.FunctionDef) \
            and libfacts.autograd_backward(ff.method_of.get(id(fn)), fn):
        # (an autograd context has no device: its saved tensors, which the code follows, do)
        tensors.remove(home.params[0])
        if param(0) in held:
            return _saved_name(fn)
    # the parameter the partner is placed by, when there is one; else the first tensor parameter
    return next((n for n in tensors if param(home.params.index(n)) in held),
                tensors[0] if tensors else None)


def _saved_name(fn: ast.FunctionDef) -> str | None:
    """A saved tensor of an autograd ``backward`` whose place it follows, bound once (by
    its only store) and not rebound: the tensor whose device a fix may name."""
    for name in sorted(libfacts.saved_tensor_names(fn)):
        stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name
                  and isinstance(n.ctx, ast.Store)]
        if len(stores) == 1 and _follows_place(fn, name):
            return name
    return None


def _local_name(home: ScopeResult, partner: ast.AST, res: ScopeResult, factory: ast.AST) -> str | None:
    """The local name the partner is (``mat``), an item of (``mat[inds]``), a method's
    result of (``mat.reshape(n, n)``, ``mat.new_zeros(3)``) or is made like by a function
    of torch (``torch.ones_like(dist)``), when the factory's own function binds it only
    before the factory is called and it is surely a tensor there: the tensor whose device
    the fix names (never a number, ``n`` of ``reshape(n, n)``, which has no device)."""
    node = partner
    for _ in range(8):  # (``f1d[:, None].repeat(1, n, 1)``: an item, then a method's result)
        while isinstance(node, ast.Subscript):
            node = node.value
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            break
        f = node.func
        torch_fn = isinstance(f.value, ast.Name) and f.value.id == "torch"
        node = (node.args[0] if node.args else node) if torch_fn else \
            node if f.attr in vocab.MOVE_NAMES else f.value
        if torch_fn or f.attr in vocab.MOVE_NAMES:
            break
    if res is not home or not isinstance(node, ast.Name):
        return None
    if not _a_tensor(res.value(node)):
        return None
    stores = [n for n in ast.walk(home.node) if isinstance(n, ast.Name) and n.id == node.id
              and isinstance(n.ctx, ast.Store)]
    return node.id if stores and all(_pos(n) < _pos(factory) for n in stores) else None


def _a_tensor(v: Value | None) -> bool:
    """May a fix name ``v``'s ``.device``: a tensor, or a value that may be one and that
    the analysis places (a parameter its callers give tensors), never a number (no place)
    or a module (its parameters have a device, it has none)?"""
    if v is None or v.kinds is not None and Kind.TENSOR not in v.kinds:
        return False
    return v.is_(Kind.TENSOR) or v.kinds is None and v.known_places


def _hinted_tensor(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, home: ScopeResult) -> bool:
    k = home.params.index(name)
    for v in home.values.values():
        if v.places == {param(k)} and v.is_(Kind.TENSOR):
            return True
    return False
