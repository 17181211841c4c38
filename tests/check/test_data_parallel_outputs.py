"""A data-parallel wrapper (``nn.DataParallel``, ``DistributedDataParallel``) is where the
module it wraps is, and its forward gathers the output on its first device whatever the
input's place: ``output = model(input)`` in a function every call of the run hands such a
wrapper on the accelerator is on the accelerator (FRY003 on its ``.numpy()``), while a CPU
input handed to the wrapper meets no weight (FRY010 stays quiet)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

VALIDATE = '''
import torch
from torch import nn


def validate(loader, model):
    for input, target in loader:
        output = model(input)
        print(output.detach().numpy())


def main(loader):
    net = nn.Linear(4, 2)
    {build}
    validate(loader, model)
'''


def codes(source: str, rule: str, select: list[str] | None = None) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(source), "t.py", select=select) if f.code == rule]


@pytest.mark.parametrize("build", ["model = torch.nn.DataParallel(net).cuda()",
                                   "model = nn.DataParallel(net.cuda())",
                                   "model = nn.DataParallel(net, device_ids=[0]).to('cuda')"])
def test_the_output_of_a_wrapper_handed_in_is_on_the_device(build: str) -> None:
    assert codes(VALIDATE.format(build=build), "FRY003") == [9]


@pytest.mark.parametrize("build", ["model = net.cuda()", "model = nn.DataParallel(net)",
                                   "model = nn.DataParallel(net.cuda(), output_device='cpu')"])
def test_a_plain_model_or_one_left_on_the_cpu_is_quiet(build: str) -> None:
    # (a plain model's output is where its input is: on the CPU, or the call fails)
    assert codes(VALIDATE.format(build=build), "FRY003", ["ALL"]) == []


def test_one_call_handing_another_model_is_quiet() -> None:
    source = VALIDATE.format(build="model = nn.DataParallel(net).cuda()") + \
        "    validate(loader, net)\n"
    assert codes(source, "FRY003", ["ALL"]) == []


def test_a_cpu_input_of_a_wrapper_meets_no_weight() -> None:
    source = '''
    import torch
    from torch import nn

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


    def main():
        model = nn.DataParallel(nn.Linear(4, 2).to(device))
        return model(torch.ones(3, 4))
    '''
    assert codes(source, "FRY010", ["ALL"]) == []
    unwrapped = source.replace("nn.DataParallel(nn.Linear(4, 2).to(device))", "nn.Linear(4, 2).to(device)")
    assert codes(unwrapped, "FRY010", ["ALL"]) == [10]


EVALUATE = '''
import torch
from torch import nn


def evaluate(loader, model, criterion):
    for input, target in loader:
        {move}
        output = model(input)
        loss = criterion(output, target)


def main(loader):
    model = {build}
    evaluate(loader, model, nn.CrossEntropyLoss())
'''


@pytest.mark.parametrize("build", ["nn.DataParallel(nn.Linear(4, 2)).cuda()",
                                   "nn.DataParallel(nn.Linear(4, 2).cuda())"])
def test_an_item_left_next_to_the_gathered_output_is_flagged(build: str) -> None:
    source = EVALUATE.format(move="pass", build=build)
    (f,) = [f for f in check_source(textwrap.dedent(source), "t.py") if f.code == "FRY013"]
    assert (f.line, f.column) == (10, 33)
    assert "`target.to(output.device)`" in f.message and f.fix is not None


@pytest.mark.parametrize(("move", "build"), [
    ("target = target.cuda()", "nn.DataParallel(nn.Linear(4, 2)).cuda()"),  # (moved: fine)
    ("pass", "nn.DataParallel(nn.Linear(4, 2))"),  # (all on the CPU)
    ("pass", "nn.Linear(4, 2).cuda()"),  # (a plain model: FRY014's input, not this)
])
def test_a_moved_item_or_a_wrapper_on_the_cpu_is_quiet(move: str, build: str) -> None:
    source = EVALUATE.format(move=move, build=build)
    assert codes(source, "FRY013", ["ALL"]) == []


def test_the_wrapper_in_the_same_scope() -> None:
    source = '''
    import torch
    from torch import nn


    def main(loader):
        model = nn.DataParallel(nn.Linear(4, 2)).cuda()
        criterion = nn.CrossEntropyLoss()
        for input, target in loader:
            loss = criterion(model(input), target)
    '''
    assert codes(source, "FRY013") == [10]
