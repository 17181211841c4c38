"""FRY003 and a model attribute that joins ``None`` and a module: ``self.model = None`` in
``__init__`` and a moved model assigned later.  Calling the attribute calls the module (the
``None`` path raises at the call), so its output is on the device where the module is;
not where the module assigned is left on the CPU, nor where the other value is an object
of a plain class of the run, which may bring its results home."""

from __future__ import annotations

from collections.abc import Callable

GUESSER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "\n"
    "\n"
    "class RnnModel(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 3)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
    "\n"
    "class Guesser:\n"
    "    def __init__(self):\n"
    "        self.model = None\n"
    "\n"
    "    def train(self, x):\n"
    "        self.model = RnnModel()\n"
    "        self.model = self.model.to(device)\n"
    "        return self.run(x.to(device))\n"
    "\n"
    "    def run(self, x):\n"
    "        out = self.model(x)\n"
    "        _, preds = torch.max(out, 1)\n"
    "        return preds.numpy()\n"
)


def test_the_output_of_a_moved_model_joined_with_none_is_on_the_device(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"qb.py": GUESSER}, "FRY003") == [28]


def test_a_model_left_on_the_cpu_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    kept = GUESSER.replace("self.model.to(device)", "self.model.to('cpu')").replace(
        "x.to(device)", "x"
    )
    assert finding_lines({"qb.py": kept}, "FRY003") == []


def test_an_object_of_a_plain_class_joined_with_the_model_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    plain = GUESSER.replace(
        "        self.model = None\n",
        "        self.model = Home()\n",
    ) + ("\n\nclass Home:\n    def __call__(self, x):\n        return x.cpu()\n")
    assert finding_lines({"qb.py": plain}, "FRY003") == []


def test_a_local_joined_with_none_is_called_as_the_module(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = (
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "\n"
        "\n"
        "def run(x, big):\n"
        "    model = None\n"
        "    if big:\n"
        "        model = nn.Linear(4, 2).to(device)\n"
        "    out = model(x.to(device))\n"
        "    return (out + 1).numpy()\n"
    )
    assert finding_lines({"run.py": code}, "FRY003") == [12]
