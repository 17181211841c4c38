"""FRY013 and FRY014 and a batch item handed, unmoved, only to the call of a model whose
class the analysis cannot see (built or given elsewhere), next to moved inputs, in a loop
that tests the kind of its batch's items (``isinstance(tar, torch.Tensor)``: the batch holds
more than tensors): what the model makes of the item (file names, a graph library's blocks)
is its own affair, so it is reported only where the code itself uses it as a tensor, where
the call compares a module's output with it (a loss), or where nothing says the batch holds
anything but tensors."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lines = Callable[[dict[str, str], str], list[int]]


TRAIN = (
    "import torch\n"
    "def train(model, criterion, loader, device):\n"
    "    model.to(device)\n"
    "    for data_in, data_tar, data_info in loader:\n"
    "        data_in = data_in.to(device)\n"
    "        if isinstance(data_tar, torch.Tensor):\n"
    "            data_tar = data_tar.to(device)\n"
    "        out = model(data_in, data_info)\n"
    "        loss = criterion(out, data_tar)\n"
    "        n = len(data_info)\n"
)
#: the model's first argument, the item (FRY014's shape)
FIRST = TRAIN.replace("model(data_in, data_info)", "model(data_info, data_in)")


def findings(finding_lines: Lines, text: str, rule: str = "FRY013") -> list[int]:
    return finding_lines({"train.py": text}, rule)


@pytest.mark.parametrize(
    ("text", "rule"), [(TRAIN, "FRY013"), (FIRST, "FRY013"), (FIRST, "FRY014")]
)
def test_an_item_only_fed_to_an_unseen_model_is_left_alone(
    finding_lines: Lines, text: str, rule: str
) -> None:
    assert findings(finding_lines, text, rule) == []


@pytest.mark.parametrize(("text", "rule"), [(TRAIN, "FRY013"), (FIRST, "FRY014")])
def test_an_item_of_a_batch_of_tensors_only_is_reported(
    finding_lines: Lines, text: str, rule: str
) -> None:
    # (nothing tests the kind of an item: the batch holds tensors)
    plain = text.replace("        if isinstance(data_tar, torch.Tensor):\n    ", "")
    assert findings(finding_lines, plain, rule) == [7]


@pytest.mark.parametrize(
    ("use", "lines"),
    [
        (
            "        acc = (out.argmax(1) == data_info).sum()\n",
            [8, 11],
        ),  # an operator (a meeting too)
        ("        k = data_info.view(-1)\n", [8]),  # a method no container has
        ("        k = torch.flatten(data_info)\n", [8]),  # a torch function
    ],
)
def test_an_item_the_code_uses_as_a_tensor_is_reported(
    finding_lines: Lines, use: str, lines: list[int]
) -> None:
    assert findings(finding_lines, TRAIN + use) == lines


def test_an_item_the_code_uses_as_a_tensor_is_reported_at_the_model(finding_lines: Lines) -> None:
    assert findings(finding_lines, FIRST + "        k = data_info.view(-1)\n", "FRY014") == [8]


def test_an_item_compared_with_a_module_output_is_reported(finding_lines: Lines) -> None:
    # (a loss: the output of ``model`` meets the unmoved item)
    text = TRAIN.replace("loss = criterion(out, data_tar)", "loss = criterion(out, data_info)")
    assert findings(finding_lines, text) == [9]


def test_an_item_fed_to_a_model_class_of_the_file_is_followed_there(finding_lines: Lines) -> None:
    # (a model the file builds: its ``forward`` adds the item to the moved input)
    model = (
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, info):\n"
        "        return x + info\n"
        "def main(loader, device):\n"
        "    train(Net().to(device), nn.MSELoss(), loader, device)\n"
    )
    # (the parameter as it came in: each call's model is of a class of the file)
    assert findings(finding_lines, TRAIN.replace("    model.to(device)\n", "") + model) == [7]
