"""FRY003 under a test on the device: an arm that moves the tensor to the accelerator is
no arm that brings it home.  ``t.cuda().numpy() if gpu else t.cpu().numpy()`` fails in its
first arm, and ``p = p.cuda() if gpu else p.cpu()`` leaves ``p`` on the accelerator before
``p.numpy()``; an arm that leaves the tensor alone (``out.cpu() if out.is_cuda else out``)
or a test whose GPU arm brings it home stays quiet."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SITE_ARM_MOVES_AWAY = """
import torch

def spectrum(spek, device):
    with torch.no_grad():
        data = spek.cuda().numpy() if device.type == "cuda" else spek.cpu().numpy()
    return data
"""

OTHER_ARM_MOVES_AWAY = """
import torch

class Sync:
    def __init__(self, model):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = model.to(self.device)

    def run(self, batch):
        batch = torch.as_tensor(batch).to(self.device)
        with torch.no_grad():
            pred = self.model(batch)
        pred = pred.cuda() if self.device == "cuda" else pred.cpu()
        return pred.numpy()
"""

STATEMENT_ARM_MOVES_AWAY = """
import torch

def scores(x, use_gpu):
    x = torch.as_tensor(x)
    if use_gpu:
        x = x.cuda()
        out = x.numpy()
    else:
        out = x.cpu().numpy()
    return out
"""

CASES = {
    "site arm": (SITE_ARM_MOVES_AWAY, "spek.cuda().numpy()"),
    "other arm": (OTHER_ARM_MOVES_AWAY, "pred.numpy()"),
    "statement": (STATEMENT_ARM_MOVES_AWAY, "out = x.numpy()"),
}

QUIET = {
    # the arm that does not bring it home leaves it where it is
    "left alone": OTHER_ARM_MOVES_AWAY.replace(
        'pred = pred.cuda() if self.device == "cuda" else pred.cpu()',
        "pred = pred.cpu() if pred.is_cuda else pred",
    ),
    # both arms bring it home
    "both home": SITE_ARM_MOVES_AWAY.replace("spek.cuda().numpy()", "spek.cpu().numpy()"),
    # the CPU arm of a test reads it, the GPU arm brings it home
    "cpu arm": STATEMENT_ARM_MOVES_AWAY.replace(
        "x = x.cuda()\n        out = x.numpy()", "out = x.cuda().cpu().numpy()"
    ).replace("out = x.cpu().numpy()", "out = x.numpy()"),
}


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(k for k, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_arm_that_moves_to_the_accelerator_does_not_bring_it_home(name: str) -> None:
    source, site = CASES[name]
    assert lines(source) == [line_of(source, site)]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_an_arm_that_brings_it_home_or_leaves_it_stays_quiet(name: str) -> None:
    assert lines(QUIET[name]) == []
