"""FRY003: a value given to a torch function where its signature takes a Python number
(``F.one_hot(t, num_classes=model.n_classes)``, ``torch.topk(t, model.k)``,
``torch.softmax(t, dim=model.dim)``) is not a tensor the result computes with, so an
attribute of a model on the accelerator does not put a result made from CPU data there."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import numpy as np
import sklearn.metrics
import torch
import torch.nn.functional as F

class Net(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_classes = cfg.num_classes
        self.k = cfg.k
        self.dim = cfg.dim
        self.fc = torch.nn.Linear(8, cfg.num_classes)

def evaluate(model, loader, device):
    labels, scores = [], []
    for x, y in loader:
        labels.append(y.to("cpu"))
        scores.append(model(x.to(device)).detach().to("cpu"))
    y = torch.cat(labels)
    s = torch.vstack(tuple(scores))
'''
TAIL = '''
model = Net(object()).to("cuda" if torch.cuda.is_available() else "cpu")
evaluate(model, [], "cuda")
'''
ONE_HOT_KEYWORD = HEAD + '''    t = F.one_hot(y.long(), num_classes=model.n_classes)
    return sklearn.metrics.roc_auc_score(t, s, multi_class="ovr")
''' + TAIL
ONE_HOT_POSITIONAL = HEAD + '''    t = F.one_hot(y, model.n_classes)
    return np.asarray(t)
''' + TAIL
TOPK = HEAD + '''    best = torch.topk(s, model.k, dim=model.dim).indices
    return best.numpy()
''' + TAIL
SOFTMAX = HEAD + '''    p = torch.softmax(s, dim=model.dim)
    return sklearn.metrics.average_precision_score(y, p)
''' + TAIL


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


@pytest.mark.parametrize("source", [ONE_HOT_KEYWORD, ONE_HOT_POSITIONAL, TOPK, SOFTMAX],
                         ids=["one-hot-keyword", "one-hot-positional", "topk", "softmax-dim"])
def test_a_number_argument_from_a_model_on_the_device_is_quiet(source: str) -> None:
    assert _lines(source) == []


@pytest.mark.parametrize(("source", "change"), [
    (ONE_HOT_KEYWORD, ('labels.append(y.to("cpu"))', "labels.append(y.to(device))")),
    (ONE_HOT_POSITIONAL, ('labels.append(y.to("cpu"))', "labels.append(y.to(device))")),
    (TOPK, ('.detach().to("cpu")', ".detach()")),
    (SOFTMAX, ('.detach().to("cpu")', ".detach()")),
], ids=["one-hot-keyword", "one-hot-positional", "topk", "softmax-dim"])
def test_the_tensor_argument_on_the_device_is_still_found(source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert len(_lines(changed)) == 1


def test_a_tensor_argument_from_the_model_still_counts() -> None:
    """``torch.add(s, model.fc.weight[0])``: a tensor argument, not a number one."""
    source = HEAD + '''    w = torch.add(s, model.fc.weight[0])
    return w.numpy()
''' + TAIL
    assert len(_lines(source)) == 1
