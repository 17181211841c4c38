"""One mistake, one fix text: ``ferry check`` and the runtime explanation agree.

A factory called without ``device=`` inside ``forward`` is fixed with the device of a
real tensor argument of ``forward`` (``device=x.device``), which works wherever the
model is moved; a module-level ``device`` variable would tie the model to it.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest
import torch

import torchferry as tf
from torchferry.check import check_source

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn

    device = "cuda"


    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            bias = torch.zeros(4)
            return self.lin(x) + bias


    def step():
        model = Scale().to(device)
        return model(torch.randn(2, 4, device=device))
""")


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "scale_model.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("scale_model", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["scale_model"] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop("scale_model", None)


def test_checker_and_explanation_suggest_the_same_device_for_a_factory_in_forward(module):
    (finding,) = [f for f in check_source(SOURCE, select=["FRY010"]) if f.code == "FRY010"]
    assert "device=x.device" in finding.message
    assert finding.fix is not None and "device=x.device" in finding.fix.message

    with pytest.raises(RuntimeError):
        with tf.simulate("cuda"):
            with tf.explain(file=None) as ex:
                module.step()
    report = ex.report
    assert report.rule == "FRY010"
    assert report.fix.startswith("bias = torch.zeros(4, device=x.device)")


def test_a_function_without_tensor_arguments_keeps_the_device_variable():
    device = "cuda"

    def step():
        a = torch.ones(3, device=device)
        b = torch.ones(3)
        return a + b

    with pytest.raises(RuntimeError):
        with tf.simulate("cuda"):
            with tf.explain(file=None) as ex:
                step()
    assert ex.report.fix.startswith("b = torch.ones(3, device=device)")
