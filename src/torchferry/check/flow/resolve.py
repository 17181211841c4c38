"""Calls: what a call returns, resolved through the file's imports, its values and the
summaries of the functions of the checked files (see :mod:`torchferry.check.flow.calls`)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

import torchferry.check.flow.distributions as distributions
import torchferry.check.flow.handoff as handoff
import torchferry.check.flow.libfacts as libfacts
import torchferry.check.flow.protocols as protocols
import torchferry.check.flow.records as records
import torchferry.check.flow.spreads as spreads
import torchferry.check.flow.tensordata as tensordata
import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.binding import Binding, bind
from torchferry.check.flow.bound_methods import held_methods
from torchferry.check.flow.built import Argument, init_places, weightless_layer
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.device_param import ignores_for_weights
from torchferry.check.flow.events import Callee
from torchferry.check.flow.lattice import (
    ACCEL,
    BOTTOM,
    CPU,
    ORIGIN_CAP,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Reason,
    Value,
    Where,
    container,
    element,
    in_path,
    join,
    join_all,
    param,
    substitute,
)
from torchferry.check.flow.own_loaders import own_loader_class
from torchferry.check.flow.places import (
    batch_item_and_numbers,
    module_dict_entry,
    move_target,
    named_dtype,
    shared_places,
    tensor_places,
)
from torchferry.check.flow.receivers import made_classes, refused
from torchferry.check.flow.stores import JOINING
from torchferry.check.flow.wrapped import wrapped_module
from torchferry.check.names import strings_after_the_device

if TYPE_CHECKING:
    from torchferry.check.flow.calls import Evaluator
    from torchferry.check.flow.events import ScopeResult
    from torchferry.check.flow.program import ClassInfo, FileFlow

Args = list[Value]
Kws = list[tuple[str, Value]]
_TENSOR = frozenset((Kind.TENSOR,))
_MODULE = frozenset((Kind.MODULE,))
_MODULE_OR_OTHER = frozenset((Kind.MODULE, Kind.OTHER))
_TENSOR_OR_MODULE = frozenset((Kind.TENSOR, Kind.MODULE))
_DEVICE_KEYWORDS = frozenset({"device", "device_map", "map_location"})
#: keywords of a Hugging Face ``from_pretrained`` that may put the weights elsewhere than on
#: the CPU (a quantised model is placed by its ``device_map``, given or defaulted).  Read in
#: ``transformers/modeling_utils.py`` at 4.30.2, 4.46.3, 5.0.0 and 5.25.0: without
#: ``device_map`` the weights stay on the CPU (5.x: on the default device, which a file that
#: sets one is not checked for), but ``load_in_8bit``/``load_in_4bit`` and a bitsandbytes
#: ``quantization_config`` set ``device_map = {"": torch.cuda.current_device()}``
#: (``update_device_map`` of the quantizers from 4.3x), so the place is left unknown
_HF_PLACING = _DEVICE_KEYWORDS | {"load_in_8bit", "load_in_4bit", "quantization_config", "tp_plan"}
#: methods every module has: ``self.to(d)``, ``self.eval()``, ``self.parameters()``
_MODULE_OWN = vocab.MODULE_SELF | vocab.MODULE_METHODS | vocab.MOVE_NAMES


def call_value(ev: Evaluator, node: ast.Call) -> Value:
    """Evaluate a call (its parts first) and record it."""
    func = node.func
    args = [ev.eval(a) for a in node.args]
    kws = [(k.arg or "**", ev.eval(k.value)) for k in node.keywords]
    qual = ev.ff.qualname(func, ev.i)
    if qual is not None:
        ev.values[id(func)] = UNKNOWN
        return qualified_call(ev, node, qual, args, kws)
    if isinstance(func, ast.Attribute):
        recv = ev.eval(func.value)
        _note_use(ev, func)
        if isinstance(func.value, ast.Name) and func.value.id == ev.i.self_name:
            return self_call(ev, node, func.attr, recv, args, kws)
        through = _class_method(ev.ff, func) if isinstance(func.value, ast.Name) and \
            func.value.id not in ev.i.env else None
        if through is not None:
            return project_call(ev, node, through[0], through[1], args, kws)
        return method_call(ev, node, func.attr, recv, args, kws)
    if isinstance(func, ast.Name):
        return name_call(ev, node, func.id, args, kws)
    fv = ev.eval(func)
    if tensor_class(fv, node):  # ``type(t)(n, m)``
        return _tensor_construction(ev, node, ast.unparse(func)[:40], fv, args, kws)
    if fv.is_(Kind.MODULE):
        return module_call(ev, node, fv, args, kws)
    if fv.call is not None:  # ``ToTensorV2()(image=img)``
        return _call_of(ev, node, ast.unparse(func)[:40], fv, args, kws)
    classes = class_references(fv)
    if classes:  # ``models[args.dataset][args.model](hidden)``
        return _call_classes(ev, node, classes, args, kws)
    return _unresolved(ev, node, None, fv, args, kws, Reason.DYNAMIC)


def _note_use(ev: Evaluator, func: ast.Attribute) -> None:
    """``p.unsqueeze(0)`` shows that parameter ``p`` is a tensor (``p.eval()``: a module)."""
    base = func.value
    if not isinstance(base, ast.Name):
        return
    k = ev.i.param_index.get(base.id)
    if k is None or base.id == ev.i.self_name:
        return
    if func.attr in vocab.TENSOR_METHODS:
        ev.i.res.param_uses.setdefault(k, Kind.TENSOR)
    elif func.attr in vocab.MODULE_METHODS:
        ev.i.res.param_uses.setdefault(k, Kind.MODULE)


def _note_tensor_arguments(ev: Evaluator, node: ast.Call, qual: str) -> None:
    """``F.cross_entropy(logits, target)``: parameters handed to a torch function that
    computes on tensors are tensors."""
    last = qual.rsplit(".", 1)[-1]
    if last in vocab.TORCH_NON_TENSOR or last in vocab.DATA_FACTORIES or last in vocab.SHAPE_FACTORIES \
            or last[:1].isupper():
        return
    parts = qual.split(".")
    if not _returns_tensor(parts):
        return
    for a in _tensor_operands(node, last):
        if isinstance(a, ast.Name):
            k = ev.i.param_index.get(a.id)
            if k is not None and a.id != ev.i.self_name:
                ev.i.res.param_uses.setdefault(k, Kind.TENSOR)


def _tensor_operands(node: ast.Call, last: str) -> list[ast.expr]:
    """The arguments of a torch call that are tensors by the function's signature: its
    positional ones, and the items of the sequence a joining function takes
    (``torch.cat((state, extra), -1)``: ``cat``'s ``tensors`` is a sequence of tensors)."""
    args = list(node.args)
    first = args[0] if args else next((k.value for k in node.keywords if k.arg == "tensors"), None)
    if last in JOINING and isinstance(first, (ast.List, ast.Tuple)):
        args.extend(first.elts)
    return args


def _note_cpu_arguments(ev: Evaluator, node: ast.Call, qual: str) -> None:
    """``pack_padded_sequence(x, lengths)``: parameter ``lengths`` is wanted on the CPU."""
    wanted = vocab.CPU_ARGUMENTS.get(qual.rsplit(".", 1)[-1])
    if wanted is None:
        return
    positions, names = wanted
    given = [a for i, a in enumerate(node.args) if i in positions]
    given += [k.value for k in node.keywords if k.arg in names]
    for a in given:
        k = ev.i.param_index.get(a.id) if isinstance(a, ast.Name) else None
        if k is not None:
            ev.i.res.cpu_params.add(k)


def _made(node: ast.AST, text: str, op: Op = Op.MADE, to: frozenset[Place] | None = None) -> Origin:
    return Origin(op, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), text, to=to,
                  node=node)


# -- names of torch and NumPy ------------------------------------------------------------
def qualified_call(ev: Evaluator, node: ast.Call, qual: str, args: Args, kws: Kws) -> Value:
    """A call of the function ``qual`` names (``torch.zeros``, ``numpy.asarray``, a function
    of the run): torch's by their vocabulary, a library's by what it is known to make
    (:func:`_library_made`), the run's by their interpretation, any other unresolved."""
    if qual == "torch":  # ``torch()``: the module itself is not callable (TypeError)
        return ev.record(node, Callee.UNRESOLVED, qual, UNKNOWN, None, args, kws, UNKNOWN)
    if qual.startswith("torch."):
        return _torch_function_call(ev, node, qual, args, kws)
    if qual in _TQDM:  # a progress bar yields what it wraps
        return builtin_call(ev, node, "tqdm", args, kws)
    made = _library_made(ev, node, qual, args, kws)
    if made is not None:
        return ev.record(node, made[0], qual, UNKNOWN, None, args, kws, made[1])
    target = ev.ff.resolve(qual)
    if target is not None:
        return project_call(ev, node, target[0], target[1], args, kws)
    through = _class_method(ev.ff, node.func) if "." in qual else None
    if through is not None:
        return project_call(ev, node, through[0], through[1], args, kws)
    if qual.startswith(_DATASETS) and qual.rsplit(".", 1)[-1][:1].isupper():
        return _dataset(ev, node, qual, args, kws)
    project = ev.ff.project
    reason = Reason.BUDGET if project is not None and project.budget.left <= 0 else Reason.OUTSIDE
    return _unresolved(ev, node, qual, UNKNOWN, args, kws, reason)


def _torch_function_call(ev: Evaluator, node: ast.Call, qual: str, args: Args, kws: Kws) -> Value:
    """A call of ``torch.<...>``: its value by the vocabulary, what it tells of the
    parameters it is handed, a loader's batches collated."""
    _note_tensor_arguments(ev, node, qual)
    _note_cpu_arguments(ev, node, qual)
    v = torch_call(node, qual, args, kws)
    if v.is_(Kind.LOADER):
        v = _collated(ev, node, v)
    return ev.record(node, Callee.TORCH, qual, UNKNOWN, None, args, kws, v)


def _library_made(ev: Evaluator, node: ast.Call, qual: str, args: Args, kws: Kws
                  ) -> tuple[Callee, Value] | None:
    """What a call of a library function (not torch's) is known to make, and as which
    callee it is recorded; None when ``qual`` is none of those known."""
    if qual.startswith("math."):
        return Callee.BUILTIN, Value.of(Kind.SCALAR)
    if qual in _EINOPS and any(a.is_(Kind.TENSOR) for a in args):
        # ``einsum(delta, A, "b l d, d n -> b d l n")``: a tensor where its tensors are
        origins = tuple(dict.fromkeys(o for a in args for o in a.origins))[:ORIGIN_CAP]
        return Callee.FUNCTION, Value(_TENSOR, tensor_places(list(args)), origins, Basis.INFERRED)
    if qual in _COPIES and len(node.args) == 1 and not kws and args:
        # ``copy.deepcopy(t)``: an object of the kind of ``t``, where ``t`` is (a tensor's
        # copy on its device, a module's with its weights there)
        return Callee.FUNCTION, args[0]
    if qual.startswith("numpy."):
        return Callee.NUMPY, Value.of(Kind.NDARRAY, None, _made(node, qual), Basis.CONSTRUCTED)
    if qual in vocab.MODEL_BUILDERS:
        return Callee.FUNCTION, torch_call(node, qual, args, kws)
    record = records.built(qual, node, kws, args)
    if record is not None:  # ``EasyDict(train=loader)``: its attributes are those values
        return Callee.FUNCTION, record
    if qual.startswith(_TRANSFORMS):
        return Callee.FUNCTION, _transform(ev, node, qual)
    if qual.startswith(_ALBUMENTATIONS):
        return Callee.FUNCTION, _albumentation(ev, node, qual)
    v = _built_on_the_cpu(ev, node, qual, kws)
    return None if v is None else (Callee.FUNCTION, v)


def _built_on_the_cpu(ev: Evaluator, node: ast.Call, qual: str, kws: Kws) -> Value | None:
    """A module, metric, container or loader that a library call builds on the CPU (where
    no device keyword says otherwise); None when ``qual`` is none of those known."""
    if qual.startswith(vocab.MODEL_ZOOS):
        places = None if any(k in _DEVICE_KEYWORDS or k == "**" for k, _ in kws) else frozenset((CPU,))
        return Value(_MODULE, places, (_made(node, f"{qual}(...)"),), Basis.CONSTRUCTED)
    fact = libfacts.call_fact(qual)
    if fact is not None:
        return _library_value(node, qual, fact, kws)
    from torchferry.check.flow.modclass import hf_pretrained_model

    if hf_pretrained_model(qual):
        # ``GPTNeoForCausalLM.from_pretrained(name)``: its weights loaded on the CPU unless
        # a keyword places them (``device_map="auto"``, a quantisation, which needs one)
        placed = any(k in _HF_PLACING or k == "**" for k, _ in kws)
        return Value(_MODULE, None if placed else frozenset((CPU,)), (_made(node, f"{qual}(...)"),),
                     Basis.CONSTRUCTED)
    if vocab.tensor_state_metric(qual):
        # a metric whose state is tensors, made on the CPU (``JaccardIndex(num_classes=n)``)
        places = None if any(k in _DEVICE_KEYWORDS or k in vocab.LIST_STATE_KEYWORDS or k == "**"
                             for k, _ in kws) else frozenset((CPU,))
        return Value(_MODULE, places, (_made(node, f"{qual}(...)"),), Basis.CONSTRUCTED)
    if qual == "collections.defaultdict" and len(node.args) == 1 and not kws and \
            isinstance(node.args[0], ast.Name) and node.args[0].id == "list":
        # ``defaultdict(list)``: an empty list at every key (``d[k].append(t)`` fills it)
        return container(keys=(), item=container(item=BOTTOM))
    last = qual.rsplit(".", 1)[-1]
    if last == "DataLoader" and not own_loader_class(ev.ff, qual):
        return _collated(ev, node, Value.of(Kind.LOADER, None, _made(node, "DataLoader(...)"), Basis.CONSTRUCTED))
    if last in ev.ff.module_classes and last[:1].isupper() and not _placing_itself(ev, qual, last):
        # an nn.Module class of another checked file (the run's pre-pass says so) whose
        # construction moves nothing: built on the CPU, known without parsing that file
        places = None if any(k in _DEVICE_KEYWORDS or k == "**" for k, _ in kws) else frozenset((CPU,))
        return Value(_MODULE, places, (_made(node, f"{last}(...)"),), Basis.CONSTRUCTED)
    return None


def _placing_itself(ev: Evaluator, qual: str, name: str) -> bool:
    """Is ``qual`` a module class of another file of the run whose construction may move
    what it builds (:meth:`~torchferry.check.flow.project.Project.may_place_itself`:
    ``self.to(self.device)`` in its ``__init__``), and that the run's files define
    (:meth:`FileFlow.resolve`)?  Such a construction is followed into that ``__init__``
    (:func:`_construct`), as one of a class of the same file is."""
    project = ev.ff.project
    if project is None or not project.may_place_itself(name):
        return False
    found = ev.ff.resolve(qual)
    return found is not None and isinstance(found[1], ast.ClassDef)


