"""NumPy, matplotlib, scikit-learn or SciPy on a tensor that may live on an accelerator.

## What it does
Flags `.numpy()`, `np.array(t)` / `np.asarray(t)` (any `numpy` function given the tensor),
and matplotlib, scikit-learn, seaborn or SciPy calls given a tensor (`spearmanr(preds,
labels)`, `ndimage.gaussian_filter(t)`: SciPy converts its arrays with NumPy; scikit-learn's by keyword
too: `accuracy_score(y_true=labels, y_pred=preds)`) that the device-flow analysis
establishes may live on an accelerator, with no `.cpu()` first: a tensor moved there
(`.to(device)`, `.cuda()`, on some path), made there (`device=device`), the output of a
module that was moved or built there (`model = Net().to(device)`, `self.model =
self.model.cuda()`; in a module's method, a layer of `self` where the run moves an owner
whose `__init__` makes the instance its submodule, `self.coupling = Coupling()`, also by
`self.blocks.append(Block())` of `self.blocks = nn.ModuleList()`), the output of a model given an input that a path moved there (`if
torch.cuda.is_available(): x = x.to("cuda")`, then `out = model(x)` of a model that came in as
a parameter: a model runs where its input is, or the call already fails; also where what the
other path holds is of unknown kind or place, but not where a path moves it elsewhere), the
output of a model that came in as a parameter, wherever its input is, where every call of
the run hands it a data-parallel wrapper the run put on the device (`validate(loader, model)`
of `model = nn.DataParallel(net).cuda()`: its forward gathers the output on its first
device), a
value of the `state_dict()` of such a module, or anything computed
from these, followed through names, containers, branches and the functions of the checked
files (a number grown by such tensors stays a number or a tensor through arithmetic with
numbers: `total = 0`, `total += loss`, then `100.0 * total / n`; a helper's parameter is of
the kind every call of the run passes it; a helper's return too, also called through a name bound to it: `loss_fn = llh`;
`net.forward(x)` is a module call; a method of `nn.Module` that returns the module and moves
nothing, `m.eval()`, `m.train()` or `m.zero_grad()` of a model handed in, tells only that
the parameter is a module: what its other methods return, `m.sample(5)`, is still where the
model is; a list grown with `append` keeps what it holds, so
`torch.cat(parts).numpy()` after a loop of appends is followed). A class of the run named `DataLoader`
that derives from no class so named is the run's own (`data_loader.data_iterator(data,
params)` of `class DataLoader(object)` is followed into that generator method: `next(it)`
and `for x, y in it` give what it yields, `.cuda()` on a path included, also in a function
that takes the generator object as a parameter, where every call of the run passes one
such object of a generator function of the run: `train(model, data_iterator)` reading
`next(data_iterator)`; a parameter some call gives anything else stays of unknown place); one that derives
from torch's stays a loader whose batches are of unknown place. What a callable the
analysis cannot see into returns (a function of another module, a callable held in an
attribute or given as a parameter: `boxes = decode(rois)`, `mu, var = self.encoder(x)`)
is taken to be on the accelerator where it is given a tensor that may be there, no tensor
on the CPU alone, no model and nothing that may say where to put its result (a device, a
string, `lambda t: t.cpu()`: `to_device(x, "cpu")` is a mover): a tensor computed from
tensors on the device is there too.
Its result is checked at `.numpy()` (which needs a tensor anyway) and, handed to a NumPy
function, only where torch made it a tensor since (`torch.clamp(decode(x), 0, 1)`). A list or tuple holding
such a tensor handed to NumPy
(`np.array([a, t * 100])`, `np.sum(final, 0)` where `final` got them through
`final.append(...)`, a list comprehension of losses of such tensors) is flagged too: NumPy
converts each item; so is a list of rows holding one (`targets.append([i, cls, conf])`, then
`np.array(targets)`). A value moved to a device the code chose whose kind the analysis does
not know (`o = o.to(dev)` of a parameter, `output = [o.to(dev) for o in output]`), an item
of it (`o[4]`, `for pred in o`, `for i, o in enumerate(output)`) or arithmetic on these
(`(box[2] - box[0]) / 640`) is a tensor where NumPy reads it (a module or an object of a
library is not handed to NumPy); an attribute or a method's result of it (`g.num_nodes`,
`pipe.decode(z)`) may be anything and is not followed. Plotting methods of matplotlib axes bound in the same scope from a
matplotlib call (`fig, ax = plt.subplots()`; `ax.imshow(t)`, `axes[1].plot(t)`,
`ax.quiver(...)`, `ax.tripcolor(...)`), or from a method of such an object (`ax =
fig.add_subplot(1, 1, 1)`, `twin = ax.twinx()`), and the data setters of its artists (`im =
ax.imshow(a)`; `im.set_data(t)`, `pc.set_array(t)` of `pc = PolyCollection(verts)`) count as
NumPy calls; so does the `data=` of `create_dataset`/`require_dataset` of an HDF5 file or group
bound in the same scope from h5py (`with h5py.File(path, "w") as f`, `g =
f.create_group("model")`), and the `video_array` (`audio_array`) of torchvision's
`write_video(path, frames, fps)`, which reads it with `.numpy()`, and the `data` of
soundfile's `write(path, data, samplerate)`, which reads it with `np.asarray`; so do the methods of
detectron2's `Visualizer` that read what they are given with NumPy, on an object built from
it (`v = Visualizer(img, meta)` in the same scope, or `Visualizer(img, meta).draw_sem_seg(t)`):
`draw_sem_seg(sem_seg)`, `draw_panoptic_seg(panoptic_seg, ...)` (and its older name
`draw_panoptic_seg_predictions`), and `draw_instance_predictions(predictions)`, given an
`Instances` moved to a device the code chose (`out["instances"].to(device)`), whose boxes,
masks and keypoints it converts (the fix for it is `.to("cpu")`; an `Instances` has no
`.cpu()`). The values of a dict the analysis knows (a dict literal,
`model.state_dict()`, also of a model handed in as a parameter, which the calls of the file
place) keep their kind and place through `.values()` and `.items()` (`for
name, w in model.state_dict().items(): np.save(name, w)`) and through a copy (`d.copy()`,
`dict(d)`, `dict(zip(names, tensors))`); a list kept in a dict local to the
scope (`hist = {"train": [], "val": []}`, `{}` grown with `d.setdefault(k, [])`,
`defaultdict(list)`) holds what `hist[phase].append(t)` adds. What a `torch.distributions`
object built from tensors computes (`Categorical(logits=t).sample()`, `dist.log_prob(a)`,
`dist.mean`) is where its parameters are. A torch function computes with its tensor
arguments only: a value given where its signature takes a number (`F.one_hot(t,
num_classes=model.n_classes)`, `torch.topk(t, model.k)`, `dim=`) puts nothing there. An attribute of an object of a
plain class of the run built in the file (`mesh = Mesh(nodes.to(device))`; `mesh.nodes`)
is what the class's `__init__` stores there, with the construction's arguments bound, and
what its other methods store (a list they fill with `append` or `self.slots[k] = t`
included). In the class's own methods, `self.scores` that only `__init__` (its own or a
base's) stores from its parameters (`self.scores = scores`) is what every construction of
the class in the run gives it (`Recorder(torch.zeros(n, device=device))`, in the class's file
or a file that imports it), when all of them are known (none where the class is named other
than in a construction or built in a function whose text neither makes nor moves a tensor).
A list kept on `self` of a class of the run (`self.maes = []` in `__init__`; a dict of
lists too, `self.per_step = {i: [] for i in range(3)}`) that a method fills (`self.maes.append(err.mean())`,
`self.per_step[i].append(t)`) holds, in the class's other methods, what any of its methods
appended (`np.mean(self.maes)` in `end`, whose own text neither makes nor moves a tensor);
not where the file stores that attribute on another object (`s.maes = list(history)`,
`s.maes.append(t)`), and an item of unknown kind appended anywhere leaves the list's items unknown.
Storing such a tensor into more than one element of a NumPy array made here
with a written-out shape (`g_loss = np.zeros((5000, 1))`; `g_loss[i] = loss`, `a[2:4] = t`)
is flagged too: NumPy converts it as an array. A store into one element (`a[i] = loss` of
a 1-D array) reads it with `float()`, which works on any device, and is not flagged.
So is a NumPy array indexed by such a tensor (`rev_idx[torch.multinomial(w, n)]`, also one
item of a tuple index, `a[mask, :]`): NumPy reads an index that is no integer as an array,
through `Tensor.__array__`, which is `.numpy()`. An index that may hold one element -- a
reduction without a dimension (`t.argmax()`), an item (`t[0]`), `torch.multinomial(w, 1)`
or `torch.topk(t, 1).indices` -- is read through `__index__`, which works on any device, and is not
flagged. A sample (`torch.multinomial`, `torch.bernoulli`, `torch.normal` of tensors) is
where the tensors it samples from are. In a file that sets a CUDA default device or tensor
type (`torch.set_default_device("cuda")`, `set_default_device(f"cuda:{rank}")`,
`set_default_tensor_type("torch.cuda.FloatTensor")` or `(torch.cuda.FloatTensor)`),
tensors and layers made without a device are on the GPU: in a script's or notebook's
top-level code only those made after the first such call (also when a function reads them:
`detection = maskrcnn_resnet50_fpn(...)` in a cell above the call, then
`detection([img])[0]["scores"].numpy()` in a function), in a function wherever it is
written (when it is called is not followed). A parameter is placed by the
calls of its function in the run (in the same file and, for a function defined at module
level, in the checked files that import its file: `show_filters(net.cuda())` in `main.py`
of a helper of `viz.py` that reads `network.conv1.weight.data.numpy()`): where one passes a tensor that may be on the
accelerator (`train(net, ...)` after `net.to(device)`, then `metrics.confusion_matrix(y,
net(x).max(1)[1])` in `train`), followed through the callers' own parameters, three calls
deep. An item taken by position from such a parameter as it came in (`audio, f0 = batch`,
`batch[0]`) is what each call passes at that position (`plot_batch((audio.to(device), f0))`:
`audio` may be on the accelerator, `f0` is on the CPU); of a list, only when every item is
a tensor that may be there; an item read by a literal key (`r["d"]`) is what each call's
dict, one the analysis knows, holds at that key (`h({"d": out, "n": 3})`; of a dict
comprehension, its values when one operation placed them all: `h({k: v.to(dev) for k, v
in sd.items()})`), and an item read by the key of a loop over the parameter's own keys
(`for k in theta.keys(): theta[k]`, also `theta.items()` and `tqdm(theta.keys())`) is any of
the values each call's dict holds. A helper defined at module level that neither makes nor moves
a tensor, that hands its data to NumPy, matplotlib, SciPy or scikit-learn, and that only
the run's other files call (a `utils/plot.py` that `train.py` imports) is checked with
their calls. In a method of an `nn.Module` class, what its submodules, parameters and buffers give
is on the accelerator where the file puts an instance of the class there (`model =
Net().to(device)`; or, when the file shows none, a checked file that imports it: the
training script that moves the model class of `model.py`), or where a method of the class, of a base or of a subclass moves its
own object (`if self.on_gpu: self.cuda()` in `build`); not in `__init__`, nor in a method
only `__init__` calls: the module is built on the CPU. The finding's evidence
names where the tensor (or its module) was moved or made, and where it reaches NumPy.

Quiet where the analysis does not establish it: a parameter (annotated `torch.Tensor` or
not) of a function no call of the run gives a tensor on the accelerator (the callers
decide where it lives, or whether it is a tensor at all), a model built on
the CPU and never moved here, a value brought home under a test on its device or on
the accelerator (`out = out.cpu() if out.is_cuda else out`, `if train_on_gpu: p = p.cpu()`;
also in a helper of the run, in this file or another: `cpu(out)` of `def cpu(t): return
t.cpu() if t.is_cuda else t`),
one arm of such a test whose other arm calls `.cpu()` (`t.numpy() if not train_on_gpu else
t.cpu().numpy()`) -- but not where an arm of the test moves the tensor to an accelerator (`p =
p.cuda() if gpu else p.cpu()` before `p.numpy()`, `t.cuda().numpy() if gpu else
t.cpu().numpy()`: flagged) --, an arm of an `isinstance` test that rules a tensor out (the
body of `if not isinstance(x, torch.Tensor)`, `torch.zeros_like(x) if isinstance(x,
torch.Tensor) else np.zeros_like(x)`: the test narrows the name it reads on each arm of an
`if` statement or a conditional expression, and after an `if` whose other arm ends), and the arm of a
test that left the module on the CPU: a class whose `__init__` moves it in one arm of
`if T:` and not in the other (`if self.training: self.net = Net().cuda()` / `else:
self.net = Net()`), read in the other arm of the same test in a method (the same text, up to
a leading `not`; `T` reading only constants, attributes of `self` that no other method
assigns, not `training` of an `nn.Module`, and module-level names no function rebinds). A
loop over a data
loader is taken to yield at least one batch: after `for x, y in loader: break` the names
hold the loader's CPU batch, not what they held before the loop.

## Why is this bad
"NumPy only understands CPU memory." `.numpy()` on a CUDA tensor raises "can't convert
cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory
first.", and matplotlib and scikit-learn call NumPy under the hood. The code works on a
CPU-only machine and crashes on the first GPU run. A model output that is still part of
the autograd graph also needs `.detach()` ("Can't call numpy() on Tensor that requires
grad").

## Example
```python
model = nn.Linear(4, 3).to(device)
out = model(x.to(device))
preds = out.argmax(dim=1).numpy()
plt.plot(out[0])
```

## Use instead
```python
model = nn.Linear(4, 3).to(device)
out = model(x.to(device))
preds = out.argmax(dim=1).cpu().numpy()
plt.plot(out[0].detach().cpu())
```

## Fix safety
Safe only where the value is a tensor by construction in the same scope: made there by a
torch factory (`torch.ones`, `torch.tensor`, ...) or a value of the `state_dict()` of a
`torch.nn` layer built there, and changed since only by operations that always return a
tensor (arithmetic with tensors or numbers written there, `.to()`, `.detach()`,
`.argmax()`...); for the receiver of `.numpy()` (which fails on anything else anyway) also
the output of a `torch.nn` layer built there. Then `.cpu()` is a no-op for a tensor already
on the CPU, and `.detach()` (added before it for a module output outside
`torch.no_grad()`) only drops the graph that NumPy cannot use anyway. Elsewhere the fix is
unsafe: a global, an attribute or a function's return may be a NumPy array, on which
`.cpu()` raises AttributeError. A list of tensors, or a value not known to be a tensor,
gets no fix (`torch.stack` would change what NumPy returns for ragged items).

## Known limits
A list kept on `self` is followed in the methods of its own class only (of the file that
defines it): one that a helper object of another class fills (`self.acc.add(loss)` of a
metric accumulator whose methods store into its own dict of lists) is not, nor a list
another file of the run stores on the object.
A library method that reads its arguments with NumPy is known only on an object built in the
same scope from the class (by its qualified name through the file's imports), never by the
method's name alone: a `Visualizer` kept on `self` or given as a parameter, and
detectron2's `VideoVisualizer`, are not followed. An index tensor of one element that its construction does not show (`idx[t]` where `t`
holds one element at run time) is flagged, although NumPy reads it as an integer. An
`isinstance` test narrows a plain name only (not `self.x` nor an item, `batch[0]`), and
not inside the test itself (`isinstance(x, torch.Tensor) and x.dim() > 1`) nor in a `while`
loop. What a method returns on an object that one of several classes of the run may have
built (`self.decoder = Att().to(d) if attention else Dec().to(d)`) is the join of what the
methods of the classes that take the call as written return (`self.decoder.step(i, h,
enc)`, where only `Att.step` takes three arguments: Python refuses it on a `Dec`, which
adds nothing); a class among them whose method is not one of the run (inherited from a
base outside it) leaves the result unknown. What such a call does to its arguments (moves
them, hands them on) is still read from one class only (that of the last construction, unless Python refuses the call on it). A moved value of unknown kind is followed through items by position or slice, loops,
`enumerate`/`zip` and arithmetic only: an item read by a key (`batch["x"]`), an attribute or
a method's result of it is not flagged, nor arithmetic with a value of unknown place (`(box[2]
- box[0]) / width` of a parameter `width`: a tensor on the CPU there would not matter, but the
analysis cannot place the result). A comparison of a parameter that the callers give a
tensor with numbers (`labels > 0.1`) is a tensor where that parameter is, as arithmetic is;
with a parameter given a Python number it is a bool, and a comparison of what an unknown
call returns (`model(x) > 0`) is not followed.
A loss of `torch.nn` built in the file with a reducing `reduction` (the default, `"mean"`,
`"sum"`) returns a 0-dimensional tensor; its read by a position (`loss.data[0]`,
`loss[0]`), an error on the tensors of today, is the old API's Python number, and sums of
it handed to NumPy or matplotlib are not flagged (`reduction="none"`, `reduce=`, a slice
or a loss of another make still are).
What a class of the run yields is followed through its `__iter__` (its `yield`s, the
container it returns, `map(self.to_cuda, iter(self.loader))` of a method that moves each
batch) and `__getitem__`, but not for an `nn.Module`, an `__iter__` returning `self`, or a
`yield from`.
What a helper of the run makes on the device of its argument (`device=seg.device`, written
in place or kept in a name, `device = seg.device`) is, for a call whose argument's place is
known, where that argument is (`class2one_hot(torch.Tensor(a)).numpy()` is not flagged); for
an argument of unknown place a device kept in a name reads as an accelerator, and the result
is flagged, unless the helper reads a property only a tensor has of that argument
(`len(grid.shape)`, `grid.ndim`) or calls a tensor's method on it: then a move to its device,
`x.to(grid.device)` or `device = grid.device` ... `x.to(device)`, puts `x` where the
caller's argument is, which is evidence of an accelerator only where that may be one (a
test method a decorator feeds, whose grid the analysis cannot see, is not flagged).
A value computed after a call of a module that Python refuses, in the same block (`out, a,
gt = model(x, exact_trace=True)` where no `forward` of the classes of the run the model may
be, by every call of the run, has that parameter nor `**kwargs`, and none defines its own
`__call__`), is never reached and is not flagged; a model that may be of a class the run
does not build (a loaded one, a wrapper) refuses nothing.  A helper's device parameter that a call leaves at its default `None`
(`def coo2tensor(coo, device=None): ... return t.to(device)`, called `coo2tensor(coo)`)
moves nothing at that call (`t.to(None)` keeps `t` where it is), nor where the call passes
`None` or hands on its own such parameter that its call leaves `None` (`def load(card,
device=None): return create(card, device=device)`, called `load(card)`); a default that is anything
else but `"cpu"`, or an argument of unknown value, reads as a device the code chose.
A tensor that comes in as a parameter is placed only by the calls of the run: one given
by a file that is not checked with it (`ferry check utils.py` alone, or a helper whose file
more than eight checked files import), a method's parameter given by another file, or an
input of a `forward` called as `model(x)`, is not flagged, whatever the callers pass; so a
tensor handed to such a helper (`plot_img(c.t().data)`, whose `plt.imshow` is in
`utils.py`) is flagged neither at the call nor in the helper. NumPy's and matplotlib's
keyword arguments are not checked (`np.average(a, weights=t)`), nor the indices of
`np.split` (read with `__index__`, which works on the device). A value that is on the accelerator on one path and of
unknown place on another (reassigned from a function of another module the analysis cannot
see, `real_o = post(o)` under `if use_post:`) is of unknown place after the join and not
flagged, unless it is known to be a tensor and the path that places it moved it to the
accelerator (a helper of another file that moves its input under `if gpu >= 0:` and returns
the gradients of a loss of it, called with `loader.collate_fn([z])`, which the analysis
cannot place: the move stays among its origins), (what a callable held in an attribute of `self` computes from a tensor on the
device is placed there by the analysis itself, through a helper's return and joins:
`o = self.fcn(img.cuda())` in `apply_fcn`, then `real_o = self.apply_fcn(o)` under `if
self.fcn:`); an attribute of `self` that every binding in the class's text (its bases' in the
run included) sets to one of the instance's own methods (`self.rl_loss = self.dqn_rl_loss` on
one branch of `__init__`, `self.dist_rl_loss` on the other, or `self.a if c else self.b`;
methods defined by a plain `def`) is a call of those methods, their results joined, so it is
quiet where each brings the result home; a binding of it in a subclass or in another file
of the run (`algo.rl_loss = f`) is not seen, while one in the same file outside the class,
a class-level value or any other value bound to it leaves the call unknown as before; what a model's output holds under a string key (`extra["preds"]` of `logits,
extra = model(x)`: a mapping, whose values may be NumPy arrays) is not known to be a tensor,
so handed to a NumPy function it is not flagged (`.numpy()` on it is), unless the model is
of a class of the run whose `forward` returns a dict with that key holding a tensor (written
out, or filled by `results["k"] = t` on some path): then the item, and its items
(`out["probs"][0, :n]`), are tensors where the output is; an item of a model's output
taken by position (`_, metric = metric_func(out, u)`, `metric_func(out, u)[1]`) is a Python
number, on no device, where the model is of classes of the run (built in the file, or, for
a parameter, what every call of the run passes, three calls deep, also through a function
handed to a function of the run that only calls it: `run_train(..., validate_epoch=validate)`
then `validate_epoch(model, metric_func, ...)`) whose every `forward` (undecorated; the
`__call__` that a class of the run defines in its place, where it has one) returns a tuple written out holding a number there
(`loss.sqrt().item()`); the callers of a function are followed only as for its other
parameters (not in a file that more than four files import, nor from files that reach it
through another module's star import, `from libs import *`: there the item is a tensor where
the output is, and a list of them is flagged), and a forward hook that replaces the output is
not seen; so is what a model of unknown class that the file never moves returns
(`self.Q(x)` of a model given to `__init__`) when handed to a NumPy function
(`np.asarray(self.Q(x))`), even given a tensor on the device: it is not known to be a
tensor. A callable the analysis cannot see that brings its result home (`to_cpu(x)` of a
module left out of the run) is taken to return it on the device: check the files that
define it in the same run. A model handed
to a call the analysis cannot follow (`trainer.fit(model)`) is not taken as moved. A model
attribute that is `None` on one path (`self.model = None` in `__init__`) and a module moved
to the device on another is called as that module (the `None` path raises at the call):
its output is on the device; not where the other path holds an object of a plain class of
the run, which may bring its results home.  A function that mentions no device,
move or factory is interpreted only where an interpreted scope calls it (`np.array(model(x))`
in a function only the module's code or another file calls, of a global moved model, is
missed). What a module's method returns (`pipe.decode_latents(z)`, often a NumPy
array) is not taken for a tensor when handed to a NumPy function, even where it is one.
The first argument of `np.ones`/`np.zeros`/`np.full`/`np.arange`... is a shape or a count
and is not checked. pandas calls, and axes that come in as a parameter or from another
function, are not checked; nor is an HDF5 file or group given as a parameter
(`save_params(destination, name, t)` with `destination.create_dataset(name, data=t)`), nor
an item store into one (`f[path][...] = t`). Tensors a library's code is handed from
outside (a method's parameters, attributes a base class of another file sets: a mesh's
`self.nodes` given to `ax.tricontourf`) are of no known place and not flagged. A store into a NumPy array is checked only where the array is
made in the same scope by `np.zeros`/`np.ones`/`np.empty`/`np.full` with its shape written
out (or the index holds a slice); an array that comes from elsewhere, or whose shape is a
variable, is not. The arms of a test are related only in that structural case: a test
that another method may change, a test written differently, or a use after an early
`return` in the other arm (not under an `else`) is reported.  A read in an arm that no call
of the run takes (`if not to_tensor:` of a parameter every call leaves at its default
`True`) is not reported, as for every default rule; a helper the run never calls
(`get_grid(..., dtype="torch", device="cpu")` with `if dtype == "numpy": grid.numpy()`) is
reported all the same: its callers are outside the run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import replace

from torchferry.check.api import Context, Evidence, Finding, Fix, walk
from torchferry.check.flow import (
    ACCEL,
    CPU,
    Basis,
    Callee,
    CallEvent,
    Kind,
    Op,
    Origin,
    ScopeResult,
    Value,
)
from torchferry.check.flow.arms import other_arm_of_move
from torchferry.check.flow.carried import carried_move
from torchferry.check.flow.evidence import at, step, where
from torchferry.check.flow.lattice import UNKNOWN, element
from torchferry.check.flow.libfacts import (
    NUMPY_CONSUMER_CLASSES,
    NUMPY_CONSUMER_METHODS,
    NumpyConsumer,
    numpy_consumer,
    numpy_function,
)
from torchferry.check.flow.queries import gathered_output
from torchferry.check.flow.refused import after_one, refused_statements
from torchferry.check.flow.safety import tensor_by_construction
from torchferry.check.flow.vocab import REDUCTIONS
from torchferry.check.names import BODY_FIELDS, needs_parens, short

CODE = "FRY003"
_TENSOR = frozenset((Kind.TENSOR,))
NAME = "numpy-on-accelerator"
FIX = "safe"

_LIBS = ("numpy.", "matplotlib.", "sklearn.", "seaborn.", "scipy.")
# numpy functions that look at an object's type or shape, never its memory
_NO_DATA = frozenset({"isscalar", "ndim", "shape", "size", "iscomplexobj", "isrealobj",
                      "result_type", "dtype", "can_cast", "issubdtype", "isinstance"})
#: numpy functions whose first argument is a shape or a count (read with ``__index__``,
#: which works on a device scalar too)
_SHAPE_FIRST = frozenset({"ones", "zeros", "empty", "full", "eye", "identity", "arange", "tri"})
#: numpy functions whose second argument is a count or indices (``np.split(a, batch.ptr[1:])``
#: slices with each item's ``__index__``, which works on a device tensor too)
_INDICES_SECOND = frozenset({"split", "array_split", "hsplit", "vsplit", "dsplit"})
#: a CUDA default device or tensor type: a string (``"cuda"``, ``f"cuda:{rank}"``,
#: ``"torch.cuda.FloatTensor"``) or the legacy type itself (``torch.cuda.FloatTensor``)
_CUDA_DEFAULT = re.compile(
    r"set_default_(tensor_type|device)\(\s*(f?['\"](torch\.)?cuda|torch\.cuda\.\w*Tensor\b)")
#: a test on where a value lives, or on whether an accelerator is used (``train_on_gpu``,
#: ``torch.cuda.is_available()``, ``use_cuda``, ``args.device``)
_DEVICE_TEST = re.compile(r"is_cuda|device|get_device|is_cpu|cuda|gpu|accel|mps|xpu", re.I)
_LOSS = re.compile(r"loss|criterion", re.I)
_NO_GRAD = ("no_grad", "inference_mode")
#: methods whose result never requires grad (indices, comparisons, integer casts)
_NO_GRAD_RESULT = frozenset({"argmax", "argmin", "eq", "ne", "lt", "le", "gt", "ge", "long",
                             "int", "bool", "argsort", "isnan", "isinf", "isfinite"})


#: what the text of a helper that hands its parameters to NumPy mentions (plain substrings)
_HELPER_SINKS = ("np.", "numpy.", "plt.", ".plot(", ".imshow(", ".scatter(", ".hist(", "sklearn", "scipy")


def check(ctx: Context) -> Iterable[Finding]:
    cuda_default = _cuda_default_line(ctx.source)
    stores = _item_stores(ctx.tree) if "numpy" in ctx.source else []
    # every scope first: a method's ``self`` is placed by the instances the file moves;
    # then also the helpers interpreted for their callers (their text names no device)
    scopes = list(ctx.flow.results())
    seen = {id(r) for r in scopes}
    scopes += [r for r in ctx.flow.interpreted() if id(r) not in seen]
    # and the helpers only the run's other files call, which hand their parameters to NumPy
    seen = {id(r) for r in scopes}
    scopes += [r for r in ctx.flow.called_from_run(_HELPER_SINKS) if id(r) not in seen]
    for res in scopes:
        refused_at = refused_statements(ctx.flow, res)
        for call in res.calls.values():
            if after_one(res.node, refused_at, call.node) is not None:
                continue  # (a call of a module that Python refuses comes first: never reached)
            for node, v, what in _handed_to_numpy(ctx, res, call):
                found = _tensor_finding(ctx, res, call, node, v, what, cuda_default) or \
                    _list_finding(ctx, res, call, node, v, what)
                if found is not None:
                    yield found
        if stores:
            yield from _stored_into_arrays(ctx, res, stores, cuda_default)
        if "numpy" in ctx.source:
            yield from _indexed_arrays(ctx, res, cuda_default)


def _handed_to_numpy(ctx: Context, res: ScopeResult,
                     call: CallEvent) -> Iterable[tuple[ast.expr, Value, str]]:
    """The values a call hands to NumPy: the receiver of ``.numpy()`` (no ``force=True``),
    the positional arguments of a NumPy, matplotlib, scikit-learn, seaborn or SciPy function and
    of a plotting method of matplotlib axes (``ax.imshow(t)``) but a shape or a count (the
    first of ``np.zeros``, the indices of ``np.split``), and the keyword arguments of a
    scikit-learn function (``y_true=``, ``X=``: array-likes it converts; NumPy's and
    matplotlib's keywords are often numbers, ``indices_or_sections=``, ``linewidth=``)."""
    node = call.node
    if _numpy_method(call):
        if isinstance(node.func, ast.Attribute) and not node.args and not node.keywords \
                and call.receiver is not None:
            yield node.func.value, call.receiver, f"`{short(ctx.text(node))}`"
        return
    h5 = _h5_data(ctx, res, node)
    kv = call.keyword("data") if h5 is not None else None
    if h5 is not None and kv is not None:
        yield h5.value, kv, f"`{short(ctx.text(node.func), 30)}(...)` on `data=`"
        return
    q = call.qualname or ""
    reader = numpy_function(q) or _library_consumer(ctx, res, node)
    if reader is not None:
        yield from _sink_arguments(ctx, call, (reader.positions, reader.keywords))
        return
    if not q.startswith(_LIBS) and not _plot_on_axes(ctx, res, node) or \
            q.rsplit(".", 1)[-1] in _NO_DATA:
        return
    fn = short(ctx.text(node.func), 30)
    name = q.rsplit(".", 1)[-1]
    shape_first = name in _SHAPE_FIRST
    for k, (a, v) in enumerate(zip(node.args, call.args, strict=False)):
        if k == 0 and shape_first or k == 1 and q == f"numpy.{name}" and name in _INDICES_SECOND:
            continue  # ``np.ones((t.size(0), 1))``: a shape or a count, read as ints
        if not isinstance(a, ast.Starred):
            yield a, v, f"`{fn}(...)` on `{short(ctx.text(a), 40)}`"
    if not q.startswith("sklearn."):
        return
    for kw in node.keywords:  # ``accuracy_score(y_true=labels, y_pred=preds)``: data too
        kv = call.keyword(kw.arg) if kw.arg is not None else None
        if kv is not None:
            yield kw.value, kv, f"`{fn}(...)` on `{kw.arg}={short(ctx.text(kw.value), 40)}`"


def _sink_arguments(ctx: Context, call: CallEvent, sink: tuple[frozenset[int], frozenset[str]]
                    ) -> Iterable[tuple[ast.expr, Value, str]]:
    """The arguments of a call of a library function or method that it converts
    (:data:`~torchferry.check.flow.libfacts.NUMPY_FUNCTIONS`,
    :data:`~torchferry.check.flow.libfacts.NUMPY_CONSUMERS`)."""
    node, (positions, keywords) = call.node, sink
    fn = short(ctx.text(node.func), 30)
    for k, (a, v) in enumerate(zip(node.args, call.args, strict=False)):
        if isinstance(a, ast.Starred):
            return
        if k in positions:
            yield a, v, f"`{fn}(...)` on `{short(ctx.text(a), 40)}`"
    for kw in node.keywords:
        kv = call.keyword(kw.arg) if kw.arg in keywords else None
        if kw.arg is not None and kv is not None:
            yield kw.value, kv, f"`{fn}(...)` on `{kw.arg}={short(ctx.text(kw.value), 40)}`"


def _library_consumer(ctx: Context, res: ScopeResult, node: ast.Call) -> NumpyConsumer | None:
    """``v.draw_sem_seg(t)`` where ``v`` is an object of a library class whose method hands
    its arguments to NumPy (:data:`~torchferry.check.flow.libfacts.NUMPY_CONSUMERS`): built
    by the call's own receiver (``Visualizer(img).draw_sem_seg(t)``), or a name that every
    binding in this scope binds to such a construction (``v = Visualizer(img, meta)``)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in NUMPY_CONSUMER_METHODS:
        return None
    cls = _constructed_class(ctx, res, func.value)
    return numpy_consumer(cls, func.attr) if cls is not None else None


def _constructed_class(ctx: Context, res: ScopeResult, recv: ast.expr) -> str | None:
    """The consumer class (:data:`~torchferry.check.flow.libfacts.NUMPY_CONSUMER_CLASSES`)
    that ``recv`` is built by: a call of it, or a name bound in this scope only so."""
    if isinstance(recv, ast.Call):
        q = ctx.flow.qualname(recv.func)
        return q if q in NUMPY_CONSUMER_CLASSES else None
    if not isinstance(recv, ast.Name):
        return None
    stores = [n for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == recv.id
              and not isinstance(n.ctx, ast.Load)]
    values = [st.value for st in ast.walk(res.node) if isinstance(st, ast.Assign)
              and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
              and st.targets[0].id == recv.id]
    if not stores or len(values) != len(stores) or not all(isinstance(v, ast.Call) for v in values):
        return None
    classes = {ctx.flow.qualname(v.func) for v in values if isinstance(v, ast.Call)}
    cls = classes.pop() if len(classes) == 1 else None
    return cls if cls in NUMPY_CONSUMER_CLASSES else None


def _numpy_method(call: CallEvent) -> bool:
    """``t.numpy()``."""
    return call.callee is Callee.METHOD and call.qualname == "numpy"


#: plotting methods of matplotlib axes that convert their data arguments with NumPy
_PLOTS = frozenset({"imshow", "plot", "scatter", "hist", "bar", "barh", "matshow", "contour",
                    "contourf", "pcolormesh", "errorbar", "fill_between", "step", "stem",
                    "quiver", "barbs", "streamplot", "tricontour", "tricontourf", "tripcolor",
                    "triplot", "pcolor", "hexbin", "hist2d", "fill", "fill_betweenx",
                    "stackplot", "stairs", "boxplot", "violinplot", "pie", "loglog",
                    "semilogx", "semilogy", "vlines", "hlines", "eventplot", "spy",
                    # artists' data setters (``im.set_data(t)``, ``pc.set_array(t)``)
                    "set_data", "set_array", "set_xdata", "set_ydata", "set_offsets",
                    "set_UVC", "set_verts", "set_segments"})


def _plot_on_axes(ctx: Context, res: ScopeResult, node: ast.Call) -> bool:
    """``ax.imshow(t)``, ``axes[0, 1].plot(t)``, ``im.set_data(t)`` where ``ax`` (``axes``,
    ``im``) was bound in this scope from matplotlib (see :func:`_axes_names`)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in _PLOTS:
        return False
    base = func.value
    while isinstance(base, ast.Subscript):
        base = base.value
    return isinstance(base, ast.Name) and base.id in _axes_names(ctx, res)


def _axes_names(ctx: Context, res: ScopeResult) -> set[str]:
    """Names this scope binds from a call of matplotlib (``fig, ax = plt.subplots()``,
    ``pc = PolyCollection(verts)``), or from a call of a method of such a name, or of an
    item of one (``ax = fig.add_subplot(1, 1, 1)``, ``im = ax.imshow(a)``, ``axes[0].twinx()``),
    asked only at a plotting call."""
    return _bound_from(ctx, res, "matplotlib.")


def _bound_from(ctx: Context, res: ScopeResult, lib: str) -> set[str]:
    """Names this scope binds (``=`` or ``with ... as``) from a call of the library ``lib``
    (a qualified-name prefix), or from a call of a method of such a name or of an item of one."""
    binds: list[tuple[ast.Call, list[ast.expr]]] = [
        (st.value, st.targets) for st in ast.walk(res.node)
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)]
    binds += [(it.context_expr, [it.optional_vars]) for st in ast.walk(res.node)
              if isinstance(st, (ast.With, ast.AsyncWith)) for it in st.items
              if isinstance(it.context_expr, ast.Call) and it.optional_vars is not None]
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for call, targets in binds:
            if not (ctx.flow.qualname(call.func) or "").startswith(lib) and \
                    _receiver_name(call.func) not in found:
                continue
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            grown |= not names <= found
            found |= names
    return found


