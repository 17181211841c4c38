"""FRY014 stays quiet where the model is a data-parallel wrapper (``nn.DataParallel``,
``DistributedDataParallel``): its forward scatters (or moves) its inputs to the devices of
its replicas, so a CPU tensor handed to it is no mismatch -- in the scope that wraps and
moves it, and in a function every call of the run hands the wrapper to.  The same model
without the wrapper is still flagged."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import numpy as np
import torch
import torchvision
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
'''

WRAPPED = {
    "moved_in_place_same_scope": '''
def main(image):
    net = torchvision.models.resnet18()
    net = torch.nn.DataParallel(net, device_ids=[0])
    net.to(device)
    x = torch.from_numpy(image).unsqueeze(0)
    return net(x)
''',
    "handed_to_a_function": '''
def predict(model, image):
    inp = torch.from_numpy(image).unsqueeze(0)
    model.eval()
    with torch.no_grad():
        return model(inp)


def main(image):
    model = nn.DataParallel(torchvision.models.resnet18()).to(device)
    return predict(model, image)
''',
    "ddp_of_a_moved_net": '''
def main(rank, image):
    net = nn.Linear(4, 2).to(rank)
    model = DDP(net, device_ids=[rank])
    x = torch.tensor(np.zeros((1, 4)), dtype=torch.float32)
    return model(x)
''',
}

UNWRAPPED = {
    "moved_in_place_same_scope": '''
def main(image):
    net = torchvision.models.resnet18()
    net.to(device)
    x = torch.from_numpy(image).unsqueeze(0)
    return net(x)
''',
    "handed_to_a_function": '''
def predict(model, image):
    inp = torch.from_numpy(image).unsqueeze(0)
    model.eval()
    with torch.no_grad():
        return model(inp)


def main(image):
    model = torchvision.models.resnet18().to(device)
    return predict(model, image)
''',
}


def _lines(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_a_data_parallel_wrapper_moves_its_inputs(name: str) -> None:
    assert _lines(WRAPPED[name]) == []


@pytest.mark.parametrize("name", sorted(UNWRAPPED))
def test_the_bare_model_is_still_flagged(name: str) -> None:
    source = HEAD + UNWRAPPED[name]
    call = next(i for i, ln in enumerate(source.splitlines(), 1)
                if "return net(x)" in ln or "return model(inp)" in ln)
    assert _lines(UNWRAPPED[name]) == [call]
