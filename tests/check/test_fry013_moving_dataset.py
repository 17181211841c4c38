"""FRY013 and FRY014 on the batches of a dataset whose ``__getitem__`` moves what it reads
to a device (given to its constructor, or ``.cuda()``): the batch's items may already be
there, so an item used unmoved next to a moved one is no missed ferry.  A dataset whose
``__getitem__`` only casts (``.to(torch.float32)``) still yields batches on the CPU."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

TUPLE = '''
import torch
from torch.utils.data import DataLoader, Dataset

class Pairs(Dataset):
    def __init__(self, xs, ys, device="cuda"):
        self.xs, self.ys, self.device = xs, ys, device

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i].to(self.device), self.ys[i]

def train(xs, ys, device):
    model = torch.nn.Bilinear(4, 4, 2).to(device)
    loader = DataLoader(Pairs(xs, ys, device=device), batch_size=8)
    for x, y in loader:
        y = y.to(device)
        out = model(x, y)
'''

DICT = '''
import torch
from torch.utils.data import Dataset
import torch.utils.data as tud

class Images(Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        sample = {"image": self.images[idx].cuda(), "label": self.labels[idx]}
        return sample

def evaluate(images, labels):
    device = torch.device("cuda")
    net = torch.nn.Conv2d(3, 8, 3).to(device)
    data = Images(images, labels)
    loader = tud.DataLoader(dataset=data, batch_size=4, shuffle=False)
    for batch in loader:
        labels = batch["label"].to(device)
        out = net(batch["image"])
        masked = batch["image"] * labels
'''

COLLATE = '''
import torch
from torch.utils.data import DataLoader, Dataset

def collate(items):
    return list(zip(*items))

class Graphs(Dataset):
    def __init__(self, graphs, targets, device):
        self.graphs, self.targets, self.device = graphs, targets, device

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, k):
        graph = self.graphs[k]
        graph = graph.to(self.device)
        return graph, self.targets[k]

def run(graphs, targets, device):
    model = torch.nn.Linear(4, 1).to(device)
    loader = DataLoader(Graphs(graphs, targets, device), batch_size=2, collate_fn=collate)
    for i, (g, t) in enumerate(loader):
        t = t.to(device)
        out = model(g)
        loss = torch.nn.functional.mse_loss(g, t)
'''

SITES = {TUPLE: ("out = model(x, y)", "out = model(x, y)"),
         DICT: ('masked = batch["image"] * labels', 'out = net(batch["image"])'),
         COLLATE: ("mse_loss(g, t)", "out = model(g)")}
IDS = ["tuple-to-constructor-device", "dict-cuda-dataset-keyword", "collate-moved-local"]


def _found(source: str, code: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=[code])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("source", [TUPLE, DICT, COLLATE], ids=IDS)
@pytest.mark.parametrize("code", ["FRY013", "FRY014"])
def test_the_items_of_a_dataset_that_moves_them_are_not_reported(source: str, code: str) -> None:
    assert _found(source, code) == []


@pytest.mark.parametrize("source", [TUPLE, DICT, COLLATE], ids=IDS)
def test_a_dataset_that_only_casts_still_yields_items_on_the_cpu(source: str) -> None:
    cast = source.replace(".to(self.device)", ".to(torch.float32)").replace(".cuda()", ".float()")
    assert cast != source
    meet, call = SITES[source]
    assert _found(cast, "FRY013") == [_line(cast, meet)]
    assert _found(cast, "FRY014") == [_line(cast, call)]