#: methods of an HDF5 file or group that store their ``data=`` with NumPy
_H5_WRITES = frozenset({"create_dataset", "require_dataset"})


def _h5_data(ctx: Context, res: ScopeResult, node: ast.Call) -> ast.keyword | None:
    """The ``data=`` of ``f.create_dataset("w", data=t)`` where ``f`` (a group of it) was
    bound in this scope from h5py (``with h5py.File(path, "w") as f``)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in _H5_WRITES:
        return None
    kw = next((k for k in node.keywords if k.arg == "data"), None)
    if kw is None or _receiver_name(func) not in _bound_from(ctx, res, "h5py."):
        return None
    return kw


def _receiver_name(func: ast.expr) -> str | None:
    """``fig`` of ``fig.add_subplot``, ``axes`` of ``axes[0].twinx``; None for anything else."""
    if not isinstance(func, ast.Attribute):
        return None
    base = func.value
    while isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def _cuda_default_line(source: str) -> int | None:
    """The line of the first call that sets a CUDA default device or tensor type, or None.

    >>> _cuda_default_line("import torch\\nx = torch.ones(2)\\ntorch.set_default_device('cuda')\\n")
    3
    >>> _cuda_default_line("import torch\\n") is None
    True
    """
    m = _CUDA_DEFAULT.search(source)
    return source.count("\n", 0, m.start()) + 1 if m else None


def _on_device(res: ScopeResult, v: Value, cuda_default: int | None = None,
               tensor: bool = True, ctx: Context | None = None) -> Origin | None:
    """Where the analysis establishes that ``v`` may be on an accelerator (moved there, made
    there, the output of a module that is there), or None: not established.  With
    ``tensor`` (a value handed to a NumPy function, which takes arrays as well), only a
    value shown to be a tensor counts: what a module's method returns (``pipe.decode(z)``,
    a NumPy video) is of unknown kind."""
    v = _through_get(res, v)
    if v.kinds is None and tensor or v.kinds is not None and not v.kinds & {Kind.TENSOR, Kind.BATCH}:
        return None
    if tensor and v.kinds is not None and Kind.NDARRAY in v.kinds:
        return None  # (``extra["preds"]`` of a model's output: maybe a NumPy array already)
    if v.places is None and v.is_(Kind.TENSOR):
        return _moved_input(v)  # (a tensor a path moved there, joined with one of unknown place)
    if not v.places:
        return None  # unknown: not established
    gathered = gathered_output(ctx.flow, res, v) if ctx is not None else None
    if gathered is not None:
        return gathered  # (a data-parallel wrapper's output: on its first device)
    if ACCEL in v.places:
        if CPU in v.places and (_home_under_device_test(res, v) or
                                ctx is not None and _brought_home_elsewhere(ctx, v)):
            return None
        return _fed_from_device(res, v) or _device_origin(v)
    fed = _fed_from_device(res, v)
    if fed is not None:
        return fed
    if cuda_default and v.places == {CPU} and not any(o.op is Op.MOVED for o in v.origins):
        o = next((o for o in v.origins if o.op is Op.MADE), None) or \
            next((o for o in v.origins if o.op is Op.OUTPUT), None)
        if o is not None and o.path is None and o.line < cuda_default and (
                isinstance(res.node, ast.Module) or ctx is not None and _in_script_code(ctx.tree, o.line)):
            return None  # (made by the script's own code before the default is set: on the CPU)
        return o
    return None


def _in_script_code(tree: ast.Module, line: int) -> bool:
    """Is ``line`` inside a top-level statement that is no definition, code that runs once,
    in the order of the file (a model a function uses, built by the script before it sets a
    CUDA default, is on the CPU whenever the function runs)?

    >>> tree = ast.parse("import torch\\nm = f()\\ndef g():\\n    return m(1)\\n")
    >>> _in_script_code(tree, 2), _in_script_code(tree, 4)
    (True, False)
    """
    for st in tree.body:
        if st.lineno <= line <= (st.end_lineno or st.lineno):
            return not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    return False


def _fed_from_device(res: ScopeResult, v: Value) -> Origin | None:
    """The output of a module call (its latest origin) given a tensor that may be on the
    accelerator: the output is there too (or the call already fails, weights on the CPU)."""
    if not v.origins or v.origins[0].op is not Op.OUTPUT:
        return None
    call = res.calls.get(id(v.origins[0].node))
    if call is None or call.callee is not Callee.MODULE:
        return None
    for a in call.args:
        moved = _moved_input(a)
        if moved is not None:
            return moved
    return None


def _moved_input(a: Value) -> Origin | None:
    """Where an input of a module call may have been put on the accelerator: a tensor
    placed there, or a value of unknown kind that one path moved there (``x =
    transform(img)``, then ``if torch.cuda.is_available(): x = x.to("cuda")``: the join
    with the unplaced arm leaves the place unknown, but the move stays among its origins).
    A model, a number or a container is no input that places the output; nor is a value
    that a path may have moved elsewhere (to the CPU, or to a device the analysis cannot
    place) while its place is unknown."""
    if a.kinds is not None and a.kinds != {Kind.TENSOR}:
        return None
    if a.places:
        return _device_origin(a) if ACCEL in a.places else None
    moves = [o for o in a.origins if o.op is Op.MOVED]
    if a.places is not None or not moves or \
            any(o.to is None or ACCEL not in o.to for o in moves):
        return None
    return moves[0]


def _device_origin(v: Value) -> Origin | None:
    """The move to an accelerator, else the output or the construction that put it there."""
    for o in v.origins:
        if o.op is Op.MOVED and o.to is not None and ACCEL in o.to:
            return o
    return next((o for o in v.origins if o.op is Op.MADE), None) or \
        next((o for o in v.origins if o.op is Op.OUTPUT), None)


def _through_get(res: ScopeResult, v: Value) -> Value:
    """An unknown result the analysis can still place: ``state_dict().get("bias")`` (an item
    of the dict the call was made on), ``self.model(data)`` of a model of unknown class
    that was moved to an accelerator (``self.model = self.model.cuda()``): its output; what
    a callable the analysis cannot see returns when given a tensor on the accelerator (see
    :func:`_out_of_unseen_call`)."""
    fed = _out_of_unseen_call(res, v)
    if fed is not None:
        return fed
    if v.kinds is not None or len(v.origins) != 1:
        return v
    node = v.origins[0].node
    call = res.calls.get(id(node)) if isinstance(node, ast.Call) else None
    if call is None:
        return v
    if isinstance(call.node.func, ast.Attribute) and call.node.func.attr in ("get", "pop") and \
            call.receiver is not None:
        return element(call.receiver, None)
    moved = _device_origin(call.func) if call.callee is Callee.UNRESOLVED else None
    if moved is not None and moved.op is Op.MOVED:
        out = v.origins[0]._replace(op=Op.OUTPUT)
        return Value(None, frozenset((ACCEL,)), (out, moved), Basis.INFERRED)
    return v


def _out_of_unseen_call(res: ScopeResult, v: Value) -> Value | None:
    """``post(x).numpy()``, ``y = self.fcn(x).detach()`` where ``x`` may be on the
    accelerator and ``post`` (``self.fcn``) is a function of another module or a callable
    the analysis cannot see into: a tensor computed from tensors on the accelerator is
    there too, so its result is taken to be there.  Only a callable of unknown kind (not
    an instance of a plain class of the run, which has no ``__call__``), only a value whose
    one origin is that call and whose place nothing else decides; only where a tensor
    argument may be on the accelerator, none is known to be on the CPU alone (``post(x,
    t.cpu())``), none is a model (``predict(model, x)`` may run it and bring its outputs
    home) and none may say where to put the result (see :func:`_may_be_a_target`)."""
    if v.places is not None or len(v.origins) != 1 or v.origins[0].op is not Op.RETURNED or \
            v.kinds is not None and v.kinds != {Kind.TENSOR}:
        return None
    node = v.origins[0].node
    call = res.calls.get(id(node)) if isinstance(node, ast.Call) else None
    if call is None or call.callee is not Callee.UNRESOLVED or call.func.kinds is not None:
        return None  # (an instance of a plain class of the run: calling it raises)
    given = [*call.args, *(kv for _, kv in call.keywords)]
    if _may_be_a_target(call):
        return None
    tensors = [a for a in given if a.kinds and a.kinds <= {Kind.TENSOR, Kind.BATCH}]
    if any(a.places is None or a.places == {CPU} for a in tensors) or \
            any(a.may_be(Kind.MODULE) for a in given if a.kinds is not None):
        return None  # given a model too: it may run it and bring the results home
    moved = next((o for a in tensors if ACCEL in (a.places or ())
                  if (o := _device_origin(a)) is not None), None)
    if moved is None:
        return None
    return Value(v.kinds, frozenset((ACCEL,)), (v.origins[0], moved), Basis.INFERRED)


#: an argument that may tell a mover where to put its result (``to_device(x, device)``,
#: ``move_data_to_device(x, "cpu")``, ``apply_to_collection(x, Tensor, lambda t: t.cpu())``)
_TARGET = re.compile(r"device|cpu|cuda|gpu|map_location|numpy", re.I)


def _may_be_a_target(call: CallEvent) -> bool:
    """Is an argument of ``call`` a device, a string, or another value but a tensor whose
    text or keyword names a device (a mover's target: its result is there, not where its
    tensor was)?  A guard that keeps the rule quiet, never a fact it reports."""
    node = call.node
    parts = [*zip(node.args, call.args, strict=False),
             *((k.value, (call.keyword(k.arg) if k.arg else None) or UNKNOWN)
               for k in node.keywords)]
    for a, v in parts:
        if isinstance(a, ast.Constant) and isinstance(a.value, str) or \
                v.kinds is not None and Kind.DEVICE in v.kinds or \
                not (v.kinds and v.kinds <= {Kind.TENSOR, Kind.BATCH}) and \
                _TARGET.search(ast.unparse(a)):
            return True
    return any(k.arg is not None and _TARGET.search(k.arg) for k in node.keywords)


def _home_under_device_test(res: ScopeResult, v: Value) -> bool:
    """``out = out.cpu() if out.is_cuda else out``: the value is brought home wherever a
    test on its device says it is elsewhere (CPU on one arm, untouched on the other)."""
    homes = {id(o.node) for o in v.origins if o.op is Op.MOVED and o.to == {CPU}}
    if not homes:
        return False
    away = _moves_to_accelerator(v)
    for n in ast.walk(res.node):
        if isinstance(n, (ast.IfExp, ast.If)) and _DEVICE_TEST.search(ast.unparse(n.test)):
            arms = [n.body, n.orelse] if isinstance(n, ast.IfExp) else [*n.body, *n.orelse]
            inside = {id(x) for arm in arms for x in ast.walk(arm)}
            if homes & inside and not away & inside:
                return True  # (``x.cuda() if gpu else x.cpu()``: one arm sends it away)
    return False


def _brought_home_elsewhere(ctx: Context, v: Value) -> bool:
    """``cpu(out)`` of a helper of the run (``def cpu(t): return t.cpu() if t.is_cuda else
    t``, in this file or another): a move home among ``v``'s origins written in an arm of
    a test on the device, in a scope other than the site's, whose arms move nothing of
    ``v`` to an accelerator only -- as :func:`_home_under_device_test`, found by position
    in the file the move was written in."""
    homes = [o for o in v.origins if o.op is Op.MOVED and o.to == {CPU}]
    away = [o for o in v.origins if o.op is Op.MOVED and o.to is not None and ACCEL in o.to
            and CPU not in o.to]
    for o in homes:
        tree = _tree_of(ctx, o.path)
        for n in ast.walk(tree) if tree is not None else ():
            if not isinstance(n, (ast.IfExp, ast.If)) or \
                    not _DEVICE_TEST.search(ast.unparse(n.test)):
                continue
            arms = [n.body, n.orelse] if isinstance(n, ast.IfExp) else [*n.body, *n.orelse]
            if any(_holds(arm, o) for arm in arms) and not any(
                    a.path == o.path and _holds(arm, a) for a in away for arm in arms):
                return True
    return False


def _tree_of(ctx: Context, path: str | None) -> ast.AST | None:
    """The syntax tree of the file ``path`` of the run (this file's for None)."""
    if path is None or path == ctx.path:
        return ctx.tree
    project = ctx.flow.project
    other = project.file_flow(path) if project is not None else None
    return other.tree if other is not None else None


def _holds(node: ast.AST, o: Origin) -> bool:
    """Does ``node``'s text span the position where ``o`` was written?"""
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", None) or start[0], getattr(node, "end_col_offset", None) or 0)
    return start <= (o.line, o.column) < end


def _moves_to_accelerator(v: Value) -> set[int]:
    """The nodes of the moves among ``v``'s origins that put it on an accelerator and
    nowhere else (``.cuda()``, ``.to("cuda")``)."""
    return {id(o.node) for o in v.origins if o.op is Op.MOVED and o.to is not None and
            ACCEL in o.to and CPU not in o.to}


def _cpu_in_other_arm(res: ScopeResult, node: ast.AST, v: Value | None = None) -> bool:
    """``np.squeeze(t.numpy()) if not train_on_gpu else np.squeeze(t.cpu().numpy())`` (or
    the same as an ``if`` statement): the site is in one arm of a test on the device whose
    other arm brings the tensor home with ``.cpu()``, so its arm is the one taken on the
    CPU -- unless its own arm moves the value ``v`` to an accelerator (``t.cuda().numpy()
    if gpu else t.cpu().numpy()``)."""
    away = _moves_to_accelerator(v) if v is not None else set()
    for n in ast.walk(res.node):
        if not isinstance(n, (ast.IfExp, ast.If)) or not _DEVICE_TEST.search(ast.unparse(n.test)):
            continue
        body = [n.body] if isinstance(n, ast.IfExp) else n.body
        orelse = [n.orelse] if isinstance(n, ast.IfExp) else n.orelse
        for here, other in ((body, orelse), (orelse, body)):
            mine = [x for arm in here for x in ast.walk(arm)]
            if any(x is node for x in mine) and not any(id(x) in away for x in mine) and any(
                    isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and
                    x.func.attr == "cpu" for arm in other for x in ast.walk(arm)):
                return True
    return False


def _tensor_finding(ctx: Context, res: ScopeResult, call: CallEvent, node: ast.expr, v: Value,
                    what: str, cuda_default: int | None) -> Finding | None:
    v = _through_get(res, v)
    if v.kinds is None and res.kind_of(v) is not None:
        v = v._replace(kinds=res.kind_of(v))  # a parameter used as a tensor here
    elif v.kinds is None and carried_move(res, node) is not None:
        v = v._replace(kinds=_TENSOR)  # a moved value (an item of it) NumPy reads: a tensor
    v = ctx.flow.placed_at(res, node, v)  # (``self.scores`` of a plain class: its constructions)
    origin = _on_device(res, v, cuda_default, not _numpy_method(call), ctx)
    if origin is None or _cpu_in_other_arm(res, call.node, v) \
            or other_arm_of_move(ctx.flow, call.node, origin):
        return None
    consumer = _library_consumer(ctx, res, call.node)
    if consumer is not None and consumer.holder:  # (``Instances``: ``.to()``, no ``.cpu()``)
        add, noun = '.to("cpu")', "the tensors it holds"
    else:
        add = ".detach().cpu()" if _may_require_grad(ctx, res, call.node, node, v) else ".cpu()"
        noun = "the tensor"
    f = ctx.finding(
        CODE, call.node,
        f"{what}: {noun} may still be on the accelerator and NumPy only reads CPU memory; "
        f"bring it home first with `{add}`",
        _fix(ctx, res, call, node, v, add))
    wrapper = origin is gathered_output(ctx.flow, res, v)
    steps = _made_or_moved(ctx, v, origin, f"`{short(ctx.text(node), 40)}`", wrapper)
    return replace(f, evidence=(*steps, at(ctx, call.node, "it reaches NumPy here")))


def _made_or_moved(ctx: Context, v: Value, origin: Origin, name: str,
                   wrapper: bool = False) -> tuple[Evidence, ...]:
    """The chain behind "may be on the accelerator": the module call it came out of and the
    move of that module (``wrapper``: of the data-parallel wrapper its callers hand it), or
    the move (or the construction) of the tensor itself."""
    if v.origins and v.origins[0].op is Op.RETURNED and origin is not v.origins[0]:
        return (step(ctx, v.origins[0], f"{name} comes out of `{v.origins[0].text}` at "
                                        f"{where(v.origins[0])}, which the analysis cannot "
                                        f"see into"),
                step(ctx, origin, f"it is given a tensor on the device since {where(origin)}"))
    out = next((o for o in v.origins if o.op is Op.OUTPUT), None)
    if out is not None and wrapper:
        return (step(ctx, out, f"{name} comes out of a module call at {where(out)}"),
                step(ctx, origin, f"the data-parallel model the calls hand it is moved to the device "
                                  f"at {where(origin)}: it gathers its output there"))
    if out is not None and origin not in v.origins:  # an input of the call was on the device
        return (step(ctx, out, f"{name} comes out of a module call at {where(out)}"),
                step(ctx, origin, f"its input is moved to the device at {where(origin)}"))
    if out is not None and v.origins.index(out) < v.origins.index(origin):
        what = "moved to the device" if origin.op is Op.MOVED else \
            "built on the device" if ACCEL in (v.places or ()) else \
            "built while the default device is CUDA"
        return (step(ctx, out, f"{name} comes out of a module call at {where(out)}"),
                step(ctx, origin, f"the module is {what} at {where(origin)}"))
    what = "moved to the device" if origin.op is Op.MOVED else \
        "made on the device" if ACCEL in (v.places or ()) else \
        "made while the default device is CUDA"
    return (step(ctx, origin, f"{name} comes from a tensor {what} at {where(origin)}"),)


def _may_require_grad(ctx: Context, res: ScopeResult, site: ast.AST, node: ast.expr,
                      v: Value) -> bool:
    """A module's output, not detached, outside ``torch.no_grad()``: it may require grad."""
    if not any(o.op is Op.OUTPUT for o in v.origins) or "detach(" in ctx.text(node) or \
            isinstance(node, ast.Attribute) and node.attr == "data" or \
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in _NO_GRAD_RESULT:
        return False
    line = getattr(site, "lineno", 0)
    for n in ast.walk(ctx.tree):
        if isinstance(n, ast.With) and any(g in ctx.text(i.context_expr) for i in n.items
                                           for g in _NO_GRAD) \
                and n.lineno <= line <= (n.end_lineno or n.lineno):
            return False
    return True


def _fix(ctx: Context, res: ScopeResult, call: CallEvent, node: ast.expr, v: Value,
         add: str) -> Fix | None:
    """Safe only where the value is a tensor by construction in this scope (see
    :func:`~torchferry.check.flow.safety.tensor_by_construction`); unsafe on anything else
    the analysis takes for a tensor; none where it is not known to be one."""
    method = _numpy_method(call)
    if not v.is_(Kind.TENSOR) or not method and any(o.op is Op.OUTPUT for o in v.origins):
        return None  # handed to a NumPy function, a module's output may be a tuple
    safe = tensor_by_construction(ctx.flow, node, method)
    receiver = call.node.func if isinstance(call.node.func, ast.Attribute) else None
    if receiver is not None and receiver.value is node and \
            ctx.span(receiver)[:2] != ctx.span(node)[:2]:
        # ``(x * 2).numpy()``: the receiver's own parentheses hold it already
        edits = (ctx.edit(receiver, f"{ctx.text(receiver)[:-len(receiver.attr)-1]}{add}"
                          f".{receiver.attr}"),)
    elif needs_parens(node):
        edits = (ctx.edit(node, f"({ctx.text(node)}){add}"),)
    else:
        edits = (ctx.insert_after(node, add),)
    return Fix(edits, safe, f"Insert `{add}`")


#: NumPy constructors whose first argument is the array's shape
_SHAPED = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})


