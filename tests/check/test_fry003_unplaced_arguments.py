"""FRY003 and a helper of another file that moves its input on one path (``if gpu >= 0:
z = z.cuda()``) and returns what it computes from it, called with a tensor of unknown place
(``loader.collate_fn([z])``): the analysis cannot place the argument, so the joined result's
place is unknown, but the helper's move stays among its origins and, on that path, the
result is on the accelerator.  Not where the helper brings it home, moves nothing, or moves
it to the CPU."""

from __future__ import annotations

from collections.abc import Callable

HELPER = (
    "import torch\n"
    "from torch.autograd import grad\n"
    "\n"
    "\n"
    "def grad_z(z, t, model, gpu=-1):\n"
    "    if gpu >= 0:\n"
    "        z, t = z.{MOVE}, t.{MOVE}\n"
    "    loss = torch.nn.functional.cross_entropy(model(z), t)\n"
    "    params = [p for p in model.parameters() if p.requires_grad]\n"
    "    return [g{HOME} for g in grad(loss, params)]\n"
)

CALLER = (
    "import numpy as np\n"
    "import torch\n"
    "from helpers import grad_z\n"
    "\n"
    "\n"
    "def influences(model, loader, test_vec, gpu=0):\n"
    "    out = []\n"
    "    for i in range(len(loader.dataset)):\n"
    "        z, t = loader.dataset[i]\n"
    "        z, t = loader.collate_fn([z]), loader.collate_fn([t])\n"
    "        vec = grad_z(z, t, model, gpu=gpu)\n"
    "        out.append(-sum([torch.sum(k * j).data for k, j in zip(vec, test_vec)]))\n"
    "    return np.argsort(out)\n"
)


def _run(finding_lines: Callable[..., list[int]], move: str = "cuda()", home: str = "") -> list[int]:
    helper = HELPER.replace("{MOVE}", move).replace("{HOME}", home)
    return finding_lines({"calc.py": CALLER, "helpers.py": helper}, "FRY003")


def test_a_result_moved_on_one_path_of_the_helper_is_on_the_device(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert _run(finding_lines) == [13]


def test_a_result_the_helper_brings_home_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert _run(finding_lines, home=".cpu()") == []


def test_a_helper_that_moves_nothing_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert _run(finding_lines, move="float()") == []


def test_a_move_to_the_cpu_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    assert _run(finding_lines, move="to('cpu')") == []
