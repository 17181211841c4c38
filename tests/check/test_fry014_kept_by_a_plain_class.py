"""FRY014: a model a plain class (a trainer) keeps from its constructor
(``self.model = model``), where every construction of the class in the run hands it a
model built on the CPU and never moved, meets the batches the class moves to the device.
Quiet where the model is moved before or after the construction, or by ``__init__``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

PROGRAM = """\
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, loader, gpu_id):
        self.gpu_id = gpu_id
        self.model = model
        self.loader = loader
        #INIT

    def _run_batch(self, source, targets):
        output = self.model(source)
        return F.cross_entropy(output, targets)

    def run(self):
        for source, targets in self.loader:
            source = source.to(self.gpu_id)
            targets = targets.to(self.gpu_id)
            self._run_batch(source, targets)


def build():
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    return model, optimizer


def main(device, dataset):
    model, optimizer = build()
    loader = DataLoader(dataset, batch_size=8)
    trainer = Trainer(#MODEL, loader, device)
    #AFTER
    trainer.run()


if __name__ == "__main__":
    main(0, [])
"""

CALL = PROGRAM.splitlines().index("        output = self.model(source)") + 1


def _program(model: str = "model", init: str = "pass", after: str = "pass") -> str:
    return PROGRAM.replace("#MODEL", model).replace("#INIT", init).replace("#AFTER", after)


@pytest.mark.parametrize("model", ["model", "torch.nn.Linear(20, 1)"])
def test_a_kept_model_built_on_the_cpu_meets_the_moved_batch(
    finding_lines: Callable[..., list[int]], model: str
) -> None:
    assert finding_lines({"train.py": _program(model=model)}, "FRY014") == [CALL]


@pytest.mark.parametrize(
    ("model", "init", "after"),
    [
        ("model.to(device)", "pass", "pass"),  # moved at the construction
        ("model", "pass", "model.to(device)"),  # moved in place after it
        ("model", "model.to(gpu_id)", "pass"),  # moved in place by __init__
        ("model", "self.model.to(gpu_id)", "pass"),  # ... through the attribute
        ("model", "pass", "torch.nn.DataParallel(model).cuda()"),  # wrapped and moved
        ("model", "self.model = self.model.to(gpu_id)", "pass"),  # stored again, moved
    ],
)
def test_a_kept_model_moved_somewhere_is_not_reported(
    finding_lines: Callable[..., list[int]], model: str, init: str, after: str
) -> None:
    assert finding_lines({"train.py": _program(model, init, after)}, "FRY014") == []


def test_a_kept_model_moved_by_another_construction_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    """Every construction of the run must hand it a model on the CPU."""
    text = _program().replace(
        "    trainer.run()\n",
        "    trainer.run()\n    Trainer(model.cuda(), loader, device).run()\n",
    )
    assert finding_lines({"train.py": text}, "FRY014") == []
