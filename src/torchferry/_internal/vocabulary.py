"""PyTorch's names that torchferry's layers must agree on, written once.

The static checker (``check``, which never imports torch) and the runtime
diagnostics (``diagnose``) both need to know which ``torch.*`` calls create a
tensor, which methods move one, and which device kinds exist.  They read them
here; ``tests/test_vocabulary.py`` checks every name against the installed torch.

>>> "zeros" in FACTORIES and "zeros_like" in LIKE_FACTORIES
True
>>> sorted(RANDOM_FACTORIES & SHAPE_FACTORIES)
['rand', 'randint', 'randn', 'randperm']
>>> ACCELERATOR_KINDS
('cuda', 'xpu', 'mps')
"""

from __future__ import annotations

import re

__all__ = [
    "ACCELERATOR_KINDS",
    "ASYNC_COPY_KINDS",
    "ACCELERATOR_LITERAL",
    "SHAPE_FACTORIES",
    "LIKE_FACTORIES",
    "DATA_FACTORIES",
    "RANDOM_FACTORIES",
    "SAMPLING_FUNCTIONS",
    "FACTORIES",
    "LEGACY_CONSTRUCTORS",
    "EMPTY_MODULES",
    "DEVICE_MOVE_METHODS",
    "CAST_METHODS",
    "MOVE_METHODS",
    "DTYPES",
    "TENSOR_ATTRIBUTES",
]

# Accelerator device types, in the order torchferry.device() prefers them.
ACCELERATOR_KINDS: tuple[str, ...] = ("cuda", "xpu", "mps")
# Accelerators a host-to-device copy can overlap compute on (``non_blocking=True`` is
# safe to ask for); a non-blocking copy to the host or to mps can be read before it lands.
# (The kinds the simulation stands in for are its registry's: torchferry.sim.kinds.)
ASYNC_COPY_KINDS = frozenset({"cuda", "xpu"})
# A device string naming an accelerator: "cuda", "cuda:1", "mps", "xpu:0".
ACCELERATOR_LITERAL = re.compile(r"^(cuda|mps|xpu)(:\d+)?$")

# torch.<name>(*shape/range, device=...): the result's device comes only from ``device=``
# (or the default device).
SHAPE_FACTORIES = frozenset(
    "zeros ones empty full arange rand randn randint randperm eye linspace logspace".split()
) | frozenset(  # the signal windows handed to ``torch.stft``: made of one length
    "hann_window hamming_window blackman_window bartlett_window kaiser_window".split()
)
# torch.<name>(t): same device as ``t`` unless ``device=`` says otherwise.
LIKE_FACTORIES = frozenset(
    "zeros_like ones_like empty_like full_like rand_like randn_like randint_like".split()
)
# torch.<name>(data): a tensor made from Python or NumPy data (on the CPU unless ``device=``;
# ``as_tensor``/``asarray`` keep a tensor's device; ``from_numpy`` has no ``device=``).
DATA_FACTORIES = frozenset("tensor as_tensor asarray from_numpy".split())
# Factories whose values come from the random generator of the device they run on: moving
# them to another device (``device=``) changes the numbers drawn under the same seed.
RANDOM_FACTORIES = frozenset(
    "rand randn randint randperm rand_like randn_like randint_like".split()
)
# Sampling functions that also create a tensor (and draw from the generator).
SAMPLING_FUNCTIONS = frozenset("normal bernoulli multinomial".split())
# Everything that makes a new tensor.
FACTORIES = SHAPE_FACTORIES | LIKE_FACTORIES | DATA_FACTORIES | SAMPLING_FUNCTIONS

# torch.FloatTensor(...) and friends: legacy constructors, always on the CPU; the
# torch.cuda.<name> variants are hard-coded to the GPU.
LEGACY_CONSTRUCTORS = frozenset(
    "FloatTensor DoubleTensor HalfTensor BFloat16Tensor ByteTensor CharTensor ShortTensor "
    "IntTensor LongTensor BoolTensor".split()
)

# ``torch.nn`` modules that hold no parameter, no buffer and no submodule when built from
# constants: built with no arguments none has one, and only a tensor argument (a loss's
# ``weight``, ``pos_weight``) could give one, so ``nn.CrossEntropyLoss().cuda()`` moves
# nothing and runs on a machine without a GPU.
EMPTY_MODULES = frozenset(
    "AlphaDropout BCELoss BCEWithLogitsLoss CELU CTCLoss CosineEmbeddingLoss CosineSimilarity "
    "CrossEntropyLoss Dropout Dropout1d Dropout2d Dropout3d ELU FeatureAlphaDropout Flatten "
    "GELU GLU GaussianNLLLoss Hardshrink Hardsigmoid Hardswish Hardtanh HingeEmbeddingLoss "
    "HuberLoss Identity KLDivLoss L1Loss LeakyReLU LogSigmoid LogSoftmax MSELoss "
    "MarginRankingLoss Mish MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss "
    "NLLLoss PairwiseDistance PoissonNLLLoss RReLU ReLU ReLU6 SELU SiLU Sigmoid SmoothL1Loss "
    "SoftMarginLoss Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh Tanhshrink "
    "TripletMarginLoss Upsample UpsamplingBilinear2d UpsamplingNearest2d".split()
)

# Tensor/module methods that change the device.
DEVICE_MOVE_METHODS = frozenset({"to", "cuda", "cpu", "xpu"})  # there is no .mps(): .to("mps")
# Methods that change only the dtype (``type`` may also change the device: "torch.cuda.FloatTensor").
CAST_METHODS = frozenset({"float", "half", "double", "bfloat16", "type"})
MOVE_METHODS = DEVICE_MOVE_METHODS | CAST_METHODS

# The dtypes ``torch.<name>`` names (aliases too: ``torch.half`` is ``torch.float16``):
# ``x.to(torch.float16)`` casts, it moves nothing.
DTYPES = frozenset(
    "float32 float float64 double float16 half bfloat16 float8_e4m3fn float8_e4m3fnuz "
    "float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2 uint8 uint16 uint32 uint64 "
    "int8 int16 short int32 int int64 long complex32 chalf complex64 cfloat complex128 "
    "cdouble bool quint8 qint8 qint32 quint4x2 quint2x4 bits1x8 bits2x4 bits4x2 bits8 "
    "bits16 bit int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 "
    "uint7".split()
)

# Tensor attributes that are tensors on the tensor's device, read without side effects:
# views of it or of its data, and its gradient (None until there is one).
TENSOR_ATTRIBUTES = frozenset({"data", "grad", "T", "mT", "H", "mH", "real", "imag"})