def _library_value(node: ast.Call, qual: str, fact: libfacts.CallFact, kws: Kws) -> Value:
    """What a library call returns by a fact of :data:`~libfacts.CALL_FACTS`: a tensor or a
    module made on the CPU, a waveform made there and its sample rate (a tuple), or a loader
    of batches made there (a tuple of them for ``splits``); a value of unknown kind and
    place where the call places them elsewhere (``device=``)."""
    placed = any(k in fact.elsewhere for k, _ in kws) or \
        fact.positional is not None and len(node.args) > fact.positional
    places = None if placed else frozenset((CPU,))
    made = _made(node, f"{qual}(...)")
    if fact.returns in (libfacts.Returned.LOADER, libfacts.Returned.LOADERS):
        if places is None:  # (its batches where the call says: not followed)
            return Value(None, None, (made,), Basis.HINT, reason=Reason.OUTSIDE)
        loader = Value.of(Kind.LOADER, None, made, Basis.CONSTRUCTED)
        return loader if fact.returns is libfacts.Returned.LOADER else container(item=loader)
    if fact.returns is libfacts.Returned.MODULE:
        return Value(_MODULE, places, (made,), Basis.CONSTRUCTED)
    tensor = _tensor(places, made, Basis.CONSTRUCTED)
    if fact.returns is libfacts.Returned.AUDIO:
        return container((tensor, Value.of(Kind.SCALAR)))
    return tensor


_DATASETS = "torchvision.datasets."
#: einops' functions: tensors of the framework, and on the device, of the ones they are given
_EINOPS = frozenset(f"einops.{f}" for f in ("einsum", "rearrange", "repeat", "reduce"))


def _dataset(ev: Evaluator, node: ast.Call, qual: str, args: Args, kws: Kws) -> Value:
    """A dataset of torchvision: outside the checked files, but when its one transform
    makes its tensors on the CPU (``transform=ToTensor()``, a ``Compose`` holding one, no
    target or joint transform), each item is that tensor and a label (``ds[0][0]``)."""
    _escape(ev, node)
    v = Value(None, None, (_made(node, f"{qual}(...)", Op.RETURNED),), Basis.HINT, reason=Reason.OUTSIDE)
    made: Value | None = None
    for k, (name, w) in zip(node.keywords, kws, strict=True):
        if name == "transform":
            made = w.call if w.call is not None and w.call.places == frozenset((CPU,)) else None
            if made is None:
                break
        elif name == "**" or "transform" in name and not (
                isinstance(k.value, ast.Constant) and k.value.value is None):
            made = None
            break
    if made is not None:
        v = v._replace(item=container((made, Value.of(Kind.SCALAR))))
    return ev.record(node, Callee.UNRESOLVED, qual, UNKNOWN, None, args, kws, v)


def _collated(ev: Evaluator, node: ast.Call, loader: Value) -> Value:
    """A loader whose ``collate_fn=`` is a function of the run that returns a tensor: what
    it yields is that tensor (kept as the loader's :attr:`Value.item`).  A collate function
    that returns anything else (a tuple, a dict) leaves the batch as it was: a batch."""
    if _moving_dataset(ev, node):
        # (its items may be anywhere: which of them its ``__getitem__`` moved, and what a
        # collate function makes of them, is not followed)
        return loader._replace(item=Value(frozenset((Kind.BATCH,)), None, loader.origins, Basis.HINT))
    fn = next((k.value for k in node.keywords if k.arg == "collate_fn"), None)
    rows = _tensor_dataset_batch(ev, node, fn)
    if rows is not None:  # (the dataset's origin kept: ``loader.dataset`` reads it back)
        return loader._replace(item=rows._replace(origins=()), origins=(*loader.origins, *rows.origins))
    if fn is None:
        made = protocols.dataset_batch(ev, node)
        return loader if made is None else loader._replace(item=made)
    target: tuple[FileFlow, ast.AST] | None = None
    if isinstance(fn, ast.Name) and isinstance(ev.ff.definition(fn.id), (ast.FunctionDef, ast.AsyncFunctionDef)):
        target = (ev.ff, ev.ff.defs[fn.id])
    else:
        q = ev.ff.qualname(fn, ev.i)
        target = ev.ff.resolve(q) if q else None
    if target is None or not isinstance(target[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return loader
    result = target[0].summary(target[1], ev.ff)
    if result is None:
        return loader
    out = result.returns
    if out.elts is not None:  # a tuple: its tensors are the batch's items, the rest as made
        # (a module-level function's parameter 0 is the list of samples)
        plain = target[0].defs.get(target[1].name) is target[1]
        parts = tuple(_collated_part(e, plain) for e in out.elts)
        if all(p is not None for p in parts):
            return loader._replace(item=container(tuple(p for p in parts if p is not None)))
        return loader
    if not out.is_(Kind.TENSOR) or not out.places or any(p.symbolic for p in out.places):
        return loader
    if target[0] is not ev.ff:
        out = in_path(out, target[0].path)
    return loader._replace(item=out._replace(basis=min(out.basis, Basis.INFERRED)))


def _tensor_dataset_batch(ev: Evaluator, node: ast.Call, fn: ast.expr | None) -> Value | None:
    """The batch of ``DataLoader(TensorDataset(...), ...)`` of tensors made on the CPU
    (:func:`tensordata.loader_batch`; its origin: the dataset's), or None."""
    arg = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) else next(
        (k.value for k in node.keywords if k.arg == "dataset"), None)
    ds = ev.values.get(id(arg)) if arg is not None else None
    collate = None if fn is None else "None" if isinstance(fn, ast.Constant) and fn.value is None \
        else ev.ff.qualname(fn, ev.i)
    spread = spreads.spread_keys(node, ev.values, ev.ff.tree)
    return tensordata.loader_batch(ev.ff.qualname(node.func, ev.i), node, ds, collate, spread)


def _moving_dataset(ev: Evaluator, node: ast.Call) -> bool:
    """Is the dataset of ``DataLoader(dataset, ...)`` an instance of a class of the run
    whose ``__getitem__`` moves what it reads to a device (``return x.to(self.device),
    y``, ``sample["image"].cuda()``)?  Then the batches are not on the CPU alone."""
    arg = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) else next(
        (k.value for k in node.keywords if k.arg == "dataset"), None)
    ds = ev.values.get(id(arg)) if arg is not None else None
    info = ev.ff.class_of(ds) if ds is not None else None
    method = info.method("__getitem__") if info is not None else None
    if method is None:
        return False
    res = method[0].ff.summary(method[1], ev.ff)
    return res is not None and any(
        c.callee is Callee.METHOD and c.qualname in vocab.ACCEL_MOVE_NAMES and c.result.may_live(Where.ACCEL)
        for c in res.calls.values())


def _collated_part(v: Value, plain: bool) -> Value | None:
    """An element of the tuple a collate function returns, as the loader yields it: a
    tensor is an item of the batch, where it was made; a tensor made of the samples alone
    (``torch.stack([a for a, _ in batch])``, where ``plain``: the function is not a method,
    so its parameter 0 is the list of samples) is where the samples are, an item of the batch as
    without a collate; a list, a number or a string made in the function (``lengths =
    [len(s) for s in seqs]``) is that; None for anything else (the parts of the samples,
    of unknown kind: the batch's item, as without a collate)."""
    if v.is_(Kind.TENSOR) and v.places and not any(p.symbolic for p in v.places):
        return Value(frozenset((Kind.BATCH,)), v.places, v.origins, Basis.INFERRED)
    if plain and v.is_(Kind.TENSOR) and v.places == {param(0)}:
        return Value(frozenset((Kind.BATCH,)), frozenset((CPU,)), (), Basis.INFERRED)
    if v.is_(Kind.OTHER) or v.is_(Kind.SCALAR):
        return v
    return None


_TRANSFORMS = "torchvision.transforms."
#: torchvision transforms that turn an image into a tensor, made on the CPU
_TO_TENSOR = frozenset({"ToTensor", "PILToTensor", "ToImage"})
_OTHER = Value.of(Kind.OTHER)


def _transform(ev: Evaluator, node: ast.Call, qual: str) -> Value:
    """A torchvision transform: ``ToTensor()`` returns, when called, a tensor made on the
    CPU; so does a ``Compose([...])`` of torchvision transforms that holds one (the others
    compute where their input is), unless a ``Lambda`` may do anything."""
    last = qual.rsplit(".", 1)[-1]
    if last in _TO_TENSOR:
        return _OTHER._replace(call=_tensor(frozenset((CPU,)), _made(node, f"{last}()"), Basis.INFERRED))
    if last != "Compose" or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return _OTHER
    made: Value | None = None
    for step in node.args[0].elts:
        q = ev.ff.qualname(step.func, ev.i) if isinstance(step, ast.Call) else None
        if q is None or not q.startswith(_TRANSFORMS) or q.endswith(".Lambda"):
            return _OTHER
        w = ev.values.get(id(step))
        if w is not None and w.call is not None:
            made = w.call
    return _OTHER if made is None else _OTHER._replace(call=made)


_ALBUMENTATIONS = "albumentations."


def _albumentation(ev: Evaluator, node: ast.Call, qual: str) -> Value:
    """An albumentations transform: ``ToTensorV2()``, called (``t(image=img)``), returns a
    dict whose ``"image"`` is a tensor made on the CPU; so does a ``Compose([...])`` of
    albumentations transforms whose last step is one (the others compute on NumPy arrays),
    unless a ``Lambda`` may do anything."""
    last = qual.rsplit(".", 1)[-1]
    if last == "ToTensorV2":
        made = _tensor(frozenset((CPU,)), _made(node, "ToTensorV2()"), Basis.INFERRED)
        return _OTHER._replace(call=container(keys=(("image", made),)))
    steps = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "transforms"), None)
    if last != "Compose" or not isinstance(steps, (ast.List, ast.Tuple)) or not steps.elts:
        return _OTHER
    for step in steps.elts:
        q = ev.ff.qualname(step.func, ev.i) if isinstance(step, ast.Call) else None
        if q is None or not q.startswith(_ALBUMENTATIONS) or q.endswith(".Lambda"):
            return _OTHER
    w = ev.values.get(id(steps.elts[-1]))
    return _OTHER if w is None or w.call is None else _OTHER._replace(call=w.call)


def _call_of(ev: Evaluator, node: ast.Call, name: str, fv: Value, args: Args, kws: Kws) -> Value:
    """A call of a value that knows what it returns (a transform)."""
    assert fv.call is not None
    v = fv.call._replace(origins=(_made(node, f"{name}(...)"), *fv.call.origins)[:ORIGIN_CAP])
    return ev.record(node, Callee.FUNCTION, name, fv, None, args, kws, v)


def _device_from(kws: Kws, default: frozenset[Place] | None,
                 node: ast.Call | None = None) -> frozenset[Place] | None:
    """Where ``device=`` puts what the call makes (``default`` without it); ``node``, the
    call, tells ``device=x.device``, which is wherever ``x`` is, from a device value."""
    for k, v in kws:
        if k == "**":
            return None
        if k == "device":
            if v.places and v.may_be(Kind.DEVICE) and all(not p.symbolic for p in v.places):
                return v.places
            if v.places and node is not None and _of_a_value(node):
                return v.places  # ``device=index.device`` of a parameter: where it is
            if v.places and v.may_be(Kind.TENSOR):
                return v.places
            return frozenset((ACCEL,)) if v.kinds is None or Kind.DEVICE in v.kinds else None
    return default


def _map_location(kws: Kws) -> frozenset[Place] | None:
    """Where ``torch.load(f, map_location=d)`` puts every tensor it loads: the places of
    ``d`` when it is a device value at known, concrete places (a string naming one, a
    ``torch.device``); None for anything else (a dict, a function, nothing given)."""
    for k, v in kws:
        if k == "map_location" and v.is_(Kind.DEVICE) and v.places \
                and all(not p.symbolic for p in v.places):
            return v.places
    return None


def _of_a_value(call: ast.Call) -> bool:
    """Is the call's ``device=`` written ``<name>.device`` (the device of a value)?"""
    kw = next((k.value for k in call.keywords if k.arg == "device"), None)
    return isinstance(kw, ast.Attribute) and kw.attr == "device"


def torch_call(node: ast.Call, qual: str, args: Args, kws: Kws) -> Value:
    """What a function of torch returns."""
    made = _torch_made(node, qual, args, kws)
    if made is not None:
        return made
    parts = qual.split(".")
    last = parts[-1]
    if last in vocab.TORCH_NON_TENSOR or parts[1] in ("cuda", "backends", "distributed", "utils"):
        return Value.of(Kind.OTHER)
    if not _returns_tensor(parts) and qual not in vocab.TENSOR_UTILS:
        return Value(None, None, (_made(node, f"{qual}(...)", Op.RETURNED),), Basis.HINT,
                     reason=Reason.UNRESOLVED)
    if len(parts) == 2 and last in vocab.REDUCTIONS and len(node.args) == 1 and not kws \
            and args and args[0].places == {CPU}:
        # ``torch.min(t)``: 0-dimensional on the CPU, as ``t.min()``
        return Value(_TENSOR, frozenset(), args[0].origins, Basis.INFERRED)
    item = batch_item_and_numbers(_computed_with(last, args, kws)) \
        if last in vocab.ITEM_ENCODINGS else None
    if item is not None:  # ``F.one_hot(labels, n)``: the item encoded, where it is
        return item
    return _computed_tensor(node, last, args, kws)


def _torch_made(node: ast.Call, qual: str, args: Args, kws: Kws) -> Value | None:
    """What a function of torch that makes, loads or passes on a value returns (a device,
    a factory's tensor, a module, a loader, a dataset, a distribution, its argument); None
    for any other function."""
    parts = qual.split(".")
    last = parts[-1]
    text = f"{qual}(...)"
    if qual == "torch.device":
        return _device_value(node, args)
    if qual == "torch.accelerator.current_accelerator":  # the accelerator (None without one)
        return Value.of(Kind.DEVICE, ACCEL, _made(node, text), Basis.CONSTRUCTED)
    if len(parts) == 2 and last in vocab.SHAPE_FACTORIES | vocab.DATA_FACTORIES and \
            not _sampled_from_tensors(last, args):
        default: frozenset[Place] | None = frozenset((CPU,))
        if last in ("as_tensor", "asarray") and args and args[0].is_(Kind.TENSOR):
            default = args[0].places
        return _tensor(_device_from(kws, default, node), _made(node, text), Basis.CONSTRUCTED)
    if len(parts) == 2 and last in vocab.LIKE_FACTORIES:
        default = args[0].places if args else None
        return _tensor(_device_from(kws, default, node), _made(node, text), Basis.CONSTRUCTED)
    if last in vocab.LEGACY_CONSTRUCTORS or qual == "torch.Tensor":
        place = ACCEL if "cuda" in parts else CPU
        return _tensor(frozenset((place,)), _made(node, text), Basis.CONSTRUCTED)
    if len(parts) >= 3 and parts[1] == "nn" and last[:1].isupper():
        return _nn_call(node, last, text, args, kws)
    if last == "DataLoader":
        return Value.of(Kind.LOADER, None, _made(node, text), Basis.CONSTRUCTED)
    if tensordata.is_tensor_dataset(qual):
        ds = tensordata.dataset(node, args)
        if ds is not None:
            return ds
    if qual == "torch.load":
        to = _map_location(kws)
        return Value(None, to, (_made(node, text, Op.LOADED, to),))
    if qual in vocab.SAME_MODULE and args and args[0].is_(Kind.MODULE):
        return args[0]
    if qual in vocab.MODEL_BUILDERS:
        return Value(_MODULE, _device_from(kws, frozenset((CPU,))), (_made(node, text),),
                     Basis.CONSTRUCTED)
    if last == "Variable" and args:  # the old autograd wrapper: the tensor itself
        return args[0]
    if qual == "torch.nn.utils.rnn.pack_padded_sequence" and args:
        # a PackedSequence: its data (and sorted indices) are where the input is; an RNN
        # given it computes there
        return Value(_TENSOR, args[0].places, args[0].origins, Basis.INFERRED)
    return distributions.built(node, qual, args, kws)


