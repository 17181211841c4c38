"""What widely used frameworks document about where they put the values they hand to user code.

A framework that trains a module calls the module's own methods (its *hooks*) with values it
has prepared: Lightning moves each batch to the module's device before it calls
``training_step(self, batch, batch_idx)``, ``validation_step``, ``test_step`` and
``predict_step`` (its docs: make new tensors with ``device=self.device`` or ``type_as``, never
on the CPU by default).  The analysis knows such a parameter to live where ``self`` lives,
which may be an accelerator::

    class Classifier(pl.LightningModule):
        def training_step(self, batch, batch_idx):
            x, y = batch                       # on the module's device
            w = torch.ones(y.shape[0])         # on the CPU: the documented mistake
            return (self(x).sum(1) * w).mean()

``self`` of the hooks the trainer calls from its loops (:data:`LIGHTNING_RUN_HOOKS`:
``on_train_start``, ``validation_epoch_end``, ``on_validation_epoch_end``, the steps) is
where the trainer runs, an accelerator when the run builds a ``Trainer`` that may use one
(:func:`trainer_may_accelerate`: ``Trainer(gpus=gpus)``), and so is a helper's parameter that
such a hook hands ``self`` to (``sample_text(n, self)``).

accelerate's ``Accelerator()`` (built in the file, without ``cpu=``, ``device_placement=``
or ``**kwargs``: :func:`accelerator_places`) hands back what ``prepare`` is given where it
runs: a module moved there, a loader whose batches it puts there, and its ``device`` is
that place (:func:`placing_accelerator` recognises one).

A fact of a hook applies only to a class that provably derives from the framework's class:
a base imported from the framework (``pl.LightningModule`` after ``import pytorch_lightning
as pl``), or a class of the run that does.  A class named like one proves nothing.

What a library's *call* returns, and where, is the table :data:`CALL_FACTS` (each fact found
by the call's qualified name, through the file's imports, never a bare name):
``torchaudio.load`` reads a waveform into a tensor on the CPU (with its sample rate),
``torchaudio.transforms.Resample`` and the spectrogram transforms are modules built on the
CPU that hold tensors (a kernel, a window, a filter bank: they meet their input as weights
do, so they must be moved like any module), and ``torchvision.io.read_image`` and its
decoders read an image into a tensor on the CPU unless given ``device=``, and the legacy
iterators of torchtext (``data.BucketIterator(train, batch_size=32)``, ``Iterator``,
``BPTTIterator`` and their ``splits``, one per dataset) are loaders whose batches' tensors
are made on the CPU unless given a ``device``.  Older facts
live with the calls themselves:
:data:`~torchferry.check.flow.vocab.MODEL_ZOOS` and
:data:`~torchferry.check.flow.vocab.MODEL_BUILDERS` (models built on the CPU),
:data:`~torchferry.check.flow.vocab.TENSORS_ON_THE_CPU` (a tokenizer's or processor's
``return_tensors="pt"``), and torchvision's transforms and datasets in
:mod:`~torchferry.check.flow.resolve`.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("import lightning.pytorch as pl\\n"
...        "class M(pl.LightningModule):\\n"
...        "    def training_step(self, batch, batch_idx):\\n"
...        "        return batch\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> info = ff.class_info(ff.tree.body[1])
>>> hook_parameter(info, "training_step", 1), hook_parameter(info, "training_step", 2)
(<Placement.MODULE_DEVICE: 'module device'>, None)
>>> hook_parameter(info, "on_before_batch_transfer", 1) is None
True
>>> call_fact("torchaudio.transforms.Resample").returns, call_fact("torchaudio.load").returns
(<Returned.MODULE: 'a module holding tensors'>, <Returned.AUDIO: 'a tensor and its sample rate'>)
>>> call_fact("torchaudio.transforms.Vol") is None  # (a transform without tensors)
True
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torchferry.check.flow.lattice import Op, Value

if TYPE_CHECKING:
    from torchferry.check.flow.program import ClassInfo


class Framework(enum.Enum):
    """A framework whose documented behaviour the analysis knows."""

    LIGHTNING = "Lightning"


class Library(enum.Enum):
    """A library whose calls' documented results the analysis knows."""

    DETECTRON2 = "detectron2"
    SOUNDFILE = "soundfile"
    TORCHAUDIO = "torchaudio"
    TORCHTEXT = "torchtext"
    TORCHVISION = "torchvision"


