"""A model given to a call keeps what is known of it unless the call can change it: a
function of the run that only reads it (``validate(loader, model)`` returning a meter's
average), a function of torch that keeps its arguments in place
(``clip_grad_norm_(model.parameters(), c)``, whose norm is where the parameters are); a
function that moves, stores or passes it on to a call the analysis cannot follow, and a
call it cannot follow at all, still hand it off."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from torchferry.check.engine import check_source

VALIDATED = '''
import torch
import torch.nn as nn
from torchvision import datasets


class AverageMeter:
    def __init__(self):
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def train(loader, model, criterion, optimizer):
    model.train()
    for input, target in loader:
        target = target.cuda()
        input = input.cuda()
        output = model(input)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(loader, model, criterion):
    top1 = AverageMeter()
    model.eval()
    for input, target in loader:
        output = model(input.cuda())
        top1.update(criterion(output, target.cuda()).item())
    return top1.avg


def main():
    data = datasets.CIFAR10("../data", train=True, download=True)
    loader = torch.utils.data.DataLoader(data, batch_size=64)
    model = nn.Linear(4, 2)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), 0.1)
    best = 0
    for epoch in range(10):
        train(loader, model, criterion, optimizer)
        prec1 = validate(loader, model, criterion)
        best = max(prec1, best)


if __name__ == "__main__":
    main()
'''

CLIPPED = """
import numpy as np
import torch


def train_loop(model, optimizer, loader, clip):
    device = next(model.parameters()).device
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        if np.isnan(grad_norm):
            print("grad_norm was NaN!")
        optimizer.step()


def main(loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 1).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    train_loop(model, optimizer, loader, 1.0)
"""


def lines(source: str, rule: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=[rule])]


def line_of(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


def test_a_model_only_read_by_a_function_of_the_run_is_still_left_behind() -> None:
    assert lines(VALIDATED, "FRY014") == [line_of(VALIDATED, "output = model(input)"),
                                          line_of(VALIDATED, "output = model(input.cuda())")]


@pytest.mark.parametrize(
    "change",
    [
        # moved where it is built
        ("model = nn.Linear(4, 2)", "model = nn.Linear(4, 2).cuda()"),
        # moved in place by the function it is given to
        ("    model.eval()\n", "    model.eval()\n    model.cuda()\n"),
        # stored by it on an object that may move it later
        ("    top1 = AverageMeter()\n", "    top1 = AverageMeter()\n    top1.model = model\n"),
        # handed by it to a call the analysis cannot follow
        ("    model.eval()\n", "    model.eval()\n    restore_checkpoint(model)\n"),
    ],
)
def test_a_model_a_callee_may_change_is_not_known_to_be_left_behind(change: tuple[str, str]) -> None:
    assert change[0] in VALIDATED
    assert lines(VALIDATED.replace(*change), "FRY014") == []


def test_a_gradient_norm_is_where_the_parameters_are() -> None:
    assert lines(CLIPPED, "FRY003") == [line_of(CLIPPED, "np.isnan(grad_norm)")]


@pytest.mark.parametrize(
    "change",
    [
        ("np.isnan(grad_norm)", "np.isnan(grad_norm.cpu())"),
        ("torch.nn.Linear(4, 1).to(device)", "torch.nn.Linear(4, 1)"),
        ('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"'),
    ],
)
def test_a_gradient_norm_on_the_cpu_is_not_reported(change: tuple[str, str]) -> None:
    assert change[0] in CLIPPED
    assert lines(CLIPPED.replace(*change), "FRY003") == []


def test_the_other_norms_of_torch_nn_utils_are_where_the_parameters_are() -> None:
    for call in ("get_total_norm([p.grad for p in model.parameters()])",
                 "parameters_to_vector(model.parameters())"):
        source = CLIPPED.replace("clip_grad_norm_(model.parameters(), clip)", call)
        assert lines(source, "FRY003") == [line_of(source, "np.isnan(grad_norm)")], call


KEPT = """\
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, loader, device):
        self.model = model
        self.loader = loader
        self.device = device

    def run(self):
        for source in self.loader:
            source = source.to(self.device)
            self.model(source)


def describe(model):
    model.eval()
    print(model)


def main(device, dataset):
    model = torch.nn.Linear(20, 1)
    describe(model)
    trainer = Trainer(model, DataLoader(dataset, batch_size=8), device)
    trainer.run()


if __name__ == "__main__":
    main(0, [])
"""


def test_a_model_only_read_beside_its_trainer_is_still_left_behind(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"train.py": KEPT}, "FRY014") == [line_of(KEPT, "self.model(source)")]


@pytest.mark.parametrize(
    "change",
    [
        ("    model.eval()\n", "    model.eval()\n    model.cuda()\n"),  # moved by the helper
        ("    print(model)\n", "    print(model)\n    register(model)\n"),  # handed on by it
        ("    describe(model)\n", "    describe(model)\n    model.to(device)\n"),  # moved here
    ],
)
def test_a_model_changed_beside_its_trainer_is_not_reported(
    finding_lines: Callable[..., list[int]], change: tuple[str, str]
) -> None:
    assert change[0] in KEPT
    assert finding_lines({"train.py": KEPT.replace(*change)}, "FRY014") == []