def _computed_tensor(node: ast.Call, last: str, args: Args, kws: Kws) -> Value:
    """The tensor a function of torch computes from its operands: where they are, with
    their origins."""
    # (``torch.cat((a, b))``: a tuple of tensors computes where its tensors are)
    values = [x for v in _computed_with(last, args, kws) for x in (
        v.elts if v.elts and all(e.is_(Kind.TENSOR) for e in v.elts) else (v,))]
    # (``torch.cat(parts)``: the items of a list carry the origins)
    origins = tuple(dict.fromkeys(o for v in values for o in (
        v.item.origins if v.item is not None and not v.origins else v.origins)))[:ORIGIN_CAP]
    at = tensor_places(values)
    if at is None and _unplaced_are_held(node, last, args, kws):
        at = shared_places(values)
    return Value(_TENSOR, at, origins, Basis.INFERRED)


def _unplaced_are_held(node: ast.Call, last: str, args: Args, kws: Kws) -> bool:
    """Is every operand of ``node`` that may be a tensor of no known place an attribute
    of an object (``self.window``: state the analysis does not follow), written out where
    the call is (no ``*args``)?  Only then does :func:`shared_places` read the call as
    computing where its placed tensors are."""
    if any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) != len(args):
        return False
    numbers = vocab.NUMBER_POSITIONS.get(last, frozenset())
    given = [(e, v) for k, (e, v) in enumerate(zip(node.args, args, strict=True)) if k not in numbers]
    named = {k.arg: k.value for k in node.keywords}
    given += [(named[n], v) for n, v in kws if n in named and n not in vocab.NUMBER_KEYWORDS]
    unplaced = [e for e, v in given if v.places is None and v.item is None and
                (v.kinds is None or v.kinds & {Kind.TENSOR, Kind.BATCH})]
    return bool(unplaced) and all(isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
                                  for e in unplaced)


def _sampled_from_tensors(last: str, args: Args) -> bool:
    """Does ``torch.<last>(...)`` sample from tensors it is given, and so compute where they
    are, rather than make a tensor on the CPU: ``torch.multinomial(w, n)`` and
    ``torch.bernoulli(p)`` always (their input is a tensor), ``torch.normal(mean, std)``
    unless both are known to be numbers (``torch.normal(0.0, 1.0, size=(n,))``)?"""
    if last in ("multinomial", "bernoulli"):
        return True
    return last == "normal" and not (len(args) >= 2 and all(a.is_(Kind.SCALAR) for a in args[:2]))


def _computed_with(last: str, args: Args, kws: Kws) -> list[Value]:
    """The arguments of ``torch.<...>.<last>(...)`` that may be tensors it computes with:
    all but those its signature takes as Python numbers (:data:`vocab.NUMBER_POSITIONS`,
    :data:`vocab.NUMBER_KEYWORDS`: ``num_classes=model.n_classes`` is an int whatever
    ``model`` is)."""
    numbers = vocab.NUMBER_POSITIONS.get(last, frozenset())
    return [*(v for k, v in enumerate(args) if k not in numbers),
            *(v for name, v in kws if name not in vocab.NUMBER_KEYWORDS)]


def _returns_tensor(parts: list[str]) -> bool:
    """``torch.cat``, ``F.relu``, ``torch.linalg.norm``: functions that compute tensors."""
    if len(parts) == 2:
        return parts[1][:1].islower()
    return parts[1] in vocab.TENSOR_SUBMODULES or parts[1:3] == ["nn", "functional"]


def _tensor(places: frozenset[Place] | None, origin: Origin | tuple[()], basis: Basis) -> Value:
    origins = (origin,) if isinstance(origin, Origin) else ()
    return Value(_TENSOR, places, origins, basis)


def _device_value(node: ast.Call, args: Args) -> Value:
    origin = _made(node, "torch.device(...)")  # a device by construction, wherever it is
    if args and args[0].is_(Kind.DEVICE) and args[0].places:
        return Value(frozenset((Kind.DEVICE,)), args[0].places, (origin,), Basis.CONSTRUCTED)
    return Value.of(Kind.DEVICE, ACCEL, origin, Basis.CONSTRUCTED)


def _nn_call(node: ast.Call, last: str, text: str, args: Args, kws: Kws) -> Value:
    if last in ("Parameter", "Buffer"):
        # the wrapped tensor itself, where it is, made by what made it (``torch.zeros(n)``
        # without ``device=``): the wrapper first, which says it is registered
        places = args[0].places if args else None
        inner = args[0].origins[:ORIGIN_CAP - 1] if args and args[0].may_be(Kind.TENSOR) else ()
        return Value(_TENSOR, places, (_made(node, text), *inner), Basis.CONSTRUCTED)
    if last in vocab.NN_NOT_MODULES:
        return UNKNOWN
    if last in vocab.WRAPPERS:
        return _wrapper(node, last, text, args, kws)
    return Value(_MODULE, _device_from(kws, frozenset((CPU,))), (_made(node, text),),
                 Basis.CONSTRUCTED)


def _wrapper(node: ast.Call, last: str, text: str, args: Args, kws: Kws) -> Value:
    """``nn.DataParallel(m)``, ``DistributedDataParallel(m)`` of a module ``m``: a module
    where ``m`` is.  Neither moves ``m`` (``device_ids`` names where it must already be),
    and the forward gathers its outputs on the first of those devices, where ``m``'s
    weights are, unless ``output_device=`` names another one (then the place is unknown).
    The sharded wrapper, given ``device_id=``, may move it, and so may unknown keywords
    (``**kw``)."""
    made = _made(node, text)
    if last not in vocab.KEEPING_WRAPPERS or not args or not args[0].is_(Kind.MODULE) or \
            any(name in ("**", "output_device") for name, _ in kws):
        return Value(_MODULE, None, (made,), Basis.CONSTRUCTED)
    inner = args[0]
    return Value(_MODULE, inner.places, (made, *inner.origins)[:ORIGIN_CAP], Basis.CONSTRUCTED)


# -- values with methods -----------------------------------------------------------------
_GROWS = frozenset({"append", "extend", "insert", "add"})


def method_call(ev: Evaluator, node: ast.Call, attr: str, recv: Value, args: Args,
                kws: Kws) -> Value:
    if attr in libfacts.ACCELERATOR_PREPARES and libfacts.placing_accelerator(ev.ff.qualname, recv):
        return _prepared(ev, node, attr, recv, args, kws)
    if attr in _GROWS and recv.item is not None and recv.elts is None and args:
        _grow(ev, node, attr, recv, args)
    if attr == "forward" and (recv.is_(Kind.MODULE) or recv.kinds is None):
        return _forward(ev, node, recv, args, kws)
    method = _method_of_the_run(ev, node, recv, attr)
    if method is not None:  # ``net.predict(x)``: a method a class of the run defines
        for info, fn in _other_methods(ev, recv, attr, method[1]):
            _site_of(ev, node, info.ff, fn, [recv, *args], kws)  # (one of several classes)
        v = project_call(ev, node, method[0].ff, method[1], args, kws, receiver=recv)
        also = _also_taking(ev, node, recv, attr, method[1])
        if not also:
            return v
        v = join_all([v, *(UNKNOWN if found is None else _method_returned(ev, node, found[0].ff, found[1], recv, args, kws)
                           for found in also)])
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    if strings_after_the_device(node):  # ``data.to(device, "x")``: not torch's move
        return _unresolved(ev, node, attr, UNKNOWN, args, kws, Reason.UNRESOLVED, recv)
    held = ev.i.held_attr(node.func) if isinstance(node.func, ast.Attribute) else None
    held = held if held is not None else _held_module(ev, recv, attr)
    if held is not None:  # ``self.policy.net(x)``, ``trainer.model(batch)``
        return module_call(ev, node, held, args, kws)
    layer = wrapped_module(recv, attr) or _library_submodule(recv, attr)
    if layer is not None:  # ``clip.text_model(**inputs)`` of a moved ``CLIPModel``, ``dp.module(x)``
        return module_call(ev, node, layer, args, kws)
    if recv.is_(Kind.MODULE):
        return module_method(ev, node, attr, recv, args, kws)
    if attr == "setdefault" and len(args) == 2 and recv.elts is None and \
            (recv.item is not None or recv.keys is not None):
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws,
                         _kept_at(recv, node.args[0], args[1]))
    if attr == "copy" and not args and not kws and recv.elts is None and \
            (recv.item is not None or recv.keys is not None):
        # ``d.copy()`` of a dict (a list, a set) the analysis knows: the same values
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws,
                         container(item=recv.item, keys=recv.keys))
    if attr in ("items", "values") and not args and recv.elts is None and \
            (recv.item is not None or recv.keys is not None):
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws,
                         _dict_view(recv, attr))
    if recv.is_(Kind.NDARRAY):
        v = Value.of(Kind.SCALAR) if attr in ("item", "tolist") else Value.of(Kind.NDARRAY)
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    if attr in distributions.DRAWS and distributions.is_distribution(recv):
        # ``Categorical(logits=t).sample()``: where the distribution's parameters are
        v = distributions.drawn(recv)
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    if recv.is_(Kind.LOADER) or recv.is_(Kind.OTHER) and attr not in vocab.MOVES:
        return _unresolved(ev, node, attr, UNKNOWN, args, kws, Reason.UNRESOLVED, recv)
    if recv.kinds is None and attr not in vocab.MOVE_NAMES and attr not in vocab.TENSOR_METHODS:
        return _unknown_method(ev, node, attr, recv, args, kws)
    v = tensor_method(ev, node, attr, recv)
    return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)


#: where an accelerator's ``device`` is: an accelerator when there is one, else the CPU
_ACCELERATOR_DEVICE = frozenset((ACCEL, CPU))


def _prepared(ev: Evaluator, node: ast.Call, attr: str, recv: Value, args: Args, kws: Kws) -> Value:
    """``accelerator.prepare(model, optimizer, loader)``: the same objects in order (the one
    object when given one), a module moved where the accelerator runs and a loader whose
    batches are put there; what else it is given keeps an unknown kind.  Arguments given
    by ``*``, or any keyword (``device_placement=[...]``), leave the result unknown."""
    _escape(ev, node)
    several = libfacts.ACCELERATOR_PREPARES[attr]
    if any(isinstance(a, ast.Starred) for a in node.args) or node.keywords or not args \
            or not several and len(args) != 1:
        return ev.record(node, Callee.UNRESOLVED, attr, UNKNOWN, recv, args, kws, UNKNOWN)
    moved = _made(node, f"{attr}(...)", Op.MOVED, _ACCELERATOR_DEVICE)
    out = tuple(_placed_by_accelerator(a, moved) for a in args)
    v = out[0] if len(out) == 1 else container(out)
    return ev.record(node, Callee.UNRESOLVED, attr, UNKNOWN, recv, args, kws, v)


def _placed_by_accelerator(v: Value, moved: Origin) -> Value:
    """What ``prepare`` hands back for ``v``: a module at the accelerator's device, a
    loader whose batches are there (their items, as the batch), anything else unknown."""
    if v.is_(Kind.MODULE):
        return v.at(_ACCELERATOR_DEVICE, moved)
    if v.is_(Kind.LOADER):
        batch = Value(frozenset((Kind.BATCH,)), _ACCELERATOR_DEVICE, (moved,), Basis.INFERRED)
        return v._replace(item=batch, origins=(moved, *v.origins)[:ORIGIN_CAP])
    return UNKNOWN


def _kept_at(d: Value, key: ast.expr, default: Value) -> Value:
    """``d.setdefault(key, default)`` of a dict the analysis knows: what ``d`` holds at
    ``key`` (any of its values for a key it does not know), or ``default``."""
    name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    held = dict(d.keys or ())
    if name is not None and name in held:
        now: Value | None = held[name]
    elif d.item is not None:
        now = d.item
    else:
        now = join_all(held.values()) if name is None and held else None
    return default if now is None else join(now, default)


def _dict_view(d: Value, attr: str) -> Value:
    """``d.values()`` and ``d.items()`` of a dict whose values the analysis knows (a dict
    literal, ``model.state_dict()``): a sequence of its values, or of (key, value) pairs, so
    that ``for name, w in model.state_dict().items()`` gives ``w`` the values' kind and place."""
    each = element(d, None)
    return container(item=container((UNKNOWN, each)) if attr == "items" else each)


def _class_method(ff: FileFlow, func: ast.expr) -> tuple[FileFlow, ast.AST] | None:
    """``Part.make`` of ``Part.make(idx, mesh)``: a ``@staticmethod`` or ``@classmethod``
    of a class of the run (of this file or imported), called through its class; None for
    any other callee (a plain method called through its class takes its ``self`` as an
    argument)."""
    if not isinstance(func, ast.Attribute):
        return None
    found = ff._named(func.value)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    m = found[0].class_info(found[1]).method(func.attr)
    if m is None or len(m[1].decorator_list) != 1 or not isinstance(m[1].decorator_list[0], ast.Name) or \
            m[1].decorator_list[0].id not in ("staticmethod", "classmethod"):
        return None
    return m[0].ff, m[1]


def _method_of_the_run(ev: Evaluator, node: ast.Call, recv: Value, attr: str) -> tuple[ClassInfo, ast.AST] | None:
    """The method ``attr`` of the class of the run that built ``recv`` in this file (a plain
    method: no decorator), unless ``attr`` moves a module (``to``, ``cuda``...).  Of a
    receiver that several classes' constructors may have built, the one class whose
    method Python would not refuse ``node`` (:func:`~torchferry.check.flow.receivers.refused`:
    on the others the call raises ``TypeError``), where there is one."""
    if attr in vocab.MOVE_NAMES or not (recv.is_(Kind.MODULE) or recv.is_(Kind.OTHER)):
        return None
    classes = made_classes(ev.ff, recv, whole=True)
    taking = [c for c in classes if not refused(c, attr, node)]
    info = ev.ff.class_of(recv)
    if len(classes) > 1 and taking and all(c is not info for c in taking):
        info = taking[0]  # (the last made refuses the call: one of those that take it)
    info = info or ev.i.instance_of_param(recv)
    found = info.method(attr) if info is not None else None
    if found is None or found[1].decorator_list:
        return None
    return found


