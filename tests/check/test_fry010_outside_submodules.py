"""FRY010 through submodules whose class the run cannot see: an ``nn.Module``'s
``__init__`` (or a builder it calls) stores an instance of a class of another package on
``self``; PyTorch registers it as a submodule, so its weights follow the model, and a tensor
made on the CPU that is given to it meets them.  A callable without weights, one given to
the constructor from outside, or one replaced from outside the class stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

IMPORTED_CLASS = '''
import torch
from torch import nn
from .transformer_decoder import TransformerDecoder

class Model(nn.Module):
    def __init__(self, args, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, args.dim)
        self.decoder = TransformerDecoder(args, self.embed)

    def sample(self, length, mask_idx):
        tokens = torch.full((1, length), mask_idx, dtype=torch.long)
        return self.decoder(tokens)
'''

CLASSMETHOD_BUILDER = '''
import torch
from torch import nn
from somepkg import decoders

class Model(nn.Module):
    def __init__(self, args, vocab):
        super().__init__()
        self.decoder = self.build_decoder(args, vocab)

    @classmethod
    def build_decoder(cls, args, vocab):
        decoder = decoders.TransformerDecoder(args, vocab)
        return decoder

    def forward(self, x):
        start = torch.zeros(x.size(0), 1, dtype=torch.long)
        return self.decoder(start, encoder_out=x)
'''

PRETRAINED = '''
import torch
from torch import nn
from transformers import BertModel

class Tagger(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.encoder = BertModel.from_pretrained(name)

    def forward(self, ids):
        mask = torch.ones(ids.shape)
        return self.encoder(ids, attention_mask=mask)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (IMPORTED_CLASS, "torch.full("),
    (CLASSMETHOD_BUILDER, "torch.zeros("),
    (PRETRAINED, "torch.ones("),
], ids=["imported-class", "classmethod-builder", "from-pretrained"])
def test_a_submodule_of_a_class_outside_the_run_has_the_models_weights(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize("change", [
    # a loss, a tokenizer, an activation: no weights (a wrapped loss may move its labels)
    ("TransformerDecoder(args, self.embed)", "LabelSmoothedCrossEntropyLoss(args)"),
    ("TransformerDecoder(args, self.embed)", "GELUActivation()"),
    ("TransformerDecoder(args, self.embed)", "BeamSearch(args)"),
    ("TransformerDecoder(args, self.embed)", "HungarianMatcher(args)"),
    # handed in from outside, or built by a function: its weights are not known
    ("TransformerDecoder(args, self.embed)", "args.decoder"),
    ("TransformerDecoder(args, self.embed)", "build_decoder(args)"),
], ids=["loss", "activation", "search", "matcher", "parameter", "function"])
def test_a_callable_not_known_to_hold_weights_stays_unknown(change: tuple[str, str]) -> None:
    assert _lines(IMPORTED_CLASS.replace(*change)) == []


def test_an_attribute_replaced_from_outside_the_class_stays_unknown() -> None:
    source = IMPORTED_CLASS + "\nmodel = Model(None, 8)\nmodel.decoder = lambda t: t\n"
    assert _lines(source) == []


FACTORY = '''
from decoders import TransformerDecoder


def build_decoder(args, vocab):
    return TransformerDecoder(args, vocab)
'''

MODEL = '''
import torch
from torch import nn
from factory import build_decoder


class Model(nn.Module):
    def __init__(self, args, vocab):
        super().__init__()
        self.decoder = build_decoder(args, vocab)

    def forward(self, x):
        start = torch.zeros(x.size(0), 1, dtype=torch.long)
        return self.decoder(start)
'''


def test_a_factory_function_of_another_file_builds_the_submodule(tmp_path: Path) -> None:
    (tmp_path / "factory.py").write_text(FACTORY)
    (tmp_path / "model.py").write_text(MODEL)
    opts = Options(root=tmp_path, select=("FRY010",), target_torch_version=None)
    found = check_paths([tmp_path / "factory.py", tmp_path / "model.py"], opts, jobs=1)
    lines = [(Path(o.path).name, d.line) for o in found for d in o.diagnostics]
    assert lines == [("model.py", _line(MODEL, "torch.zeros("))]


WEIGHTLESS_BETWEEN = '''
import torch
from torch import nn

class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.act = nn.GELU()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        bias = torch.ones(x.size(0), x.size(-1))
        return self.proj(self.act(bias)) + x
'''


def test_a_layer_without_weights_hands_on_what_made_its_input() -> None:
    assert _lines(WEIGHTLESS_BETWEEN) == [_line(WEIGHTLESS_BETWEEN, "torch.ones(")]
