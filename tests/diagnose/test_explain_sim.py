"""torchferry.explain inside the simulated GPU: every device-error kind with CUDA's/MPS's texts."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch
from torch import nn

import torchferry as tf


def _explain_in_sim(fn, kind="cuda", count=1):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the tests check the report's kind
        with tf.simulate(kind, count):
            with tf.explain(file=None) as ex:
                fn()
    return info.value, ex.report


def _culprits(report):
    return {o.expr: o.to_dict() for o in report.culprits}


def test_codegen_form_module_on_gpu_input_left_on_cpu():
    def step():
        model = nn.Linear(4, 2).to("cuda")
        x = torch.randn(3, 4)
        return model(x)

    exc, report = _explain_in_sim(step)
    assert "but got mat1 is on cpu, different from other tensors on cuda:0" in str(exc)
    (c,) = _culprits(report).values()
    assert c["expr"] == "x" and c["device"] == "cpu"
    assert c["created_at"]["call"] == "torch.randn(...) without device="
    ops = {o.expr: o.to_dict() for o in report.operands}
    assert ops["model"]["device"] == "cuda:0"
    assert report.rule == "FRY010"


def test_two_gpus():
    def step():
        a = torch.ones(3, device="cuda:0")
        b = torch.ones(3).to("cuda:1")
        return a + b

    exc, report = _explain_in_sim(step, count=2)
    assert str(exc) == ("Expected all tensors to be on the same device, but found at least two "
                        "devices, cuda:0 and cuda:1!")
    (c,) = _culprits(report).values()
    assert c["expr"] == "b" and c["device"] == "cuda:1"
    # the simulation knows where it was moved to cuda:1
    assert c["created_at"]["line"] == step.__code__.co_firstlineno + 2
    assert report.fix.startswith("b = b.to(a.device)")


def test_index_on_the_gpu_into_a_cpu_table():
    def step():
        table = torch.randn(10, 3)
        idx = torch.tensor([1, 2], device="cuda")
        return table[idx]

    exc, report = _explain_in_sim(step)
    assert str(exc) == "indices should be either on cpu or on the same device as the indexed tensor (cpu)"
    assert report.family.value == "index_device"
    assert set(_culprits(report)) == {"table"}
    assert "torch.randn(10, 3, device=idx.device)" in report.fix


def test_rnn_hidden_state_left_on_cpu():
    def step():
        gru = nn.GRU(3, 4).to("cuda")
        x = torch.randn(5, 1, 3, device="cuda")
        h0 = torch.zeros(1, 1, 4)
        return gru(x, h0)

    exc, report = _explain_in_sim(step)  # no cuDNN notice: a GPU prints none
    assert str(exc).startswith("Input and hidden tensors are not at the same device, found input "
                               "tensor at cuda:0 and hidden tensor at cpu")
    assert set(_culprits(report)) == {"h0"} and report.rule == "FRY010"


@pytest.mark.parametrize("how", ["method", "asarray"])
def test_numpy_of_a_gpu_tensor(how):
    def step():
        y = torch.randn(3, device="cuda")
        return y.numpy() if how == "method" else np.asarray(y)

    exc, report = _explain_in_sim(step)
    assert type(exc) is TypeError and str(exc).startswith("can't convert cuda:0 device type tensor")
    c = _culprits(report)["y"]
    assert c["device"] == "cuda:0"
    assert c["created_at"]["line"] == step.__code__.co_firstlineno + 1
    assert report.rule == "FRY003" and "y.cpu()" in report.fix


def test_float64_on_mps():
    def step():
        t = torch.from_numpy(np.ones(3))
        return t.to("mps")

    exc, report = _explain_in_sim(step, kind="mps")
    assert str(exc).startswith("Cannot convert a MPS Tensor to float64 dtype")
    c = _culprits(report)["t"]
    assert c["dtype"] == "float64" and "from_numpy" in c["created_at"]["call"]
    assert report.fix.startswith("t = t.float()")


def test_gpu_checkpoint_loaded_on_a_cpu_machine():
    buf = io.BytesIO()
    with tf.simulate("cuda"):
        torch.save({"w": torch.ones(2, device="cuda")}, buf)

    def load():
        buf.seek(0)
        return torch.load(buf)

    with pytest.raises(RuntimeError) as info:
        with tf.explain(file=None) as ex:
            load()
    assert "torch.cuda.is_available() is False" in str(info.value)
    assert ex.report.rule == "FRY004"
    assert ex.report.fix.startswith("torch.load(buf, map_location='cpu')")


def test_model_left_behind_is_blamed_even_when_the_message_names_the_input():
    def step():
        model = nn.Linear(4, 2)  # never moved
        x = torch.randn(3, 4).to("cuda")
        return model(x)

    exc, report = _explain_in_sim(step)
    assert "but got mat1 is on cuda:0, different from other tensors on cpu" in str(exc)
    (c,) = _culprits(report).values()
    assert c["expr"] == "model" and c["device"] == "cpu"
    assert report.fix.startswith("model.to(x.device)  (modules move in place")