def _also_taking(ev: Evaluator, node: ast.Call, recv: Value, attr: str,
                 fn: ast.AST) -> list[tuple[ClassInfo, ast.AST] | None]:
    """The methods ``attr`` (other than ``fn``) of the other classes of the run whose
    constructors, called in this file, may have built ``recv``, each a class on which
    Python would not refuse ``node`` (:func:`~torchferry.check.flow.receivers.refused`):
    the call runs one of them, and gives what that one returns.  None for such a class
    whose ``attr`` is no plain method of the run (what it gives is not known)."""
    classes = made_classes(ev.ff, recv, whole=True)
    out: list[tuple[ClassInfo, ast.AST] | None] = []
    for info in classes if len(classes) > 1 else ():
        found = info.method(attr)
        if found is not None and found[1] is fn or refused(info, attr, node):
            continue
        if found is None or found[1].decorator_list:
            out.append(None)
        elif all(o is None or o[1] is not found[1] for o in out):
            out.append(found)
    return out


def _other_methods(ev: Evaluator, recv: Value, attr: str, fn: ast.AST) -> list[tuple[ClassInfo, ast.AST]]:
    """The methods ``attr`` of the other classes of the run whose constructors, called in
    this file, may have built ``recv`` (``policy = TD3(...)`` on one arm, ``DDPG(...)`` on
    the other): ``recv.attr(...)`` calls whichever class's, so each one is called there."""
    out: list[tuple[ClassInfo, ast.AST]] = []
    for o in recv.origins:
        if o.op is not Op.MADE or o.path is not None or not isinstance(o.node, ast.Call):
            continue
        info = ev.ff.class_called(o.node)
        found = info.method(attr) if info is not None and not info.is_module else None
        if found is not None and found[1] is not fn and not found[1].decorator_list and \
                all(m is not found[1] for _, m in out):
            out.append(found)
    return out


def _site_of(ev: Evaluator, node: ast.Call, owner: FileFlow, target: ast.AST, args: Args, kws: Kws) -> None:
    """Record ``node`` as a call of ``target`` (a method, ``args`` starting with its
    receiver) among the call sites the rules ask, without interpreting it."""
    if not isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) or ev.i.given is not None:
        return
    params = param_names(target)
    bound = {str(k): a for k, a in enumerate(args) if k < len(params)}
    bound.update((str(params.index(name)), v) for name, v in kws if name in params)
    spread = any(isinstance(a, ast.Starred) for a in node.args) or any(k == "**" for k, _ in kws)
    site = (ev.i.res, {} if spread else bound)
    if owner is ev.ff:
        owner.call_sites.setdefault(id(target), {})[id(node)] = site
    else:
        ev.ff.calls_into.setdefault((owner.path, target.name, target.lineno), {})[id(node)] = site


def _held_module(ev: Evaluator, recv: Value, attr: str) -> Value | None:
    """``recv.<attr>`` when it is a module the class of the run that built ``recv`` in this
    file stores there: for a plain object (``self.policy = Policy()``, ``trainer =
    Trainer(model, device)``), the module its methods or its constructor's arguments leave
    at known places; for a module of the run (``self.agent = ActorCritic().cuda()``), a
    submodule its methods assign, where the module is (a move takes its submodules along).
    None otherwise (a method of that name, an attribute of unknown kind)."""
    if attr in vocab.MOVE_NAMES or attr in vocab.MODULE_METHODS or attr in vocab.MODULE_SELF:
        return None
    if recv.is_(Kind.OTHER) and recv.origins:
        stored = ev.ff.instance_attr(recv, attr)
        return stored if stored is not None and stored.is_(Kind.MODULE) else None
    if not recv.is_(Kind.MODULE) or not recv.known_places:
        return None
    entry = module_dict_entry(recv, attr, ev.ff.qualname)
    if entry is not None:  # ``self.transformer.wpe(pos)`` of an ``nn.ModuleDict``
        return entry
    info = ev.ff.class_of(recv)
    if info is None or not info.is_module or info.method(attr) is not None:
        return None
    stored = ev.ff.class_attr(info, attr)
    made = tuple(o for o in stored.origins if o.op is Op.MADE)
    if not stored.is_(Kind.MODULE) or not made:
        return None
    if info.ff is not ev.ff:
        made = tuple(o if o.path else o._replace(path=info.ff.path) for o in made)
    moved = tuple(o for o in recv.origins if o.op is not Op.MADE)  # (its own construction's)
    return Value(_MODULE, recv.places, (*made, *moved)[:ORIGIN_CAP], Basis.INFERRED)


def _library_submodule(recv: Value, attr: str) -> Value | None:
    """``recv.<attr>`` when ``recv`` is a placed Hugging Face model, built or loaded by its
    class or a factory (``CLIPModel.from_pretrained(name).to(device)``), and ``attr`` a
    layer that class builds (:func:`~torchferry.check.flow.modclass.hf_submodule`:
    ``text_model``, ``encoder``): a submodule, which the model's moves take along, where
    the model is.  None for anything else (``model.generate``, a model of another origin
    or of several)."""
    if not recv.known_places or recv.kinds is not None and not recv.is_(Kind.MODULE):
        return None
    from torchferry.check.flow.modclass import hf_submodule

    built = [o for o in recv.origins if o.op is not Op.MOVED]
    if not built or not all(hf_submodule(o.text, attr) for o in built):
        return None
    return Value(_MODULE, recv.places, recv.origins, Basis.INFERRED)


def _grow(ev: Evaluator, node: ast.Call, attr: str, recv: Value, args: Args) -> None:
    """``xs.append(t)``, ``xs.extend(ts)``, ``xs.insert(i, t)``, ``s.add(t)`` on a list or
    set bound to a local name or held by ``self`` (``self.items.append(t)``, as the class
    keeps it for its other methods): its item is joined with what is added (a loop's
    rounds carry it to the next iteration)."""
    base = node.func.value if isinstance(node.func, ast.Attribute) else None
    if base is not None and ev.i.self_attr(base) and recv.item is not None:
        added = element(args[0], None) if attr == "extend" else args[-1]
        ev.i._bind_attr(base, recv._replace(item=join(recv.item, added)))  # type: ignore[arg-type]
        return
    added = element(args[0], None) if attr == "extend" else args[-1]
    if recv.item is None:
        return
    if isinstance(base, ast.Subscript) or isinstance(base, ast.Call) and _setdefault(base):
        _grow_in_dict(ev, base, recv._replace(item=join(recv.item, added)))
        return
    if not isinstance(base, ast.Name) or base.id not in ev.i.env:
        return
    ev.i.env[base.id] = recv._replace(item=join(recv.item, added))


