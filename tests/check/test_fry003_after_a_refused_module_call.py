"""A module call that no ``forward`` of the classes the model may be can bind (a keyword
no parameter has, no ``**kwargs``) raises ``TypeError``: what follows it in its block is
never reached, and FRY003 reports nothing there.  A call some class binds, a model of a
class not known, a class of its own ``__call__`` or a ``forward`` taking ``**kwargs`` keep
the finding."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, ignore_logdet=False):
        return self.fc(x), x, x


class Big(Net):
    pass


def analyse(model, loader, use_cuda):
    for inputs, targets in loader:
        if use_cuda:
            inputs = inputs.cuda()
        out, a, gt = model(inputs, exact_trace=True)
        np.save("f", gt)
        return


def main(loader, big):
    use_cuda = torch.cuda.is_available()
    model = Big() if big else Net()
    if use_cuda:
        model.cuda()
    analyse(model, loader, use_cuda)
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def test_what_follows_a_call_every_class_refuses_is_not_reported() -> None:
    assert _lines(SOURCE) == []


@pytest.mark.parametrize("change", [
    ("exact_trace=True", "ignore_logdet=True"),
    ("exact_trace=True", "True"),
    ("model = Big() if big else Net()", "model = Big() if big else torch.load('m.pt')"),
    ("def forward(self, x, ignore_logdet=False):", "def forward(self, x, ignore_logdet=False, **kw):"),
    ("class Big(Net):\n    pass", "class Big(Net):\n    def forward(self, x, exact_trace=False):\n"
                                   "        return self.fc(x), x, x"),
    ("class Big(Net):\n    pass", "class Big(Net):\n    def __call__(self, *a, **k):\n"
                                   "        return self.forward(a[0])"),
])
def test_a_call_that_may_run_keeps_the_finding(change: tuple[str, str]) -> None:
    assert change[0] in SOURCE
    source = SOURCE.replace(*change)
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "np.save" in text)
    assert _lines(source) == [line]
