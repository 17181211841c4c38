"""Where frameworks put the module beyond the batches of the step hooks: ``self`` of a hook
that Lightning's trainer calls during ``fit``/``validate``/``test``/``predict`` is where the
trainer runs, an accelerator when the run's ``Trainer`` may use one, so a tensor made on the
CPU that meets it -- there, or in a helper the hook hands ``self`` to -- is FRY014's mistake.
A hook Lightning calls before the move (``setup``), a method no framework calls, a class not
derived from Lightning's, or a ``Trainer`` that surely runs on the CPU (or whose device the
code does not show) stay quiet.  What accelerate's ``Accelerator().prepare(...)`` hands back
is where the accelerator runs: a CPU tensor given to the prepared model, or meeting a
prepared loader's batch, is reported; one made on ``accelerator.device``, moved there, or an
``Accelerator`` that does not place (``cpu=True``, ``device_placement=False``) stays quiet."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.libfacts import Placement, hook_parameter, trainer_may_accelerate
from torchferry.check.flow.program import FileFlow

HELPER = """
import numpy as np
import torch
import pytorch_lightning as pl


def sample(network, n):
    x = torch.from_numpy(np.zeros((1, n), dtype=np.float32))
    return network(x)


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

    def training_step(self, batch, batch_idx):
        return self(batch).sum()

    def {hook}(self{extra}):
        print(sample(self, 4))


def main(gpus=None):
    trainer = pl.Trainer({trainer})
    trainer.fit(Model())
"""

OWN_CALL = """
import torch
from lightning.pytorch import LightningModule, Trainer


class Model(LightningModule):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

    def on_train_start(self):
        probe = torch.randn(2, 4)
        self(probe)


Trainer(accelerator="gpu", devices=1).fit(Model())
"""


def _fry014(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _helper(hook: str = "validation_epoch_end", extra: str = ", outputs",
            trainer: str = "gpus=gpus", base: str = "pl.LightningModule") -> str:
    return HELPER.format(hook=hook, extra=extra, trainer=trainer).replace(
        "class Model(pl.LightningModule)", f"class Model({base})")


@pytest.mark.parametrize(
    ("hook", "extra", "trainer"),
    [
        ("validation_epoch_end", ", outputs", "gpus=gpus"),
        ("on_train_start", "", "gpus=1"),
        ("on_validation_epoch_end", "", "accelerator='auto'"),
        ("on_train_batch_end", ", outputs, batch, batch_idx", "tpu_cores=8"),
    ],
    ids=["epoch-end-gpus-option", "train-start", "auto-accelerator", "batch-end"],
)
def test_self_handed_to_a_helper_from_a_run_hook_is_on_the_trainers_device(
        hook: str, extra: str, trainer: str) -> None:
    source = _helper(hook, extra, trainer)
    assert _fry014(source) == [_line(source, "return network(x)")]


def test_a_cpu_tensor_given_to_self_in_a_run_hook_is_reported() -> None:
    assert _fry014(OWN_CALL) == [_line(OWN_CALL, "self(probe)")]


@pytest.mark.parametrize(
    "source",
    [
        _helper(trainer="gpus=0"),
        _helper(trainer=""),
        _helper(trainer="accelerator='cpu', devices=4"),
        _helper(trainer="**vars(args)"),
        _helper(hook="setup", extra=", stage"),
        _helper(hook="on_fit_start", extra=""),
        _helper(hook="generate", extra=""),
        _helper(base="torch.nn.Module"),
        OWN_CALL.replace('accelerator="gpu"', 'accelerator="cpu"'),
    ],
    ids=["no-gpus", "bare-trainer", "cpu-accelerator", "unknown-options", "setup-hook",
         "fit-start", "own-method", "plain-module", "cpu-trainer"],
)
def test_quiet_where_the_trainer_or_the_hook_does_not_place_self(source: str) -> None:
    assert _fry014(source) == []


def test_a_trainer_of_an_importing_file_places_the_module(
        finding_lines: Callable[..., list[int]]) -> None:
    model = _helper().split("\n\ndef main")[0] + "\n"
    train = "import pytorch_lightning as pl\nfrom model import Model\n\n" \
            "pl.Trainer({}).fit(Model())\n"
    line = _line(model, "return network(x)")
    assert finding_lines({"model.py": model, "train.py": train.format("gpus=2")}, "FRY014") == [line]
    assert finding_lines({"model.py": model, "train.py": train.format("gpus=None")}, "FRY014") == []


def test_hook_parameter_places_self_of_the_run_hooks_only() -> None:
    ff = FileFlow(ast.parse(_helper()), "t.py")
    node = next(n for n in ff.tree.body if isinstance(n, ast.ClassDef))
    info = ff.class_info(node)
    assert hook_parameter(info, "on_validation_epoch_end", 0) is Placement.TRAINER_DEVICE
    assert hook_parameter(info, "training_step", 0) is Placement.TRAINER_DEVICE
    assert hook_parameter(info, "training_step", 1) is Placement.MODULE_DEVICE
    assert hook_parameter(info, "setup", 0) is None
    assert hook_parameter(info, "forward", 0) is None


@pytest.mark.parametrize(
    ("call", "expected"),
    [("Trainer(gpus=[0, 1])", True), ("Trainer(gpus=[])", False), ("Trainer(gpus='0')", False),
     ("Trainer(accelerator=args.accelerator)", False), ("Trainer(devices=2)", False)],
)
def test_trainer_may_accelerate_reads_only_written_out_devices(call: str, expected: bool) -> None:
    node = ast.parse(call).body[0]
    assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    assert trainer_may_accelerate(node.value) is expected


PREPARED = """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from mydata import Data


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