def _setdefault(call: ast.Call) -> bool:
    """``d.setdefault(k, [])``: the list kept in ``d`` at ``k``."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "setdefault" and len(call.args) == 2


def _grow_in_dict(ev: Evaluator, base: ast.Subscript | ast.Call, grown: Value) -> None:
    """``hist[phase].append(t)`` or ``d.setdefault(k, []).append(t)`` on a dict bound to a
    local name (a literal, ``{}``, ``defaultdict(list)``): the list kept at that key (a
    literal key; every key and the dict's item for a key the analysis does not know)
    holds what is added, for ``hist[phase]`` and ``hist.values()`` to read back."""
    holder = base.value if isinstance(base, ast.Subscript) else base.func.value  # type: ignore[attr-defined]
    kept = ev.i.self_attr(holder)  # (``self.hist[phase].append(t)``: a dict the class keeps)
    if not kept and (not isinstance(holder, ast.Name) or holder.id not in ev.i.env):
        return
    d = ev.self_attr(holder.attr, holder) if kept else ev.i.env[holder.id]  # type: ignore[union-attr]
    if d.elts is not None or d.keys is None and d.item is None:
        return
    key = base.slice if isinstance(base, ast.Subscript) else base.args[0]
    name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    keys = d.keys
    if keys is not None and name is not None and any(k == name for k, _ in keys):
        keys = tuple((k, grown if k == name else v) for k, v in keys)
        d = d._replace(keys=keys)
    else:
        if keys is not None:  # (an unknown key may be any of them, or a new one)
            keys = tuple((k, join(v, grown)) for k, v in keys)
        d = d._replace(keys=keys, item=grown if d.item is None else join(d.item, grown))
    if kept:
        ev.i._bind_attr(holder, d)  # type: ignore[arg-type]
    else:
        ev.i.env[holder.id] = d  # type: ignore[union-attr]


def _forward(ev: Evaluator, node: ast.Call, recv: Value, args: Args, kws: Kws) -> Value:
    """``net.forward(x)`` is ``net(x)`` (without the hooks): a module's output where its
    weights are; for a receiver of unknown kind, as ``net(x)`` is read for a parameter,
    where its tensor inputs are."""
    if recv.is_(Kind.MODULE):
        return module_call(ev, node, recv, args, kws)
    base = node.func.value if isinstance(node.func, ast.Attribute) else None
    k = ev.i.param_index.get(base.id) if isinstance(base, ast.Name) else None
    if k is not None:
        ev.i.res.param_uses.setdefault(k, Kind.MODULE)
    return module_call(ev, node, recv, args, kws, follow_inputs=True)


def _unknown_method(ev: Evaluator, node: ast.Call, attr: str, recv: Value, args: Args,
                    kws: Kws) -> Value:
    """A method of a value of unknown kind: ``model.eval()`` returns it, a method of
    something with a known place computes there (``model.generate(...)``); anything else
    is unknown."""
    if attr in vocab.MODULE_SELF:
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, recv)
    if attr == "type" and _legacy_target(ev, node):
        v = _legacy_cast(node, _type_target(ev, node, recv))
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    if attr == "state_dict" and not args and not kws and recv.known_places:
        # ``model.state_dict()`` of a model handed in: a dict of tensors where the model
        # is (``.items()`` and ``.values()`` give them, see :func:`_dict_view`)
        v = container(item=Value(_TENSOR, recv.places, recv.origins, Basis.INFERRED))
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    if recv.known_places and not _tensors_on_the_cpu(node):
        v = Value(None, recv.places, recv.origins, Basis.INFERRED)
        _escape(ev, node)
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)
    return _unresolved(ev, node, attr, UNKNOWN, args, kws, Reason.UNRESOLVED, recv)


def tensor_method(ev: Evaluator, node: ast.Call, attr: str, recv: Value) -> Value:
    """What a method of a tensor (or of a batch) returns."""
    kinds = recv.kinds if recv.is_(Kind.BATCH) or recv.kinds is None else _TENSOR
    if attr == "to":
        places, moved = move_target(ev, node, recv)
        if not moved:
            return Value(kinds, recv.places, recv.origins, recv.basis)
        return Value(kinds, places, (_made(node, "to(...)", Op.MOVED, places), *recv.origins)[:ORIGIN_CAP],
                     recv.basis)
    where = vocab.MOVES.get(attr)
    if where is not None:
        place = CPU if where == CPU.where else ACCEL
        return Value(kinds, frozenset((place,)), (_made(node, f"{attr}()", Op.MOVED, frozenset((place,))),
                                                  *recv.origins)[:ORIGIN_CAP], recv.basis)
    if attr == "type" and (node.args or node.keywords):
        places = _type_target(ev, node, recv)
        if places == recv.places:
            return Value(kinds, recv.places, recv.origins, recv.basis)
        if not recv.known_places and _legacy_target(ev, node):
            return _legacy_cast(node, places)
        return Value(kinds, places, (_made(node, "type(...)", Op.MOVED, places), *recv.origins)[:ORIGIN_CAP],
                     recv.basis)
    if attr in vocab.REDUCTIONS and not node.args and not node.keywords and recv.places == {CPU}:
        # ``mask.sum()``: 0-dimensional on the CPU, it mixes with tensors on any device
        return Value(kinds, frozenset(), recv.origins, recv.basis)
    if attr in vocab.TO_SCALAR:
        return Value.of(Kind.SCALAR)
    if attr in vocab.TO_NDARRAY:
        return Value.of(Kind.NDARRAY, None, _made(node, "numpy()"), Basis.INFERRED)
    if attr == "type_as" and node.args:  # a cast to the other's type, and its device
        other = ev.values.get(id(node.args[0]), UNKNOWN)
        return Value(kinds, other.places, (_made(node, "type_as(...)", Op.MOVED, other.places),
                                           *recv.origins)[:ORIGIN_CAP], recv.basis)
    return Value(kinds, recv.places, recv.origins, _kept(recv.basis, attr))


def _kept(basis: Basis, attr: str) -> Basis:
    """A method's result is a tensor by construction only if its receiver is and the
    method always returns a tensor (``t.split(2)`` is a tuple, ``t.max(0)`` a pair)."""
    if basis is Basis.CONSTRUCTED and attr not in vocab.TENSOR_KEEPING:
        return Basis.INFERRED
    return basis


def _type_target(ev: Evaluator, node: ast.Call, recv: Value) -> frozenset[Place] | None:
    """Where ``x.type(T)`` puts ``x``: ``torch.cuda.FloatTensor`` an accelerator,
    ``torch.FloatTensor`` the CPU, a dtype where it was; a type the code chose
    (``Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor``) anywhere."""
    target = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "dtype"), None)
    if target is None:
        return None
    return _cast_target(ev, target, recv, named_dtype(target))


def _module_type_target(ev: Evaluator, node: ast.Call, recv: Value) -> frozenset[Place] | None:
    """Where ``module.type(T)`` puts the module's tensors: as :func:`_type_target` for a
    ``T`` the code names or chooses between legacy types; anything else (a parameter
    ``dtype`` a caller may set to ``torch.cuda.FloatTensor``) may be any device, whatever
    its name."""
    target = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "dst_type"), None)
    return None if target is None else _cast_target(ev, target, recv, False)


def _cast_target(ev: Evaluator, target: ast.expr, recv: Value, by_name: bool) -> frozenset[Place] | None:
    """Where a cast to the type ``target`` puts ``recv``'s tensors; with ``by_name``, a
    type the analysis cannot name is taken as a dtype when its name says so."""
    text = target.value if isinstance(target, ast.Constant) and isinstance(target.value, str) \
        else ev.ff.qualname(target, ev.i)
    if text is None:
        chosen = ev.values.get(id(target), UNKNOWN)
        if chosen.is_(Kind.OTHER) and chosen.places and _legacy_types(chosen):
            return chosen.places  # ``T = torch.cuda.FloatTensor if cuda else torch.FloatTensor``
        return recv.places if by_name else None
    parts = text.split(".")
    if parts[0] != "torch":
        return None
    if parts[-1] in vocab.DTYPES:
        return recv.places
    if parts[-1] in vocab.LEGACY_CONSTRUCTORS or parts[-1] == "Tensor":
        return frozenset((ACCEL if "cuda" in parts else CPU,))
    return None


def _legacy_target(ev: Evaluator, node: ast.Call) -> bool:
    """Does ``x.type(T)`` name a legacy tensor type (``torch.FloatTensor``,
    ``torch.cuda.LongTensor``), not a dtype?  Only a tensor or a module has such a
    method, and either comes back cast onto that type's device."""
    if not node.args:
        return False
    text = ev.ff.qualname(node.args[0], ev.i)
    return text is not None and text.startswith("torch.") and \
        text.rsplit(".", 1)[-1] in vocab.LEGACY_CONSTRUCTORS


def _legacy_cast(node: ast.Call, places: frozenset[Place] | None) -> Value:
    """``x.type(torch.FloatTensor)`` of an ``x`` whose place is not known: a tensor made
    on that type's device, whatever ``x`` was (a CPU type copies a device tensor back)."""
    return Value(_TENSOR, places, (_made(node, "type(...)", Op.MADE, places),), Basis.INFERRED)


def _typed_construction(ev: Evaluator, node: ast.Call, name: str, typed: Value, args: Args,
                        kws: Kws) -> Value:
    """``T(data)`` for a name bound to a legacy tensor type (``FloatTensor =
    torch.cuda.FloatTensor if use_cuda else torch.FloatTensor``): a tensor made where each
    type the name may hold makes it (the accelerator for a CUDA type, else the CPU)."""
    ev.values[id(node.func)] = typed
    v = _tensor(typed.places, _made(node, f"{name}(...)"), Basis.CONSTRUCTED)
    return ev.record(node, Callee.FUNCTION, name, typed, None, args, kws, v)


#: the origin text of ``type(t)`` for a ``t`` that is a tensor (:func:`_class_of`)
_TENSOR_CLASS = "torch.Tensor"
#: the origin text of ``type(e)`` for an ``e`` of unknown kind
_CLASS_OF = "type(...)"


def _class_of(node: ast.Call, of: Value) -> Value:
    """``type(t)``: the class of ``t``.  For a tensor that is ``torch.Tensor`` (whatever
    device ``t`` is on), whose constructor is the legacy one that builds on the CPU; for a
    value of unknown kind, a class that :func:`tensor_class` may still show to be it."""
    text = _TENSOR_CLASS if of.is_(Kind.TENSOR) else _CLASS_OF
    return Value(frozenset((Kind.OTHER,)), frozenset((CPU,)), (_made(node, text),), Basis.INFERRED)


def tensor_class(v: Value, call: ast.Call) -> bool:
    """Does ``call`` construct ``torch.Tensor`` through a class taken with ``type(e)``?  So
    on every path ``v`` has: ``e`` is a tensor, or ``call`` is given ``e``'s own
    ``e.size()`` (a tensor's size; an array's ``size`` is a number, not a method).

    >>> import ast
    >>> src = "k = type(x.data)\\nk(x.data.size())"
    >>> body = ast.parse(src).body
    >>> of, call = body[0].value, body[1].value
    >>> tensor_class(_class_of(of, UNKNOWN), call)
    True
    >>> tensor_class(_class_of(of, UNKNOWN), ast.parse("k([1, 2])").body[0].value)
    False
    """
    if not v.origins or not v.is_(Kind.OTHER):
        return False
    return all(o.op is Op.MADE and (o.text == _TENSOR_CLASS or o.text == _CLASS_OF and
                                    _sized_by(o.node, call)) for o in v.origins)


def _sized_by(of: ast.AST | None, call: ast.Call) -> bool:
    """Is ``call`` given ``e.size()`` alone, for the ``e`` of ``of`` (``type(e)``)?"""
    if not isinstance(of, ast.Call) or len(of.args) != 1 or len(call.args) != 1 or call.keywords:
        return False
    arg = call.args[0]
    return isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and \
        arg.func.attr == "size" and not arg.args and not arg.keywords and \
        ast.dump(arg.func.value) == ast.dump(of.args[0])


def _tensor_construction(ev: Evaluator, node: ast.Call, name: str, cls: Value, args: Args,
                         kws: Kws) -> Value:
    """``type(t)(sizes)``: ``torch.Tensor(sizes)``, made on the CPU."""
    ev.values[id(node.func)] = cls
    v = _tensor(frozenset((CPU,)), _made(node, f"{name}(...)"), Basis.CONSTRUCTED)
    return ev.record(node, Callee.TORCH, "torch.Tensor", cls, None, args, kws, v)


def _legacy_types(v: Value) -> bool:
    """Is ``v`` one legacy tensor type or another on every path it has (each origin a
    ``torch[.cuda].<T>Tensor`` named by the code)?"""
    return all(o.op is Op.MADE and o.text.startswith("torch.")
               and o.text.rsplit(".", 1)[-1] in vocab.LEGACY_CONSTRUCTORS for o in v.origins)


def module_method(ev: Evaluator, node: ast.Call, attr: str, recv: Value, args: Args,
                  kws: Kws) -> Value:
    """A method of a module: ``.to(d)`` and ``.cuda()`` move it in place."""
    if attr == "to" or attr in vocab.MOVES:
        if attr == "to":
            places, moved = move_target(ev, node, recv)
        else:
            places, moved = frozenset((CPU if attr == "cpu" else ACCEL,)), True
        v = recv
        if moved:
            text = f"{attr}(...)" if attr == "to" else f"{attr}()"
            v = recv.at(places, _made(node, text, Op.MOVED, places))
            move_in_place(ev, node.func, v)
    elif attr == "type" and (node.args or node.keywords):
        # ``Module.type(T)`` casts every parameter and buffer in place (``t.type(T)``): a
        # CUDA tensor type puts them on the device, a type the analysis cannot name anywhere
        places = _module_type_target(ev, node, recv)
        v = recv
        if places != recv.places:
            v = recv.at(places, _made(node, "type(...)", Op.MOVED, places))
            move_in_place(ev, node.func, v)
    elif attr in vocab.MODULE_SELF:
        v = recv
    elif attr in ("state_dict", "parameters", "buffers"):
        v = container(item=Value(_TENSOR, recv.places, recv.origins, _layer_basis(recv)))
    elif attr in ("modules", "children") and recv.is_(Kind.MODULE):
        # ``for m in model.modules()``: its submodules (itself first), where it is; what
        # built each is not known (as for ``for layer in self.layers``)
        v = container(item=Value(frozenset((Kind.MODULE,)), recv.places, (), Basis.INFERRED))
    elif attr in vocab.MODULE_METHODS:
        v = Value.of(Kind.OTHER)
    else:  # vae.inference(x), model.generate(...): on the module's device
        v = Value(None, recv.places, recv.origins, Basis.INFERRED)
    return ev.record(node, Callee.METHOD, attr, UNKNOWN, recv, args, kws, v)


def _layer_basis(module: Value) -> Basis:
    """CONSTRUCTED for a module built here by a ``torch.nn`` layer's constructor (whose
    ``state_dict()`` and parameters are tensors: no class of the code overrides them)."""
    if module.basis is Basis.CONSTRUCTED and module.is_(Kind.MODULE) and any(
            o.op is Op.MADE and o.text.startswith("torch.nn.") for o in module.origins):
        return Basis.CONSTRUCTED
    return Basis.INFERRED


def move_in_place(ev: Evaluator, func: ast.expr, v: Value) -> None:
    if not isinstance(func, ast.Attribute):
        return
    base = module_behind(ev, func.value)
    i = ev.i
    if isinstance(base, ast.Name):
        if base.id not in i.env and not isinstance(i.node, ast.Module):
            i.res.outer_moves[base.id] = v
        k = i.param_index.get(base.id)
        if k is not None and base.id != i.self_name:
            old = i.res.param_moves.get(k)
            i.res.param_moves[k] = v if old is None else join(old, v)
        i.env[base.id] = v
    elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
            and base.value.id == i.self_name:
        i._bind_attr(base, v, moved=True)
    elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
        i._hold_attr(base.value, base.attr, v, func)  # ``agent.q.to(device)``


def module_behind(ev: Evaluator, node: ast.expr) -> ast.expr:
    """The module that ``node`` is, through the methods that return the module itself
    (``model.bfloat16()`` of ``model.bfloat16().cuda()``, ``net.eval().half()``): ``model``,
    when it is known to be a module (a tensor's ``.bfloat16()`` is a copy); otherwise
    ``node``."""
    root = node
    while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and \
            root.func.attr in vocab.MODULE_SELF:
        root = root.func.value
    v = ev.i.res.value(root) if root is not node else None
    return root if v is not None and v.is_(Kind.MODULE) else node


def module_call(ev: Evaluator, node: ast.Call, module: Value, args: Args, kws: Kws,
                follow_inputs: bool = False, callee: Callee = Callee.MODULE) -> Value:
    """``model(x)``: the output is where the module's parameters are (``follow_inputs``:
    where the tensor inputs are, when those are known); recorded as a call of ``callee``."""
    places = module.places
    kinds: frozenset[Kind] | None = _TENSOR
    carried: tuple[Origin, ...] = ()
    if not follow_inputs and _weightless(module):
        places = _weightless_output(module, args, kws)
        # (``self.dropout(x)``, ``self.act(x)``: the output is what made ``x``, computed on)
        carried = tuple(o for a in args if a.is_(Kind.TENSOR) for o in a.origins)
    if follow_inputs:
        inputs = [a for a in args if a.kinds is not None and (a.may_be(Kind.TENSOR) or a.may_be(Kind.BATCH))]
        known = tensor_places(inputs) if inputs else None
        if known:
            places = known
        else:
            kinds = None  # (maybe no model at all)
    v = Value(kinds, places, (_made(node, "output", Op.OUTPUT), *carried, *module.origins)[:ORIGIN_CAP],
              Basis.HINT if follow_inputs else Basis.INFERRED)
    return ev.record(node, callee, None, module, None, args, kws, v)


def _weightless_output(module: Value, args: Args, kws: Kws) -> frozenset[Place] | None:
    """Where ``criterion(out, y)``, ``nn.ReLU()(x)``, ``nn.MaxPool2d(2)(x)`` compute: a
    module without weights computes where its tensor inputs are (the join of their places;
    unknown when one input's place is unknown), never where the module was built (a loss
    module is never moved).  With no tensor input at all: the module's own place."""
    inputs = [*args, *(v for _, v in kws)]
    joined = tensor_places(inputs)
    return module.places if joined == frozenset() else joined


def _weightless(module: Value) -> bool:
    """A module built by ``torch.nn`` constructors that own no weights (a loss, an
    activation, dropout, pooling; one on each branch that builds it): not a layer of
    :data:`vocab.PARAM_LAYERS`, a container or a wrapper."""
    made = [o for o in module.origins if o.op is Op.MADE]
    return bool(made) and all(weightless_layer(o.text) for o in made)


def self_call(ev: Evaluator, node: ast.Call, attr: str, selfv: Value, args: Args,
              kws: Kws) -> Value:
    """``self.encoder(x)`` (a submodule), ``self.helper(x)`` (a method), ``self.to(d)``."""
    cls = ev.i.cls
    if attr in ("register_buffer", "register_parameter") and node.args:
        key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            ev.i.self_env[key.value] = Value(_TENSOR, frozenset((param(0),)))
            ev.i.res.stores[key.value] = ev.i.self_env[key.value]
        return ev.record(node, Callee.METHOD, attr, UNKNOWN, selfv, args, kws, Value.of(Kind.OTHER))
    fv = ev.self_attr(attr, node.func)
    ref = referenced(fv)
    if ref is not None:
        return _call_reference(ev, node, ref, fv, args, kws)
    refs = factory_references(fv)
    if refs:
        return _call_factories(ev, node, refs, args, kws)
    called = _module_called(ev, fv)
    if called is not None:
        return module_call(ev, node, called, args, kws)
    if fv.call is not None:
        return _call_of(ev, node, attr, fv, args, kws)
    method = cls.method(attr) if cls is not None else None
    if method is not None:
        owner, fn = method
        given = args if _static(fn) else [selfv, *args]  # (a static method takes no self)
        return project_call(ev, node, owner.ff, fn, given, kws, bound=True)
    if selfv.is_(Kind.MODULE) and attr in _MODULE_OWN:
        return module_method(ev, node, attr, selfv, args, kws)
    held = held_methods(cls, attr) if cls is not None and not ev.ff._assigned_outside(attr) else ()
    if held:
        return _call_held_methods(ev, node, held, selfv, args, kws)
    if selfv.is_(Kind.MODULE) and fv.kinds is None and fv.places is None:
        # ``self.net(x)``, an attribute the class's methods do not assign (a base's, or
        # set dynamically), or assign a value of unknown kind on some path: a submodule,
        # on the model's device, built by the constructions they assign it
        # (``self.net = Net()`` on one branch, ``self.net = build()`` on the other; what
        # an unresolved call returns or a parameter gives tells nothing of weights)
        made = tuple(o for o in fv.origins if o.op is Op.MADE) or _built_outside(ev, attr, fv) \
            or _library_layer(ev, node, attr, fv)
        return module_call(ev, node, Value(_MODULE, selfv.places, made), args, kws)
    return _unresolved(ev, node, attr, fv, args, kws, Reason.UNRESOLVED, selfv)


def _call_held_methods(ev: Evaluator, node: ast.Call, held: tuple[str, ...], selfv: Value,
                       args: Args, kws: Kws) -> Value:
    """``self.rl_loss(x)`` where ``self.rl_loss`` holds one of the instance's own methods on
    every path (:func:`~torchferry.check.flow.bound_methods.held_methods`): what each of
    them returns, given the same ``self`` and arguments, joined."""
    cls = ev.i.cls
    assert cls is not None
    results = []
    for name in held:
        found = cls.method(name)
        assert found is not None
        owner, fn = found
        results.append(project_call(ev, node, owner.ff, fn, [selfv, *args], kws, bound=True))
    v = join_all(results)
    event = ev.i.res.calls.get(id(node))
    if event is not None and len(results) > 1:
        ev.i.res.calls[id(node)] = event._replace(result=v)
    return v


def _built_outside(ev: Evaluator, attr: str, fv: Value) -> tuple[Origin, ...]:
    """The constructions of ``self.<attr>`` (made ``Op.MADE``) when every value the class
    stores there is an instance of a class outside the run, built by the class's own code:
    ``self.decoder = TransformerDecoder(args, embed)``, in ``__init__`` or in a builder it
    calls (``cls.build_decoder(...)``, a factory function of another file), or
    ``BertModel.from_pretrained(name)``.  A module's ``__init__`` assigning it registers it
    as a submodule, whose weights follow the model.  None (empty) when any store is
    something else (a parameter, another method's value, a value of a known kind), when
    the class name is that of a callable without weights or one that may move its inputs
    (:func:`vocab.weightless_class`), or when the file assigns ``<x>.<attr>`` from outside
    the class."""
    if not fv.origins or ev.ff._assigned_outside(attr):
        return ()
    out = []
    for o in fv.origins:
        cls = _outside_class(o)
        if cls is None:
            return ()
        out.append(o._replace(op=Op.MADE, text=f"{cls}(...)"))
    return tuple(out)


def _library_layer(ev: Evaluator, node: ast.Call, attr: str, fv: Value) -> tuple[Origin, ...]:
    """``self.classifier`` in a subclass (or a subclass of a subclass in the run) of a
    Hugging Face model class that no class of the run assigns: the library class's own
    layer (:func:`~torchferry.check.flow.modclass.hf_layer`), built by its ``__init__``."""
    cls = ev.i.cls
    if fv.origins or cls is None or ev.ff._assigned_outside(attr):
        return ()
    from torchferry.check.flow.modclass import hf_layer

    for c in cls.lineage():
        for b in c.node.bases:
            layer = hf_layer(c.ff.qualname(b) or "", attr)
            if layer is not None:
                return (_made(node.func, f"{layer}(...)"),)
    return ()


def _outside_class(o: Origin) -> str | None:
    """The class name (``TransformerDecoder``) of an unresolved call ``o`` that builds an
    instance of a class of another package: ``TransformerDecoder(...)``,
    ``decoders.TransformerDecoder(...)``, ``BertModel.from_pretrained(...)``."""
    node = o.node
    if o.op is not Op.RETURNED or not isinstance(node, ast.Call) or o.text.startswith("torch."):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in vocab.PRETRAINED_LOADERS:
        func = func.value
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if vocab.OUTSIDE_CLASS.fullmatch(name) is None or vocab.weightless_class(name):
        return None
    return name


# -- functions and classes of the checked files --------------------------------------------
def name_call(ev: Evaluator, node: ast.Call, name: str, args: Args, kws: Kws) -> Value:
    """What ``name(...)`` returns: the call of the function's own value of ``name`` (a
    local or a parameter) when it tells, else of the module's, the project's or a builtin."""
    if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) \
            and node.args[0].id == ev.i.self_name and not isinstance(node.args[1], ast.Constant):
        ev.i.dynamic_self = True  # (``setattr(self, attr, x.to(device))`` in a loop)
    local = ev.i.env.get(name) or ev.i.outer.get(name)
    k = ev.i.param_index.get(name)
    module_param = k is not None and _module_param(ev, name, k, local)
    if k is not None and module_param:
        ev.i.res.param_uses.setdefault(k, Kind.MODULE)
    got = _local_name_call(ev, node, name, local, k, module_param, args, kws)
    if got is not None:
        return got
    return _global_name_call(ev, node, name, args, kws)


