"""FRY014 follows the run's own containers to the model: what ``for x in obj``,
``next(iter(obj))`` and ``obj[i]`` give by the class's ``__iter__`` (its ``yield``s, or
the iterable it returns) and ``__getitem__``, the batches of a ``DataLoader`` over a
dataset of the run whose ``__getitem__`` makes its tensors on the CPU (in the scope that
builds the loader, and in a function every call of the run hands the loader to), and the
values of a mapping handed as ``model(**inputs)``.  Where the value is really on the
model's device (moved, made there, or of unknown make) it stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''\
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return torch.tensor(self.xs[i]), torch.tensor(self.ys[i])


class OnDevice(Dataset):
    def __init__(self, xs, device):
        self.xs, self.device = xs, device

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return torch.tensor(self.xs[i]).to(self.device), 0


class Stream:
    def __iter__(self):
        for _ in range(3):
            yield torch.zeros(4)


class Held:
    def __init__(self):
        self.items = [torch.ones(4), torch.zeros(4)]

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, i):
        return self.items[i]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
'''

FLAGGED = {
    "generator": '''
def main():
    model = nn.Linear(4, 2).to(device)
    for x in Stream():
        model(x)  # here
''',
    "returned iterable": '''
def main():
    model = nn.Linear(4, 2).to(device)
    for x in Held():
        model(x)  # here
''',
    "next of iter": '''
def main():
    model = nn.Linear(4, 2).to(device)
    x = next(iter(Stream()))
    return model(x)  # here
''',
    "indexed": '''
def main():
    model = nn.Linear(4, 2).to(device)
    held = Held()
    x = held[0]
    return model(x)  # here
''',
    "loader over a cpu dataset": '''
def main(xs, ys):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(Pairs(xs, ys), batch_size=8):
        model(x)  # here
''',
    "loader handed to a function": '''
def train(loader, model):
    for step, (x, y) in enumerate(loader):
        model(x)  # here


def main(xs, ys):
    model = nn.Linear(4, 2).to(device)
    loader = DataLoader(Pairs(xs, ys), batch_size=8)
    train(loader, model)
''',
    "loader handed on twice": '''
def train(loader, model):
    for x, y in loader:
        model(x)  # here


def fit(loader, model):
    train(loader, model)


def main(xs, ys):
    model = nn.Linear(4, 2).to(device)
    fit(DataLoader(Pairs(xs, ys)), model)
''',
    "dict literal": '''
def main():
    model = nn.Linear(4, 2).to(device)
    inputs = {"input": torch.zeros(4)}
    return model(**inputs)  # here
''',
    "dict call": '''
def main():
    model = nn.Linear(4, 2).to(device)
    inputs = dict(input=torch.zeros(4))
    return model(**inputs)  # here
''',
    "dict comprehension": '''
def main(names):
    model = nn.Linear(4, 2).to(device)
    inputs = {k: torch.zeros(4) for k in names}
    return model(**inputs)  # here
''',
}

QUIET = {
    "generator item moved": '''
def main():
    model = nn.Linear(4, 2).to(device)
    for x in Stream():
        model(x.to(device))
''',
    "model not moved": '''
def main():
    model = nn.Linear(4, 2)
    for x in Held():
        model(x)
''',
    "dataset moves its items": '''
def main(xs):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(OnDevice(xs, device)):
        model(x)
''',
    "batch item moved": '''
def main(xs, ys):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(Pairs(xs, ys), batch_size=8):
        x = x.to(device)
        model(x)
''',
    "unknown collate": '''
def main(xs, ys, collate):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(Pairs(xs, ys), collate_fn=collate):
        model(x)
''',
    "spread loader options": '''
def main(xs, ys, **options):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(Pairs(xs, ys), **options):
        model(x)
''',
    "one caller passes a loader of unknown make": '''
def train(loader, model):
    for x, y in loader:
        model(x)


def main(xs, ys, other):
    model = nn.Linear(4, 2).to(device)
    train(DataLoader(Pairs(xs, ys)), model)
    train(other, model)
''',
    "loader handed on, items moved": '''
def train(loader, model):
    for x, y in loader:
        model(x.to(device))


def main(xs, ys):
    model = nn.Linear(4, 2).to(device)
    train(DataLoader(Pairs(xs, ys)), model)
''',
    "mapping moved": '''
def main():
    model = nn.Linear(4, 2).to(device)
    inputs = {"input": torch.zeros(4).to(device)}
    return model(**inputs)
''',
    "mapping of unknown values": '''
def main(ids):
    model = nn.Linear(4, 2).to(device)
    inputs = {"input": torch.zeros(4), "mask": ids}
    return model(**inputs)
''',
    "mapping made on the device": '''
def main():
    model = nn.Linear(4, 2).to(device)
    inputs = dict(input=torch.zeros(4, device=device))
    return model(**inputs)
''',
}


def _lines(body: str) -> list[int]:
    return sorted({f.line for f in check_source(HEAD + body, "t.py", select=["FRY014"])})


def _marked(body: str) -> list[int]:
    return [i for i, ln in enumerate((HEAD + body).splitlines(), 1) if ln.endswith("# here")]


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_an_input_made_on_the_cpu_by_the_runs_container_is_flagged(name: str) -> None:
    assert _lines(FLAGGED[name]) == _marked(FLAGGED[name])


@pytest.mark.parametrize("name", sorted(QUIET))
def test_an_input_on_the_models_device_or_of_unknown_make_is_not(name: str) -> None:
    assert _lines(QUIET[name]) == []


def test_the_mapping_finding_says_to_move_its_values() -> None:
    (f,) = check_source(HEAD + FLAGGED["dict literal"], "t.py", select=["FRY014"])
    assert "the tensors of `inputs`" in f.message and "inputs.items()" in f.message


def test_the_batch_finding_cites_where_the_dataset_made_it() -> None:
    found = check_source(HEAD + FLAGGED["loader handed to a function"], "t.py", select=["FRY014"])
    assert any("torch.tensor" in step.message for f in found for step in f.evidence)
