"""What the analysis knows of torch's and NumPy's names: which calls make tensors and
where, which methods move them, which uses show that a value is a tensor or a module.

The torch names themselves come from :mod:`torchferry._internal.vocabulary` (checked
against the installed torch); this module only sorts them by what they do to a value.

>>> MOVES["cuda"], MOVES["cpu"]
(<Where.ACCEL: 2>, <Where.CPU: 1>)
>>> "unsqueeze" in TENSOR_METHODS and "eval" in MODULE_METHODS
True
"""

from __future__ import annotations

import re

from torchferry._internal import vocabulary
from torchferry.check.flow.lattice import Where
from torchferry.check.names import NON_TENSOR_METHODS

#: ``torch.<name>(*shape, device=...)``: on the CPU unless ``device=`` says otherwise
SHAPE_FACTORIES = vocabulary.SHAPE_FACTORIES | vocabulary.SAMPLING_FUNCTIONS
#: ``torch.<name>(t)``: where ``t`` is unless ``device=`` says otherwise
LIKE_FACTORIES = vocabulary.LIKE_FACTORIES
#: ``torch.tensor([...])``: on the CPU unless ``device=``
DATA_FACTORIES = vocabulary.DATA_FACTORIES
LEGACY_CONSTRUCTORS = vocabulary.LEGACY_CONSTRUCTORS
#: what a module registers when a value made by one of these is assigned to its attribute
#: (the origin texts of ``nn.Parameter(...)`` and ``nn.Buffer(...)``, also as imported from
#: ``torch.nn.parameter``)
REGISTERED = ("torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Parameter",
              "torch.nn.parameter.Buffer")
#: tensor methods that put the result somewhere: ``.cuda()`` on an accelerator, ``.cpu()``
MOVES: dict[str, Where] = {"cuda": Where.ACCEL, "xpu": Where.ACCEL, "mps": Where.ACCEL,
                           "npu": Where.ACCEL, "cpu": Where.CPU}
#: methods that move a tensor or a module: ``.to()`` where its arguments say, the others
#: where :data:`MOVES` says
MOVE_NAMES = frozenset({"to", *MOVES})
#: ``tokenizer(texts, return_tensors="pt")``, ``processor(images=x, return_tensors="pt")``,
#: ``tokenizer.encode(text, return_tensors="pt")``: the keyword and value by which the
#: tokenizers, feature extractors and processors of Hugging Face transformers return
#: ``torch.Tensor``s (in a ``BatchEncoding`` mapping, or one tensor for ``encode``), built
#: on the CPU (``BatchEncoding.to(device)`` moves them) unless a ``device=`` is given
TENSORS_ON_THE_CPU = ("return_tensors", "pt")
#: the methods of those tokenizers that, so given, return one tensor, not a mapping
#: (``encode``; ``encode_plus``, ``batch_encode_plus`` and the call give a ``BatchEncoding``)
ONE_TENSOR_ENCODERS = frozenset({"encode"})
#: methods that move it to an accelerator (``.cuda()``)
ACCEL_MOVES = frozenset(m for m, w in MOVES.items() if w is Where.ACCEL)
#: those and ``.to()``: the moves that may put it on an accelerator
ACCEL_MOVE_NAMES = ACCEL_MOVES | {"to"}
#: tensor methods that give the receiver another's type (``type`` perhaps another device:
#: ``t.type("torch.cuda.FloatTensor")``)
RETYPES = frozenset({"type", "type_as"})
#: tensor methods that read only the other tensor's shape, or copy onto the receiver's device
SHAPE_ONLY = frozenset({"expand_as", "view_as", "reshape_as", "size", "copy_", "set_"})
#: tensor methods that make a tensor on the receiver's device
NEW_ON_RECEIVER = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})
CASTS = vocabulary.CAST_METHODS | {"long", "int", "bool", "short", "byte", "char"}
#: tensor methods whose result is not a tensor (``x.size()``, ``x.storage_offset()``)
TO_SCALAR = frozenset(NON_TENSOR_METHODS - {"numpy", "backward", "register_hook"})
TO_NDARRAY = frozenset({"numpy"})
#: tensor methods whose receiver and arguments do not meet on one device: moves, casts to
#: another's type, reads of another's shape, copies onto the receiver's device
NO_MEETING = MOVE_NAMES | RETYPES | SHAPE_ONLY | NEW_ON_RECEIVER
#: functions of ``torch.nn.functional`` whose only tensor is the input: their other
#: arguments are sizes, factors, paddings or dimensions that torch reads as Python numbers
#: (``F.interpolate(x, size)`` with ``size`` a list of integer tensors, or one, takes their
#: values wherever they are), so nothing there meets the input on one device
INPUT_ONLY_FUNCTIONS = frozenset("""interpolate upsample upsample_nearest upsample_bilinear pad
    adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
    adaptive_max_pool2d adaptive_max_pool3d""".split())