def _local_name_call(ev: Evaluator, node: ast.Call, name: str, local: Value | None,
                     k: int | None, module_param: bool, args: Args, kws: Kws) -> Value | None:
    """What ``name(...)`` returns by the function's own value ``local`` of ``name`` (``k``:
    the number of the parameter ``name`` is; ``module_param``: a module by some evidence):
    a reference, factories or classes it holds, a tensor class, a module, a call made
    earlier, a parameter called; None when it does not tell."""
    ref = referenced(local) if local is not None else None
    if ref is not None:
        return _call_reference(ev, node, ref, local, args, kws)  # type: ignore[arg-type]
    refs = factory_references(local) if local is not None else ()
    if refs:
        return _call_factories(ev, node, refs, args, kws)
    classes = class_references(local) if local is not None and k is None else ()
    if classes:  # ``cls = models[name]``, then ``cls(hidden)``
        return _call_classes(ev, node, classes, args, kws)
    typed = local if local is not None else ev.i.lookup(name)
    if typed is not None and k is None and tensor_class(typed, node):
        return _tensor_construction(ev, node, name, typed, args, kws)
    if typed is not None and typed.is_(Kind.OTHER) and typed.places and typed.origins \
            and _legacy_types(typed) and k is None:
        return _typed_construction(ev, node, name, typed, args, kws)
    called = _module_called(ev, local) if local is not None else None
    if called is not None:
        return module_call(ev, node, called, args, kws)
    if local is not None and local.call is not None:
        return _call_of(ev, node, name, local, args, kws)
    if k is not None and local is not None and local.kinds is None and not module_param \
            and _tensors_on_the_cpu(node) and not any(a.kinds and Kind.BATCH in a.kinds for a in args):
        # ``tokenizer(texts, return_tensors="pt")`` for a parameter ``tokenizer``: a
        # tokenizer or a processor, whoever built it, makes its tensors on the CPU (of a
        # batch's texts, the batch's item as before: the rules weigh it with its batch)
        return _unresolved(ev, node, name, local, args, kws, Reason.UNRESOLVED)
    if k is not None and local is not None and local.kinds is None:
        # ``model(x)`` for a parameter ``model``: its output is where its inputs are (had
        # they not been where its weights are, the call would have failed); ``fn(*args)``,
        # with no evidence of a module, is a call of a callable of any kind, read the same
        callee = Callee.MODULE if module_param else Callee.UNRESOLVED
        return module_call(ev, node, local, args, kws, follow_inputs=True, callee=callee)
    return None


def _global_name_call(ev: Evaluator, node: ast.Call, name: str, args: Args, kws: Kws) -> Value:
    """What ``name(...)`` returns when the function's own value of ``name`` does not tell: a
    definition of the project, a module-level value, a builtin, a star import, a call
    named as a model is, else an unresolved call."""
    ff = ev.ff
    target = ff.definition(name)
    if target is not None:
        return project_call(ev, node, ff, target, args, kws)
    g = ev.i.lookup(name)
    if g is not None and _names_a_class(g):  # ``Builder = Agent`` at module level
        return _call_reference(ev, node, name, g, args, kws)
    called = _module_called(ev, g) if g is not None else None
    if called is not None:
        return module_call(ev, node, called, args, kws)
    if g is not None and g.call is not None:
        return _call_of(ev, node, name, g, args, kws)
    if name in vocab.SCALAR_BUILTINS or name in _ITERATING:
        return builtin_call(ev, node, name, args, kws)
    if name == "type" and g is None and name not in ff.defs and len(node.args) == 1 and \
            not node.keywords and (args[0].kinds is None or args[0].is_(Kind.TENSOR)):
        return ev.record(node, Callee.BUILTIN, name, UNKNOWN, None, args, kws, _class_of(node, args[0]))
    made = _built_in_container(ev, node, name, args, kws) if g is None else None
    if made is not None:
        return ev.record(node, Callee.BUILTIN, name, UNKNOWN, None, args, kws, made)
    star = ff.star_definition(name)
    if star is not None:
        return project_call(ev, node, star[0], star[1], args, kws)
    if name[:1].islower() and vocab.MODEL_NAME.match(name) and (g is None or g.kinds is None):
        # ``net(images)``, ``criterion(out, y)`` of something the analysis cannot see into,
        # named as a model or a loss is (a hint): its output is where its inputs are
        return module_call(ev, node, g or UNKNOWN, args, kws, follow_inputs=True)
    return _unresolved(ev, node, name, g or UNKNOWN, args, kws, Reason.UNRESOLVED)


def _module_param(ev: Evaluator, name: str, k: int, local: Value | None) -> bool:
    """Is parameter ``name`` (number ``k``), called, a module by some evidence: its value
    (an annotation, what every call of the function passes), a use only a module has
    before the call (``model.eval()``), or a name as models and losses have (``model``,
    ``criterion``)?  A parameter called without any (``fn(*args)``) may be any callable."""
    if local is not None and local.kinds is not None:
        return local.is_(Kind.MODULE)
    return ev.i.res.param_uses.get(k) is Kind.MODULE or \
        name[:1].islower() and vocab.MODEL_NAME.match(name) is not None


#: the standard library's copies: the object's kind and place are the original's
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})
_TQDM = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm"})
_ITERATING = frozenset({"enumerate", "iter", "zip", "reversed", "sorted", "list", "tuple",
                        "next", "tqdm", "set"})


def _call_reference(ev: Evaluator, node: ast.Call, ref: str, fv: Value, args: Args,
                    kws: Kws) -> Value:
    """A call of a value that names a function: a torch function, or a function of this
    file (the one the reference was made from, when the file still defines it so)."""
    if ref.startswith("torch."):
        return qualified_call(ev, node, ref, args, kws)
    origin = next(o for o in fv.origins if o.op is Op.REFERENCE)
    made = origin.node
    if isinstance(made, ast.ClassDef):  # ``agent = Agent; agent(device)``
        owner = _class_owner(ev.ff, origin.path, made)
        if owner is not None:
            return project_call(ev, node, owner, made, args, kws)
    target = ev.ff.definition(ref)
    if made is not None and not any(o.path for o in fv.origins) and (
            target is made or ev.ff.enclosed(made) is not None):
        # (a function of the file, or one defined in a function of it: ``def
        # create_model()`` in ``main()``, read with the names it closes over)
        return project_call(ev, node, ev.ff, made, args, kws)
    return _unresolved(ev, node, ref, fv, args, kws, Reason.DYNAMIC)


def _class_owner(ff: FileFlow, path: str | None, cls: ast.ClassDef) -> FileFlow | None:
    """The file of the run that defines ``cls``, named by a reference's ``path`` (None:
    this file, when the class is one of its own, at module level or in a function)."""
    if path is not None:
        return ff.project.file_flow(path) if ff.project is not None else None
    return ff if ff.defs.get(cls.name) is cls or id(cls) in ff._local_classes else None


def referenced(v: Value) -> str | None:
    """The function ``v`` names on every path (``self.loss_fn = F.mse_loss``, maybe None on
    another; ``loss_fn = log_likelihood``), else None."""
    refs = {o.text for o in v.origins if o.op is Op.REFERENCE}
    if len(refs) != 1 or v.kinds is None or v.kinds - {Kind.OTHER} \
            or any(o.op is not Op.REFERENCE for o in v.origins):
        return None
    return next(iter(refs))


def factory_references(v: Value) -> tuple[str, ...]:
    """The torch factories ``v`` names, one on each path, when there are several and every
    path names one (``self.noise = torch.rand`` on one branch, ``torch.randn`` on the
    other; ``fn = torch.zeros if a else torch.ones``), else none: a path binding anything
    else (a function of the run, a lambda, what a call returns) leaves it unknown.

    >>> ref = lambda q: Value(frozenset((Kind.OTHER,)), frozenset(), (Origin(Op.REFERENCE, 1, 0, q),))
    >>> factory_references(join(ref("torch.rand"), ref("torch.randn")))
    ('torch.rand', 'torch.randn')
    >>> factory_references(join(ref("torch.rand"), ref("helper")))
    ()
    """
    refs = tuple(sorted({o.text for o in v.origins}))
    if len(refs) < 2 or v.kinds != _OTHER_KIND or v.elts is not None or v.item is not None \
            or any(o.op is not Op.REFERENCE for o in v.origins):
        return ()
    for r in refs:
        head, _, last = r.partition(".")
        if head != "torch" or last not in _FACTORY_NAMES:
            return ()
    return refs


_OTHER_KIND = frozenset((Kind.OTHER,))
_FACTORY_NAMES = vocab.SHAPE_FACTORIES | vocab.LIKE_FACTORIES | vocab.DATA_FACTORIES


def _call_factories(ev: Evaluator, node: ast.Call, refs: tuple[str, ...], args: Args, kws: Kws) -> Value:
    """A call of a value naming one torch factory on each path (:func:`factory_references`):
    what every one of them makes, joined, recorded as a call of the first."""
    made = [qualified_call(ev, node, r, args, kws) for r in refs]
    return ev.record(node, Callee.TORCH, refs[0], UNKNOWN, None, args, kws, join_all(made))


def _names_a_class(v: Value) -> bool:
    """Does ``v`` name one class of the run on every path?"""
    return referenced(v) is not None and \
        isinstance(next(o.node for o in v.origins if o.op is Op.REFERENCE), ast.ClassDef)


def class_references(v: Value) -> tuple[Origin, ...]:
    """The classes of the run ``v`` names, one on each path, when there are several and
    every path names one (``cls = models[args.dataset]`` of a dict of classes, ``Net if a
    else Other``), else none: a path naming anything else, or more classes than a value
    keeps origins of (some may have been dropped), leaves it unknown.

    >>> import ast
    >>> a, b = (ast.parse(f"class {n}: pass").body[0] for n in "AB")
    >>> ref = lambda c: Value(frozenset((Kind.OTHER,)), frozenset(), (Origin(Op.REFERENCE, 1, 0, c.name, node=c),))
    >>> [o.text for o in class_references(join(ref(a), ref(b)))]
    ['A', 'B']
    >>> class_references(join(ref(a), Value.of(Kind.OTHER)))
    ()
    """
    refs = tuple(dict.fromkeys(v.origins))
    if len(refs) < 2 or len(refs) >= ORIGIN_CAP or v.kinds != _OTHER_KIND or v.elts is not None \
            or v.item is not None or v.keys is not None or v.call is not None:
        return ()
    if any(o.op is not Op.REFERENCE or not isinstance(o.node, ast.ClassDef) for o in refs):
        return ()
    return refs


def _call_classes(ev: Evaluator, node: ast.Call, refs: tuple[Origin, ...], args: Args,
                  kws: Kws) -> Value:
    """A call of a value naming one class of the run on each path (:func:`class_references`):
    what each constructor builds, joined, and the classes kept for the rules
    (:attr:`FileFlow.built_among`); unresolved when a class is not one of the run's files."""
    built: list[Value] = []
    infos = []
    for o in refs:
        assert isinstance(o.node, ast.ClassDef)
        owner = _class_owner(ev.ff, o.path, o.node)
        if owner is None:
            return _unresolved(ev, node, None, UNKNOWN, args, kws, Reason.DYNAMIC)
        built.append(project_call(ev, node, owner, o.node, args, kws))
        infos.append(owner.class_info(o.node))
    ev.ff.built.pop(id(node), None)  # (no one class: see ``built_among``)
    ev.ff.built_among[id(node)] = tuple(infos)
    return ev.record(node, Callee.FUNCTION, refs[0].text, UNKNOWN, None, args, kws, join_all(built))


def _callable_module(v: Value) -> bool:
    """A called value that is a module, or of unknown kind with a known concrete place
    (``self.model = model.to(device)``: something with a device that is called)."""
    if v.is_(Kind.MODULE):
        return True
    return v.kinds is None and v.known_places and not any(p.symbolic for p in v.places or ())


