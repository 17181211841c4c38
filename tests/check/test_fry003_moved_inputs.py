"""FRY003 on the output of a model that came in as a parameter (placed by no call of the
run) and is given an input that one path put on the accelerator: the model runs there
(or the call already fails), so its output is there too.  The input may be of unknown
kind (the result of a transform of another module) and its place may be unknown on the
other path (``if torch.cuda.is_available(): x = x.to("cuda")``): the move stays among its
origins.  An input brought to the CPU, an output brought home, and a move to a device the
analysis cannot place stay quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

GUARDED_MOVE_OF_A_TRANSFORMED_IMAGE = '''
import numpy as np
import torch
from torchvision import transforms
from utils.transforms import Resize

def detect_image(model, image, size=416):
    x = transforms.Compose([transforms.ToTensor(), Resize(size)])((image, None))[0].unsqueeze(0)
    if torch.cuda.is_available():
        x = x.to("cuda")
    with torch.no_grad():
        boxes, masks = model(x)
    return masks.numpy()
'''

FLAG_GUARDED_CUDA_OF_A_LOADED_BATCH = '''
import torch
from data import load_batch

def predict(net, path, use_gpu):
    batch = load_batch(path)
    if use_gpu:
        batch = batch.cuda()
    logits = net(batch)
    return logits.detach().numpy()
'''

UNCONDITIONAL_MOVE_OF_AN_UNKNOWN_INPUT = '''
import torch
from features import featurize

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def embed(encoder, text):
    encoder.eval()
    ids = featurize(text).to(device)
    out = encoder(ids)
    return out.numpy()
'''

SITES = {
    "GUARDED_MOVE_OF_A_TRANSFORMED_IMAGE": (GUARDED_MOVE_OF_A_TRANSFORMED_IMAGE, "return masks.numpy()"),
    "FLAG_GUARDED_CUDA_OF_A_LOADED_BATCH": (FLAG_GUARDED_CUDA_OF_A_LOADED_BATCH,
                                            "return logits.detach().numpy()"),
    "UNCONDITIONAL_MOVE_OF_AN_UNKNOWN_INPUT": (UNCONDITIONAL_MOVE_OF_AN_UNKNOWN_INPUT, "return out.numpy()"),
}


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


@pytest.mark.parametrize("name", sorted(SITES))
def test_a_model_given_a_moved_input_runs_there(name: str) -> None:
    source, site = SITES[name]
    assert lines(source) == [line_of(source, site)]


@pytest.mark.parametrize(("name", "change"), [
    ("GUARDED_MOVE_OF_A_TRANSFORMED_IMAGE", ('x.to("cuda")', 'x.to("cpu")')),
    ("GUARDED_MOVE_OF_A_TRANSFORMED_IMAGE", ("masks.numpy()", "masks.cpu().numpy()")),
    ("FLAG_GUARDED_CUDA_OF_A_LOADED_BATCH", ("batch.cuda()", "batch.cuda().cpu()")),
    ("FLAG_GUARDED_CUDA_OF_A_LOADED_BATCH", ("logits.detach().numpy()", "logits.detach().cpu().numpy()")),
    ("UNCONDITIONAL_MOVE_OF_AN_UNKNOWN_INPUT", (".to(device)", '.to("cpu")')),
])
def test_an_input_or_output_on_the_cpu_is_quiet(name: str, change: tuple[str, str]) -> None:
    source = SITES[name][0].replace(*change)
    assert change[0] in SITES[name][0]
    assert lines(source) == []


def test_a_moved_model_given_as_input_places_nothing() -> None:
    source = '''
import torch

def wrap(outer, inner):
    if torch.cuda.is_available():
        inner = inner.to("cuda")
    inner = torch.nn.Sequential(inner)
    out = outer(inner)
    return out.numpy()
'''
    assert lines(source) == []
