"""FRY014 and a model a function reads from the scope around it: handed there to a class
that may move it (``Trainer(model)``, whose ``__init__`` moves what it keeps), it is not
known to be left on the CPU when the function calls it, or a method of it, on a moved
input; never handed on, it still is."""

from __future__ import annotations

from collections.abc import Callable

TRAINER = (
    "import torch\n"
    "\n"
    "\n"
    "class Trainer:\n"
    "    def __init__(self, config, net, data):\n"
    "        self.net = net\n"
    "        if config.device == 'auto':\n"
    "            self.device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "        else:\n"
    "            self.device = config.device\n"
    "        self.net = self.net.to(self.device)\n"
)
RUN = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from torch.utils.data import DataLoader\n"
    "from trainer import Trainer\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
    "    def generate(self, x, n):\n"
    "        for _ in range(n):\n"
    "            x = self(x)\n"
    "        return x\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    model = Net()\n"
    "    trainer = Trainer(None, model, None)\n"
    "\n"
    "    def evaluate(trainer, data):\n"
    "        loader = DataLoader(data, batch_size=100)\n"
    "        for b, (x, y) in enumerate(loader):\n"
    "            x = x.to(trainer.device)\n"
    "            return model.generate(x, 3)\n"
    "\n"
    "    evaluate(trainer, [])\n"
)
HANDED = "    trainer = Trainer(None, model, None)\n"


def test_a_model_handed_to_a_class_around_the_function_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert HANDED in RUN
    assert finding_lines({"run.py": RUN, "trainer.py": TRAINER}, "FRY014") == []


def test_a_model_never_handed_on_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    kept = RUN.replace(HANDED, "    trainer = Trainer(None, None, None)\n")
    assert finding_lines({"run.py": kept, "trainer.py": TRAINER}, "FRY014") == [17, 29]