class Placement(enum.Enum):
    """Where a framework or a library puts a value it hands to user code."""

    MODULE_DEVICE = "module device"  # where the module (``self``) lives
    TRAINER_DEVICE = "trainer device"  # where the framework's trainer runs (an accelerator it may use)
    CPU = "cpu"  # on the CPU


class Returned(enum.Enum):
    """What a library call returns."""

    TENSOR = "a tensor"
    AUDIO = "a tensor and its sample rate"  # a tuple ``(waveform, sample_rate)``
    MODULE = "a module holding tensors"  # its tensors move with ``.to(device)``
    LOADER = "a loader of batches"  # iterated, batches of tensors made where it says
    LOADERS = "loaders of batches, one for each dataset"  # a tuple of them


#: the qualified names Lightning's module class is imported as
LIGHTNING_MODULES = frozenset(
    {
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
    }
)


#: the qualified names torchmetrics' ``Metric`` is imported as: an ``nn.Module``
#: (``class Metric(Module, ABC)``) whose ``forward`` hands its own arguments to
#: :data:`METRIC_INPUT_METHOD` (``self.update(*args, **kwargs)``, in both
#: ``_forward_full_state_update`` and ``_forward_reduce_state_update``); ``.to()`` moves the
#: states of ``add_state`` and the buffers, nothing else
TORCHMETRICS_METRICS = frozenset({"torchmetrics.Metric", "torchmetrics.metric.Metric"})
#: the method of a torchmetrics ``Metric`` that its ``forward`` runs on the metric's inputs
METRIC_INPUT_METHOD = "update"


@dataclass(frozen=True)
class HookFact:
    """A framework calls ``hooks`` of a subclass of ``bases`` with parameter ``index`` (0 is
    ``self``) at ``placement``."""

    framework: Framework
    bases: frozenset[str]
    hooks: frozenset[str]
    index: int
    placement: Placement


#: the hooks whose batch parameter Lightning moves to the module's device first
LIGHTNING_STEPS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})

#: the hooks of a ``LightningModule`` that Lightning's trainer calls from its loops of
#: ``fit``/``validate``/``test``/``predict``, after its strategy (1.9, 2.x) or its
#: accelerator's ``pre_dispatch`` (1.3) has moved the module to the trainer's device
#: (pytorch-lightning 1.3.8 ``Trainer._run``: ``call_hook("on_fit_start")``, then
#: ``pre_dispatch()``, then ``dispatch()`` whose loops call these; 1.9.5 and 2.4.0
#: ``Trainer._run``: ``self.strategy.setup(self)`` "will configure model and move it to the
#: device", then ``_run_stage()``).  ``setup``, ``configure_model`` and ``on_fit_start``
#: (1.3.8: before ``pre_dispatch``) are not among them, nor ``on_fit_end`` (after the
#: teardown).  The ``*_epoch_end`` and ``*_step_end`` hooks are 1.x's: 2.0 refuses a module
#: that defines them (``configuration_validator``: "Support for `validation_epoch_end` has
#: been removed in v2.0.0"), so they are never called on another device.
LIGHTNING_RUN_HOOKS = LIGHTNING_STEPS | frozenset(
    f"on_{stage}_{when}" for stage in ("train", "validation", "test", "predict")
    for when in ("start", "end", "epoch_start", "epoch_end", "batch_start", "batch_end")
) | frozenset(f"{stage}_{what}" for stage in ("training", "validation", "test")
              for what in ("epoch_end", "step_end")) | frozenset(
    {"on_before_backward", "on_after_backward", "on_before_optimizer_step", "on_before_zero_grad"})

# Not used, the versions disagreeing: the loaders of ``self.trainer`` (pytorch-lightning
# 1.3.8 and 1.9.5: ``val_dataloaders`` a list of ``DataLoader``; 2.4.0: the iterables the
# module returned), a data module's ``train_dataloader()`` (a loader or a collection of
# them in each version), and ``load_from_checkpoint(path)`` without ``map_location``
# (0.8.5, 1.3.8, 1.9.5: ``map_location=lambda storage, loc: storage``, all to the CPU;
# 2.4.0: ``_default_map_location``, each tensor to its saved device when available).

