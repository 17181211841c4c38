"""FRY014's hand-off through a function of another file of the run that calls its
parameter: ``attack(net, x)`` of ``from lib import attack``, whose ``model_fn(x)`` runs the
module the caller hands it (on the device) on the caller's unmoved batch item, is reported
at the call, as it is when ``attack`` is in the caller's file; a callable that is no module
(a function, a lambda) hands nothing to a module's weights."""

from __future__ import annotations

from collections.abc import Callable

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]

LIB = """\
import torch


def attack(model_fn, x, eps, y=None):
    x = x.clone().detach().to(torch.float).requires_grad_(True)
    if y is None:
        _, y = torch.max(model_fn(x), 1)
    return x + eps
"""

MAIN = """\
import torch
import torch.nn as nn
from lib import attack


def main(data):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = {net}
    for x, y in torch.utils.data.DataLoader(data):
        y = y.to(device)
        out = attack(net, x, 0.3)
"""


def test_a_module_handed_to_another_file_runs_the_unmoved_item(finding_places: Places) -> None:
    found = finding_places({"main.py": MAIN.format(net="nn.Linear(3, 3).to(device)"), "lib.py": LIB}, "FRY014")
    assert found == [("main.py", 11)]


def test_the_same_function_in_the_callers_file_is_reported_alike(finding_places: Places) -> None:
    one = LIB + "\n\n" + MAIN.format(net="nn.Linear(3, 3).to(device)").replace("from lib import attack\n", "")
    assert finding_places({"main.py": one}, "FRY014") == [("main.py", 20)]


def test_a_callable_that_is_no_module_is_quiet(finding_places: Places) -> None:
    found = finding_places({"main.py": MAIN.format(net="lambda t: t.sum(1)"), "lib.py": LIB}, "FRY014")
    assert found == []


def test_a_module_left_on_the_cpu_is_quiet(finding_places: Places) -> None:
    found = finding_places({"main.py": MAIN.format(net="nn.Linear(3, 3)"), "lib.py": LIB}, "FRY014")
    assert found == []


OUTER = """\
from lib import attack


def outer(model_fn, x, n):
    return attack(model_fn, x, 0.1 * n)
"""


def test_handed_on_through_a_parameter_of_a_third_file(finding_places: Places) -> None:
    main = MAIN.format(net="nn.Linear(3, 3).to(device)").replace(
        "from lib import attack", "from outer import outer").replace("attack(net, x, 0.3)", "outer(net, x, 3)")
    found = finding_places({"main.py": main, "lib.py": LIB, "outer.py": OUTER}, "FRY014")
    assert found == [("main.py", 11)]


WRAPPED = """\
import torch
import torch.nn as nn


def step(optimizer, model, data):
    optimizer.zero_grad()
    return model(data).sum()


def train(model, loader, optimizer, device):
    for data, target in loader:
        data, target = data, target.to(device)
        step(optimizer, model, data)


def main(data):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = nn.Linear(3, 3).to(device)
    train(net, torch.utils.data.DataLoader(data), torch.optim.SGD(net.parameters()), device)
"""


def test_a_model_parameter_that_every_call_gives_a_module_is_followed(finding_places: Places) -> None:
    assert finding_places({"main.py": WRAPPED}, "FRY014") == [("main.py", 13)]