#: tensor methods that spell an operator (``a.eq(b)`` is ``a == b``, ``a.mm(b)`` is ``a @ b``):
#: the receiver and the tensor arguments meet on one device, as the operator's operands do
OPERATOR_METHODS = frozenset("""eq ne lt le gt ge add sub mul div true_divide floor_divide
    remainder fmod pow matmul mm bmm add_ sub_ mul_ div_ eq_ ne_ lt_ le_ gt_ ge_""".split())
#: methods of a metric moved to a device (torchmetrics' and ignite's ``Metric.update(preds,
#: target)``) whose tensor arguments meet the metric's state, and each other, there
METRIC_UPDATES = frozenset({"update"})
#: functions and methods that run the module given first on the input given second
#: (``torch.jit.trace(model, example)``, ``torch.onnx.export(model, args, f)``,
#: ``SummaryWriter.add_graph(model, input_to_model)``): qualified names, and method names
RUNS_MODULE = frozenset({"torch.jit.trace", "torch.onnx.export"})
RUNS_MODULE_METHODS = frozenset({"add_graph"})
#: module methods that return the module itself (its place unchanged)
MODULE_SELF = frozenset("eval train float half double bfloat16 requires_grad_ share_memory "
                        "apply zero_grad".split())
#: uses that show a value is a tensor (``x.unsqueeze(0)``, ``x.size(1)``; not ``.to()`` or
#: ``.float()``, which modules have too)
TENSOR_METHODS = frozenset(
    "unsqueeze squeeze view view_as reshape permute transpose contiguous size dim numel "
    "masked_fill masked_fill_ index_select gather scatter scatter_ expand expand_as repeat "
    "chunk split narrow flatten unflatten detach clone long int bool "
    "numpy item tolist softmax log_softmax argmax argmin sum mean max min matmul mm bmm "
    "clamp clamp_ fill_ zero_ copy_ new_zeros new_ones new_empty new_full new_tensor "
    "type_as masked_select nonzero topk sort cumsum abs exp log sqrt pow norm t "
    "backward".split()
)
#: functions and losses that take some tensor arguments on the CPU by design (name ->
#: those arguments' positions and keywords): the lengths of ``pack_padded_sequence`` must
#: be there, ``ctc_loss`` moves its targets and lengths itself
CPU_ARGUMENTS: dict[str, tuple[frozenset[int], frozenset[str]]] = {
    "pack_padded_sequence": (frozenset({1}), frozenset({"lengths"})),
    "ctc_loss": (frozenset({1, 2, 3}), frozenset({"targets", "input_lengths", "target_lengths"})),
    "CTCLoss": (frozenset({1, 2, 3}), frozenset({"targets", "input_lengths", "target_lengths"})),
}
#: functions of torch whose parameters past the tensor ones take only Python numbers or
#: bools (``F.one_hot(t, num_classes)``, ``torch.topk(t, k, dim)``): name -> those
#: parameters' positions; a value given there (``model.n_classes``) is not a tensor the
#: result computes with, wherever it comes from
#: torch functions that encode one tensor element by element into one tensor of the same
#: items (``F.one_hot(labels, n)``): of an item of a batch and numbers, that item, where it
#: is (not ``torch.chunk``/``split``, which return tuples, nor reductions)
ITEM_ENCODINGS = frozenset({"one_hot"})