def _module_called(ev: Evaluator, v: Value) -> Value | None:
    """The module that calling ``v`` calls (:func:`_callable_module`), or, for a value that
    joins a module with ``None`` (``self.model = None`` in ``__init__``, a moved model
    assigned later), that module: the ``None`` path raises at the call, so the call
    returns only where ``v`` is the module, when the code moved that module (a submodule
    built on one path and ``None`` on the other, ``self.pool = Pool(...) if k else None``,
    is left alone: its output, a tensor and a tuple of ints, would all be taken for tensors
    where the model is).  None when ``v`` may be something else that is called (an object
    of a plain class of the run, a function, a container, a type).

    >>> from torchferry.check.flow import Callee, analyze
    >>> src = ("import torch.nn as nn\\nclass Net(nn.Module):\\n    pass\\n"
    ...        "def run(x, big):\\n    model = None\\n    if big:\\n        model = Net().cuda()\\n"
    ...        "    return model(x)\\n")
    >>> ff = analyze(ast.parse(src), "<example>")
    >>> [c.callee is Callee.MODULE for r in ff.results() for c in r.calls.values()
    ...  if c.node.lineno == 8]
    [True]
    """
    if _callable_module(v):
        return v
    if v.kinds != _MODULE_OR_OTHER or v.call is not None or v.elts is not None \
            or v.item is not None or v.keys is not None:
        return None
    if not any(o.op is Op.MOVED for o in v.origins):
        return None  # (``self.pool = Pool(...) if k else None``: its output may be a tuple)
    for o in v.origins:
        if o.op is Op.REFERENCE or o.op is Op.MADE and o.path is None and not _module_made(ev, o):
            return None
    return v._replace(kinds=_MODULE)


def _module_made(ev: Evaluator, o: Origin) -> bool:
    """Is the origin ``o`` of this file a construction that is not that of a plain class of
    the run (an ``nn.Module`` class of the run, or a layer of torch)?"""
    if not isinstance(o.node, ast.Call):
        return False
    info = ev.ff.class_called(o.node)
    return info is None or info.is_module


def builtin_call(ev: Evaluator, node: ast.Call, name: str, args: Args, kws: Kws) -> Value:
    v: Value
    if name in ("sum", "max", "min") and args and args[0].item is not None \
            and args[0].item.is_(Kind.TENSOR):
        v = args[0].item
    elif name in _ITERATING:
        items = [ev.iterate(a, node, x) for a, x in zip(args, node.args, strict=False)]
        if name == "enumerate":
            v = container(item=container((Value.of(Kind.SCALAR), items[0] if items else UNKNOWN)))
        elif name == "zip" and len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
            v = _transposed(items[0] if items else UNKNOWN)
        elif name == "zip" and any(isinstance(a, ast.Starred) for a in node.args):
            v = container(item=container(item=UNKNOWN))  # (how many columns: not known)
        elif name == "zip":
            v = container(item=container(tuple(items)))
        elif name == "next":
            v = items[0] if items else UNKNOWN
        elif name == "tqdm":
            v = args[0] if args else UNKNOWN
        else:
            v = container(item=items[0] if items else UNKNOWN)
    elif name == "range":
        v = container(item=Value.of(Kind.SCALAR))
    elif name in ("abs", "round") and args and args[0].kinds is not None and Kind.TENSOR in args[0].kinds \
            and args[0].kinds <= {Kind.SCALAR, Kind.TENSOR}:
        # ``abs(t)``, ``round(t, 2)``: ``Tensor.__abs__``, ``Tensor.__round__``, a tensor where it is
        v = Value(args[0].kinds, args[0].places, args[0].origins, Basis.INFERRED)
    else:
        v = Value.of(Kind.SCALAR if name not in ("print", "str", "repr") else Kind.OTHER)
    return ev.record(node, Callee.BUILTIN, name, UNKNOWN, None, args, kws, v)


def _transposed(row: Value) -> Value:
    """``zip(*rows)`` of rows each like ``row``: one tuple per column, of the rows'
    elements at that position (``x, n = zip(*[(a, a.shape[0]) for a in batch])`` binds
    ``n`` to a tuple of numbers); a row of unknown length gives columns of its joined
    elements, in an unknown number."""
    if row.elts is not None:
        return container(tuple(container(item=e) for e in row.elts))
    return container(item=container(item=element(row, None)))


def _built_in_container(ev: Evaluator, node: ast.Call, name: str, args: Args, kws: Kws) -> Value | None:
    """``dict(input_ids=ids, attention_mask=mask)``: a mapping of those values;
    ``map(self.to_cuda, loader)``: what the function makes of each item
    (:func:`~torchferry.check.flow.protocols.mapped`); None for anything else."""
    if name == "dict" and not node.args and kws and all(k != "**" for k, _ in kws):
        return container(keys=tuple(kws))
    if name == "dict" and len(node.args) == 1 and not kws and not isinstance(node.args[0], ast.Starred):
        return _mapping_copy(args[0])
    if name == "map" and name not in ev.ff.defs:
        return protocols.mapped(ev, node, list(args))
    return None


def _mapping_copy(d: Value) -> Value | None:
    """``dict(d)`` of a dict the analysis knows: a dict of the same values (per literal
    key, or joined: a dict comprehension's); of a sequence of pairs (``dict(zip(names,
    ts))``), their second items; None for a container of containers that are not pairs."""
    if d.elts is not None or d.keys is None and d.item is None:
        return None
    if d.keys is not None:
        return container(item=d.item, keys=d.keys)
    item = d.item
    if item is not None and item.elts is not None:
        return container(item=item.elts[1]) if len(item.elts) == 2 else None
    return container(item=item) if item is not None and item.keys is None and item.item is None else None


def _static(fn: ast.AST) -> bool:
    """A ``@staticmethod``: called through ``self`` or its class, it takes no ``self``."""
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def project_call(ev: Evaluator, node: ast.Call, owner: FileFlow, target: ast.AST, args: Args,
                 kws: Kws, bound: bool = False, receiver: Value | None = None) -> Value:
    """A call of a function or class defined in the checked files: its summary, the
    arguments substituted for the parameters (``receiver``: the instance a method of the
    run is called on, ``net.predict(x)``, bound to its first parameter; the call is
    recorded as a method's)."""
    given = args
    if receiver is not None:
        args, bound = [receiver, *args], True
    if isinstance(target, ast.ClassDef):
        return _construct(ev, node, owner, target, args, kws)
    if not isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _unresolved(ev, node, None, UNKNOWN, args, kws, Reason.UNRESOLVED)
    result = owner.summary(target, ev.ff)
    if result is None:
        return _unresolved(ev, node, target.name, UNKNOWN, args, kws, ev.ff.last_reason)
    static = _static(target)
    offset = 1 if owner.is_method(target) and not bound and not static else 0
    lead = len(args) - len(node.args)  # (the values given before the written ones: ``self``)
    binding = bind(target, node, offset + lead)
    bound_args = _bound_args(binding, args, kws, offset, lead)
    if result.cpu_params and binding is not None:  # handed on to a function that gives it to torch on the CPU
        for k, x in binding.args.items():
            p = ev.i.param_index.get(x.node.id) if isinstance(x.node, ast.Name) else None
            if p is not None and k in result.cpu_params:
                ev.i.res.cpu_params.add(p)
    # the call sites of a function, for the rules that ask what it is given
    spread = any(isinstance(a, ast.Starred) for a in node.args) or any(k == "**" for k, _ in kws)
    site = (ev.i.res, {} if spread else bound_args)
    if ev.i.given is not None:
        pass  # (a specialised interpretation: the summary records the call sites)
    elif owner is ev.ff:
        owner.call_sites.setdefault(id(target), {})[id(node)] = site
    else:
        key = (owner.path, target.name, target.lineno)
        ev.ff.calls_into.setdefault(key, {})[id(node)] = site
    if result.param_moves and not any(isinstance(a, ast.Starred) for a in node.args):
        _moved_by_callee(ev, node, result, 0 if static else 1 if bound else offset, bound_args)
    v = _returned(ev, node, owner, target, result, binding, bound_args)
    _hand_off(ev, node, result, 0 if static else 1 if bound else offset,
              v.places is None and v.kinds is None)
    if receiver is not None:
        return ev.record(node, Callee.METHOD, target.name, UNKNOWN, receiver, given, kws, v)
    return ev.record(node, Callee.FUNCTION, target.name, UNKNOWN, None, args, kws, v)


def _returned(ev: Evaluator, node: ast.Call, owner: FileFlow, target: ast.FunctionDef | ast.AsyncFunctionDef,
              result: ScopeResult, binding: Binding | None, bound_args: dict[str, Value]) -> Value:
    """What ``node``, a call of ``target`` (a function of the run, summarised as ``result``)
    binding ``bound_args``, gives in the caller."""
    returns = _returns_given(ev, owner, target, result, bound_args, _left_none(ev, binding)) or result.returns
    if owner is not ev.ff:  # (the callee's own origins name its file; the arguments' keep theirs)
        returns = in_path(returns, owner.path)
    v = substitute(_made_on_a_parameter(result, returns, bound_args), bound_args)
    passed = [bound_args.get(str(k)) for k in result.returned_params]
    if passed and not result.returns_other and all(a is not None for a in passed):
        v = join_all(a for a in passed if a is not None)  # the arguments themselves
    v = _made_elsewhere(v)  # made in the callee, not in this scope
    return protocols.generated(ev, owner, target, result, bound_args) or v


def _method_returned(ev: Evaluator, node: ast.Call, owner: FileFlow, target: ast.AST, recv: Value,
                     args: Args, kws: Kws) -> Value:
    """What ``node`` gives as a call of ``target``, a method of the run, on ``recv``
    (:func:`project_call`'s result, the call neither recorded nor its effects applied);
    unknown where the method is not summarised."""
    result = owner.summary(target, ev.ff) if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if result is None or not isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return UNKNOWN
    given = [recv, *args]
    lead = len(given) - len(node.args)
    binding = bind(target, node, lead)
    return _returned(ev, node, owner, target, result, binding, _bound_args(binding, given, kws, 0, lead))


def _bound_args(binding: Binding | None, args: Args, kws: Kws, offset: int, lead: int) -> dict[str, Value]:
    """The values a call binds to the callee's parameters (index as a string -> value):
    the ``lead`` values given before the written arguments (``self`` of a method called on
    an object) to the parameters from ``offset`` on, then the written ones as ``binding``
    binds them (none when it is not known: ``f(*xs)``, ``f(**kw)``)."""
    out = {str(offset + k): a for k, a in enumerate(args[:lead])}
    if binding is None:
        return out
    named = dict(kws)
    for k, a in binding.args.items():
        v = args[lead + a.position] if a.position is not None else named.get(a.keyword or "")
        if v is not None:
            out[str(k)] = v
    return out


def _made_on_a_parameter(result: ScopeResult, v: Value, bound_args: dict[str, Value]) -> Value:
    """A callee's return made on the device it read off a parameter and kept in a name
    (``dev = seg.device``; ``return torch.zeros(n, device=dev)``), as a caller that knows
    where its argument is sees it: there.  Inside the callee the kept device reads as an
    accelerator the code chose (so a CPU tensor meeting the result there is reported), and
    so does the return for a caller whose argument's place is not known."""
    made = v.origins[0] if v.origins else None
    if not v.only(Where.ACCEL) or made is None or made.op is not Op.MADE \
            or not isinstance(made.node, ast.Call):
        return v
    kw = next((k.value for k in made.node.keywords if k.arg == "device"), None)
    d = result.values.get(id(kw)) if kw is not None else None
    if d is None or not d.origins or d.origins[0].op is not Op.READ or not d.places \
            or not all(p.symbolic for p in d.places):
        return v
    there = substitute(d, bound_args).places
    return v._replace(places=there) if there and not any(p.symbolic for p in there) else v


def _made_elsewhere(v: Value) -> Value:
    """``v`` as a caller sees a callee's return: nothing in it, its items and its
    container's parts included, is constructed in the caller's scope, so a safe fix can
    never rest on it (:func:`torchferry.check.flow.safety.tensor_by_construction`)."""
    if v.basis is not Basis.CONSTRUCTED and v.elts is None and v.item is None and v.keys is None:
        return v
    return v._replace(
        basis=min(v.basis, Basis.INFERRED),
        elts=None if v.elts is None else tuple(_made_elsewhere(e) for e in v.elts),
        item=None if v.item is None else _made_elsewhere(v.item),
        keys=None if v.keys is None else tuple((k, _made_elsewhere(x)) for k, x in v.keys),
    )


def _returns_given(ev: Evaluator, owner: FileFlow, target: ast.FunctionDef | ast.AsyncFunctionDef,
                   result: ScopeResult, bound_args: dict[str, Value],
                   nones: frozenset[int] = frozenset()) -> Value | None:
    """What the callee returns given these arguments, when its summary returns a value of
    unknown kind at known places (a part of a parameter, ``source[i:j]``, or a parameter
    moved, ``data.to(device)``) and the call gives a parameter of no kind of its own a
    tensor, an array or (an item of) a loader's batch; or when the call points a device
    parameter at the CPU (:func:`_cpu_devices`)."""
    given: dict[int, Kind] = {}
    if _unknown_part(result.returns):
        for ref, a in bound_args.items():
            k = int(ref)
            kind = next((x for x in _GIVEN if a.is_(x)), None)
            if k not in result.param_hints and kind is not None:
                given[k] = kind
        if given:
            given.update(_unplaced_operands(result, bound_args))
    given.update(_cpu_devices(target, result, bound_args, nones))
    return owner.returns_given(target, given) if given else None


def _unplaced_operands(result: ScopeResult, bound_args: dict[str, Value]) -> dict[int, Kind]:
    """The parameters given a value of unknown kind and place (``hp.preemphasis`` of a
    configuration the analysis does not read, most often a number), read as numbers where
    the call also gives a tensor: ``wav[:, 1:] - coeff * wav[:, :-1]`` is then where
    ``wav`` is, as arithmetic written in the caller would be (a tensor operand is where
    the others are or the operation fails).  A parameter the callee returns on some path
    keeps its own place there, which the call does not know, so the return stays unknown."""
    return {int(ref): Kind.SCALAR for ref, a in bound_args.items()
            if a.kinds is None and a.places is None and int(ref) not in result.param_hints
            and int(ref) not in result.returned_params}


def _cpu_devices(fn: ast.FunctionDef | ast.AsyncFunctionDef, result: ScopeResult,
                 bound_args: dict[str, Value], nones: frozenset[int] = frozenset()) -> dict[int, Kind]:
    """The device parameters of ``fn`` (said to be devices: ``device``, ``dev: torch.device``)
    that a call points at the CPU on every path: an argument that is the CPU
    (``torch.device("cpu")``, ``"cpu"``, a name bound to one), or, left out, a default that
    names it (``device="cpu"``).  Given so (``Kind.DEVICE`` in a specialised
    interpretation), what the function moves to the parameter, or makes on it, is on the
    CPU: the summary reads it as a device the code chose, which may be an accelerator.
    A device parameter that the call leaves out, of default ``None``, is given as
    ``Kind.OTHER``: ``x.to(None)`` leaves ``x`` where it is, ``torch.zeros(n, device=None)``
    makes it on the default device; so is one the call gives ``None`` (``nones``, see
    :func:`_left_none`)."""
    out: dict[int, Kind] = {}
    for k, kind in result.param_hints.items():
        if kind is not Kind.DEVICE or k >= len(result.params):
            continue
        a = bound_args.get(str(k))
        on_cpu = a.is_(Kind.DEVICE) and a.only(Where.CPU) if a is not None else \
            _default_where(fn, result.params[k]) is Where.CPU
        if on_cpu:
            out[k] = Kind.DEVICE
        elif a is None and _default_none(fn, result.params[k]) or k in nones:
            out[k] = Kind.OTHER  # ``x.to(device)`` of ``device=None`` left out: ``x`` stays
    return out