def _item_stores(tree: ast.AST) -> list[ast.Assign]:
    """The statements ``x[...] = value`` of a file, found through statement bodies only
    (expressions hold no statements; walking them would cost a pass over every node)."""
    found: list[ast.Assign] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Subscript):
            found.append(node)
        for name in BODY_FIELDS:
            todo.extend(getattr(node, name, ()))
    return found


def _stored_into_arrays(ctx: Context, res: ScopeResult, stores: list[ast.Assign],
                        cuda_default: int | None) -> Iterable[Finding]:
    """``g_loss[ind] = loss`` where ``g_loss = np.zeros((5000, 1))``: storing a tensor into
    more than one element of a NumPy array (a row, a slice) converts it with NumPy.  A
    store into one element (``a[i] = t`` of a 1-D array) reads it with ``float()`` and
    works on any device, so only stores shown to reach more than one element count."""
    for st in stores:
        target = st.targets[0]
        if not isinstance(target, ast.Subscript) or id(target.value) not in res.values:
            continue  # (evaluated by another scope)
        arr, v = res.value(target.value), res.value(st.value)
        made = _array_made(arr) if arr is not None else None
        if v is None or made is None or not _more_than_one_element(target, made):
            continue
        v = _through_get(res, v)
        origin = _on_device(res, v, cuda_default, ctx=ctx)
        if origin is None or _cpu_in_other_arm(res, st, v):
            continue
        name = short(ctx.text(st.value), 40)
        add = ".detach().cpu()" if _may_require_grad(ctx, res, st, st.value, v) else ".cpu()"
        f = ctx.finding(
            CODE, st,
            f"`{short(ctx.text(target), 30)} = {name}` stores a tensor that may still be on the "
            f"accelerator into a NumPy array, which converts it and only reads CPU memory; "
            f"bring it home first with `{add}`")
        steps = _made_or_moved(ctx, v, origin, f"`{name}`")
        yield replace(f, evidence=(
            *steps, step(ctx, made, f"`{short(ctx.text(target.value), 30)}` is a NumPy array "
                                    f"made at {where(made)}"),
            at(ctx, st, "the tensor is stored into it here")))


