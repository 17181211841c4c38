"""``model.module`` of a data-parallel wrapper (``nn.DataParallel(net)``,
``DistributedDataParallel(net)``) is the module it wraps, where the wrapper is: the wrapper's
``.to()`` moves it along, and a call of it hands it its input as it is (no scatter)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """\
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Linear(3, 3)
"""


def found(body: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(HEAD + body, "<case>", select=["FRY014"])]


@pytest.mark.parametrize("wrap", ["nn.DataParallel(net).to(device)", "DDP(net.to(device), device_ids=[0])",
                                  "nn.DataParallel(net).cuda()"])
def test_the_wrapped_module_called_on_a_cpu_tensor_is_reported(wrap: str) -> None:
    body = f"model = {wrap}\nx = torch.randn(2, 3)\nmodel.module(x)\n"
    assert found(body) == [(9, "FRY014")]


def test_the_wrapped_module_read_into_a_name_is_the_module() -> None:
    body = "model = nn.DataParallel(net).to(device)\ninner = model.module\nx = torch.randn(2, 3)\ninner(x)\n"
    assert found(body) == [(10, "FRY014")]


@pytest.mark.parametrize("body", [
    "model = nn.DataParallel(net).to(device)\nx = torch.randn(2, 3)\nmodel.module(x.to(device))\n",
    "model = nn.DataParallel(net)\nx = torch.randn(2, 3)\nmodel.module(x)\n",
    "model = nn.DataParallel(net).to(device)\nx = torch.randn(2, 3)\nmodel(x)\n",
    "model = nn.DataParallel(nn.DataParallel(net)).to(device)\nx = torch.randn(2, 3)\nmodel.module(x)\n",
])
def test_a_moved_input_an_unmoved_wrapper_the_scattering_call_and_a_wrapper_of_a_wrapper_stay_quiet(
        body: str) -> None:
    assert found(body) == []