NUMBER_POSITIONS: dict[str, frozenset[int]] = {
    "one_hot": frozenset({1}), "topk": frozenset({1, 2, 3, 4}), "kthvalue": frozenset({1, 2, 3}),
    "argmax": frozenset({1, 2}), "argmin": frozenset({1, 2}), "cumsum": frozenset({1}),
    "cumprod": frozenset({1}), "softmax": frozenset({1}), "log_softmax": frozenset({1}),
    "chunk": frozenset({1, 2}), "transpose": frozenset({1, 2}), "flatten": frozenset({1, 2}),
    "unsqueeze": frozenset({1}), "cat": frozenset({1}), "stack": frozenset({1}),
    "stft": frozenset({1, 2, 3}), "istft": frozenset({1, 2, 3}),
    "clip_grad_norm_": frozenset({1, 2, 3, 4}), "get_total_norm": frozenset({1, 2, 3}),
}
#: keyword parameters that take only Python numbers or bools in every function of torch
#: that has them (``num_classes=``, ``dim=``, ``keepdim=``)
NUMBER_KEYWORDS = frozenset("num_classes dim keepdim k largest sorted descending stable dim0 "
                            "dim1 start_dim end_dim chunks n_fft hop_length win_length "
                            "max_norm norm_type error_if_nonfinite foreach".split())
#: tensor methods whose every argument is a size, a dimension or a count, a Python int
#: (``x.expand(n, max_len)``: a 0-dimensional tensor given there is read as its number),
#: so the receiver meets no tensor there
SIZE_METHODS = frozenset("expand view reshape repeat tile permute unsqueeze squeeze transpose "
                         "flatten unflatten size chunk topk kthvalue softmax log_softmax argmax "
                         "argmin cumsum cumprod flip roll narrow new_zeros new_ones new_empty "
                         "resize_".split())
#: methods that, called without arguments, reduce a tensor to a 0-dimensional one
REDUCTIONS = frozenset("sum mean prod max min amax amin argmax argmin norm std var all any "
                       "median logsumexp count_nonzero".split())
#: tensor methods whose result is a tensor whatever their arguments (so a tensor made here
#: stays one by construction); ``max``/``sort``/``split`` are not: they may return tuples
TENSOR_KEEPING = frozenset(
    "to cuda cpu xpu mps detach clone contiguous float double half bfloat16 long int bool "
    "short byte char view view_as reshape reshape_as permute transpose t squeeze unsqueeze "
    "flatten unflatten expand expand_as repeat narrow index_select gather masked_fill "
    "masked_select softmax log_softmax sigmoid tanh relu argmax argmin sum mean prod abs "
    "exp log sqrt pow neg round floor ceil clamp add sub mul div matmul mm bmm eq ne lt le "
    "gt ge isnan isinf isfinite cumsum type_as flip roll squeeze_ unsqueeze_ mul_ add_ "
    "sub_ div_ clamp_ fill_ zero_ copy_ requires_grad_ pin_memory".split()
)
#: tensor attributes on the tensor's device: views of it or its data, ``t.grad`` (which
#: may be None)
SAME_PLACE_ATTRS = vocabulary.TENSOR_ATTRIBUTES
#: those that are surely tensors themselves (all but ``t.grad``)
TENSOR_VALUED_ATTRS = SAME_PLACE_ATTRS - {"grad"}
#: uses that show a value is a module
MODULE_METHODS = frozenset("eval train parameters named_parameters modules named_modules "
                           "children state_dict load_state_dict zero_grad forward "
                           "register_buffer buffers".split())
