"""FRY003 on rows of device values handed to NumPy (``targets.append([i, cls, x, conf])``
then ``np.array(targets)``), on values moved to a device whose kind the analysis does not
know (``o = o.to(dev)`` of a parameter, ``[o.to(dev) for o in output]``) where NumPy reads
them, an item of them or arithmetic on these; and quiet in the arm of an ``isinstance``
test that rules a tensor out."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.carried import carried_move
from torchferry.check.flow.program import FileFlow

HEAD = '''
import numpy as np
import torch

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
'''

ROWS = HEAD + '''
def to_target(output):
    output = [torch.zeros(5, 7).to(dev) for _ in output]
    targets = []
    for i, o in enumerate(output):
        for pred in o:
            conf = pred[4]
            targets.append([i, conf])
    return np.array(targets)
'''

MOVED_ROWS = HEAD + '''
def to_target(output):
    output = [o.to(dev) for o in output]
    targets = []
    for i, o in enumerate(output):
        if o is not None:
            for pred in o:
                box = pred[:4]
                w = (box[2] - box[0]) / 640
                conf = pred[4]
                cls = int(pred[5])
                targets.append([i, cls, w, conf])
    return np.array(targets)
'''

MOVED_PARAMETER = HEAD + '''
def scaled(o):
    o = o.to(dev)
    x = o[0] / 5
    return np.array([x])
'''

MOVED_ITEM = HEAD + '''
def first(o):
    o = o.to(dev)
    targets = []
    targets.append(o[4])
    return np.asarray(targets)
'''

MOVED_WHOLE = HEAD + '''
def whole(o):
    o = o.to(dev)
    return np.mean(o)
'''

ARMS = HEAD + '''
def xyxy2xywh(x):
    y = torch.zeros_like(x) if isinstance(x, torch.Tensor) else np.zeros_like(x)
    return y

def wrong_arm(x):
    y = np.zeros_like(x) if isinstance(x, torch.Tensor) else 0
    return y

def statement(x):
    if isinstance(x, torch.Tensor):
        y = x + 1
    else:
        y = np.asarray(x)
    return y

def negated(x):
    if not isinstance(x, (torch.Tensor,)):
        return np.asarray(x)
    return np.asarray(x)

def run():
    m = torch.nn.Linear(2, 2).to(dev)
    out = m(torch.ones(2).to(dev))
    xyxy2xywh(out)
    wrong_arm(out)
    statement(out)
    negated(out)
'''


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in check_source(source, "t.py", select=["FRY003"]))


def _line(source: str, text: str, nth: int = 1) -> int:
    found = [i for i, line in enumerate(source.splitlines(), 1) if text in line]
    return found[nth - 1]


@pytest.mark.parametrize("source", [ROWS, MOVED_ROWS, MOVED_PARAMETER, MOVED_ITEM, MOVED_WHOLE],
                         ids=["rows-of-device-tensors", "rows-of-moved-items", "moved-parameter-arithmetic",
                              "moved-parameter-item", "moved-parameter"])
def test_a_moved_value_reaching_numpy_is_reported(source: str) -> None:
    assert _lines(source) == [_line(source, "return np.")]


@pytest.mark.parametrize(("source", "change"), [
    (ROWS, ("conf = pred[4]", "conf = pred[4].item()")),
    (ROWS, (".to(dev) for _", ".to(dev).cpu() for _")),
    (MOVED_ROWS, ("[o.to(dev) for o", "[o.to(dev).cpu() for o")),
    (MOVED_ROWS, ("[o.to(dev) for o", "[o.to('cpu') for o")),
    (MOVED_ROWS, ("[i, cls, w, conf]", "[i, cls, float(w), conf.item()]")),
    (MOVED_PARAMETER, ("o = o.to(dev)", "o = o.to(dev).cpu()")),
    (MOVED_PARAMETER, ("x = o[0] / 5", "x = o.num_nodes / 5")),
    (MOVED_ITEM, ("o = o.to(dev)", "o = o.to('cpu')")),
    (MOVED_WHOLE, ("return np.mean(o)", "return np.mean(o.decode(3))")),
], ids=["item-read", "brought-home", "moved-home", "moved-to-cpu", "moved-items-read",
        "moved-parameter-home", "attribute", "moved-item-to-cpu", "method-result"])
def test_values_on_the_cpu_or_of_unknown_kind_are_quiet(source: str, change: tuple[str, str]) -> None:
    old, new = change
    assert old in source
    assert _lines(source.replace(old, new)) == []


def test_a_moved_module_never_given_to_numpy_is_quiet() -> None:
    source = HEAD + '''
def run(m, x):
    m = m.to(dev)
    out = m(x)
    return np.array([len(out)])
'''
    assert _lines(source) == []


def test_isinstance_narrows_each_arm() -> None:
    assert _lines(ARMS) == [_line(ARMS, "y = np.zeros_like(x) if"), _line(ARMS, "return np.asarray(x)", 2)]


def test_carried_items_and_arithmetic_but_not_attributes() -> None:
    src = HEAD + '''
def f(o, width):
    o = o.to(dev)
    for pred in o:
        w = (pred[2] - pred[0]) / width
        n = pred.num_nodes
        d = pred.decode()
        k = pred["name"]
    return w, n, d, k
'''
    res = next(r for r in FileFlow(ast.parse(src), "t.py").results() if getattr(r.node, "name", "") == "f")
    ret = res.node.body[-1].value
    assert isinstance(ret, ast.Tuple)
    found = [carried_move(res, e) for e in ret.elts]
    assert found[0] is not None and found[0].line == _line(src, "o = o.to(dev)")
    assert found[1:] == [None, None, None]
