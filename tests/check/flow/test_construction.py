"""What a safe fix may rely on: a value's kind established by construction in its scope."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.flow.safety import (
    device_by_construction,
    module_by_construction,
    self_of_module,
    tensor_by_construction,
)

from .conftest import Snippet

SRC = """
import torch
G = torch.ones(2)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.zeros(3)
    def forward(self, x):
        return x * self.w
def helper():
    return torch.ones(2)
def f(x: torch.Tensor, device):
    a = torch.zeros(2, 3).to(device) * 2 + 1
    b = x.to(device)
    c = G + 1
    d = helper()
    e = a.chunk(2)
    g = a.argmax(1).T
    h = a.grad
    layer = torch.nn.Linear(3, 2)
    out = layer(a)
    sd = layer.state_dict()["weight"]
    dev = torch.device("cuda") if device else "cpu"
    net = Net()
    return a, b, c, d, e, g, h, out, sd, dev, net, device
"""


@pytest.fixture(scope="module")
def returned():
    s = Snippet(SRC)
    ret = next(n for n in ast.walk(s.tree) if isinstance(n, ast.Return) and
               isinstance(n.value, ast.Tuple)).value
    return s, dict(zip("a b c d e g h out sd dev net device".split(), ret.elts, strict=True))


@pytest.mark.parametrize(("name", "made"), [
    ("a", True),  # a factory, moved, then arithmetic with numbers written here
    ("b", False),  # a parameter (annotated) moved: still what the caller passed
    ("c", False),  # a global: made in another scope, and maybe rebound
    ("d", False),  # a callee's return
    ("e", False),  # ``chunk`` returns a tuple
    ("g", True),  # ``argmax``, ``.T``: tensors of a tensor
    ("h", False),  # ``.grad`` may be None
    ("sd", True),  # a value of the state dict of a torch.nn layer built here
])
def test_tensor_by_construction(returned, name, made):
    s, nodes = returned
    assert tensor_by_construction(s.ff, nodes[name]) is made


def test_module_outputs(returned):
    s, nodes = returned
    # ``.numpy()`` of a torch.nn layer's output (it fails on anything else anyway)
    assert not tensor_by_construction(s.ff, nodes["out"])
    assert tensor_by_construction(s.ff, nodes["out"], receiver_of_numpy=True)


def test_devices_and_modules(returned):
    s, nodes = returned
    assert device_by_construction(s.ff, nodes["dev"])
    assert not device_by_construction(s.ff, nodes["device"])  # a parameter named so
    assert module_by_construction(s.ff, nodes["net"])
    init = next(n for n in ast.walk(s.tree) if isinstance(n, ast.FunctionDef) and n.name == "forward")
    self_node = init.body[0].value.right.value  # ``self`` of ``self.w``
    assert self_of_module(s.ff, self_node)
    # ``self.w`` in another method is the class table's: made elsewhere
    assert not tensor_by_construction(s.ff, init.body[0].value.right)