#: the qualified names Lightning's trainer is imported as
LIGHTNING_TRAINERS = frozenset(
    f"{package}.{module}Trainer"
    for package in ("pytorch_lightning", "lightning.pytorch", "lightning")
    for module in ("", "trainer.", "trainer.trainer.")
)

#: the hooks whose parameters the analysis knows the place of
HOOK_FACTS: tuple[HookFact, ...] = (
    HookFact(Framework.LIGHTNING, LIGHTNING_MODULES, LIGHTNING_STEPS, 1, Placement.MODULE_DEVICE),
    # ``self`` of the hooks Lightning calls once the module is where the trainer runs
    HookFact(Framework.LIGHTNING, LIGHTNING_MODULES, LIGHTNING_RUN_HOOKS, 0, Placement.TRAINER_DEVICE),
)

#: the qualified names accelerate's ``Accelerator`` is imported as
ACCELERATORS = frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"})

#: the methods of an ``Accelerator`` that hand back what they are given placed where it
#: runs, and whether they take several objects (``prepare``) or one
ACCELERATOR_PREPARES = {"prepare": True, "prepare_model": False, "prepare_data_loader": False}


def accelerator_places(call: ast.Call) -> bool:
    """Does ``Accelerator(...)`` (``call``) put what it prepares where it runs, an
    accelerator when there is one?  accelerate 0.20.3 and 1.2.1 (``accelerator.py``):
    ``Accelerator(device_placement=True, cpu=False, ...)``; ``prepare(*args)`` prepares
    each object in turn and returns them in the same order (the object itself when it is
    given one); ``prepare_model`` runs ``model = model.to(self.device)`` when
    ``device_placement`` (not under FSDP, which places the model itself, nor a model spread
    by a ``device_map``); ``prepare_data_loader`` hands ``self.device`` to the loader, whose
    ``__iter__`` runs ``send_to_device(current_batch, self.device)`` (on a TPU, accelerate's
    device loader places them); ``device`` is ``self.state.device``, the accelerator of the
    process when there is one.  Not when the call is given ``cpu=True``,
    ``device_placement=False`` or a value the code does not show (``cpu=args.cpu``,
    ``**kwargs``).

    >>> [accelerator_places(ast.parse(s).body[0].value) for s in (
    ...     "Accelerator()", "Accelerator(mixed_precision='fp16', cpu=False)",
    ...     "Accelerator(cpu=True)", "Accelerator(device_placement=flag)", "Accelerator(**kw)")]
    [True, True, False, False, False]
    """
    if call.args:
        return False  # (``device_placement`` is the first positional parameter)
    for k in call.keywords:
        if k.arg is None:
            return False
        if k.arg in ("cpu", "device_placement"):
            if not isinstance(k.value, ast.Constant) or k.value.value is not (k.arg == "device_placement"):
                return False
    return True


def placing_accelerator(qualname: Callable[[ast.expr], str | None], v: Value) -> bool:
    """Is ``v`` an ``Accelerator`` of accelerate that the file whose ``qualname`` is given
    builds, on every path, such that it places what it prepares
    (:func:`accelerator_places`)?"""
    return bool(v.origins) and v.kinds is None and all(
        o.op is Op.RETURNED and o.path is None and isinstance(o.node, ast.Call)
        and qualname(o.node.func) in ACCELERATORS and accelerator_places(o.node)
        for o in v.origins)


#: classes of the run followed up their bases at most this deep
_DEPTH = 8


def derives_from(info: ClassInfo, bases: frozenset[str], depth: int = 0) -> bool:
    """Does the class ``info`` derive from one of ``bases`` (qualified names), through bases
    imported in its file or through classes of the run?"""
    if depth > _DEPTH:
        return False
    if any(info.ff.qualname(b) in bases for b in info.node.bases):
        return True
    return any(derives_from(b, bases, depth + 1) for b in info.bases)


#: ``Trainer(accelerator=...)`` values that run on an accelerator when one is present
#: (1.9.5 and 2.4.0 document "cpu", "gpu", "tpu", "ipu", "hpu", "mps", "auto"; "cuda" is
#: 2.x's name of "gpu")
_ACCELERATORS = frozenset({"gpu", "cuda", "tpu", "ipu", "hpu", "mps", "auto"})


