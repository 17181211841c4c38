"""Is a class an ``nn.Module``?  The one answer every rule gets, from what the code
establishes rather than from the names it uses.

A class is a module when a base is one: a ``torch.nn`` module class (``nn.Module``,
``nn.Linear``, ``torch.nn.modules.rnn.LSTMCell``), a module class of another package known
by its qualified name (Lightning's ``LightningModule``, transformers' ``PreTrainedModel``,
fairseq's ``FairseqEncoder``: :data:`PACKAGE_MODULES`; torchmetrics' ``Metric``:
:data:`QUALIFIED_MODULES`; a Hugging Face model class by that
package's naming of its PyTorch models, ``BertForTokenClassification``, ``BertModel``:
:func:`hf_model_class`), or a class of the run that is a module (the caller resolves bases
through the imports between the checked files).  A class with a base the run cannot resolve
(allennlp's ``Model``: a name too common to know a class by in the pass of
:mod:`torchferry.check.project` over class headers) is a module only when its own code
makes sense for a module alone: ``__init__`` assigns ``torch.nn`` layers, modules of the run
or ``nn.Parameter`` objects to attributes of ``self`` and the class defines ``forward``, or
a method calls ``self.register_buffer``, ``self.parameters()``, ``self.modules()`` or their
kin.  Anything less stays "not a module": a name ending in ``Module`` proves nothing.

>>> import ast
>>> src = '''
... class Head(PreTrainedModel):
...     def __init__(self, config):
...         super().__init__(config)
...         self.proj = nn.Linear(4, 2)
...     def forward(self, x):
...         return self.proj(x)
... class Config(PretrainedConfig):
...     def __init__(self):
...         self.size = 4
... '''
>>> head, config = ast.parse(src).body
>>> qual = lambda e: "torch.nn.Linear" if ast.unparse(e) == "nn.Linear" else None
>>> module_class(head, [None], qual, lambda name: False)
True
>>> module_class(config, [None], qual, lambda name: False)
False
>>> module_class(config, [True], qual, lambda name: False)
True
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from torchferry.check.flow.libfacts import LIGHTNING_MODULES, TORCHMETRICS_METRICS
from torchferry.check.flow.vocab import NN_NOT_MODULES, PARAM_LAYERS, PRETRAINED_LOADERS
from torchferry.check.names import self_attr

if TYPE_CHECKING:
    from torchferry.check.scopes import ClassInfo, Walker

#: ``self.<name>(...)`` calls that only an ``nn.Module`` answers
MODULE_SELF_CALLS = frozenset(
    "register_buffer register_parameter register_module add_module get_submodule "
    "parameters named_parameters buffers named_buffers modules named_modules children "
    "named_children".split())

#: ``nn.Module`` subclasses of other packages, by the qualified names they are imported as
PACKAGE_MODULES = frozenset({
    *LIGHTNING_MODULES,
    "transformers.PreTrainedModel", "transformers.modeling_utils.PreTrainedModel",
    "torch_geometric.nn.MessagePassing", "torch_geometric.nn.conv.MessagePassing",
    "torch_geometric.nn.conv.message_passing.MessagePassing",
    "diffusers.ModelMixin", "diffusers.models.ModelMixin",
    "diffusers.models.modeling_utils.ModelMixin",
    *(f"fairseq.models.{name}" for name in (
        "BaseFairseqModel", "FairseqEncoder", "FairseqDecoder", "FairseqIncrementalDecoder",
        "FairseqEncoderDecoderModel", "FairseqEncoderModel", "FairseqLanguageModel")),
})
#: ``nn.Module`` subclasses of other packages known only by their qualified names: a class
#: header's bare ``Metric`` says nothing (ignite's ``Metric`` is no module), so the pass of
#: :mod:`torchferry.check.project` over class headers leaves them out
QUALIFIED_MODULES = TORCHMETRICS_METRICS

Qualname = Callable[[ast.expr], "str | None"]


def torch_nn_class(qual: str) -> bool:
    """Does the qualified name ``qual`` name a module class of ``torch.nn``
    (``torch.nn.Module``, ``torch.nn.modules.linear.Linear``; not ``torch.nn.Parameter``,
    ``torch.nn.utils.rnn.PackedSequence``)?"""
    if not qual.startswith("torch.nn."):
        return False
    parts = qual[len("torch.nn."):].split(".")
    return parts[-1][:1].isupper() and not any(
        p in NN_NOT_MODULES or p == "parameter" for p in parts)


#: packages of Hugging Face model classes, whose PyTorch models are named ``<Arch>Model``,
#: ``<Arch>PreTrainedModel`` or ``<Arch>For<Task>`` (``BertForTokenClassification``); their
#: TensorFlow and Flax twins carry a ``TF`` / ``Flax`` prefix, the ``Auto*`` classes are
#: factories and the ``*Output`` classes (``BertForPreTrainingOutput``) records, not modules
HF_MODEL_PACKAGES = frozenset({"transformers", "pytorch_transformers", "pytorch_pretrained_bert"})

_HF_MODEL = re.compile(r"(?!TF[A-Z]|Flax[A-Z]|Auto[A-Z])[A-Z]\w*(Model|For[A-Z]\w*)(?<!Output)")


def hf_model_class(qual: str) -> bool:
    """Does ``qual`` name a PyTorch model class of a Hugging Face package
    (``transformers.BertForTokenClassification``, ``pytorch_transformers.modeling_bert.BertModel``;
    not ``transformers.BertConfig``, ``transformers.TFBertModel`` or ``transformers.AutoModel``)?"""
    top, _, rest = qual.partition(".")
    return top in HF_MODEL_PACKAGES and bool(rest) and \
        _HF_MODEL.fullmatch(rest.rsplit(".", 1)[-1]) is not None


#: the layers every Hugging Face task model of an architecture holds under these names
#: (``BertForTokenClassification``: ``self.bert``, ``self.dropout``, ``self.classifier``;
#: ``BertModel``: ``self.embeddings``, ``self.encoder``, ``self.pooler``;
#: ``LlamaForCausalLM``: ``self.model``, ``self.lm_head``), besides the
#: base model under the architecture's name (its ``base_model_prefix``, ``bert``,
#: ``roberta``); each is a ``torch.nn`` module built in the library class's ``__init__``
HF_LAYERS = frozenset({"classifier", "qa_outputs", "lm_head", "cls", "pooler", "embeddings",
                       "encoder", "decoder", "score", "pre_classifier", "transformer", "model",
                       "shared", "vision_model", "text_model"})
#: of those, the ones without weights (``nn.Dropout``)
HF_WEIGHTLESS_LAYERS = frozenset({"dropout"})


def hf_layer(qual: str, attr: str) -> str | None:
    """What ``self.<attr>`` is in a subclass of the Hugging Face model class ``qual`` that
    never assigns it: ``"torch.nn.Dropout"`` for its dropout, the qualified name of the
    layer (``transformers.BertForTokenClassification.classifier``) for one of
    :data:`HF_LAYERS` or its base model, None for anything else (a method of the library
    class, ``self.get_extended_attention_mask``; an attribute of an abstract
    ``*PreTrainedModel``, which holds no layer).

    >>> hf_layer("transformers.BertForTokenClassification", "bert")
    'transformers.BertForTokenClassification.bert'
    >>> hf_layer("transformers.BertForTokenClassification", "dropout")
    'torch.nn.Dropout'
    >>> hf_layer("transformers.BertPreTrainedModel", "classifier") is None
    True
    """
    if not hf_model_class(qual):
        return None
    name = qual.rsplit(".", 1)[-1]
    if name.endswith("PreTrainedModel"):
        return None
    arch = re.split(r"For[A-Z]|Model$", name, maxsplit=1)[0]
    if attr in HF_WEIGHTLESS_LAYERS:
        return "torch.nn.Dropout"
    if attr in HF_LAYERS or attr == arch.lower():
        return f"{qual}.{attr}"
    return None


#: the factories of Hugging Face models (``AutoModelForCausalLM``): of some architecture
_HF_AUTO = re.compile(r"AutoModel(For[A-Z]\w*)?")


def hf_submodule(text: str, attr: str) -> bool:
    """Is ``<model>.<attr>`` a layer (with weights) of the model that a call of origin text
    ``text`` built: a Hugging Face model class or its loader
    (``transformers.CLIPModel.from_pretrained(...)``: :func:`hf_layer`), or a factory of
    some architecture (``transformers.AutoModel.from_pretrained(...)``: one of
    :data:`HF_LAYERS`, which every architecture's classes hold)?

    >>> hf_submodule("transformers.CLIPModel.from_pretrained(...)", "text_model")
    True
    >>> hf_submodule("transformers.AutoModelForSeq2SeqLM.from_pretrained(...)", "encoder")
    True
    >>> hf_submodule("transformers.CLIPModel.from_pretrained(...)", "generate")
    False
    >>> hf_submodule("mylib.CLIPModel(...)", "text_model")
    False
    """
    if not text.endswith("(...)"):
        return False
    qual = text[: -len("(...)")]
    head, _, last = qual.rpartition(".")
    if last in PRETRAINED_LOADERS:
        qual = head
    top, _, rest = qual.partition(".")
    if top in HF_MODEL_PACKAGES and _HF_AUTO.fullmatch(rest.rsplit(".", 1)[-1]):
        return attr in HF_LAYERS
    layer = hf_layer(qual, attr)
    return layer is not None and layer != "torch.nn.Dropout"


def hf_pretrained_model(qual: str) -> bool:
    """Is ``qual`` the ``from_pretrained`` loader of a PyTorch model class of a Hugging Face
    package, or of one of its model factories (``AutoModelForCausalLM``), which loads the
    weights on the CPU unless a keyword places them?

    >>> hf_pretrained_model("transformers.GPTNeoForCausalLM.from_pretrained")
    True
    >>> hf_pretrained_model("transformers.AutoModel.from_pretrained")
    True
    >>> hf_pretrained_model("transformers.AutoTokenizer.from_pretrained")
    False
    >>> hf_pretrained_model("transformers.TFBertModel.from_pretrained")
    False
    """
    head, _, last = qual.rpartition(".")
    if last != "from_pretrained":
        return False
    top, _, rest = head.partition(".")
    return hf_model_class(head) or top in HF_MODEL_PACKAGES and \
        _HF_AUTO.fullmatch(rest.rsplit(".", 1)[-1]) is not None


def module_base(qual: str) -> bool:
    """Is ``qual`` a module class that a class of the run may derive from: a ``torch.nn``
    module class, one of :data:`PACKAGE_MODULES` or :data:`QUALIFIED_MODULES`
    (torchmetrics' ``Metric``) or a Hugging Face model class (:func:`hf_model_class`)?"""
    return torch_nn_class(qual) or qual in PACKAGE_MODULES or qual in QUALIFIED_MODULES or \
        hf_model_class(qual)


def module_class(node: ast.ClassDef, bases: Iterable[bool | None], qualname: Qualname,
                 run_module: Callable[[str], bool]) -> bool:
    """Is the class ``node`` an ``nn.Module``, given what each of its bases is (True: a
    module; False: known not to be one; None: not resolved)?  ``qualname`` names an
    expression as imported; ``run_module`` says whether a bare name is a module class of
    the run."""
    verdicts = list(bases)
    if any(v is True for v in verdicts):
        return True
    return any(v is None for v in verdicts) and module_code(node, qualname, run_module)


def module_code(node: ast.ClassDef, qualname: Qualname, run_module: Callable[[str], bool]) -> bool:
    """Does the class's own code only make sense for a module: ``forward`` and ``torch.nn``
    layers (or modules of the run, or ``nn.Parameter`` objects) assigned to ``self`` in
    ``__init__``, or calls of ``self.register_buffer``, ``self.parameters()`` and kin?"""
    methods = {f.name: f for f in node.body
               if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for fn in methods.values():
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    _is_self(n.func.value) and n.func.attr in MODULE_SELF_CALLS:
                return True
    init = methods.get("__init__")
    if init is None or "forward" not in methods:
        return False
    return any(_layer(st.value, qualname, run_module) for st in ast.walk(init)
               if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None
               and any(self_attr(t) is not None for t in _targets(st)))


def _layer(value: ast.expr, qualname: Qualname, run_module: Callable[[str], bool]) -> bool:
    """Is ``value`` the construction of a ``torch.nn`` layer, a module of the run or an
    ``nn.Parameter``?"""
    if not isinstance(value, ast.Call):
        return False
    q = qualname(value.func) or ""
    if torch_nn_class(q) or q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        return True
    return isinstance(value.func, ast.Name) and q in ("", value.func.id) and \
        run_module(value.func.id)


def param_layer(m: Walker, call: ast.Call) -> str | None:
    """The name of the ``torch.nn`` layer that owns parameters or buffers by default
    (:data:`~torchferry.check.flow.vocab.PARAM_LAYERS`) that ``call`` builds, else None."""
    q = m.qualname(call.func)
    if q is not None and q.startswith("torch.nn.") and q.rsplit(".", 1)[1] in PARAM_LAYERS:
        return q.rsplit(".", 1)[1]
    return None


def has_parameters(m: Walker, cls: ClassInfo, seen: set[str] | None = None) -> bool:
    """Does a module class of the file create parameter-owning layers (see
    :func:`param_layer`) or an ``nn.Parameter`` in its ``__init__`` (its own or, one class
    deep, its file bases')?  ``seen``: the classes already asked about.  (From the file's
    syntax alone; :func:`~torchferry.check.flow.program.holds_parameters` answers from the
    analysis of the run.)"""
    seen = set() if seen is None else seen
    if cls.name in seen:
        return False
    seen.add(cls.name)
    init = cls.methods.get("__init__")
    if init is not None:
        for site in init.calls:
            call = site.node
            if param_layer(m, call) is not None:
                return True
            q = m.qualname(call.func)
            if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return True
            if isinstance(call.func, ast.Name) and call.func.id in m.classes:
                other = m.classes[call.func.id]
                if other.is_module and has_parameters(m, other, seen):
                    return True
    return any(
        b in m.classes and m.classes[b].is_module and has_parameters(m, m.classes[b], seen)
        for b in cls.bases
    )


def _targets(st: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return list(st.targets) if isinstance(st, ast.Assign) else [st.target]


def _is_self(e: ast.expr) -> bool:
    return isinstance(e, ast.Name) and e.id == "self"
