"""FRY014 and where an input comes from: a tensor a factory makes on the device the code
chose (``torch.randn(n, nz, device=device)``) meets a model left on the CPU as a moved one
does; a loader over a torchvision dataset chosen by a branch (one dataset per arm) yields
CPU tensors as a loader over one does; a parameter annotated as a ``DataLoader`` (kept on
``self`` by a trainer class) is iterated as a loader, by FRY014 and FRY013 alike."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


# -- a model left on the CPU, its input made on the device --------------------------------

GAN_STEP = '''
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz):
        super().__init__()
        self.main = nn.Sequential(nn.ConvTranspose2d(nz, 16, 4), nn.Tanh())

    def forward(self, z):
        return self.main(z)


def train(loader, nz, epochs):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gen = Generator(nz)
    disc = nn.Sequential(nn.Conv2d(3, 1, 4), nn.Sigmoid()).to(device)
    for _ in range(epochs):
        for real, _ in loader:
            real = real.to(device)
            z = torch.randn(real.size(0), nz, 1, 1, device=device)
            fake = gen(z)
            disc(fake.detach()).mean().backward()
'''

SAMPLING = '''
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
decoder = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 784))

with torch.no_grad():
    z = torch.zeros(16, 8, device=device)
    images = decoder(z).view(16, 1, 28, 28)
'''

INDICES = '''
import torch
import torch.nn as nn

emb = nn.Embedding(100, 16)
positions = torch.arange(0, 10, device="cuda")
h = emb(positions)
'''


@pytest.mark.parametrize(("source", "site"), [
    (GAN_STEP, "fake = gen(z)"),
    (SAMPLING, "images = decoder(z)"),
    (INDICES, "h = emb(positions)"),
], ids=["gan-noise", "module-level-sampling", "literal-device-indices"])
def test_an_input_made_on_the_device_meets_a_model_left_on_the_cpu(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


def test_the_finding_says_the_input_was_made_there() -> None:
    (f,) = check_source(GAN_STEP, "t.py", select=["FRY014"])
    assert "`z` is made on the device but `gen` never is moved" in f.message
    assert any("made on the device at line" in e.message for e in f.evidence)


@pytest.mark.parametrize(("source", "change"), [
    (GAN_STEP, ("gen = Generator(nz)", "gen = Generator(nz).to(device)")),
    (SAMPLING, ('device = "cuda" if torch.cuda.is_available() else "cpu"', 'device = "cpu"')),
    (SAMPLING, ("device=device)", "device=images_device)")),
    (INDICES, ('positions = torch.arange(0, 10, device="cuda")', "positions = torch.arange(0, 10)")),
], ids=["model-moved", "device-the-cpu", "device-unknown", "made-on-the-cpu"])
def test_a_model_where_its_input_is_or_an_unknown_device_is_quiet(
        source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []


# -- a loader over one of several torchvision datasets, chosen by a branch -----------------

BRANCHES = '''
import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main(name, root):
    if name == "mnist":
        dataset = dset.MNIST(root, download=True, transform=transforms.Compose([
            transforms.Resize(32), transforms.ToTensor()]))
    elif name == "cifar10":
        dataset = dset.CIFAR10(root, download=True, transform=transforms.ToTensor())
    else:
        dataset = dset.FakeData(image_size=(3, 32, 32), transform=transforms.ToTensor())
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    net = nn.Sequential(nn.Flatten(), nn.Linear(3072, 10)).to(device)
    for data in loader:
        images = data[0]
        out = net(images)
'''

CHOSEN = '''
import torch
import torch.nn as nn
from torchvision import datasets, transforms

device = "cuda" if torch.cuda.is_available() else "cpu"
to_tensor = transforms.ToTensor()
train_set = datasets.FashionMNIST("data", transform=to_tensor) if FASHION else \\
    datasets.MNIST("data", transform=to_tensor)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=32)
model = nn.Linear(784, 10).to(device)
for x, y in train_loader:
    loss = model(x.view(-1, 784)).sum()
'''


@pytest.mark.parametrize(("source", "site"), [
    (BRANCHES, "out = net(images)"),
    (CHOSEN, "loss = model(x.view(-1, 784))"),
], ids=["if-elif-else-arms", "conditional-expression"])
def test_a_loader_over_a_dataset_chosen_by_a_branch_yields_cpu_items(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (BRANCHES, ("dset.CIFAR10(root, download=True, transform=transforms.ToTensor())",
                "Cached(root)")),
    (BRANCHES, ("transforms.Resize(32), transforms.ToTensor()",
                "transforms.ToTensor(), transforms.Lambda(lambda t: t.cuda())")),
    (BRANCHES, ("    loader = DataLoader(", "    for dataset in extra:\n        pass\n    loader = DataLoader(")),
    (CHOSEN, ('datasets.MNIST("data", transform=to_tensor)', 'OnDevice("data")')),
], ids=["an-arm-not-torchvision", "an-arm-with-a-lambda", "rebound-by-a-loop", "expression-arm-unknown"])
def test_an_arm_that_may_yield_device_tensors_keeps_it_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []


# -- a loader annotated as one, kept by a trainer class ------------------------------------

TRAINER = '''
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model: torch.nn.Module, train_data: DataLoader, gpu_id: int) -> None:
        self.gpu_id = gpu_id
        self.model = model.to(gpu_id)
        self.train_data = train_data

    def _run_batch(self, source, targets):
        output = self.model(source)
        F.cross_entropy(output, targets).backward()

    def _run_epoch(self):
        for source, targets in self.train_data:
            targets = targets.to(self.gpu_id)
            self._run_batch(source, targets)
'''

FIT = '''
import torch
import torch.utils.data


def fit(model, batches: torch.utils.data.DataLoader, device):
    model = model.to(device)
    for inputs, labels in batches:
        labels = labels.to(device)
        loss = torch.nn.functional.nll_loss(model(inputs), labels)
        loss.backward()
'''


@pytest.mark.parametrize(("source", "site"), [
    (TRAINER, "self._run_batch(source, targets)"),
    (FIT, "model(inputs)"),
], ids=["trainer-class-attribute", "annotated-function-parameter"])
def test_a_parameter_annotated_as_a_loader_is_iterated_as_one(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (TRAINER, ("train_data: DataLoader", "train_data: Iterable")),
    (FIT, ("batches: torch.utils.data.DataLoader", "batches")),
    (FIT, ("labels = labels.to(device)", "inputs, labels = inputs.to(device), labels.to(device)")),
], ids=["another-annotation", "no-annotation", "both-moved"])
def test_without_the_annotation_or_with_both_moved_it_is_quiet(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == []


def test_fry013_reads_the_annotated_loader_a_trainer_keeps() -> None:
    source = TRAINER.replace(
        "            targets = targets.to(self.gpu_id)\n            self._run_batch(source, targets)\n",
        "            source = source.to(self.gpu_id)\n"
        "            output = self.model(source)\n"
        "            F.cross_entropy(output, targets).backward()\n")
    assert source != TRAINER
    found = [(f.code, f.line) for f in check_source(source, "t.py", select=["FRY013"])]
    assert found == [("FRY013", _line(source, "            F.cross_entropy(output, targets)"))]
