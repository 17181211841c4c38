"""A model class of another file of the run whose ``__init__`` moves itself
(``self.to(self.device)``, ``self.cuda()``) is where that move puts it when the script
builds it, as a class of the script's own file is: FRY014, FRY010 and FRY003 read it on
the device.  A class of another file whose constructor moves nothing stays on the CPU, and
so does one given ``device="cpu"``."""

from __future__ import annotations

from collections.abc import Callable

NETMOD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, device=torch.device('cpu')):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "        self.device = device\n"
    "        {move}\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
)
MAIN = (
    "import torch\n"
    "{imp}\n"
    "\n"
    "\n"
    "def main():\n"
    "    device = torch.device('cuda') if torch.cuda.is_available() else torch.device('cpu')\n"
    "    net = {made}\n"
    "    f = net(torch.zeros(2, 4))\n"
    "    print(f.numpy())\n"
    "\n"
    "\n"
    "main()\n"
)


def _run(move: str = "self.to(self.device)", imp: str = "from netmod import Net",
         made: str = "Net(device=device)") -> dict[str, str]:
    return {"main.py": MAIN.format(imp=imp, made=made), "netmod.py": NETMOD.format(move=move)}


def test_a_model_of_another_file_that_moves_itself_meets_a_cpu_input(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(), "FRY014") == [8]
    assert finding_lines(_run(), "FRY010") == [8]
    assert finding_lines(_run(), "FRY003") == [9]


def test_the_class_named_through_its_module_is_followed_too(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = _run(imp="import netmod", made="netmod.Net(device=device)")
    assert finding_lines(files, "FRY014") == [8]


def test_a_constructor_that_moves_itself_to_the_gpu_without_a_device_argument(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = _run(move="self.cuda()", made="Net()")
    assert finding_lines(files, "FRY014") == [8]


def test_a_constructor_of_another_file_that_moves_nothing_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(move="pass"), "FRY014") == []
    assert finding_lines(_run(move="pass"), "FRY003") == []


def test_a_model_kept_on_the_cpu_by_its_call_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = _run(made="Net(device=torch.device('cpu'))")
    assert finding_lines(files, "FRY014") == []
    assert finding_lines(files, "FRY003") == []