def trainer_may_accelerate(call: ast.Call) -> bool:
    """May a call of Lightning's ``Trainer`` run on an accelerator, by its keywords?
    ``gpus=`` or ``tpu_cores=`` given anything but a literal none (``gpus=args.gpus``,
    ``gpus=1``; 1.3.8 to 1.9.5), or ``accelerator=`` one of :data:`_ACCELERATORS` written
    out.  A bare ``Trainer()`` is not: 1.3.8 trains on the CPU unless given ``gpus``, while
    1.9.5 and 2.x choose an accelerator (``accelerator=None`` is ``"auto"``), and neither is
    a value the code shows (``accelerator=args.accelerator``, ``**kwargs``).

    >>> [trainer_may_accelerate(ast.parse(s).body[0].value) for s in (
    ...     "Trainer(gpus=gpus)", "Trainer(gpus=0)", "Trainer(accelerator='gpu')", "Trainer()",
    ...     "Trainer(accelerator='cpu', devices=4)", "Trainer(**cfg)")]
    [True, False, True, False, False, False]
    """
    for k in call.keywords:
        v = k.value
        if k.arg in ("gpus", "tpu_cores"):
            if not isinstance(v, (ast.Constant, ast.List, ast.Tuple)):
                return True
            if isinstance(v, ast.Constant) and v.value not in (None, 0, "", "0", False) or \
                    isinstance(v, (ast.List, ast.Tuple)) and v.elts:
                return True
        elif k.arg == "accelerator" and isinstance(v, ast.Constant) and v.value in _ACCELERATORS:
            return True
    return False


def hook_parameter(info: ClassInfo, method: str, index: int) -> Placement | None:
    """Where a framework puts parameter ``index`` of the hook ``method`` of class ``info``
    when it calls it; None when no fact says."""
    for fact in HOOK_FACTS:
        if method in fact.hooks and index == fact.index and derives_from(info, fact.bases):
            return fact.placement
    return None


@dataclass(frozen=True)
class CallFact:
    """A call of one of ``names`` (qualified, as imported) returns ``returns`` at
    ``placement``, unless one of ``elsewhere`` (keywords) is given: then its place is
    unknown, or more than ``positional`` positional arguments (a device given in place)."""

    library: Library
    names: frozenset[str]
    returns: Returned
    placement: Placement
    elsewhere: frozenset[str] = frozenset()
    positional: int | None = None


def _under(package: str, names: str) -> frozenset[str]:
    return frozenset(f"{package}.{n}" for n in names.split())


def _torchtext_iterators(suffix: str) -> frozenset[str]:
    """The legacy iterator classes of torchtext (``suffix``: a class method of theirs)."""
    packages = ("torchtext.data", "torchtext.data.iterator", "torchtext.legacy.data",
                "torchtext.legacy.data.iterator")
    return frozenset(f"{p}.{c}{suffix}" for p in packages for c in ("Iterator", "BucketIterator", "BPTTIterator"))


#: the library calls whose results the analysis knows
CALL_FACTS: tuple[CallFact, ...] = (
    # ``waveform, sample_rate = torchaudio.load(path)``: no ``device=`` parameter
    CallFact(
        Library.TORCHAUDIO,
        _under("torchaudio", "load load_with_torchcodec sox_effects.apply_effects_file"),
        Returned.AUDIO,
        Placement.CPU,
    ),
    # transforms that register tensors (``Resample``'s kernel, a spectrogram's window, a mel
    # filter bank, a DCT matrix): the others (``Vol``, ``AmplitudeToDB``, masking) hold none
    CallFact(
        Library.TORCHAUDIO,
        _under(
            "torchaudio.transforms",
            "Spectrogram InverseSpectrogram GriffinLim MelScale "
            "InverseMelScale MelSpectrogram MFCC LFCC Resample TimeStretch "
            "SpectralCentroid",
        ),
        Returned.MODULE,
        Placement.CPU,
    ),
    CallFact(
        Library.TORCHVISION,
        _under("torchvision.io", "read_image decode_image decode_png read_file")
        | _under("torchvision.io.image", "read_image decode_image decode_png read_file"),
        Returned.TENSOR,
        Placement.CPU,
    ),
    # (``decode_jpeg(data, device="cuda")`` decodes on the accelerator)
    CallFact(
        Library.TORCHVISION,
        frozenset({"torchvision.io.decode_jpeg", "torchvision.io.image.decode_jpeg"}),
        Returned.TENSOR,
        Placement.CPU,
        frozenset({"device", "**"}),
    ),
    # the legacy iterators of torchtext (``data.BucketIterator(train, batch_size=32)``)
    # make each batch's tensors on ``device``, the CPU when it is left out; ``Iterator(
    # dataset, batch_size, sort_key, device)`` takes it fourth
    CallFact(
        Library.TORCHTEXT,
        _torchtext_iterators(""),
        Returned.LOADER,
        Placement.CPU,
        frozenset({"device", "**"}),
        3,
    ),
    # ``train_it, valid_it = data.BucketIterator.splits((train, valid), batch_size=32)``:
    # one iterator for each dataset, the keywords given to each
    CallFact(
        Library.TORCHTEXT,
        _torchtext_iterators(".splits"),
        Returned.LOADERS,
        Placement.CPU,
        frozenset({"device", "**"}),
        2,
    ),
)

