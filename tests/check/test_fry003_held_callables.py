"""FRY003 through a callable of unknown kind held in an attribute of ``self`` (``self.fcn =
kwargs.get("fcn")``, ``self.post = post``) and given a tensor that
a path moved to the accelerator: its result is computed there, so it is placed there in the
flow itself, and that place survives a helper's return and a join with a value already on
the device (``if self.fcn: real_o = self.apply_fcn(o)``).  A callable also given a tensor
on the CPU alone, a model, or something that may say where to put the result (a string, a
device, a name or keyword naming one) places nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

HELPER_RETURN_JOINED = """
import numpy as np
import torch
from torch.autograd import Variable


class Trainer:
    def __init__(self, Q, **kwargs):
        self.Q = Q
        self.fcn = kwargs.get("fcn", None)

    def apply_fcn(self, img):
        o = self.fcn(Variable(img).cuda()).detach()
        return torch.clamp(2 * (o - 0.5), -1, 1)

    def train(self, loader):
        real_o = Variable(torch.FloatTensor(4, 3).cuda(), requires_grad=False)
        for o in loader:
            real_o.data.copy_(o)
            if self.fcn:
                real_o = self.apply_fcn(o)
            mu, var = (i.detach() for i in self.Q.forward(real_o))
            print(np.sqrt(var[:, 0].data.mean()))
"""

STORED_CALLABLE = """
import numpy as np
import torch


class Runner:
    def __init__(self, post):
        self.post = post
        self.device = torch.device("cuda")

    def run(self, x):
        y = self.post(x.to(self.device))
        z = torch.sigmoid(y)
        return np.mean(z.detach().numpy())
"""

SITES = {
    "HELPER_RETURN_JOINED": (HELPER_RETURN_JOINED, "print(np.sqrt(var[:, 0].data.mean()))"),
    "STORED_CALLABLE": (STORED_CALLABLE, "return np.mean(z.detach().numpy())"),
}


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)


@pytest.mark.parametrize("name", sorted(SITES))
def test_what_a_held_callable_computes_from_a_device_tensor_is_there(name: str) -> None:
    source, site = SITES[name]
    assert lines(source) == [line_of(source, site)]


@pytest.mark.parametrize(
    ("name", "change"),
    [
        # the input on the CPU
        ("HELPER_RETURN_JOINED", ("Variable(img).cuda()", "Variable(img).cpu()")),
        # also given a tensor on the CPU alone, a model, or a target
        (
            "HELPER_RETURN_JOINED",
            ("self.fcn(Variable(img).cuda())", "self.fcn(Variable(img).cuda(), torch.ones(2))"),
        ),
        (
            "HELPER_RETURN_JOINED",
            (
                "self.fcn(Variable(img).cuda())",
                "self.fcn(Variable(img).cuda(), torch.nn.Linear(3, 3))",
            ),
        ),
        (
            "HELPER_RETURN_JOINED",
            ("self.fcn(Variable(img).cuda())", 'self.fcn(Variable(img).cuda(), "cpu")'),
        ),
        (
            "HELPER_RETURN_JOINED",
            ("self.fcn(Variable(img).cuda())", "self.fcn(Variable(img).cuda(), to_cpu=True)"),
        ),
        # brought home before NumPy
        ("HELPER_RETURN_JOINED", ("var[:, 0].data.mean()", "var[:, 0].data.mean().cpu()")),
        ("STORED_CALLABLE", ('torch.device("cuda")', 'torch.device("cpu")')),
        ("STORED_CALLABLE", ("self.post(x.to(self.device))", "self.post(x)")),
        (
            "STORED_CALLABLE",
            ("self.post(x.to(self.device))", "self.post(x.to(self.device), self.device)"),
        ),
        ("STORED_CALLABLE", ("z.detach().numpy()", "z.detach().cpu().numpy()")),
    ],
)
def test_a_callable_given_the_cpu_a_model_or_a_target_places_nothing(
    name: str, change: tuple[str, str]
) -> None:
    source = SITES[name][0].replace(*change)
    assert change[0] in SITES[name][0]
    assert lines(source) == []


def test_a_library_function_is_not_a_held_callable() -> None:
    """A function named through an import is left to FRY003's own reading of the site (an
    unresolved library call keeps an unknown place in the flow)."""
    source = """
import numpy as np
import torch
from post import decode


def run(x):
    y = decode(x.cuda())
    if x.is_cuda:
        y = x
    return np.asarray(torch.relu(y))
"""
    assert lines(source) == []


def test_the_fix_is_unsafe() -> None:
    """What the callable returns is not made a tensor in the scope: no safe ``.cpu()``."""
    source, site = SITES["STORED_CALLABLE"]
    found = check_source(source, "t.py", select=["FRY003"])
    assert [f.line for f in found] == [line_of(source, site)]
    assert all(f.fix is None or not f.fix.safe for f in found)


TORCH_UTILS = """
def cpu(tensor):
    if tensor.is_cuda:
        return tensor.cpu()
    else:
        return tensor


def gpu(tensor, gpu=False):
    if gpu:
        return tensor.cuda()
    else:
        return tensor
"""

MODEL = """
import torch

from torch_utils import cpu, gpu


class Model:
    def __init__(self, net, use_cuda=False):
        self._use_cuda = use_cuda
        self._net = net

    def predict(self, ids):
        ids = gpu(torch.from_numpy(ids), self._use_cuda)
        out = torch.sigmoid(self._net(ids))
        return {home}(out).detach().numpy()
"""


def checked(root: Path, home: str) -> list[tuple[str, int]]:
    files = {"torch_utils.py": TORCH_UTILS, "model.py": MODEL.format(home=home)}
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY003",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts, cache=None, jobs=1)
    return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics]


def test_a_helper_that_brings_home_under_a_device_test_is_home(tmp_path: Path) -> None:
    """``cpu(out)`` of a helper of another file whose ``.cpu()`` is in an arm of
    ``if tensor.is_cuda:``: brought home, as the same test written at the site is."""
    assert checked(tmp_path, "cpu") == []


def test_a_helper_that_moves_to_the_device_is_not_home(tmp_path: Path) -> None:
    assert checked(tmp_path, "gpu") == [("model.py", 15)]
