"""A called layer of a placed Hugging Face model (``clip.text_model(**inputs)``) is a module
call on the model's device; a module-level cache that only a loader fills with the model it
returns (``model_cache[path] = net``) keeps that model's place."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.caches import memo_caches


def fry014(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


LAYER = """\
{imports}from transformers import {cls}, CLIPProcessor


def encode(name, texts):
    model = {cls}.from_pretrained(name){move}
    processor = CLIPProcessor.from_pretrained(name)
    inputs = processor(text=texts, return_tensors="pt"){inputs}
    return model.{layer}(**inputs)
"""


@pytest.mark.parametrize("imports", ["", "import torch\n"])
@pytest.mark.parametrize("cls, layer", [("CLIPModel", "text_model"),
                                        ("CLIPModel", "vision_model"),
                                        ("AutoModel", "encoder")])
def test_a_layer_of_a_moved_library_model_meets_cpu_inputs(imports, cls, layer) -> None:
    src = LAYER.format(imports=imports, cls=cls, move=".to('cuda')", inputs="", layer=layer)
    assert fry014(src) == [8 + imports.count("\n")]


@pytest.mark.parametrize("move, inputs, layer", [
    ("", "", "text_model"),  # the model is never moved: where the inputs are
    (".to('cuda')", ".to('cuda')", "text_model"),  # the inputs are moved too
    (".to('cuda')", "", "get_text_features"),  # a method, not one of the class's layers
    (".to('cuda')", "", "dropout"),  # a layer without weights
])
def test_near_misses_stay_quiet(move, inputs, layer) -> None:
    src = LAYER.format(imports="", cls="CLIPModel", move=move, inputs=inputs, layer=layer)
    assert fry014(src) == []


def test_a_class_of_another_package_of_the_same_name_is_no_library_model() -> None:
    src = LAYER.format(imports="", cls="CLIPModel", move=".to('cuda')", inputs="",
                       layer="text_model").replace("from transformers import CLIPModel, ",
                                                   "from mylib import CLIPModel\nfrom transformers import ")
    assert fry014(src) == []


CACHED = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3)

    def forward(self, x):
        return self.conv(x)


model_cache = {empty}


class Scan:
    def __init__(self):
        self.net = self.load_model()

    def load_model(self):
        path = "net.pt"
        if path in model_cache:
            return model_cache[path]
        net = Net().to("cuda")
        model_cache[path] = {stored}
        return net

    def act(self):
        img = torch.zeros(1, 3, 8, 8)
        return self.net(img)
{tail}"""


@pytest.mark.parametrize("empty", ["dict()", "{}"])
def test_a_cache_only_the_loader_fills_keeps_the_model_on_the_device(empty) -> None:
    assert fry014(CACHED.format(empty=empty, stored="net", tail="")) == [31]


@pytest.mark.parametrize("empty, stored, tail", [
    ("{}", "Net()", ""),  # it stores something it does not return
    ("{}", "net", "\n\ndef warm(path):\n    model_cache[path] = Net()\n"),  # another function
    ("{}", "net", "\n\ndef warm(cache):\n    model_cache.update(cache)\n"),  # a method fills it
])
def test_a_cache_filled_otherwise_is_not_followed(empty, stored, tail) -> None:
    source = CACHED.format(empty=empty, stored=stored, tail=tail)
    assert memo_caches(ast.parse(source)) == {}
    assert fry014(source) == []


@pytest.mark.parametrize("empty, tail", [
    ("{}", "\n\nmodel_cache['cpu'] = Net()\n"),  # the module fills it too
    ("{'cpu': Net()}", ""),  # not empty to begin with
    ("{}", "\n\ndef reset():\n    global model_cache\n    model_cache = {}\n"),  # rebound
])
def test_a_cache_the_module_fills_or_rebinds_is_none(empty, tail) -> None:
    source = CACHED.format(empty=empty, stored="net", tail=tail)
    assert memo_caches(ast.parse(source)) == {}
    assert "model_cache" in memo_caches(ast.parse(CACHED.format(empty="{}", stored="net", tail="")))