_BY_NAME = {name: fact for fact in CALL_FACTS for name in fact.names}


def call_fact(qualname: str) -> CallFact | None:
    """The fact known of a call of ``qualname`` (a qualified name), if any."""
    return _BY_NAME.get(qualname)


def holds_tensors(qualname: str) -> bool:
    """Does a call of ``qualname`` build a module that holds tensors of its own?"""
    fact = call_fact(qualname)
    return fact is not None and fact.returns is Returned.MODULE


@dataclass(frozen=True)
class NumpyConsumer:
    """A method of one of ``methods`` of an object built by a call of one of ``classes``
    (qualified, as imported) reads the arguments at ``positions`` (0 is the first after
    ``self``) or ``keywords`` with NumPy (``.numpy()``, ``np.asarray``): each must be on the
    CPU.  ``holder``: what it is given is an object that holds tensors and moves as one
    (``Instances.to(device)``, no ``.cpu()``), not a tensor."""

    library: Library
    classes: frozenset[str]
    methods: frozenset[str]
    positions: frozenset[int]
    keywords: frozenset[str]
    holder: bool = False


#: library methods that hand what they are given to NumPy.  detectron2's ``Visualizer``
#: (``detectron2/utils/visualizer.py``, read at v0.1, v0.3, v0.4, v0.6 and 02b5c4e2):
#: ``draw_instance_predictions(predictions)`` reads the fields of an ``Instances`` with
#: NumPy (``np.asarray(predictions.pred_masks)``; its boxes through ``_convert_boxes``,
#: ``boxes.tensor.numpy()``, and its keypoints with ``np.asarray``), ``draw_sem_seg(
#: sem_seg)`` calls ``sem_seg.numpy()`` on a tensor, and ``draw_panoptic_seg(panoptic_seg,
#: segments_info)`` (``draw_panoptic_seg_predictions`` before v0.4) builds a
#: ``_PanopticPrediction`` that calls ``.numpy()`` on the areas ``torch.unique`` counts on
#: ``panoptic_seg``'s device.  None of them moves its argument to the CPU first.  (Not
#: torchvision's ``utils.save_image`` nor ``make_grid``: the first moves the grid with
#: ``.to("cpu", torch.uint8)`` before ``.numpy()``, the second makes no array)
NUMPY_CONSUMERS: tuple[NumpyConsumer, ...] = (
    NumpyConsumer(
        Library.DETECTRON2,
        frozenset({"detectron2.utils.visualizer.Visualizer"}),
        frozenset({"draw_instance_predictions"}),
        frozenset({0}),
        frozenset({"predictions"}),
        True,
    ),
    NumpyConsumer(
        Library.DETECTRON2,
        frozenset({"detectron2.utils.visualizer.Visualizer"}),
        frozenset({"draw_sem_seg"}),
        frozenset({0}),
        frozenset({"sem_seg"}),
    ),
    NumpyConsumer(
        Library.DETECTRON2,
        frozenset({"detectron2.utils.visualizer.Visualizer"}),
        frozenset({"draw_panoptic_seg", "draw_panoptic_seg_predictions"}),
        frozenset({0}),
        frozenset({"panoptic_seg"}),
    ),
)

@dataclass(frozen=True)
class NumpyFunction:
    """A library function of one of ``names`` (qualified, as imported) that reads its
    arguments at ``positions`` (0 is the first) or ``keywords`` with NumPy."""

    library: Library
    names: frozenset[str]
    positions: frozenset[int]
    keywords: frozenset[str]


