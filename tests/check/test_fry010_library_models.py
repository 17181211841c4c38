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
