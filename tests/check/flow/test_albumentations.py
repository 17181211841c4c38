"""albumentations' ``ToTensorV2()``: a transform that, called with ``image=``, returns a
dict whose ``"image"`` is a tensor made on the CPU; a ``Compose`` of albumentations
transforms ending with it does the same, unless a ``Lambda`` may do anything."""

from __future__ import annotations

import pytest

from torchferry.check.flow import Kind

from .conftest import Snippet, wheres

COMPOSED = """
import albumentations
import albumentations.pytorch

def load(img):
    transform = albumentations.Compose([
        albumentations.Resize(height=64, width=64),
        albumentations.Normalize(),
        albumentations.pytorch.transforms.ToTensorV2(),
    ])
    x = transform(image=img)["image"].unsqueeze(0)
    return x
"""

ALIASED = """
import albumentations as A
from albumentations.pytorch import ToTensorV2

class Data:
    def __init__(self):
        self.tf = A.Compose(transforms=[A.HorizontalFlip(p=0.5), ToTensorV2()])

    def get(self, img):
        out = self.tf(image=img)
        return out["image"]
"""

BARE = """
from albumentations.pytorch import ToTensorV2

def load(img):
    x = ToTensorV2()(image=img)["image"]
    return x
"""


@pytest.mark.parametrize(("src", "fn"), [(COMPOSED, "load"), (ALIASED, "get"), (BARE, "load")],
                         ids=["composed", "aliased-keyword", "bare"])
def test_to_tensor_v2_makes_a_cpu_tensor(src, fn):
    x = Snippet(src).function(fn).returns
    assert x.is_(Kind.TENSOR) and wheres(x) == {"CPU"}


@pytest.mark.parametrize("change", [
    ("albumentations.Normalize(),", "albumentations.Lambda(image=f),"),
    ("albumentations.pytorch.transforms.ToTensorV2(),\n", ""),
    ("albumentations.Resize(height=64, width=64),", "my_resize(64),"),
], ids=["lambda", "no-to-tensor", "foreign-step"])
def test_a_compose_that_may_not_end_with_a_cpu_tensor_is_unknown(change):
    src = COMPOSED.replace(*change)
    assert src != COMPOSED
    x = Snippet(src).function("load").returns
    assert not (x.is_(Kind.TENSOR) and wheres(x) == {"CPU"})


def test_other_keys_of_the_result_are_unknown():
    x = Snippet(COMPOSED.replace('["image"]', '["mask"]')).function("load").returns
    assert x.places is None


def test_a_torchvision_transform_called_where_it_is_built_makes_a_cpu_tensor():
    """``transforms.ToTensor()(img)`` and ``transforms.PILToTensor()(img)``: the transform
    built and called in one expression."""
    s = Snippet("""
        from torchvision import transforms
        def load(img):
            a = transforms.ToTensor()(img)
            b = transforms.PILToTensor()(img).float()
            return a, b
    """)
    for x in s.function("load").returns.elts:
        assert x.is_(Kind.TENSOR) and wheres(x) == {"CPU"}