def main():
    accelerator = Accelerator({options})
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Data(), batch_size=4)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for x, y in loader:
        {loop}
        accelerator.backward(loss)
"""

_NOISE = "noise = torch.randn(x.shape); loss = model(x + noise).sum()"
_PROBE = "probe = torch.randn(2, 4); loss = model(probe).sum()"


def _prepared(options: str = "", loop: str = _NOISE) -> str:
    return PREPARED.format(options=options, loop=loop)


def _rule_lines(source: str, rule: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=[rule])]


@pytest.mark.parametrize(("loop", "rule", "site"), [
    (_NOISE, "FRY010", "torch.randn(x.shape)"),
    (_PROBE, "FRY014", "torch.randn(2, 4)"),
], ids=["factory-meets-a-prepared-batch", "factory-given-a-prepared-model"])
def test_what_accelerate_prepares_is_where_the_accelerator_runs(loop: str, rule: str, site: str) -> None:
    source = _prepared(loop=loop)
    assert _rule_lines(source, rule) == [_line(source, site)]


@pytest.mark.parametrize("source", [
    _prepared("cpu=True"),
    _prepared("device_placement=False"),
    _prepared("**config"),
    _prepared(loop="noise = torch.randn(x.shape, device=accelerator.device); loss = model(x + noise).sum()"),
    _prepared(loop="noise = torch.randn(x.shape).to(accelerator.device); loss = model(x + noise).sum()"),
    _prepared(loop="probe = torch.randn(2, 4).to(accelerator.device); loss = model(probe).sum()"),
    _prepared().replace("from accelerate import Accelerator", "from mylib import Accelerator"),
    _prepared().replace("accelerator.prepare(model, opt, loader)",
                        "accelerator.prepare(model, opt, loader, device_placement=[False] * 3)"),
], ids=["cpu-accelerator", "no-placement", "unknown-options", "made-on-its-device",
        "moved-to-its-device", "input-moved-to-its-device", "not-accelerates", "placement-keyword"])
def test_quiet_where_accelerate_does_not_place_or_the_tensor_follows(source: str) -> None:
    assert _rule_lines(source, "FRY010") == []
    assert _rule_lines(source, "FRY014") == []


def test_a_single_prepared_model_is_the_model_itself() -> None:
    source = _prepared(loop=_PROBE).replace(
        "model, opt, loader = accelerator.prepare(model, opt, loader)",
        "model = accelerator.prepare_model(model)\n    loader = accelerator.prepare(loader)")
    assert _rule_lines(source, "FRY014") == [_line(source, "torch.randn(2, 4)")]
