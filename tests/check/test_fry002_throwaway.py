"""FRY002 and a discarded move of a tensor a shape factory makes on the spot: nothing
holds it, so no tensor is left on the old device (a warm-up that opens a device context);
a move of a held tensor, or of one made from a value, still counts."""

from __future__ import annotations

from collections.abc import Callable

WARM_UP = (
    "import torch\n"
    "\n"
    "def occupy(gpus=None):\n"
    "    if gpus is None:\n"
    "        torch.zeros(1).cuda()\n"
    "    else:\n"
    "        for g in gpus:\n"
    "            torch.zeros(1).cuda(g)\n"
)


def test_a_fresh_factory_tensor_moved_and_discarded_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"gpu.py": WARM_UP}, "FRY002") == []


def test_a_held_factory_tensor_moved_and_discarded_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    held = (
        "import torch\n"
        "\n"
        "def occupy(model):\n"
        "    x = torch.zeros(1)\n"
        "    x.cuda()\n"
        "    return model(x)\n"
    )
    assert finding_lines({"gpu.py": held}, "FRY002") == [5]


def test_a_tensor_made_from_a_value_moved_and_discarded_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    made = (
        "import torch\n"
        "\n"
        "def step(model, data):\n"
        "    for x in data:\n"
        "        torch.tensor(x).cuda()\n"
        "        y = model(x)\n"
    )
    assert finding_lines({"gpu.py": made}, "FRY002") == [5]


def test_a_module_returned_by_its_eval_moved_in_place_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    verify = (
        "import torch\n"
        "\n"
        "def verify(model: torch.nn.Module, f=None, inputs=None, device=None, trace=False):\n"
        "    if trace:\n"
        "        script_module = torch.jit.trace(model, example_inputs=inputs)\n"
        "    else:\n"
        "        script_module = torch.jit.script(model)\n"
        "    ts_model = torch.jit.load(f) if f is not None else script_module\n"
        "    ts_model.eval().to(device)\n"
        "    return ts_model(*inputs)\n"
    )
    assert finding_lines({"verify.py": verify}, "FRY002") == []


def test_a_tensor_parameter_cast_and_discarded_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    cast = (
        "import torch\n"
        "\n"
        "def verify(model, x: torch.Tensor, device):\n"
        "    x.float().to(device)\n"
        "    return model(x)\n"
    )
    assert finding_lines({"verify.py": cast}, "FRY002") == [4]
