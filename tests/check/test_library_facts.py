"""What frameworks document about where they put the values they hand to user code: the
batch of a Lightning ``*_step`` hook lives where the module does, so a tensor made on the CPU
by default that meets it is the documented mistake (FRY010); one made where the batch or
the module is, or a class not provably derived from Lightning's, stays quiet.  What library
calls return: torchaudio's waveforms and torchvision's decoded images are tensors on the
CPU, torchaudio's resampling and spectrogram transforms are modules on the CPU that hold
tensors (FRY014 when they meet a moved input, or a moved model meets such a tensor)."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.libfacts import (
    CALL_FACTS,
    Placement,
    Returned,
    call_fact,
    derives_from,
    holds_tensors,
    hook_parameter,
)
from torchferry.check.flow.program import FileFlow

STEP = """
import torch
import pytorch_lightning as pl

class Classifier(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        w = torch.ones(y.shape[0])
        return (y * w).sum()
"""

DICT_BATCH = """
import torch
from lightning.pytorch import LightningModule

class Model(LightningModule):
    def test_step(self, batch, batch_idx):
        return batch["x"] + torch.zeros(3)
"""

THROUGH_A_RUN_BASE = """
import torch
import lightning as L

class Base(L.LightningModule):
    pass

class Model(Base):
    def predict_step(self, batch, batch_idx):
        x = batch[0]
        return torch.cat([x, torch.zeros(x.shape[0], 1)], dim=1)
"""

PLACED = """
import torch
import pytorch_lightning as pl

class Classifier(pl.LightningModule):
    def validation_step(self, batch, batch_idx):
        x, y = batch
        w = torch.ones(y.shape[0], device=self.device)
        v = torch.ones(y.shape[0], device=y.device)
        z = torch.zeros_like(y)
        return (y * w * v + z).sum()
"""

BEFORE_TRANSFER = """
import torch
import pytorch_lightning as pl

class Classifier(pl.LightningModule):
    def on_before_batch_transfer(self, batch, dataloader_idx):
        return batch + torch.zeros(3)

    def training_step(self, batch, batch_idx):
        return batch_idx + torch.zeros(3)
"""

NOT_IMPORTED_FROM_LIGHTNING = """
import torch
from mylib import LightningModule

class Classifier(LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        return (y * torch.ones(y.shape[0])).sum()
"""

LOCAL_NAMESAKE = """
import torch
import torch.nn as nn

class LightningModule(nn.Module):
    pass

class Classifier(LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        return (y * torch.ones(y.shape[0])).sum()
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("source", "site"),
    [
        (STEP, "torch.ones(y.shape[0])"),
        (DICT_BATCH, "torch.zeros(3)"),
        (THROUGH_A_RUN_BASE, "torch.zeros(x.shape[0], 1)"),
    ],
    ids=["tuple-batch", "dict-batch", "through-a-run-base"],
)
def test_a_cpu_tensor_meeting_a_lightning_batch_is_reported(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(
    "source",
    [PLACED, BEFORE_TRANSFER, NOT_IMPORTED_FROM_LIGHTNING, LOCAL_NAMESAKE],
    ids=[
        "made-where-the-batch-is",
        "other-hooks-and-parameters",
        "not-imported-from-lightning",
        "local-namesake",
    ],
)
def test_quiet_where_the_tensor_is_placed_or_the_class_is_not_lightnings(source: str) -> None:
    assert _lines(source) == []


def _class(source: str, name: str) -> tuple[FileFlow, ast.ClassDef]:
    ff = FileFlow(ast.parse(source), "t.py")
    node = next(n for n in ff.tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    return ff, node


def test_hook_parameter_names_the_batch_of_the_step_hooks_only() -> None:
    ff, node = _class(THROUGH_A_RUN_BASE, "Model")
    info = ff.class_info(node)
    assert hook_parameter(info, "predict_step", 1) is Placement.MODULE_DEVICE
    assert hook_parameter(info, "predict_step", 2) is None
    assert hook_parameter(info, "forward", 1) is None
    assert hook_parameter(info, "on_before_batch_transfer", 1) is None


def test_a_namesake_base_is_not_lightnings() -> None:
    ff, node = _class(LOCAL_NAMESAKE, "Classifier")
    info = ff.class_info(node)
    assert not derives_from(info, frozenset({"pytorch_lightning.LightningModule"}))
    assert hook_parameter(info, "training_step", 1) is None


AUDIO_HEAD = """
import torch
import torch.nn as nn
import torchaudio
import torchaudio.transforms as T
from torchvision.io import read_image, decode_jpeg

def run(path, data):
    device = "cuda" if torch.cuda.is_available() else "cpu"
"""

#: a body per case, and the text of the line reported (None: quiet)
LIBRARY_CASES = {
    "waveform-meets-moved-model": (
        "model = nn.Conv1d(1, 4, 3).to(device)\nwave, sr = torchaudio.load(path)\nreturn model(wave)",
        "return model(wave)",
    ),
    "waveform-moved": (
        "model = nn.Conv1d(1, 4, 3).to(device)\nwave, sr = torchaudio.load(path)\n"
        "wave = wave.to(device)\nreturn model(wave)",
        None,
    ),
    "image-meets-moved-model": (
        "model = nn.Conv2d(3, 4, 3).to(device)\nimg = read_image(path).float()\nreturn model(img)",
        "return model(img)",
    ),
    "image-decoded-on-the-device": (
        "model = nn.Conv2d(3, 4, 3).to(device)\nimg = decode_jpeg(data, device=device).float()\n"
        "return model(img)",
        None,
    ),
    "transform-meets-moved-input": (
        "mel = T.MelSpectrogram(16000)\nx, sr = torchaudio.load(path)\nx = x.to(device)\nreturn mel(x)",
        "return mel(x)",
    ),
    "resampler-meets-moved-input": (
        "r = torchaudio.transforms.Resample(sr, 16000)\nx, sr = torchaudio.load(path)\n"
        "x = x.to(device)\nreturn r(x)",
        "return r(x)",
    ),
    "transform-moved": (
        "mel = T.MelSpectrogram(16000).to(device)\nx, sr = torchaudio.load(path)\n"
        "x = x.to(device)\nreturn mel(x)",
        None,
    ),
    "transform-without-tensors": (
        "v = T.Vol(0.5)\nx, sr = torchaudio.load(path)\nx = x.to(device)\nreturn v(x)",
        None,
    ),
    "name-shadowing-the-import": (
        "T = path.transforms\nr = T.Resample(8000, 16000)\nx, sr = torchaudio.load(data)\n"
        "x = x.to(device)\nreturn r(x)",
        None,
    ),
}


@pytest.mark.parametrize("case", list(LIBRARY_CASES), ids=list(LIBRARY_CASES))
def test_library_calls_give_their_documented_values(case: str) -> None:
    body, site = LIBRARY_CASES[case]
    source = AUDIO_HEAD + "".join(f"    {line}\n" for line in body.splitlines())
    found = [f.line for f in check_source(source, "t.py", select=["FRY014"])]
    assert found == ([] if site is None else [_line(source, site)])


def test_call_facts_are_found_by_qualified_name_only() -> None:
    assert call_fact("torchaudio.load") is not None
    assert call_fact("load") is None and call_fact("Resample") is None
    assert holds_tensors("torchaudio.transforms.Resample")
    assert not holds_tensors("torchaudio.transforms.AmplitudeToDB")
    assert not holds_tensors("torchvision.io.read_image")
    assert all(f.placement is Placement.CPU for f in CALL_FACTS)
    fact = call_fact("torchvision.io.decode_jpeg")
    assert fact is not None and fact.returns is Returned.TENSOR and "device" in fact.elsewhere


TOKENIZER_HEAD = """
import torch
from transformers import AutoModel

def run(tokenizer, text, model_in):
    device = "cuda" if torch.cuda.is_available() else "cpu"
"""

#: a tokenizer handed in as a parameter, called with ``return_tensors="pt"``
TOKENIZER_CASES = {
    "inputs-meet-moved-model": (
        'model = AutoModel.from_pretrained("m").to(device)\n'
        'inputs = tokenizer(text, return_tensors="pt")\nreturn model(**inputs)',
        "return model(**inputs)",
    ),
    "inputs-moved": (
        'model = AutoModel.from_pretrained("m").to(device)\n'
        'inputs = tokenizer(text, return_tensors="pt").to(device)\nreturn model(**inputs)',
        None,
    ),
    "model-of-unknown-place": (
        'inputs = tokenizer(text, return_tensors="pt")\nreturn model_in(**inputs)',
        None,
    ),
    "numpy-tensors": (
        'model = AutoModel.from_pretrained("m").to(device)\n'
        'inputs = tokenizer(text, return_tensors="np")\nreturn model(**inputs)',
        None,
    ),
}


@pytest.mark.parametrize("case", list(TOKENIZER_CASES), ids=list(TOKENIZER_CASES))
def test_a_tokenizer_parameter_makes_its_tensors_on_the_cpu(case: str) -> None:
    body, site = TOKENIZER_CASES[case]
    source = TOKENIZER_HEAD + "".join(f"    {line}\n" for line in body.splitlines())
    found = [f.line for f in check_source(source, "t.py", select=["FRY014"])]
    assert found == ([] if site is None else [_line(source, site)])
