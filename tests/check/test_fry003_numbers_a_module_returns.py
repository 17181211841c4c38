"""FRY003 and a number that a module's ``forward`` returns beside its tensors: ``_, metric =
metric_func(out, u)``, where ``metric_func`` is an instance of a module class of the run
whose ``forward`` returns ``(loss, loss.sqrt().item())``, is a Python number, so a list of
them handed to NumPy is quiet.  The module is built in the function, or it is a parameter
that every call of the run passes such an instance, also through a function of the run
that is handed the validating function and only calls it (``run_train(...,
validate_epoch=validate)``).  Where the item is a tensor, where one call passes another
module, or where the function is handed on to an unknown caller, the finding stays."""

from __future__ import annotations

from collections.abc import Callable

LOSS = (
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class L2(nn.Module):\n"
    "    def forward(self, p, t):\n"
    "        loss = ((p - t) ** 2).mean()\n"
    "        metric = loss.sqrt(){item}\n"
    "        return loss, metric\n"
)
UTILS = (
    "import numpy as np\n"
    "\n"
    "\n"
    "def validate(model, metric_func, loader, device):\n"
    "    metric_val = []\n"
    "    for data in loader:\n"
    "        x = data['x'].to(device)\n"
    "        u = data['y'].to(device)\n"
    "        {take}\n"
    "        metric_val.append(metric)\n"
    "    return np.mean(metric_val, axis=0)\n"
    "\n"
    "\n"
    "def run_train(model, metric_func, device, validate_epoch=None):\n"
    "    for _ in range(3):\n"
    "        r = validate_epoch(model, metric_func, [], device)\n"
    "    return r\n"
)
MAIN = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from losses import L2\n"
    "from utils import run_train, validate\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = nn.Linear(3, 3).to(device)\n"
    "{calls}\n"
)
UNPACKED = "_, metric = metric_func(model(x), u)"
DIRECT = "validate(model, L2(), [], device)"
HANDED = "run_train(model, L2(), device, validate_epoch=validate)"


def _run(calls: str, take: str = UNPACKED, item: str = ".item()") -> dict[str, str]:
    return {"utils.py": UTILS.format(take=take), "losses.py": LOSS.format(item=item),
            "main.py": MAIN.format(calls=calls)}


def test_a_number_every_passed_module_returns_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines(_run(DIRECT), "FRY003") == []


def test_an_item_taken_by_position_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines(_run(DIRECT, take="metric = metric_func(model(x), u)[1]"), "FRY003") == []


def test_a_module_passed_through_a_handed_function_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines(_run(HANDED), "FRY003") == []


def test_a_tensor_the_module_returns_is_reported(finding_lines: Callable[..., list[int]]) -> None:
    assert finding_lines(_run(DIRECT, item=""), "FRY003") == [11]
    assert finding_lines(_run(HANDED, item=""), "FRY003") == [11]


def test_another_module_passed_by_one_call_is_reported(finding_lines: Callable[..., list[int]]) -> None:
    calls = f"{DIRECT}\nvalidate(model, nn.MSELoss(), [], device)"
    assert finding_lines(_run(calls), "FRY003") == [11]


def test_a_function_handed_to_an_unknown_caller_is_reported(finding_lines: Callable[..., list[int]]) -> None:
    calls = f"{HANDED}\nsorted([1], key=validate)"
    assert finding_lines(_run(calls), "FRY003") == [11]


def test_a_module_built_in_the_function_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    utils = UTILS.format(take=UNPACKED).replace("    metric_val = []\n", "    metric_val = []\n"
                                                "    metric_func = L2()\n")
    utils = "from losses import L2\n" + utils.replace("def validate(model, metric_func,", "def validate(model,")
    files = {"utils.py": utils, "losses.py": LOSS.format(item=".item()"),
             "main.py": MAIN.format(calls="validate(model, [], device)")}
    assert finding_lines(files, "FRY003") == []
    files["losses.py"] = LOSS.format(item="")
    assert finding_lines(files, "FRY003") == [utils.splitlines().index("    return np.mean(metric_val, axis=0)") + 1]
