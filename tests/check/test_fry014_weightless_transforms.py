"""FRY014 and a module of the run that holds no weights: a transform whose class (or the
base whose ``__init__`` it inherits) stores only plain data and objects that are no module,
registers no parameter or buffer, and -- a ``Compose`` of such transforms -- keeps the
modules it is constructed with in a ``torch.nn`` container built from its parameter
(``self.transforms = nn.ModuleList(transforms)``).  Called on an input on the device it
computes where the input is: moving it would change nothing, so nothing is reported.  Built
with a module that holds weights, or with one of a class that registers a buffer, it is."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from torchferry.check.flow.program import FileFlow, builds_weights

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

LIBRARY = '''
import torch
from torch import nn
from torch.distributions import Bernoulli


class BaseTransform(nn.Module):
    def __init__(self, p=0.5, output_type=None):
        super().__init__()
        self._p = p
        self.output_type = output_type
        self.transform_parameters = {}
        self.bernoulli = Bernoulli(self._p)

    def forward(self, samples):
        return self.apply_transform(samples)


class Shuffle(BaseTransform):
    def __init__(self, p=0.5, output_type=None):
        super().__init__(p=p, output_type=output_type)

    def apply_transform(self, samples):
        order = torch.randperm(samples.shape[1], device=samples.device)
        return samples[:, order]


class Gain(BaseTransform):
    def __init__(self, p=0.5, output_type=None):
        super().__init__(p=p, output_type=output_type)
        self.register_buffer("gain", torch.ones(1))

    def apply_transform(self, samples):
        return samples * self.gain


class Learned(BaseTransform):
    def __init__(self, p=0.5, output_type=None):
        super().__init__(p=p, output_type=output_type)
        self.fc = nn.Linear(4, 4)

    def apply_transform(self, samples):
        return self.fc(samples)


class BaseCompose(nn.Module):
    def __init__(self, transforms, p=1.0, output_type=None):
        super().__init__()
        self.p = p
        self.output_type = output_type
        self.transforms = nn.ModuleList(transforms)

    def forward(self, samples):
        for t in self.transforms:
            samples = t(samples)
        return samples


class Compose(BaseCompose):
    pass
'''

TEST = '''
import torch

from lib import {imported}


def test_on_the_device():
    samples = torch.rand(8, 2, 16).to(torch.device("cuda"))
    augment = {build}
    return augment(samples)


def test_made_on_the_device():
    audio = torch.rand(8, 1, 16, device=torch.device("cuda"))
    augment = {build}
    return augment(samples=audio)
'''


def _lines(finding_places: Places, build: str) -> list[int]:
    imported = ", ".join(sorted({n for n in ("Compose", "Gain", "Learned", "Shuffle") if n in build}))
    files = {"lib.py": LIBRARY, "test_lib.py": TEST.format(imported=imported, build=build)}
    return sorted(line for _, line in finding_places(files, "FRY014"))


@pytest.mark.parametrize("build", [
    'Shuffle(p=1.0, output_type="dict")',
    'Compose([Shuffle(p=1.0)], output_type="dict")',
    'Compose([Shuffle(), Shuffle(p=0.2)])',
])
def test_a_transform_without_weights_is_quiet(finding_places: Places, build: str) -> None:
    assert _lines(finding_places, build) == []


@pytest.mark.parametrize("build", [
    'Gain(p=1.0)',  # (a buffer: left on the CPU)
    'Learned(p=1.0)',
    'Compose([Shuffle(p=1.0), Gain()])',
    'Compose([Learned()], output_type="dict")',
])
def test_a_transform_with_weights_is_reported(finding_places: Places, build: str) -> None:
    lines = TEST.format(imported="", build=build).splitlines()
    calls = [i + 1 for i, text in enumerate(lines) if "return augment(" in text]
    assert _lines(finding_places, build) == calls


def test_a_container_of_a_parameter_is_judged_by_the_construction() -> None:
    # (the construction's list tells the container's weights; a name it did not build there
    # tells nothing, and a container not known to be without weights counts as holding some)
    tree = ast.parse(LIBRARY + "\nquiet = Compose([Shuffle()])\nloud = Compose([Learned()])\n"
                               "unknown = Compose(items)\n")
    ff = FileFlow(tree, "lib.py")
    calls = [st.value for st in tree.body[-3:] if isinstance(st, ast.Assign)]
    assert [builds_weights(ff, c) for c in calls] == [False, True, True]
