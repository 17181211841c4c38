"""Is a class an ``nn.Module``: one answer, from bases the run resolves or the class's code."""

from __future__ import annotations

import ast
import textwrap

import pytest

from torchferry.check.api import Context
from torchferry.check.flow import Project, analyze
from torchferry.check.flow.modclass import module_base, torch_nn_class
from torchferry.check.flow.program import holds_parameters
from torchferry.check.scopes import Walker

CLASSES = """
import torch
import torch.nn as nn
import pytorch_lightning as pl
from torch.nn.modules.rnn import LSTMCell
from torch.nn.parameter import Parameter
from transformers import RobertaPreTrainedModel
from widgets import WidgetModule, Base

class Layers(RobertaPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.cell = LSTMCell(4, 4)
    def forward(self, x):
        return self.cell(x)

class Weights(Base):
    def __init__(self):
        self.w = Parameter(torch.zeros(3))
    def forward(self, x):
        return x * self.w

class OwnLayer(Base):
    def __init__(self):
        self.inner = Layers(None)
    def forward(self, x):
        return self.inner(x)

class Buffers(Base):
    def setup(self):
        self.register_buffer("b", torch.zeros(2))

class Optimizes(Base):
    def make(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

class Lit(pl.LightningModule):
    pass

class Sub(Optimizes):
    pass

class Named(WidgetModule):
    def __init__(self):
        self.scale = torch.ones(2)
    def forward(self, x):
        return x * self.scale

class ForwardOnly(Base):
    def forward(self, x):
        return x

class LayersNoForward(Base):
    def __init__(self):
        self.cell = LSTMCell(4, 4)

class Plain:
    def __init__(self):
        self.cell = LSTMCell(4, 4)
    def forward(self, x):
        return self.cell(x)
        def parameters(self):
            return self.parameters()

class Param(nn.Parameter):
    pass
"""

MODULES = {"Layers", "Weights", "OwnLayer", "Buffers", "Optimizes", "Lit", "Sub"}


def _flow_modules(src: str) -> set[str]:
    tree = ast.parse(textwrap.dedent(src))
    ff = analyze(tree, "/p/main.py")
    return {c.name for c in tree.body if isinstance(c, ast.ClassDef)
            and ff.class_info(c).is_module}


def test_a_class_with_an_unresolved_base_is_a_module_by_its_own_code() -> None:
    assert _flow_modules(CLASSES) == MODULES


def test_the_walk_alone_and_every_rule_through_the_context_get_the_same_answer() -> None:
    src = textwrap.dedent(CLASSES)
    alone = Walker(ast.parse(src))
    assert {n for n, c in alone.classes.items() if c.is_module} == MODULES
    ctx = Context("<test>", src, ast.parse(src))
    assert {n for n, c in ctx.syntax.classes.items() if c.is_module} == MODULES


@pytest.mark.parametrize(("qual", "module"), [
    ("torch.nn.Module", True), ("torch.nn.modules.linear.Linear", True),
    ("torch.nn.Parameter", False), ("torch.nn.parameter.Parameter", False),
    ("torch.nn.utils.rnn.PackedSequence", False), ("torch.nn.functional", False),
    ("lightning.pytorch.LightningModule", True), ("widgets.WidgetModule", False),
    ("transformers.BertForTokenClassification", True), ("transformers.RobertaModel", True),
    ("pytorch_transformers.modeling_bert.BertPreTrainedModel", True),
    ("transformers.TFBertModel", False), ("transformers.FlaxBertForMaskedLM", False),
    ("transformers.AutoModelForCausalLM", False), ("transformers.BertConfig", False),
    ("transformers.modeling_outputs.BaseModelOutput", False),
    ("transformers.BertForPreTrainingOutput", False), ("transformers", False),
    ("widgets.BertForTokenClassification", False),
    ("fairseq.models.FairseqEncoder", True), ("torch_geometric.nn.MessagePassing", True),
])
def test_module_bases_by_qualified_name(qual: str, module: bool) -> None:
    assert module_base(qual) is module
    assert torch_nn_class(qual) is (module and qual.startswith("torch.nn."))


def test_bases_resolve_through_the_imports_of_the_run_star_imports_too() -> None:
    files = {
        "/p/pkg/__init__.py": b"",
        "/p/pkg/layers.py": (b"from transformers import PreTrainedModelBase\n"
                             b"class Core(PreTrainedModelBase):\n"
                             b"    def build(self):\n"
                             b"        self.register_buffer('b', None)\n"
                             b"class Config(PreTrainedModelBase):\n"
                             b"    pass\n"),
        "/p/pkg/net.py": (b"from .layers import *\n"
                          b"class Net(Core):\n    pass\n"
                          b"class Settings(Config):\n    pass\n"),
    }
    project = Project(files, packages=["/p/pkg"])
    tree = ast.parse(files["/p/pkg/net.py"])
    ff = analyze(tree, "/p/pkg/net.py", project)
    net, settings = (n for n in tree.body if isinstance(n, ast.ClassDef))
    assert ff.class_info(net).is_module
    assert not ff.class_info(settings).is_module


def test_a_parameter_imported_from_torch_nn_parameter_holds_weights() -> None:
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn
        from torch.nn.parameter import Parameter
        class Scale(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = Parameter(torch.ones(3))
            def forward(self, x):
                return x * self.w
        class Free(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()
            def forward(self, x):
                return self.act(x)
    """)
    tree = ast.parse(src)
    ff = analyze(tree, "/p/main.py")
    scale, free = (n for n in tree.body if isinstance(n, ast.ClassDef))
    assert holds_parameters(ff.class_info(scale))
    assert not holds_parameters(ff.class_info(free))
