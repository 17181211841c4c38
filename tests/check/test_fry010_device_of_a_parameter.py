"""FRY010: ``m.to(x.device)`` for a parameter ``x`` whose kind is not known but that its
function calls a tensor's method on (``x.max()``, ``x.size(0)``) puts ``m`` where ``x`` is,
so with every caller of the run passing a CPU tensor, a CPU factory's result meeting
``m`` is no finding; with a caller passing a tensor on the device it is.  ``args.device``
of a parameter used otherwise stays a device the code chose (an accelerator, perhaps)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

POSITIONAL = '''
import numpy as np
import torch

def add_noise(x, ratio=0.1):
    mask = torch.cuda.FloatTensor(x.shape).uniform_() > ratio
    mask = mask.to(x.device)
    noise = torch.rand(mask.shape) * x.max()
    return x + mask * noise

def augmented(path):
    return add_noise(torch.from_numpy(np.load(path)))
'''
KEYWORD = '''
import torch

def jitter(batch):
    scale = torch.ones(4).cuda()
    scale = scale.to(device=batch.device)
    offset = torch.zeros(4)
    return batch.view(batch.size(0), -1) * (scale + offset)

def prepare(rows):
    return jitter(torch.tensor(rows, dtype=torch.float32))
'''
HIDDEN = '''
import torch

def init_state(inputs, n):
    h = torch.empty(n).cuda().to(inputs.device)
    c = torch.zeros(n)
    return h * c, inputs.unsqueeze(0)

def start(samples):
    return init_state(torch.stack(samples), 8)
'''
CASES = [POSITIONAL, KEYWORD, HIDDEN]
IDS = ["positional", "keyword", "chained"]
#: a caller that passes a tensor on the device instead
ON_DEVICE = [
    ("torch.from_numpy(np.load(path))", "torch.from_numpy(np.load(path)).cuda()"),
    ("torch.tensor(rows, dtype=torch.float32)", "torch.tensor(rows, dtype=torch.float32).cuda()"),
    ("torch.stack(samples)", "torch.stack(samples).cuda()"),
]


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


@pytest.mark.parametrize("source", CASES, ids=IDS)
def test_moved_to_a_cpu_parameter_s_device_is_quiet(source: str) -> None:
    assert _lines(source) == []


@pytest.mark.parametrize(("source", "change"), list(zip(CASES, ON_DEVICE, strict=True)), ids=IDS)
def test_moved_to_a_device_parameter_s_device_is_found(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert len(_lines(changed)) == 1


def test_the_device_a_configuration_keeps_is_still_an_accelerator() -> None:
    source = KEYWORD.replace("batch.device", "opts.device").replace("def jitter(batch):", "def jitter(batch, opts=None):")
    assert source != KEYWORD
    assert len(_lines(source)) == 1