def _left_none(ev: Evaluator, binding: Binding | None) -> frozenset[int]:
    """The parameters a call binds to ``None``: the constant written out, or a parameter of
    the calling function that its own call leaves to a default ``None`` (``Kind.OTHER``
    given, :func:`_cpu_devices`) and that still holds it, handed on (``def load(card,
    device=None): return create(cfg, device=device)``, called as ``load(card)``)."""
    if binding is None:
        return frozenset()
    given = ev.i.given or {}
    out: set[int] = set()
    for k, arg in binding.args.items():
        x = arg.node
        if isinstance(x, ast.Constant) and x.value is None:
            out.add(k)
        elif isinstance(x, ast.Name) and given.get(ev.i.param_index.get(x.id, -1)) is Kind.OTHER \
                and ev.values.get(id(x), UNKNOWN).is_(Kind.OTHER):
            out.add(k)
    return frozenset(out)


def _default_none(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is the default of parameter ``name`` of ``fn`` the constant ``None``?"""
    a = fn.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True))
    pairs += [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    return any(arg.arg == name and isinstance(d, ast.Constant) and d.value is None for arg, d in pairs)


def _default_where(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> Where | None:
    """The place the default of parameter ``name`` names: ``"cpu"``, ``torch.device("cpu")``;
    None for anything else (no default, ``None``, an expression)."""
    a = fn.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=True))
    pairs += [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    for arg, d in pairs:
        if arg.arg != name:
            continue
        if isinstance(d, ast.Call) and len(d.args) == 1 and not d.keywords and \
                (getattr(d.func, "attr", None) == "device" or getattr(d.func, "id", None) == "device"):
            d = d.args[0]  # ``torch.device("cpu")``
        return vocab.literal_where(d.value) if isinstance(d, ast.Constant) and isinstance(d.value, str) else None
    return None


#: the kinds a call's argument lends a parameter of no kind of its own (see _returns_given)
_GIVEN = (Kind.TENSOR, Kind.NDARRAY, Kind.BATCH)


def _unknown_part(v: Value, depth: int = 0) -> bool:
    """Is ``v`` (or one of its elements) of unknown kind at known places (a part of a
    parameter, ``source[i:j]``, or one moved, ``data.to(device)``)?"""
    if v.kinds is None:
        return bool(v.places)
    return depth < 2 and any(_unknown_part(x, depth + 1) for x in [
        *(v.elts or ()), *((v.item,) if v.item is not None else ()), *(x for _, x in v.keys or ())])


def _moved_by_callee(ev: Evaluator, node: ast.Call, result: ScopeResult, first: int,
                     bound_args: dict[str, Value]) -> None:
    """``setup(model)`` where ``setup`` moves its parameter in place (``m.cuda()``): after
    the call, the caller's ``model`` is what the callee's exits leave in its parameter,
    the argument's own places substituted for the parameter's (a move on one path only
    keeps both).  ``first``: the parameter the call's first positional argument binds."""
    for k, left in result.param_moves.items():
        a = _argument_node(node, result.node, k, first)
        if a is not None and ev.i.lookup(a.id) is not None:
            ev.i.env[a.id] = substitute(left, bound_args)


def _argument_node(node: ast.Call, fn: ast.AST, k: int, first: int) -> ast.Name | None:
    """The name the call passes for parameter ``k`` of ``fn`` (positionally or by keyword,
    :func:`~torchferry.check.flow.binding.bind`)."""
    binding = bind(fn, node, first)
    a = binding.args.get(k) if binding is not None else None
    return a.node if a is not None and isinstance(a.node, ast.Name) else None


def _construct(ev: Evaluator, node: ast.Call, owner: FileFlow, cls_node: ast.ClassDef,
               args: Args, kws: Kws) -> Value:
    info: ClassInfo = owner.class_info(cls_node)
    ev.ff.built[id(node)] = info
    text = f"{cls_node.name}(...)"
    if not info.is_module:
        v = Value.of(Kind.OTHER, None, _made(node, text))
        _bind_constructor(ev, node, info, args, kws)
    else:
        moved, places = _built_at(ev, node, info, args, kws)
        if moved:
            origin = _made(node, text) if places == frozenset((CPU,)) else _made(node, text, Op.MOVED, places)
            v = Value(_MODULE, places, (origin,), Basis.CONSTRUCTED)
        elif any(k in _DEVICE_KEYWORDS and not (k == "device" and ignores_for_weights(owner, info, k))
                 or k == "**" and not _spread_places_nothing(info) for k, _ in kws):
            v = Value(_MODULE, None, (_made(node, text),), Basis.CONSTRUCTED)
        else:
            v = Value(_MODULE, frozenset((CPU,)), (_made(node, text),), Basis.CONSTRUCTED)
    return ev.record(node, Callee.FUNCTION, cls_node.name, UNKNOWN, None, args, kws, v)


def _spread_places_nothing(info: ClassInfo) -> bool:
    """Can ``Net(**cfg)`` (a module class of the run) be built off the CPU only through
    what the spread gives its ``__init__``?  Not when that ``__init__`` (the nearest of the
    run) takes no ``**kw`` to hand on, no device parameter, and neither moves anything nor
    passes a ``device=`` itself: a spread binds only its named parameters, and none of
    them can put a layer anywhere (``ShuffleNet(cfg, **kwargs)`` with ``__init__(self,
    cfg, num_classes=10)``)."""
    init = info.method("__init__")
    if init is None or init[1].args.kwarg is not None:
        return False
    if any(name in _DEVICE_KEYWORDS for name in param_names(init[1])):
        return False
    for n in ast.walk(init[1]):
        if isinstance(n, ast.keyword) and (n.arg is None or n.arg in _DEVICE_KEYWORDS):
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                (n.func.attr in vocab.MOVE_NAMES or n.func.attr == "to_empty"):
            return False
    return True


def _built_at(ev: Evaluator, node: ast.Call, info: ClassInfo, args: Args,
              kws: Kws) -> tuple[bool, frozenset[Place] | None]:
    """Where ``Model(..., device)``, a module of the run, is once built, as its ``__init__``
    moves its weighted submodules with the arguments bound (:func:`built.init_places`);
    ``(False, None)`` when ``__init__`` moves nothing or the call spreads ``*args``/``**kw``."""
    init = info.method("__init__")
    if init is None or any(isinstance(a, ast.Starred) for a in node.args) or \
            any(k == "**" for k, _ in kws) and not _spread_places_nothing(info):
        return False, None
    params = param_names(init[1])
    bound = {params[k + 1]: Argument(a, v) for k, (a, v) in enumerate(zip(node.args, args, strict=False))
             if k + 1 < len(params)}
    nodes = {k.arg: k.value for k in node.keywords if k.arg is not None}
    bound.update((name, Argument(nodes[name], v)) for name, v in kws if name in params[1:] and name in nodes)
    return init_places(info, bound, ev.ff)


def _bind_constructor(ev: Evaluator, node: ast.Call, info: ClassInfo, args: Args, kws: Kws) -> None:
    """Keep what ``Plain(x, device=d)`` (a plain class of the run) gives its ``__init__``,
    parameter index as a string -> argument value, for the reads of the instance's
    attributes (:meth:`FileFlow.instance_attr`), and the construction as a call site of
    that ``__init__`` (:meth:`FileFlow.construction_sites`; one that spreads
    ``*args``/``**kw`` binds nothing); nothing for a class without an ``__init__`` of the run."""
    init = info.method("__init__")
    if init is None or ev.i.given is not None or _static(init[1]):
        return
    owner, fn = init[0].ff, init[1]
    sites = ev.ff.constructions.setdefault((owner.path, fn.name, fn.lineno), {})
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k == "**" for k, _ in kws):
        sites[id(node)] = (ev.i.res, {})  # (a call site that binds no parameter it is known to)
        return
    params = param_names(fn)
    bound = {str(k + 1): a for k, a in enumerate(args) if k + 1 < len(params)}
    bound.update((str(params.index(name)), v) for name, v in kws if name in params[1:])
    ev.ff.constructed[id(node)] = bound
    # the construction is a call site of ``__init__`` (:meth:`FileFlow.construction_sites`)
    sites[id(node)] = (ev.i.res, bound)


def _escape(ev: Evaluator, node: ast.Call) -> None:
    """A call the analysis cannot follow: each name it is given that it could change by
    mutation escapes (:func:`handoff.by_value`: not a tensor's, whose place is fixed)."""
    for a in [*node.args, *(k.value for k in node.keywords)]:
        if isinstance(a, ast.Name) and not handoff.by_value(ev.i.res.value(a)):
            ev.i.res.escapes.add(a.id)


def _hand_off(ev: Evaluator, node: ast.Call, result: ScopeResult, first: int,
              unknown: bool) -> None:
    """A call of a function of the run whose first positional argument binds parameter
    ``first`` (1: a method called on an object, ``obj.step(x)``, the object binding 0):
    the arguments its summary hands off (:func:`handoff.handed_arguments`), kept for the
    summaries of the caller; with a result of unknown kind and place, the names among
    them escape."""
    func = node.func
    receiver = func.value if first == 1 and isinstance(func, ast.Attribute) else None
    handed = handoff.handed_arguments(node, result, first, receiver)
    ev.i.res.handed_calls[id(node)] = handed
    ev.i.res.moving_calls[id(node)] = handoff.moving_arguments(node, result, first, receiver)
    if unknown:
        for a in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(a, ast.Name) and id(a) in handed:
                ev.i.res.escapes.add(a.id)


def _unresolved(ev: Evaluator, node: ast.Call, qual: str | None, fv: Value, args: Args,
                kws: Kws, reason: Reason, recv: Value | None = None) -> Value:
    """A call the analysis cannot follow: unknown, with the reason, and its origin (the
    call) kept for the rules that explain what they could not see."""
    _escape(ev, node)
    v = Value(None, None, (_made(node, f"{qual or '?'}(...)", Op.RETURNED),), Basis.HINT,
              reason=reason)
    if _tensors_on_the_cpu(node):
        v = _cpu_tensors(node, v)
    elif reason is Reason.UNRESOLVED:
        moved = _held_callable_fed(ev, node, fv, args, kws)
        if moved is not None:
            v = v._replace(places=frozenset((ACCEL,)), origins=(*v.origins, moved))
    return ev.record(node, Callee.UNRESOLVED, qual, fv, recv, args, kws, v)


_TENSORISH = frozenset((Kind.TENSOR, Kind.BATCH))
_ON_CPU = frozenset((CPU,))
#: an argument that may tell a callable where to put its result (``to_device(x, device)``,
#: ``move(x, "cpu")``, ``apply(x, lambda t: t.cpu())``)
_TARGET_TEXT = re.compile(r"device|cpu|cuda|gpu|map_location|numpy", re.I)


def _held_callable_fed(ev: Evaluator, node: ast.Call, fv: Value, args: Args,
                       kws: Kws) -> Origin | None:
    """``o = self.fcn(x.cuda())``, ``y = self.post(x.to(self.device))``: a callable of
    unknown kind held in an attribute of ``self`` (a parameter's callable is a call of
    :func:`module_call` that follows its inputs), given tensors that are all placed and one of which a path moved or made on an
    accelerator: a tensor computed from tensors there is there too, so its result is
    placed there (its kind stays unknown: it may return anything).  The move is returned;
    None where an argument is a tensor on the CPU alone or of unknown place, may be a
    model (it may run it and bring the results home), or may say where to put the result
    (a string, a device, a name or keyword naming one: ``lambda t: t.cpu()``).

    >>> from torchferry.check.flow import Callee, analyze
    >>> src = "import torch\\nclass A:\\n    def f(self):\\n        return self.fn(torch.ones(2).cuda())\\n"
    >>> ff = analyze(ast.parse(src), "<example>")
    >>> [[p.where.name for p in c.result.places] for r in ff.results() for c in r.calls.values()
    ...  if c.callee is Callee.UNRESOLVED]
    [['ACCEL']]
    """
    func = node.func
    held = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id == ev.i.self_name
    if not held or fv.kinds is not None or fv.call is not None:
        return None
    given = [*args, *(v for _, v in kws)]
    texts = [*node.args, *(k.value for k in node.keywords)]
    if any(isinstance(a, ast.Starred) or isinstance(a, ast.Constant) and isinstance(a.value, str)
           for a in texts) or any(k.arg is None or _TARGET_TEXT.search(k.arg) for k in node.keywords):
        return None
    for a, v in zip(texts, given, strict=False):
        moved_here = isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and \
            a.func.attr in ("cuda", "to")  # (``x.cuda()``: the value moved, not a target)
        if v.kinds is not None and Kind.DEVICE in v.kinds or v.kinds is not None and \
                v.may_be(Kind.MODULE) or not (v.kinds and v.kinds <= _TENSORISH) and \
                not moved_here and _TARGET_TEXT.search(ast.unparse(a)):
            return None
    tensors = [v for v in given if v.kinds and v.kinds <= _TENSORISH]
    if any(v.places is None or v.places == _ON_CPU for v in tensors):
        return None
    # (``self.fcn(Variable(img).cuda())``: of unknown kind, but moved there)
    tensors += [v for v in given if v.kinds is None and v.places and ACCEL in v.places]
    return next((o for v in tensors if ACCEL in (v.places or ()) for o in v.origins
                 if o.op is Op.MOVED and o.to is not None and ACCEL in o.to or
                 o.op in (Op.MADE, Op.OUTPUT)), None)


def _tensors_on_the_cpu(node: ast.Call) -> bool:
    """Is ``node`` given ``return_tensors="pt"`` and no ``device`` (see
    :data:`vocab.TENSORS_ON_THE_CPU`)?"""
    key, value = vocab.TENSORS_ON_THE_CPU
    return not any(k.arg == "device" or k.arg is None for k in node.keywords) and any(
        k.arg == key and isinstance(k.value, ast.Constant) and k.value.value == value
        for k in node.keywords)


def _cpu_tensors(node: ast.Call, v: Value) -> Value:
    """What a tokenizer or processor given ``return_tensors="pt"`` returns: on the CPU,
    a ``BatchEncoding`` mapping whose items are tensors made there (its kind is left
    unknown: a mapping, or a tensor); for ``encode`` (:data:`vocab.ONE_TENSOR_ENCODERS`),
    one tensor."""
    text = f"{ast.unparse(node.func)}(..., return_tensors=\"pt\")"
    item = Value.of(Kind.TENSOR, CPU, _made(node, text), Basis.INFERRED)
    if isinstance(node.func, ast.Attribute) and node.func.attr in vocab.ONE_TENSOR_ENCODERS:
        return item
    return v._replace(places=frozenset((CPU,)), item=item, reason=None)


__all__ = ["call_value", "join", "join_all"]
