"""FRY014 on an image tensor a library transform makes on the CPU (albumentations'
``ToTensorV2`` in a ``Compose``, torchvision's ``ToTensor()``) handed unmoved to a model
on the accelerator; quiet once the tensor is moved."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

ALBUMENTATIONS = '''
import albumentations as A
import numpy as np
import torch
from albumentations.pytorch import ToTensorV2

device = torch.device("cuda")
model = torch.nn.Conv2d(3, 8, 3).to(device)

def transform_image(image):
    transform = A.Compose([A.Resize(64, 64), A.Normalize(), ToTensorV2()])
    return transform(image=np.array(image))["image"].unsqueeze(0)

def predict(image):
    x = transform_image(image)
    return model(x)
'''

TORCHVISION = '''
import torch
from torchvision import transforms

class Predictor:
    def __init__(self):
        self.net = torch.nn.Conv2d(3, 8, 3).cuda()

    def __call__(self, image):
        x = transforms.ToTensor()(image)[None]
        return self.net(x)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [
    (ALBUMENTATIONS, "return model(x)"),
    (TORCHVISION, "return self.net(x)"),
], ids=["albumentations", "torchvision"])
def test_a_transformed_image_not_moved_for_the_model_is_reported(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (ALBUMENTATIONS, ("return model(x)", "return model(x.to(device))")),
    (TORCHVISION, ("return self.net(x)", "return self.net(x.cuda())")),
], ids=["albumentations-moved", "torchvision-moved"])
def test_a_moved_image_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []
