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
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


@dataclass(frozen=True)
class HookFact:
    """A framework calls ``hooks`` of a subclass of ``bases`` with parameter ``index`` (0 is
    ``self``) at ``placement``."""

    framework: Framework
    bases: frozenset[str]
    hooks: frozenset[str]
    index: int
    placement: Placement


#: the hooks whose parameters the analysis knows the place of
HOOK_FACTS: tuple[HookFact, ...] = (
    HookFact(
        Framework.LIGHTNING,
        LIGHTNING_MODULES,
        frozenset({"training_step", "validation_step", "test_step", "predict_step"}),
        1,
        Placement.MODULE_DEVICE,
    ),
)

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