def _indexed_arrays(ctx: Context, res: ScopeResult, cuda_default: int | None) -> Iterable[Finding]:
    """``rev_idx[torch.multinomial(w, n)]``: a NumPy array indexed by a tensor that may be on
    the accelerator.  NumPy reads an index that is no integer as an array, through
    ``Tensor.__array__``, which is ``self.numpy()``: it fails for a CUDA tensor.  An index
    that may hold one element (a reduction without a dimension, an item of a tensor, a
    sample of one) is read through ``__index__`` instead, which works anywhere: not flagged."""
    arrays = {Kind.NDARRAY}
    if not any(v.kinds == arrays and v.basis is not Basis.HINT for v in res.values.values()):
        return  # (no expression of the scope is a NumPy array: no subscript to walk for)
    for sub in _own_subscripts(res.node):
        arr = res.values.get(id(sub.value))
        if arr is None or arr.kinds != {Kind.NDARRAY} or arr.basis is Basis.HINT:
            continue
        parts = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        for index in parts:
            v = res.values.get(id(index))
            if v is None or _one_element(index):
                continue
            v = _through_get(res, v)
            origin = _on_device(res, v, cuda_default, ctx=ctx)
            if origin is None or _cpu_in_other_arm(res, sub, v):
                continue
            name = short(ctx.text(index), 40)
            f = ctx.finding(
                CODE, sub,
                f"`{short(ctx.text(sub), 50)}` indexes a NumPy array with a tensor that may still be "
                "on the accelerator: NumPy reads the index as an array through `Tensor.__array__`, "
                f"which is `.numpy()` and fails for it; bring the index home first with `{name}.cpu()`")
            made = arr.origins[0] if arr.origins else None
            shown = (step(ctx, made, f"`{short(ctx.text(sub.value), 30)}` is a NumPy array from "
                                     f"`{short(made.text, 30)}` at {where(made)}"),) if made is not None else ()
            yield replace(f, evidence=(*_made_or_moved(ctx, v, origin, f"`{name}`"), *shown,
                                       at(ctx, sub, "NumPy converts the index here")))
            break


