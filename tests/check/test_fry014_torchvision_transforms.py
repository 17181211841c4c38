"""FRY014 and torchvision transforms: a transform object (``Normalize``, ``Resize``, a
``Compose`` of such) holds no parameters and computes where its input is, so a tensor moved
to the device and handed to it is no mismatch.  ``LinearTransformation`` (its matrix stays
where it was built) and ``Lambda`` (any code) are not known to be weightless."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

ALIAS = '''
import torch
import torchvision.transforms as T

normalize = T.Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2])

def features(img, device):
    x = img.to(device)
    return normalize(x)
'''

NAMES = '''
import torch
from torchvision.transforms import CenterCrop, Compose, Resize

pre = Compose([Resize(256), CenterCrop(224)])

def crop(img):
    return pre(img.cuda())
'''

V2 = '''
import torch
from torchvision.transforms import v2

augment = v2.Compose(transforms=[v2.RandomHorizontalFlip(), v2.RandomApply([v2.ColorJitter(0.4)], p=0.8)])

def view(batch):
    batch = batch.to("cuda")
    return augment(batch)
'''

SOURCES = [ALIAS, NAMES, V2]
IDS = ["module-alias-normalize", "imported-compose", "v2-nested-groups"]


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_a_weightless_transform_given_a_moved_tensor_is_quiet(source: str) -> None:
    assert _lines(source) == []


@pytest.mark.parametrize(("source", "change", "site"), [
    (ALIAS, ("T.Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2])", "T.LinearTransformation(m, v)"),
     "return normalize(x)"),
    (NAMES, ("Compose([Resize(256), CenterCrop(224)])", "Compose([Resize(256), Lambda(f)])"),
     "return pre(img.cuda())"),
    (V2, ("v2.ColorJitter(0.4)", "v2.LinearTransformation(m, v)"), "return augment(batch)"),
], ids=["linear-transformation", "lambda-step", "nested-linear-transformation"])
def test_a_transform_holding_tensors_or_code_is_still_reported(
        source: str, change: tuple[str, str], site: str) -> None:
    changed = source.replace(*change).replace("import CenterCrop,", "import CenterCrop, Lambda,")
    assert changed != source
    assert _lines(changed) == [_line(changed, site)]