#: methods that, on a value the same scope also calls (``net(x)``), show it is a module: a
#: tensor is never called, a function has no ``.to()``
CALLED_MODULE_METHODS = MODULE_METHODS | frozenset(
    "to cuda apply requires_grad_ half float bfloat16".split())
#: ``torch.nn`` names that are no modules with weights to move
NN_NOT_MODULES = frozenset({"Parameter", "Buffer", "functional", "init", "utils", "parallel"})
#: ``torch.nn`` layers that own parameters (a model of them must be moved with its inputs)
PARAM_LAYERS = frozenset(
    """Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d
    ConvTranspose3d LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d
    LazyConvTranspose3d BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d
    LazyBatchNorm3d SyncBatchNorm LayerNorm GroupNorm RMSNorm Embedding
    EmbeddingBag RNN LSTM GRU RNNCell LSTMCell GRUCell MultiheadAttention Transformer
    TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer
    PReLU""".split()
)
#: the tensors a ``torch.nn`` layer's ``__init__`` always registers on itself, whatever its
#: arguments (``nn.Conv2d``'s ``weight`` is an ``nn.Parameter``; its ``bias`` may be None,
#: as ``nn.BatchNorm2d``'s running statistics and ``nn.LayerNorm``'s weight may be): a
#: subclass's ``self.weight`` that no class of the run assigns is one of the module's
#: parameters, which follow the module wherever it is moved
LAYER_TENSORS: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        """Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d
        Embedding EmbeddingBag PReLU""".split(), frozenset({"weight"})),
    **dict.fromkeys("RNN LSTM GRU".split(), frozenset({"weight_ih_l0", "weight_hh_l0"})),
    **dict.fromkeys("RNNCell LSTMCell GRUCell".split(), frozenset({"weight_ih", "weight_hh"})),
}
#: ``torch.nn`` containers (they own what they hold)
CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})
#: model zoos whose constructors build a model on the CPU
MODEL_ZOOS = ("torchvision.models.",)
#: metrics of torchmetrics whose state is made of tensors (a confusion matrix, sums of
#: counts or errors: ``self.confmat += confmat`` in ``update``): modules built on the CPU
#: whose call on tensors of another device fails until the metric is moved; by class name
#: under ``torchmetrics.`` (not those that keep lists of what they are given, ``AUROC``
#: without thresholds, nor the aggregations that move what they are given, ``MeanMetric``)
TENSOR_STATE_METRICS = frozenset(
    f"{task}{name}" for task in ("", "Binary", "Multiclass", "Multilabel")
    for name in ("JaccardIndex", "ConfusionMatrix", "Accuracy", "Precision", "Recall",
                 "F1Score", "FBetaScore", "Specificity", "StatScores", "HammingDistance")
) | {"MeanSquaredError", "MeanAbsoluteError"}
#: keywords that make those metrics keep a list per sample instead
#: (``multidim_average="samplewise"``; older releases' ``mdmc_average``)
LIST_STATE_KEYWORDS = frozenset({"multidim_average", "mdmc_average", "mdmc_reduce"})


def tensor_state_metric(qual: str) -> bool:
    """Does ``qual`` name a metric of torchmetrics whose state is made of tensors?

    >>> tensor_state_metric("torchmetrics.JaccardIndex")
    True
    >>> tensor_state_metric("torchmetrics.classification.MulticlassAccuracy")
    True
    >>> tensor_state_metric("torchmetrics.AUROC"), tensor_state_metric("mylib.Accuracy")
    (False, False)
    """
    return qual.startswith("torchmetrics.") and ".functional." not in qual and \
        qual.rsplit(".", 1)[-1] in TENSOR_STATE_METRICS


#: functions that build (or load) a model on the CPU unless told otherwise
MODEL_BUILDERS = frozenset({"torch.hub.load", "timm.create_model", "torchvision.models.get_model"})
#: functions of torch that give back the module they are given, compiled or scripted, with
#: the same parameters on the same device (``torch.compile(model)``; ``torch.jit.trace``
#: takes the module first too)
SAME_MODULE = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace",
                         "torch.jit.trace_module", "torch.jit.freeze",
                         "torch.jit.optimize_for_inference"})
