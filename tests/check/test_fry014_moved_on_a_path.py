"""FRY014 and an input moved on some path (``if cuda: data = data.cuda()`` in a function
given the flag) meeting a model that no path moves: where the move runs, the two are
apart.  Also a model built by one class of a table of classes of the run
(``models[args.model](...)``)."""

from __future__ import annotations

from torchferry.check.engine import check_source

#: a model built from a table of classes, handed to a function that moves its batches
#: where its ``cuda`` parameter says
TABLE = '''import argparse
import torch
import torch.nn as nn


class Small(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, 2)

    def forward(self, x):
        return self.fc(x)


class Big(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(n, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x):
        return self.fc(x)


models = {"small": Small, "big": Big}


def train(model, loader, cuda):
    for data, _ in loader:
        if cuda:
            data = data.cuda()
        out = model(data)
        out.sum().backward()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="small")
    parser.add_argument("--no-cuda", action="store_true")
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()
    model = models[args.model](4)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(8, 4), torch.zeros(8)))
    train(model, loader, args.cuda)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def test_a_model_of_a_table_never_moved_meets_a_batch_moved_under_a_flag() -> None:
    assert _lines(TABLE) == [31]


def test_a_model_moved_on_a_path_is_quiet() -> None:
    moved = TABLE.replace("    model = models[args.model](4)\n",
                          "    model = models[args.model](4)\n    if args.cuda:\n        model.cuda()\n")
    assert _lines(moved) == []
    aliased = TABLE.replace("    model = models[args.model](4)\n",
                            "    model = models[args.model](4)\n    net = model\n    net.cuda()\n")
    assert _lines(aliased) == []


def test_a_model_handed_to_something_that_may_move_it_is_quiet() -> None:
    wrapped = TABLE.replace("    train(model, loader, args.cuda)\n",
                            "    model = Wrapper(model)\n    train(model, loader, args.cuda)\n")
    assert _lines(wrapped) == []


def test_a_table_of_classes_none_with_weights_is_quiet() -> None:
    weightless = TABLE.replace("self.fc = nn.Linear(n, 2)", "self.fc = nn.ReLU()").replace(
        "self.fc = nn.Sequential(nn.Linear(n, 8), nn.ReLU(), nn.Linear(8, 2))", "self.fc = nn.Tanh()")
    assert _lines(weightless) == []


def test_a_table_holding_something_else_is_quiet() -> None:
    other = TABLE.replace('models = {"small": Small, "big": Big}',
                          'models = {"small": Small, "big": torch.hub.load}')
    assert _lines(other) == []


def test_a_call_in_the_other_arm_of_the_flag_is_quiet() -> None:
    source = TABLE.replace("        out = model(data)\n", "        if not cuda:\n            out = model(data)\n")
    assert _lines(source) == []


def test_a_move_under_a_test_of_the_data_is_quiet() -> None:
    assert _lines(TABLE.replace("        if cuda:\n", "        if data.sum() > 0:\n")) == []


def test_a_move_under_a_test_of_the_model_is_quiet() -> None:
    source = TABLE.replace("        if cuda:\n", "        if next(model.parameters()).is_cuda:\n")
    assert _lines(source) == []


def test_a_move_under_a_flag_fixed_false_is_quiet() -> None:
    fixed = TABLE.replace("def train(model, loader, cuda):\n", "USE_CUDA = False\n\n\ndef train(model, loader, cuda):\n")
    assert _lines(fixed.replace("        if cuda:\n", "        if USE_CUDA:\n")) == []
    assert _lines(fixed.replace("        if cuda:\n", "        if not USE_CUDA:\n")) == [34]