#: library functions that hand what they are given to NumPy: torchvision's
#: ``io.write_video(filename, video_array, fps, video_codec, options, audio_array, ...)``
#: converts ``video_array`` and ``audio_array`` with ``torch.as_tensor(a).numpy()``, and
#: soundfile's ``write(file, data, samplerate, ...)`` begins ``data = np.asarray(data)``
#: (``soundfile.py`` read at 0.10.3.post1, 0.12.1 and 0.13.1)
NUMPY_FUNCTIONS: tuple[NumpyFunction, ...] = (
    NumpyFunction(
        Library.TORCHVISION,
        frozenset({"torchvision.io.write_video", "torchvision.io.video.write_video"}),
        frozenset({1, 5}),
        frozenset({"video_array", "audio_array"}),
    ),
    NumpyFunction(Library.SOUNDFILE, frozenset({"soundfile.write"}), frozenset({1}),
                  frozenset({"data"})),
)

_NUMPY_FUNCTIONS = {name: fact for fact in NUMPY_FUNCTIONS for name in fact.names}


def numpy_function(qualname: str) -> NumpyFunction | None:
    """The fact of a library function ``qualname`` (qualified) that hands its arguments to
    NumPy, if it is one.

    >>> sorted(numpy_function("soundfile.write").positions)
    [1]
    >>> numpy_function("soundfile.read") is None
    True
    """
    return _NUMPY_FUNCTIONS.get(qualname)


_CONSUMERS = {(c, m): fact for fact in NUMPY_CONSUMERS for c in fact.classes for m in fact.methods}
#: the classes whose objects' methods are NumPy consumers, and those methods' names
NUMPY_CONSUMER_CLASSES = frozenset(c for fact in NUMPY_CONSUMERS for c in fact.classes)
NUMPY_CONSUMER_METHODS = frozenset(m for fact in NUMPY_CONSUMERS for m in fact.methods)


def numpy_consumer(cls: str, method: str) -> NumpyConsumer | None:
    """The fact of ``method`` of an object of class ``cls`` (qualified) that hands its
    arguments to NumPy, if it is one.

    >>> numpy_consumer("detectron2.utils.visualizer.Visualizer", "draw_sem_seg").keywords
    frozenset({'sem_seg'})
    >>> numpy_consumer("detectron2.utils.visualizer.Visualizer", "draw_text") is None
    True
    """
    return _CONSUMERS.get((cls, method))


@dataclass(frozen=True)
class CheckpointLoad:
    """A call that unpickles a checkpoint as ``torch.load`` does, restoring each tensor to
    the device it was saved from unless given ``map_location``: by keyword, or as
    positional argument ``map_at`` (0 is the first)."""

    names: frozenset[str]
    map_at: int


#: the calls that read a checkpoint with ``torch.load``'s device semantics:
#: ``torch.load(f, map_location=None, ...)`` itself, and ``torch.hub``'s
#: ``load_state_dict_from_url(url, model_dir=None, map_location=None, ...)``, which downloads
#: the file and returns ``torch.load(cached_file, map_location=map_location)``; torch
#: re-exports it as ``torch.utils.model_zoo.load_url``, torchvision as
#: ``torchvision.models.utils.load_state_dict_from_url`` (before 0.11) and
#: ``torchvision._internally_replaced_utils.load_state_dict_from_url``; and OpenMMLab's
#: checkpoint readers (read in ``mmcv/runner/checkpoint.py`` at mmcv v0.2.10, v0.5.0,
#: v1.0.0, v1.3.0 and v1.7.2, and ``mmengine/runner/checkpoint.py`` at mmengine 0.7.0 and
#: 0.10.7): ``load_checkpoint(model, filename, map_location=None, strict=False, ...)``
#: reads with ``_load_checkpoint(filename, map_location=None, ...)``, which (from mmcv
#: v1.3.0, and in mmengine) is ``CheckpointLoader.load_checkpoint(filename,
#: map_location=None, ...)``; each hands ``map_location`` unchanged to ``torch.load`` (a
#: local path, a ceph or pavi file) or to ``load_url`` (a URL, a model zoo name), whose
#: default None is ``torch.load``'s too, and mmengine's ``utils.dl_utils.load_url(url,
#: model_dir=None, map_location=None, ...)`` is ``torch.utils.model_zoo.load_url`` (or a
#: copy of it that reads with ``torch.load(f, map_location=map_location)``, before torch
#: 1.7).  ``Runner.load_checkpoint(filename, map_location="cpu")``, a method, is not one
#: of them
CHECKPOINT_LOADS: tuple[CheckpointLoad, ...] = (
    CheckpointLoad(frozenset({"torch.load"}), 1),
    CheckpointLoad(
        frozenset(
            {
                "torch.hub.load_state_dict_from_url",
                "torch.utils.model_zoo.load_url",
                "torchvision.models.utils.load_state_dict_from_url",
                "torchvision._internally_replaced_utils.load_state_dict_from_url",
                "mmengine.utils.dl_utils.load_url",
                "mmengine.utils.dl_utils.hub.load_url",
            }
        ),
        2,
    ),
    CheckpointLoad(
        _under("mmengine.runner", "load_checkpoint checkpoint.load_checkpoint")
        | _under("mmcv.runner", "load_checkpoint checkpoint.load_checkpoint"),
        2,
    ),
    CheckpointLoad(
        _under("mmengine.runner", "checkpoint._load_checkpoint CheckpointLoader.load_checkpoint "
               "checkpoint.CheckpointLoader.load_checkpoint")
        | _under("mmcv.runner", "_load_checkpoint checkpoint._load_checkpoint "
                 "CheckpointLoader.load_checkpoint checkpoint.CheckpointLoader.load_checkpoint"),
        1,
    ),
)