#: functions of ``torch.nn.utils`` that compute one tensor where their tensors are
#: (``pad_sequence(tensors)``: a padded stack of a list's tensors; ``clip_grad_norm_``,
#: ``get_total_norm``: the total norm of the gradients, where the parameters are;
#: ``parameters_to_vector``: the parameters in one vector, where they are)
TENSOR_UTILS = frozenset({"torch.nn.utils.rnn.pad_sequence", "torch.nn.utils.clip_grad_norm_",
                          "torch.nn.utils.get_total_norm",
                          "torch.nn.utils.parameters_to_vector"})
#: functions of ``torch.nn.utils`` that write into the tensors they are given, where they
#: are (clipped gradients, a vector copied into the parameters), and keep none of them
TENSOR_WRITERS = frozenset({"torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grads_with_norm_",
                            "torch.nn.utils.vector_to_parameters", "torch.nn.utils.clip_grad_norm"})
#: functions of torch that keep something they are given (the module inside the compiled
#: or scripted one, :data:`SAME_MODULE`) or may put it elsewhere
TORCH_KEEPERS = SAME_MODULE | {"torch.nn.utils.weight_norm", "torch.nn.utils.spectral_norm"}


def keeps_arguments(qual: str) -> bool:
    """Does the library function ``qual`` leave what it is given where it is?  The
    functions of torch that compute tensors (``torch.cat``, ``F.relu``,
    ``torch.linalg.norm``), the tensor utilities of ``torch.nn.utils`` and NumPy's
    functions read their arguments (or write into them where they are) and keep none;
    the optimizers and schedulers of ``torch.optim`` keep the parameters they are given
    but never move them.

    >>> keeps_arguments("torch.nn.utils.clip_grad_norm_"), keeps_arguments("torch.cat")
    (True, True)
    >>> keeps_arguments("torch.nn.functional.relu"), keeps_arguments("numpy.isnan")
    (True, True)
    >>> keeps_arguments("torch.compile"), keeps_arguments("torch.nn.DataParallel")
    (False, False)
    >>> keeps_arguments("torch.optim.Adam"), keeps_arguments("torch.optim.lr_scheduler.StepLR")
    (True, True)
    >>> keeps_arguments("torch.utils.data.DataLoader"), keeps_arguments("mylib.step")
    (False, False)
    """
    parts = qual.split(".")
    if qual in TORCH_KEEPERS or len(parts) < 2:
        return False
    if qual in TENSOR_UTILS or qual in TENSOR_WRITERS or parts[:2] == ["torch", "optim"]:
        return True  # (an optimizer or a scheduler holds the parameters, never moves them)
    if parts[0] == "numpy":
        return True
    if parts[0] != "torch" or not parts[-1][:1].islower():
        return False
    if len(parts) == 2:
        return parts[1] not in ("load", "jit")
    return parts[1] in TENSOR_SUBMODULES or parts[1:3] == ["nn", "functional"]
#: submodules of torch whose functions compute tensors
TENSOR_SUBMODULES = frozenset({"fft", "linalg", "special", "autograd", "sparse"})
#: wrappers that hand inputs to the right device themselves (their place is left unknown)
WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel", "FullyShardedDataParallel"})
#: the wrappers that never move the module they wrap: each is where its module is
KEEPING_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel"})
#: functions of torch that make no tensor
TORCH_NON_TENSOR = frozenset(
    "device dtype is_tensor is_floating_point is_complex numel get_default_dtype "
    "set_default_dtype manual_seed seed load save no_grad enable_grad inference_mode "
    "set_grad_enabled compile Size Generator finfo iinfo is_grad_enabled equal allclose "
    "result_type promote_types can_cast typename is_nonzero use_deterministic_algorithms "
    "get_rng_state set_rng_state set_printoptions set_num_threads get_num_threads "
    "autocast is_storage set_float32_matmul_precision get_device_module".split()
)
#: ``torch.<name>`` of a dtype (``torch.float16``, ``torch.half``)
DTYPES = vocabulary.DTYPES
#: builtins whose result is a number, a string or a flag
SCALAR_BUILTINS = frozenset("len int float bool str round abs sum min max repr isinstance "
                            "hasattr range print".split())
