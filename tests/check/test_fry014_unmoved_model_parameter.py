"""FRY014's "input moved, model never moved" where the model is a parameter of the function
that calls it: reported when every call of the run passes a model built there with weights
and never moved, nor handed to anything that could move it, and the input is moved in the
arm where ``torch.cuda.is_available()`` holds (taken on every machine with a GPU).  Quiet
where a caller moves the model, hands it to a call the analysis cannot see into, or where
the function is called from nowhere the run shows."""

from __future__ import annotations

from collections.abc import Callable

MAIN = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import torchvision.datasets as datasets\n"
    "import torchvision.transforms as T\n"
    "\n"
    "\n"
    "def train(loader, model):\n"
    "    for images, labels in loader:\n"
    "        if torch.cuda.is_available():\n"
    "            images = images.cuda(non_blocking=True)\n"
    "        out = model(images)\n"
    "\n"
    "\n"
    "def main():\n"
    "    loader = torch.utils.data.DataLoader(datasets.CIFAR10('d', transform=T.ToTensor()))\n"
    "    model = nn.Linear(4, 2)\n"
    "    {between}\n"
    "    {call}\n"
    "\n"
    "\n"
    "{entry}\n"
)


def _main(between: str = "pass", call: str = "train(loader, model)", entry: str = "main()") -> dict[str, str]:
    return {"main.py": MAIN.format(between=between, call=call, entry=entry)}


def test_a_parameter_every_call_passes_unmoved_meets_a_moved_input(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_main(), "FRY014") == [11]


def test_a_caller_that_moves_the_model_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_main(between="model.cuda()"), "FRY014") == []
    assert finding_lines(_main(call="train(loader, model.cuda())"), "FRY014") == []


def test_a_model_handed_to_an_unseen_call_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_main(between="model = convert(model)"), "FRY014") == []
    assert finding_lines(_main(between="prepare(model)"), "FRY014") == []


def test_a_function_no_call_of_the_run_reaches_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_main(call="pass"), "FRY014") == []


def test_an_input_moved_where_the_gpu_is_missing_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = {"main.py": _main()["main.py"].replace("if torch.cuda.is_available():", "if not torch.cuda.is_available():")}
    assert finding_lines(files, "FRY014") == []
