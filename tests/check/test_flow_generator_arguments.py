"""A generator object handed to a function as an argument gives, at ``next(it)`` and
``for x, y in it`` in that function, what its generator function yields, where every call
of the run passes such an object (a generator method of a class of another file
included); a move in the generator of that other file, under a setting of the run, is a
move on a path for FRY014."""

from __future__ import annotations

from collections.abc import Callable

LOADER = '''\
import torch


class Batches(object):
    def __init__(self, params):
        self.params = params

    def data_iterator(self, data, params):
        for i in range(3):
            batch_data, batch_labels = torch.LongTensor(data), torch.LongTensor(data)
            if params.cuda:
                batch_data, batch_labels = batch_data.cuda(), batch_labels.cuda()
            yield batch_data, batch_labels
'''

MAIN = '''\
import torch
import torch.nn as nn
from loader import Batches


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


def train(model, data_iterator, steps):
    for i in range(steps):
        data_batch, labels_batch = next(data_iterator)
        output = model(data_batch)
        labels = labels_batch.data.numpy()


def evaluate(model, data_iterator):
    for data_batch, labels_batch in data_iterator:
        labels = labels_batch.numpy()


class Params:
    cuda = False


params = Params()
params.cuda = torch.cuda.is_available()
model = Net()
batches = Batches(params)
train(model, batches.data_iterator([[1, 2]], params), 3)
evaluate(model, batches.data_iterator([[1, 2]], params))
'''


def test_generator_argument_yields_its_batches(finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    found = finding_places({"main.py": MAIN, "loader.py": LOADER}, "FRY003")
    assert found == [("main.py", 19), ("main.py", 24)]


def test_generator_argument_kept_on_the_cpu_is_quiet(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    loader = LOADER.replace("batch_data.cuda(), batch_labels.cuda()", "batch_data.cpu(), batch_labels.cpu()")
    assert finding_places({"main.py": MAIN, "loader.py": loader}, "FRY003") == []


def test_a_call_passing_something_else_keeps_the_parameter_open(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    main = MAIN + "train(model, iter([(torch.zeros(2), torch.zeros(2))]), 1)\n"
    assert finding_places({"main.py": main, "loader.py": LOADER}, "FRY003") == [("main.py", 24)]


def test_unmoved_model_meets_a_generator_argument_moved_in_another_file(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    assert finding_places({"main.py": MAIN, "loader.py": LOADER}, "FRY014") == [("main.py", 18)]


def test_moved_model_meets_a_generator_argument_quietly(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    main = MAIN.replace("model = Net()", "model = Net().cuda() if params.cuda else Net()")
    assert finding_places({"main.py": main, "loader.py": LOADER}, "FRY014") == []


def test_move_in_another_file_fixed_off_by_the_run_is_quiet(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    main = MAIN.replace("params.cuda = torch.cuda.is_available()", "params.cuda = False")
    assert finding_places({"main.py": main, "loader.py": LOADER}, "FRY014") == []


def test_unmoved_model_meets_a_generator_of_another_file_where_it_is_made(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    main = MAIN.replace("train(model, batches", "x, y = next(batches.data_iterator([[1, 2]], params))\n"
                        "model(x)\ntrain(model, batches")
    assert ("main.py", 36) in finding_places({"main.py": main, "loader.py": LOADER}, "FRY014")
