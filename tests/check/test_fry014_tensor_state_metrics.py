"""FRY014 on a metric of torchmetrics whose state is made of tensors (a confusion matrix,
sums of counts), built on the CPU and called on tensors of the device: in the scope that
moves them, or in a function every call of the run gives them to (the parameters' place
is the callers'), on any tensor it is given (``metric(preds, target)`` with only
``target`` moved)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
from torchmetrics import AUROC, Accuracy, JaccardIndex
from torchmetrics.classification import MulticlassConfusionMatrix
"""

LOOP = """

def evaluate(model, loader, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        score(model(x).argmax(1), y)
"""

FLAGGED = {
    "callers_pass_moved": """
def score(pred, label):
    jaccard = JaccardIndex(num_classes=3)
    return jaccard(pred, label)
"""
    + LOOP,
    "only_the_target_moved": """
def score(model, loader, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        metric = MulticlassConfusionMatrix(num_classes=3)
        metric(model(x).argmax(1), y)
""",
    "rebuilt_under_one_name": """
def score(pred, label):
    metric = JaccardIndex(num_classes=3, average="none")
    per_class = metric(pred, label)
    metric = JaccardIndex(num_classes=3, average="macro")
    return per_class, metric(pred, label)
"""
    + LOOP,
}

QUIET = {
    "moved_metric": """
def score(pred, label):
    jaccard = JaccardIndex(num_classes=3).to(pred.device)
    return jaccard(pred, label)
"""
    + LOOP,
    "made_on_the_device": """
def score(pred, label):
    metric = Accuracy(task="multiclass", num_classes=3, device=pred.device)
    return metric(pred, label)
"""
    + LOOP,
    # a metric that keeps lists of what it is given computes where they are
    "list_state": """
def score(pred, label):
    metric = AUROC(task="multiclass", num_classes=3)
    return metric(pred, label)
"""
    + LOOP,
    "per_sample_lists": """
def score(pred, label):
    metric = Accuracy(task="multiclass", num_classes=3, multidim_average="samplewise")
    return metric(pred, label)
"""
    + LOOP,
    # the callers pass tensors on the CPU
    "callers_on_the_cpu": """
def score(pred, label):
    jaccard = JaccardIndex(num_classes=3)
    return jaccard(pred, label)


def evaluate(loader):
    for x, y in loader:
        score(x, y)
""",
    # a submodule of a module follows the module to its device
    "submodule_metric": """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.acc = Accuracy(task="multiclass", num_classes=3)

    def forward(self, x, y):
        out = self.fc(x)
        return out, self.acc(out.argmax(1), y)


def run(loader, device):
    net = Net().to(device)
    for x, y in loader:
        net(x.to(device), y.to(device))
""",
}


def _lines(src: str) -> list[int]:
    return [f.line for f in check_source(HEAD + src, "t.py", select=["FRY014"])]


def _marked(src: str) -> list[int]:
    """The lines that call a metric with tensors (``return jaccard(...)``, ``metric(...)``)."""
    lines = (HEAD + src).splitlines()
    return [
        i + 1
        for i, t in enumerate(lines)
        if ("metric(" in t or "jaccard(" in t)
        and "=" not in t.split("(")[0]
        or "per_class = metric(" in t
    ]


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_a_metric_left_on_the_cpu(name: str) -> None:
    assert _lines(FLAGGED[name]) == _marked(FLAGGED[name])


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert _lines(QUIET[name]) == []


def test_the_message_names_the_metric_error() -> None:
    (f,) = check_source(HEAD + FLAGGED["callers_pass_moved"], "t.py", select=["FRY014"])
    assert "Expected all tensors to be on the same device" in f.message
    assert "move the metric once (`jaccard.to(device)`)" in f.message