def _own_subscripts(scope: ast.AST) -> Iterable[ast.Subscript]:
    """The subscripts of a scope's own code (not of the functions and classes it holds)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Subscript):
            yield n
        todo.extend(ast.iter_child_nodes(n))


#: torch functions whose result has as many elements as a size argument says, by position
#: (of the function; a method's is one less) and keyword: ``torch.multinomial(w, 1)``
_COUNTED = {"multinomial": (1, "num_samples"), "topk": (1, "k")}


def _one_element(index: ast.expr) -> bool:
    """May the index tensor ``index`` hold one element by its construction: a reduction
    without a dimension (``t.argmax()``), an item of a tensor (``t[0]``), a sample or top-k
    of one (``torch.multinomial(w, 1)``)?  NumPy then reads it as an integer."""
    if isinstance(index, ast.Subscript):
        return not isinstance(index.slice, ast.Slice)
    if isinstance(index, ast.Attribute) and index.attr in ("indices", "values"):
        index = index.value  # (``torch.topk(t, 1).indices``)
    if not isinstance(index, ast.Call) or not isinstance(index.func, (ast.Attribute, ast.Name)):
        return False
    func = index.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id
    if name in REDUCTIONS:
        return not index.args and not any(k.arg in ("dim", "axis") for k in index.keywords)
    counted = _COUNTED.get(name)
    if counted is None:
        return False
    method = isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id == "torch")
    at_ = counted[0] - (1 if method else 0)
    size = index.args[at_] if len(index.args) > at_ else next(
        (k.value for k in index.keywords if k.arg == counted[1]), None)
    return isinstance(size, ast.Constant) and size.value == 1


def _array_made(arr: Value) -> Origin | None:
    """The NumPy constructor with a literal shape that made ``arr`` (one, on every path)."""
    if arr.kinds != {Kind.NDARRAY} or len(arr.origins) != 1:
        return None
    o = arr.origins[0]
    node = o.node
    if o.op is not Op.MADE or not isinstance(node, ast.Call) or o.text not in _SHAPED or \
            not node.args:
        return None
    return o


def _more_than_one_element(target: ast.Subscript, made: Origin) -> bool:
    """Does ``arr[index]`` name more than one element of the array ``made`` made: a slice or
    ``...`` in the index, or fewer indices than the literal shape has dimensions?"""
    index = target.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if any(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value is Ellipsis
           for p in parts):
        return True
    assert isinstance(made.node, ast.Call)
    shape = made.node.args[0]
    ndim = len(shape.elts) if isinstance(shape, (ast.Tuple, ast.List)) else \
        1 if isinstance(shape, ast.Constant) and isinstance(shape.value, int) else None
    return ndim is not None and len(parts) < ndim


def _list_finding(ctx: Context, res: ScopeResult, call: CallEvent, node: ast.expr, v: Value,
                  what: str) -> Finding | None:
    """A list or tuple holding a tensor that may be on the accelerator (NumPy converts each
    item): no fix (``torch.stack`` would change what NumPy returns for ragged items)."""
    if _numpy_method(call):
        return None
    items = [*(v.elts or ()), *((v.item,) if v.item is not None else ())]
    held = [*node.elts] if isinstance(node, (ast.List, ast.Tuple)) else []  # ``np.array([a, t * 100])``
    held += _appended(res, node, call.node)
    held += [x for e in held if isinstance(e, (ast.List, ast.Tuple)) for x in e.elts]  # (rows: ``[i, conf]``)
    items += [x for e in held if (x := res.value(e)) is not None]
    items += [x for e in items for x in (*(e.elts or ()), *((e.item,) if e.item is not None else ()))]
    if isinstance(node, ast.ListComp):
        items += _losses_of_device_tensors(res, node.elt)
    origin = next((o for o in (_on_device(res, x, ctx=ctx) for x in items) if o is not None), None) or \
        next((o for e in held if (o := carried_move(res, e)) is not None), None)
    if origin is None:
        return None
    text = short(ctx.text(node), 40)
    f = ctx.finding(
        CODE, call.node,
        f"{what}, a list of tensors that may still be on the accelerator: NumPy converts each "
        f"one and only reads CPU memory; combine them with torch first (`torch.stack({text})`) "
        f"or bring each home (`[t.cpu() for t in {text}]`)")
    return replace(f, evidence=(
        step(ctx, origin, f"an item of `{text}` is on the device since {where(origin)}"),
        at(ctx, call.node, "the list reaches NumPy here"),
    ))


def _appended(res: ScopeResult, node: ast.expr, site: ast.Call) -> list[ast.expr]:
    """What ``name.append(...)`` added to the list ``name`` since it was last bound."""
    if not isinstance(node, ast.Name):
        return []
    bound = max((n.lineno for n in walk(res.node) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
                 and n.lineno <= site.lineno), default=0)
    out = []
    for c in res.calls.values():
        func = c.node.func
        if c.qualname == "append" and isinstance(func, ast.Attribute) and \
                isinstance(func.value, ast.Name) and func.value.id == node.id and c.args and \
                bound < c.node.lineno <= site.lineno:
            out.append(c.node.args[0])
    return out


def _losses_of_device_tensors(res: ScopeResult, elt: ast.expr) -> list[Value]:
    """``criterion(out[j], target)`` of a loss the analysis cannot see into: a loss of
    tensors on the device is computed there."""
    if not isinstance(elt, ast.Call):
        return []
    call = res.calls.get(id(elt))
    if call is None or call.callee is not Callee.UNRESOLVED or \
            not _LOSS.search(ast.unparse(elt.func)):
        return []
    return [a for a in call.args if a.kinds == {Kind.TENSOR} and ACCEL in (a.places or ())]
