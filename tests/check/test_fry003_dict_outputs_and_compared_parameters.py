"""FRY003 on a string-keyed item of a module's dict output, and on a comparison with a
parameter the callers give a tensor.

A module of the run whose ``forward`` returns a dict (written out, or filled by
``results[key] = t``, on every path or on some) hands back, at each key, what was stored
there: a tensor where the output is, so ``out["probs"][0].numpy()`` of a module on the
accelerator is flagged; an item that is no tensor there (a number, a string) is not.
``labels > 0.1`` of a parameter that the callers give a tensor on the accelerator is a
tensor there, as ``labels * 2`` is; of a parameter given a Python number it is a bool."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

DICT_OUTPUT = """
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Net(nn.Module):
    def __init__(self, aux):
        super().__init__()
        self.aux = aux
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        results = {"probs": self.lin(x), "count": 3}
        if self.aux:
            results["extra"] = self.lin(x).softmax(-1)
        return results

def run(batch):
    model = Net(True).to(device)
    out = model(batch.to(device))
    probs = out["probs"][0, 1:].numpy()
    extra = out["extra"][0].detach().numpy()
    count = np.asarray(out["count"])
    return probs, extra, count
"""

COMPARED = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def positives(labels, score):
    return score[np.where(labels > 0.1)]

def under(limit, score):
    return np.where(limit > 0.1)

def main():
    labels = torch.zeros(3).to(device)
    positives(labels, labels)
    under(0.5, labels)
"""


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def test_each_tensor_item_of_a_dict_output_is_flagged() -> None:
    assert lines(DICT_OUTPUT) == [23, 24]


def test_a_dict_output_of_a_module_left_on_the_cpu_is_quiet() -> None:
    assert lines(DICT_OUTPUT.replace("Net(True).to(device)", "Net(True)").replace(
        "batch.to(device)", "batch")) == []


def test_a_tensor_item_handed_to_numpy_is_flagged() -> None:
    source = DICT_OUTPUT.replace('np.asarray(out["count"])', 'np.asarray(out["probs"])')
    assert 25 in lines(source)


@pytest.mark.parametrize("key", ["count", "other"])
def test_an_item_that_is_no_tensor_or_never_written_is_quiet(key: str) -> None:
    source = DICT_OUTPUT.replace('np.asarray(out["count"])', f'np.asarray(out["{key}"])')
    assert 25 not in lines(source)


def test_a_comparison_with_a_parameter_given_a_tensor_is_flagged() -> None:
    assert lines(COMPARED) == [8]


def test_a_comparison_with_a_parameter_given_a_number_is_quiet() -> None:
    assert lines(COMPARED.replace("positives(labels, labels)", "positives(0.5, labels)")) == []


def test_a_comparison_with_a_parameter_given_a_cpu_tensor_is_quiet() -> None:
    assert lines(COMPARED.replace("torch.zeros(3).to(device)", "torch.zeros(3)")) == []