_LOADS = {name: fact for fact in CHECKPOINT_LOADS for name in fact.names}
#: the last components of their names (``calls_by_tail`` keys)
CHECKPOINT_LOAD_TAILS = frozenset(n.rsplit(".", 1)[-1] for n in _LOADS)


def checkpoint_load(qualname: str | None) -> CheckpointLoad | None:
    """The fact of a checkpoint-reading call of ``qualname`` (qualified), if it is one.

    >>> checkpoint_load("torch.utils.model_zoo.load_url").map_at
    2
    >>> checkpoint_load("torch.hub.load") is None  # (a hub model, built by its own code)
    True
    """
    return _LOADS.get(qualname) if qualname is not None else None


#: ``torch.autograd.Function`` under the qualified names it is imported as
AUTOGRAD_FUNCTIONS = frozenset(
    {
        "torch.autograd.Function",
        "torch.autograd.function.Function",
        "torch.autograd.function.InplaceFunction",
    }
)
#: the attributes of an autograd ``Function``'s context that hold, in its ``backward``, the
#: tensors its ``forward`` saved with ``ctx.save_for_backward(...)`` (``saved_variables``:
#: the older name), as a tuple
SAVED_TENSORS = frozenset({"saved_tensors", "saved_variables"})


def autograd_backward(info: ClassInfo | None, fn: ast.AST) -> bool:
    """Is ``fn`` the ``backward`` of a class ``info`` that derives from
    ``torch.autograd.Function``?  Autograd calls it with the context of ``forward`` first,
    whose :data:`SAVED_TENSORS` are tensors ``forward`` was given or made from them: where
    the function's inputs were, which the code of ``backward`` follows when it makes
    tensors on their device (``torch.eye(n, device=M.device)``)."""
    return info is not None and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and fn.name == "backward" and derives_from(info, AUTOGRAD_FUNCTIONS)


def saved_tensor_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names ``fn`` (a ``backward``) binds to the saved tensors of its context, its
    first parameter: ``M, r = ctx.saved_tensors``, ``(x,) = ctx.saved_tensors``,
    ``x = ctx.saved_tensors[0]``.

    >>> fn = ast.parse("def backward(ctx, g):\\n    M, r = ctx.saved_tensors\\n"
    ...                "    w = ctx.saved_tensors[0]\\n    q = other.saved_tensors[0]\\n").body[0]
    >>> sorted(saved_tensor_names(fn))
    ['M', 'r', 'w']
    """
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not params:
        return frozenset()
    ctx = params[0].arg
    out: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign):
            continue
        value = node.value.value if isinstance(node.value, ast.Subscript) else node.value
        if isinstance(value, ast.Attribute) and value.attr in SAVED_TENSORS \
                and isinstance(value.value, ast.Name) and value.value.id == ctx:
            out.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(out)

