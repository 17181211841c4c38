"""FRY010 in modules that derive from another package's model classes (a Hugging Face
``BertForTokenClassification``, fairseq's ``FairseqEncoder``, PyG's ``MessagePassing``):
their ``forward`` takes tensors that may be on the device, as an ``nn.Module``'s does."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HF_FROM_IMPORT = '''
import torch
from transformers import BertForTokenClassification

class Tagger(BertForTokenClassification):
    def forward(self, input_ids, attention_mask=None):
        hidden = self.bert(input_ids, attention_mask=attention_mask)[0]
        batch, length, width = hidden.shape
        pad = torch.zeros(batch, 1, width)
        return torch.cat([hidden, pad], dim=1)
'''

HF_MODULE_ATTRIBUTE = '''
import torch
import pytorch_transformers

class Encoder(pytorch_transformers.modeling_bert.BertModel):
    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(1))
        return super().forward(input_ids + positions)
'''

HF_PRETRAINED_BASE = '''
import torch
from pytorch_pretrained_bert.modeling import BertPreTrainedModel as Base

class Scorer(Base):
    def forward(self, scores):
        return scores * torch.ones(scores.size(-1))
'''

FAIRSEQ_ENCODER = '''
import torch
from fairseq.models import FairseqEncoder

class Encoder(FairseqEncoder):
    def forward(self, src_tokens, src_lengths):
        mask = torch.ones(src_tokens.shape, dtype=torch.bool)
        return src_tokens.masked_fill(mask, 0)
'''

PYG_MESSAGE_PASSING = '''
import torch
from torch_geometric.nn import MessagePassing

class Conv(MessagePassing):
    def forward(self, x, edge_index):
        weight = torch.ones(edge_index.size(1))
        return self.propagate(edge_index, x=x) * weight.sum() + x * torch.rand(x.size(-1))
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (HF_FROM_IMPORT, "torch.zeros(batch, 1, width)"),
    (HF_MODULE_ATTRIBUTE, "torch.arange(input_ids.size(1))"),
    (HF_PRETRAINED_BASE, "torch.ones(scores.size(-1))"),
    (FAIRSEQ_ENCODER, "torch.ones(src_tokens.shape"),
    (PYG_MESSAGE_PASSING, "torch.rand(x.size(-1))"),
], ids=["hf-from-import", "hf-module-attribute", "hf-pretrained-alias", "fairseq", "pyg"])
def test_a_library_model_subclass_forward_takes_tensors_that_may_be_on_the_device(
        source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize("base", ["TFBertForTokenClassification", "FlaxBertModel", "BertConfig",
                                  "BertForPreTrainingOutput", "BertTokenizer"])
def test_tensorflow_flax_and_non_model_classes_of_transformers_are_not_modules(base: str) -> None:
    source = HF_FROM_IMPORT.replace("BertForTokenClassification", base)
    assert _lines(source) == []


HF_INHERITED_LAYERS = '''
import torch
from pytorch_transformers import BertForTokenClassification

class Ner(BertForTokenClassification):
    def forward(self, input_ids, valid_ids=None):
        hidden = self.bert(input_ids)[0]
        batch, length, width = hidden.shape
        kept = torch.zeros(batch, length, width, dtype=torch.float32)
        for i in range(batch):
            kept[i] = hidden[i] * valid_ids[i].unsqueeze(-1)
        return self.classifier(self.dropout(kept))
'''

HF_INHERITED_THROUGH_RUN_CLASS = '''
import torch
from transformers import RobertaForSequenceClassification

class Base(RobertaForSequenceClassification):
    def freeze(self):
        for p in self.roberta.parameters():
            p.requires_grad = False

class Scorer(Base):
    def forward(self, input_ids):
        states = self.roberta(input_ids)[0]
        pooled = torch.empty(states.size(0), states.size(-1))
        pooled.copy_(states[:, 0])
        return self.classifier(pooled)
'''


HF_BASE_MODEL_AS_MODEL = '''
import torch
from transformers import LlamaForCausalLM

class PrefixScorer(LlamaForCausalLM):
    def score_prefix(self, input_ids, width):
        prefix = torch.zeros(input_ids.size(0), 1, width)
        return self.model(inputs_embeds=prefix)
'''


@pytest.mark.parametrize(("source", "site"), [
    (HF_INHERITED_LAYERS, "torch.zeros("),
    (HF_INHERITED_THROUGH_RUN_CLASS, "torch.empty("),
    (HF_BASE_MODEL_AS_MODEL, "torch.zeros("),
], ids=["library-base", "run-class-of-library-base", "base-model-as-model"])
def test_a_layer_the_library_model_class_holds_has_the_models_weights(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize("change", [
    # dropout has no weights; a method of the library class is no layer
    ("self.classifier(self.dropout(kept))", "self.dropout(kept)"),
    ("self.classifier(self.dropout(kept))", "self.get_extended_attention_mask(kept, kept.shape)"),
    # an abstract base holds no layer; a layer the subclass assigns is its own
    ("BertForTokenClassification", "BertPreTrainedModel"),
    ("        hidden = self.bert(", "        self.classifier = lambda t: t\n        hidden = self.bert("),
], ids=["dropout", "library-method", "pretrained-base", "assigned"])
def test_what_the_library_class_is_not_known_to_hold_stays_unknown(change: tuple[str, str]) -> None:
    assert _lines(HF_INHERITED_LAYERS.replace(*change)) == []
