"""FRY014 and data-parallel wrappers: ``nn.DataParallel(m)`` (and
``DistributedDataParallel``) does not move ``m``; the wrapper is where its module is.  A
wrapper made only under ``if torch.cuda.device_count() > 1:`` leaves the plain module on a
machine with one GPU, where a CPU input fails."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class Data(Dataset):
    def __init__(self):
        self.data = torch.randn(100, 5)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc(x)


loader = DataLoader(Data(), batch_size=30)
model = Model()
'''

#: the model is wrapped on two GPUs but never moved; the input is
NEVER_MOVED = HEAD + '''if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)

for data in loader:
    x = data.to(device)
    out = model(x)
'''

#: the wrapper is moved after the branch: the module moves with it
WRAPPER_MOVED = NEVER_MOVED.replace("\nfor data", "\nmodel.to(device)\n\nfor data")

#: wrapped, moved, given a CPU input: only the wrapper would scatter it
PLAIN_ARM_CPU_INPUT = HEAD + '''if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model.to(device)

for data in loader:
    out = model(data)
'''

#: the wrapper on every machine: it scatters a CPU input itself
ALWAYS_WRAPPED = PLAIN_ARM_CPU_INPUT.replace(
    "if torch.cuda.device_count() > 1:\n    model = nn.DataParallel(model)",
    "model = nn.DataParallel(model)")

#: an ``else`` that wraps as well: no arm leaves the plain module
WRAPPED_IN_BOTH_ARMS = PLAIN_ARM_CPU_INPUT.replace(
    "    model = nn.DataParallel(model)\n",
    "    model = nn.DataParallel(model)\nelse:\n    model = nn.DataParallel(model, device_ids=[0])\n")

#: the input moved: both arms work
PLAIN_ARM_MOVED_INPUT = PLAIN_ARM_CPU_INPUT.replace("out = model(data)", "out = model(data.to(device))")

#: the wrapper bound to another name, then moved: that moves the module too
OTHER_NAME_MOVED = HEAD + '''dp = nn.DataParallel(model)
dp.to(device)

for data in loader:
    out = model(data.to(device))
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return [line.strip() for line in source.splitlines()].index(text) + 1


def test_a_wrapper_never_moved_is_where_its_module_is() -> None:
    assert _lines(NEVER_MOVED) == [_line(NEVER_MOVED, "out = model(x)")]


def test_a_cpu_input_on_the_plain_arm_is_reported() -> None:
    findings = check_source(PLAIN_ARM_CPU_INPUT, "t.py", select=["FRY014"])
    assert [f.line for f in findings] == [_line(PLAIN_ARM_CPU_INPUT, "out = model(data)")]
    assert "made on the CPU" in findings[0].message


@pytest.mark.parametrize("source", [WRAPPER_MOVED, ALWAYS_WRAPPED, WRAPPED_IN_BOTH_ARMS,
                                    PLAIN_ARM_MOVED_INPUT, OTHER_NAME_MOVED])
def test_a_wrapper_that_works_is_quiet(source: str) -> None:
    assert _lines(source) == []


def test_the_sharded_wrapper_may_move_its_module() -> None:
    source = NEVER_MOVED.replace(
        "nn.DataParallel(model)",
        "torch.distributed.fsdp.FullyShardedDataParallel(model, device_id=0)")
    assert _lines(source) == []


@pytest.mark.parametrize("test", ["torch.cuda.is_available() and torch.cuda.device_count() > 1",
                                  "2 <= torch.cuda.device_count()"])
def test_a_cpu_input_on_the_plain_arm_of_any_test_false_with_one_gpu_is_reported(test: str) -> None:
    source = PLAIN_ARM_CPU_INPUT.replace("torch.cuda.device_count() > 1", test)
    assert _lines(source) == [_line(source, "out = model(data)")]


@pytest.mark.parametrize("test", ["torch.cuda.device_count() > True",
                                  "torch.cuda.device_count(gpus=1) > 1",
                                  "torch.cuda.is_available() or torch.cuda.device_count() > 1"])
def test_a_test_not_read_as_false_with_one_gpu_leaves_the_wrapper_joined(test: str) -> None:
    source = PLAIN_ARM_CPU_INPUT.replace("torch.cuda.device_count() > 1", test)
    assert _lines(source) == []