#: ``math.pi``, ``np.inf``, ``torch.pi``: numbers
NUMBER_CONSTANTS = frozenset({"pi", "e", "inf", "nan", "tau"})
#: annotations of numbers and strings (a hint, as every annotation)
SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "complex"})
#: names of models and losses (a hint for a callable the analysis cannot see into)
MODEL_NAME = re.compile(
    r"^(model|net|network|module|.*_model|.*model|.*_net|ema|criterion|.*_criterion|loss_fn|"
    r"loss_func|loss_function)$", re.I)
#: a class (``TransformerDecoder``, ``BertModel.from_pretrained``) whose instance an
#: ``nn.Module``'s ``__init__`` stores on ``self`` and calls: a class name in CapWords, and
#: the loader of pretrained weights
OUTSIDE_CLASS = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
PRETRAINED_LOADERS = frozenset({"from_pretrained", "from_config", "from_name"})
#: the words of class names of callables without weights, or that may move what they are
#: given themselves (a loss, a tokenizer, a sampler, a matcher, a renderer, an ODE solver,
#: a wrapper of a model given to it):
#: never taken for a layer whose weights follow the model; and the parts of names that
#: say so anywhere in them (``CrossEntropyLoss``, ``BertTokenizerFast``, ``GELUActivation``)
WEIGHTLESS_WORDS = frozenset(
    "Criterion Sampler Identity Config Processor Extractor Metric Metrics Scheduler Optimizer "
    "Optimiser Transform Transforms Augment Augmentation Dataset Loader Logger Writer Timer "
    "Meter Vocab Vocabulary Dictionary Alphabet Converter Parallel Wrapper Pipeline Evaluator "
    "Search Generator Noise Schedule Ema EMA Pool Pooling Flatten Upsample Pad Padding "
    "Activation Act Matcher Postprocess Process Renderer Rasterizer Shader Solver Integrator "
    "Warp Warper Resize Crop Clamp".split())
WEIGHTLESS_PARTS = ("loss", "tokeniz", "dropout", "relu", "gelu", "silu", "swish", "mish",
                    "sigmoid", "tanh", "softmax", "softplus", "sampler", "collat")
_CAP_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*")


def weightless_class(name: str) -> bool:
    """Is ``name`` the class name of a callable without weights, or one that may move
    its inputs itself (see :data:`WEIGHTLESS_WORDS`)?

    >>> weightless_class("TransformerDecoder"), weightless_class("ImageTransform")
    (False, True)
    >>> weightless_class("CrossEntropyLoss"), weightless_class("ReLU")
    (True, True)
    """
    low = name.lower()
    return any(p in low for p in WEIGHTLESS_PARTS) or \
        any(w in WEIGHTLESS_WORDS for w in _CAP_WORDS.findall(name))


#: names of DataLoaders (a hint for an iterable of unknown kind): ``train_loader``, ``dl``
LOADER_NAME = re.compile(r"(loader|^dl$|_dl$|^dl_)", re.I)
ACCEL_KINDS = frozenset({"cuda", "mps", "xpu", "npu", "hpu", "xla"})


def literal_where(text: str) -> Where | None:
    """The place a device string names: ``"cuda:1"`` an accelerator, ``"cpu"`` the CPU.

    >>> literal_where("cuda:1"), literal_where("cpu"), literal_where("meta")
    (<Where.ACCEL: 2>, <Where.CPU: 1>, None)
    """
    kind = text.split(":", 1)[0]
    if kind == "cpu":
        return Where.CPU
    if kind in ACCEL_KINDS:
        return Where.ACCEL
    return None
