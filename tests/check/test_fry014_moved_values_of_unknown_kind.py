"""FRY014 on a value moved to a device whose kind the analysis does not know (``s =
s.to(dev)`` of a parameter), where a use says it is a tensor: a layer of ``torch.nn`` that
takes tensors is given it, here or in a helper of the run (whose parameter is then what
every call passes), or the helper uses its parameter as a tensor (``x.view(...)``)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''
import torch

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
'''

HELPER = HEAD + '''
def resample(x):
    r = torch.nn.Conv1d(1, 1, 3)
    return r(x)

def load(s):
    s = s.to(dev)
    return resample(s)
'''

LOCAL = HEAD + '''
def load(s):
    s = s.to(dev)
    r = torch.nn.Conv1d(1, 1, 3)
    return r(s)
'''

VIEWED = HEAD + '''
def resample(x):
    r = torch.nn.Conv1d(1, 1, 3)
    y = x.view(1, 1, -1)
    return r(y)

def load(s):
    s = s.to(dev)
    return resample(s)
'''


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in check_source(source, "t.py", select=["FRY014"]))


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("source", "site"), [(HELPER, "return r(x)"), (LOCAL, "return r(s)"), (VIEWED, "return r(y)")],
                         ids=["helper", "same-scope", "helper-uses-as-tensor"])
def test_a_moved_value_given_to_a_layer_is_a_tensor(source: str, site: str) -> None:
    assert _lines(source) == [_line(source, site)]


@pytest.mark.parametrize(("source", "change"), [
    (HELPER, ("s = s.to(dev)", "s = s.to(dev).cpu()")),
    (HELPER, ("s = s.to(dev)", 's = s.to("cpu")')),
    (LOCAL, ("r = torch.nn.Conv1d(1, 1, 3)", "r = torch.nn.Conv1d(1, 1, 3).to(dev)")),
    (HELPER, ("r = torch.nn.Conv1d(1, 1, 3)", "r = torch.nn.Sequential(torch.nn.Conv1d(1, 1, 3))")),
], ids=["brought-home", "moved-to-cpu", "layer-moved", "container"])
def test_quiet_where_the_input_is_home_or_the_model_may_take_anything(source: str, change: tuple[str, str]) -> None:
    old, new = change
    assert old in source
    assert _lines(source.replace(old, new)) == []


def test_a_moved_module_handed_to_a_helper_is_quiet() -> None:
    source = HEAD + '''
def run(m, x):
    m = m.to(dev)
    return apply(m, x)

def apply(m, x):
    r = torch.nn.Sequential(torch.nn.Linear(2, 2))
    return r(m(x))
'''
    assert _lines(source) == []
