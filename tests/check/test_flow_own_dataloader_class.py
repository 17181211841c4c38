"""A class of the run named ``DataLoader`` that derives from no ``DataLoader`` is the run's
own class, not torch's: its construction builds an instance of it, and its methods are
followed (a generator method yields what its ``yield`` statements give, the batches it
moves included).  A class of the run that derives from torch's ``DataLoader`` stays a
loader of unknown batches."""

from __future__ import annotations

from collections.abc import Callable

LOADER = '''\
import torch


class DataLoader(object):
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
from loader import DataLoader


class Params:
    cuda = False


params = Params()
params.cuda = torch.cuda.is_available()
data_loader = DataLoader(params)
it = data_loader.data_iterator([[1, 2]], params)
data_batch, labels_batch = next(it)
labels = labels_batch.data.numpy()
for data, target in data_loader.data_iterator([[1, 2]], params):
    print(target.numpy())
'''


def test_own_dataloader_class_generator_yields_moved_batches(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    found = finding_places({"main.py": MAIN, "loader.py": LOADER}, "FRY003")
    assert found == [("main.py", 14), ("main.py", 16)]


def test_own_dataloader_class_kept_on_the_cpu_is_quiet(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    loader = LOADER.replace("batch_data.cuda(), batch_labels.cuda()", "batch_data.cpu(), batch_labels.cpu()")
    assert finding_places({"main.py": MAIN, "loader.py": loader}, "FRY003") == []


def test_subclass_of_torch_dataloader_stays_a_loader(
        finding_places: Callable[..., list[tuple[str, int]]]) -> None:
    loader = LOADER.replace("class DataLoader(object):", "class DataLoader(torch.utils.data.DataLoader):")
    assert finding_places({"main.py": MAIN, "loader.py": loader}, "FRY003") == []
