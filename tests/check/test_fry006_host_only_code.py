"""FRY006 on code that queues no device work: a model of the run built through a ``**kw``
spread that cannot carry a device into its ``__init__`` and timed on CPU tensors (a
``__main__`` smoke test, also with literal keyword arguments), and a module's attribute bound
to one of Python's functions (``self.log = print``) called between two clock reads."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

NET = '''
import time
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x, is_feat=False):
        return self.fc(x)

'''

FACTORY = NET + '''
def net8(**kwargs):
    return Net(8, **kwargs)


if __name__ == "__main__":
    net = net8(num_classes=100)
    x = torch.randn(2, 8)
    a = time.time()
    out = net(x, is_feat=True)
    print(time.time() - a)
'''

CONFIG = NET + '''
def main():
    cfg = {"width": 8, "num_classes": 3}
    model = Net(**cfg)
    x = torch.zeros(4, 8)
    t0 = time.perf_counter()
    model(x)
    elapsed = time.perf_counter() - t0
    print(elapsed)
'''

LITERAL = NET + '''
net = Net(8)
x = torch.ones(3, 8)
start = time.perf_counter()
y = net(x, is_feat=False)
print("forward", time.perf_counter() - start)
'''

SPREADS = [FACTORY, CONFIG, LITERAL]
SPREAD_IDS = ["factory-kwargs-main", "config-spread", "literal-keyword"]
SITES = {FACTORY: "print(time.time() - a)", CONFIG: "elapsed = time.perf_counter() - t0",
         LITERAL: 'print("forward", time.perf_counter() - start)'}


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY006"])]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("source", SPREADS, ids=SPREAD_IDS)
def test_a_model_built_and_fed_on_the_cpu_times_host_work(source: str) -> None:
    assert _lines(source) == []


@pytest.mark.parametrize(("source", "change"), [
    (FACTORY, ("x = torch.randn(2, 8)", "x = torch.randn(2, 8).cuda()")),
    (CONFIG, ("def __init__(self, width, num_classes=10):", "def __init__(self, width, num_classes=10, device='cpu'):")),
    (CONFIG, ("def __init__(self, width, num_classes=10):", "def __init__(self, width, num_classes=10, **kw):")),
    (LITERAL, ("net = Net(8)", "net = Net(8).cuda()")),
], ids=["input-on-the-device", "device-parameter", "init-takes-kwargs", "moved-model"])
def test_device_work_or_a_device_the_spread_may_carry_is_still_reported(
        source: str, change: tuple[str, str]) -> None:
    changed = source.replace(*change)
    assert changed != source
    assert _lines(changed) == [_line(changed, SITES[source])]


AGENT = '''
import time
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self, verbose):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.log = print if verbose else lambda *args: None
        self.report = print

    def fit(self, loader):
        for x, y in loader:
            t0 = time.time()
            self.log("step")
            self.report("data", time.time() - t0)
'''


@pytest.mark.parametrize("attr", ["log", "report"])
def test_a_builtin_function_held_by_a_module_is_no_forward_pass(attr: str) -> None:
    source = AGENT.replace('self.log("step")', f'self.{attr}("step")')
    assert _lines(source) == []


def test_a_submodule_called_there_is_still_reported() -> None:
    source = AGENT.replace('self.log("step")', "self.net(x)")
    assert _lines(source) == [_line(source, 'self.report("data", time.time() - t0)')]
