"""FRY014 and the methods of a model's module class of the run: ``model.log_probs(x)``
whose method runs ``self(x)`` (or ``self.forward(x)``) is a call of the model on ``x``, so
a moved input given to a model the file never moves is reported there, as ``model(x)``
is; a method that moves the module itself, or a model moved once, keeps it quiet.  And
``self.forward(x)`` inside a module's method meets the module's weights as ``self(x)``
does: a CPU tensor it is given while the module is on the device is reported."""

from __future__ import annotations

from collections.abc import Callable

FLOWS = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Flow(nn.Sequential):\n"
    "    def forward(self, x, cond=None):\n"
    "        for m in self._modules.values():\n"
    "            x = m(x)\n"
    "        return x\n"
    "\n"
    "    def log_probs(self, x, cond=None):\n"
    "        {body}\n"
    "        return self{run}(x, cond).sum(-1)\n"
)
MAIN = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import flows as fnn\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = fnn.Flow(nn.Linear(4, 4))\n"
    "{after}\n"
    "loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4)))\n"
    "\n"
    "\n"
    "def train():\n"
    "    for data in loader:\n"
    "        data = data[0].to(device)\n"
    "        loss = model.log_probs(data, None).mean()\n"
    "\n"
    "\n"
    "train()\n"
)


def _run(after: str = "pass", body: str = "pass", run: str = "") -> dict[str, str]:
    return {"main.py": MAIN.format(after=after), "flows.py": FLOWS.format(body=body, run=run)}


def test_a_method_that_runs_the_model_is_a_call_of_it(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(), "FRY014") == [14]
    assert finding_lines(_run(run=".forward"), "FRY014") == [14]


def test_a_bare_statement_of_the_model_moves_nothing(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(after="model"), "FRY014") == [14]


def test_a_model_moved_once_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(after="model.to(device)"), "FRY014") == []


def test_a_method_that_moves_the_module_itself_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(body="self.cuda()"), "FRY014") == []


def test_a_model_handed_to_something_else_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines(_run(after="setup(model)"), "FRY014") == []


SEQ = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Seq(nn.Sequential):\n"
    "    def forward(self, x, mode='direct'):\n"
    "        for m in self._modules.values():\n"
    "            x = m(x)\n"
    "        return x\n"
    "\n"
    "    def sample(self, n):\n"
    "        noise = torch.Tensor(n, 4).normal_()\n"
    "        {move}\n"
    "        return self.forward(noise, mode='inverse')\n"
)
SEQ_MAIN = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import fl\n"
    "\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = fl.Seq(nn.Linear(4, 4))\n"
    "model.to(device)\n"
    "s = model.sample(5)\n"
)


def test_self_forward_meets_the_weights_as_self_does(
    finding_lines: Callable[..., list[int]],
) -> None:
    files = {"fl.py": SEQ.format(move="pass"), "main.py": SEQ_MAIN}
    assert finding_lines(files, "FRY014") == [14]


def test_self_forward_of_a_moved_input_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    moved = {"fl.py": SEQ.format(move="noise = noise.to(next(self.parameters()).device)"), "main.py": SEQ_MAIN}
    assert finding_lines(moved, "FRY014") == []
