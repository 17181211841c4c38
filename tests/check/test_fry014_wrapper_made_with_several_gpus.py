"""FRY014 and a data-parallel wrapper made only on a machine with several GPUs
(``w = model; if torch.cuda.device_count() > 1: w = nn.DataParallel(model).cuda()``): with
one GPU the test is false and ``w`` is the module itself, so a model on the device called
on an input left on the CPU fails there; the finding names that machine."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

ALIAS = '''import torch

model = torch.nn.Linear(3, 10).cuda()
model_wrapper = model
if {test}:
    model_wrapper = torch.nn.DataParallel(model).cuda()
loader = torch.utils.data.DataLoader([(torch.zeros(3), 0)])
for input, target in loader:
    target = target.cuda()
    output = model_wrapper(input)
'''

#: the densenet idiom: a parameter moved under ``is_available()``, wrapped with several
#: GPUs, handed to the function that runs the loop
HANDED = '''import torch


def train_epoch(model, loader):
    for input, target in loader:
        if torch.cuda.is_available():
            target = target.cuda()
        output = model(input)


def train(model, data):
    loader = torch.utils.data.DataLoader(data)
    if torch.cuda.is_available():
        model = model.cuda()
    model_wrapper = model
    if torch.cuda.is_available() and torch.cuda.device_count() > 1:
        model_wrapper = torch.nn.DataParallel(model).cuda()
    for epoch in range(3):
        train_epoch(model=model_wrapper, loader=loader)


train(torch.nn.Linear(3, 10), [(torch.zeros(3), 0)])
'''

#: the wrapper bound back to the module's own name, then moved
SAME_NAME = '''import torch

model = torch.nn.Linear(3, 10).cuda()
if torch.cuda.device_count() > 1:
    model = torch.nn.DataParallel(model).cuda()
loader = torch.utils.data.DataLoader([(torch.zeros(3), 0)])
for input, target in loader:
    target = target.cuda()
    output = model(input)
'''


def _fry014(src: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_source(src, "t.py", select=["FRY014"]) if f.code == "FRY014"]


@pytest.mark.parametrize("test", ["torch.cuda.device_count() > 1", "1 < torch.cuda.device_count()",
                                  "torch.cuda.is_available() and torch.cuda.device_count() >= 2"])
def test_the_plain_module_of_a_machine_with_one_gpu_is_flagged(test: str) -> None:
    found = _fry014(ALIAS.format(test=test))
    assert [line for line, _ in found] == [10]
    assert "on a machine with one GPU" in found[0][1]


def test_a_wrapper_bound_back_and_moved_leaves_the_module_with_one_gpu() -> None:
    assert [line for line, _ in _fry014(SAME_NAME)] == [9]


def test_the_module_handed_on_from_a_function_is_flagged_where_it_is_used() -> None:
    found = _fry014(HANDED)
    assert [line for line, _ in found] == [8]
    assert "on a machine with one GPU" in found[0][1]


@pytest.mark.parametrize("test", ["torch.cuda.device_count() > 0", "torch.cuda.device_count() > 1 or True",
                                  "torch.cuda.is_available()"])
def test_a_wrapper_made_also_with_one_gpu_is_not_flagged(test: str) -> None:
    assert _fry014(ALIAS.format(test=test)) == []


def test_a_wrapper_made_in_an_else_is_not_flagged() -> None:
    src = ALIAS.format(test="torch.cuda.device_count() > 1").replace(
        "    model_wrapper = torch.nn.DataParallel(model).cuda()\n",
        "    model_wrapper = torch.nn.DataParallel(model).cuda()\nelse:\n"
        "    model_wrapper = torch.nn.DataParallel(model, device_ids=[0]).cuda()\n")
    assert _fry014(src) == []


def test_a_module_handed_to_an_unknown_call_after_the_wrapper_is_not_flagged() -> None:
    src = HANDED.replace("    for epoch in range(3):\n", "    setup(model_wrapper)\n    for epoch in range(3):\n")
    assert _fry014(src) == []
    assert [line for line, _ in _fry014(HANDED.replace("    for epoch", "    setup(loader)\n    for epoch"))] == [8]
