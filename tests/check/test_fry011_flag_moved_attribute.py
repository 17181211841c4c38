"""FRY011 and a plain tensor attribute moved in ``__init__`` under a device flag of the
arguments (``if args.gpu: self.mask = self.mask.cuda()``): when every instance of the module
is moved only under the same flag, read through the ``args`` its construction hands on, the
tensor is on the CPU exactly where the module is.  A module moved whatever the flag, under
another flag, a flag the file assigns, or an instance handed on keep it reported."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lines = Callable[[dict[str, str], str], list[int]]


MODULE = '''import torch
import torch.nn as nn


class Explain(nn.Module):
    def __init__(self, n, args):
        super(Explain, self).__init__()
        self.lin = nn.Linear(n, n)
        self.mask = torch.ones(n, n) - torch.eye(n)
        if args.gpu:
            self.mask = self.mask.cuda()

    def forward(self, adj):
        return self.lin(adj) * self.mask
'''

#: a trainer keeps the ``args`` and hands them on; it moves the module under their flag
SELF_ARGS = MODULE + '''

class Explainer:
    def __init__(self, args):
        self.args = args

    def explain(self, adj):
        explainer = Explain(4, args=self.args)
        if self.args.gpu:
            explainer = explainer.cuda()
        explainer.train()
        return explainer(adj)
'''

#: a function hands its own ``args`` (positionally)
NAME_ARGS = MODULE + '''

def main(args, adj):
    model = Explain(4, args)
    if args.gpu:
        model.cuda()
    return model(adj)
'''

#: the module moved whatever the flag
ALWAYS = MODULE + '''

def main(args, adj):
    model = Explain(4, args)
    model = model.cuda()
    return model(adj)
'''

#: the module moved under another flag
OTHER_FLAG = MODULE + '''

def main(args, adj):
    model = Explain(4, args)
    if args.cuda:
        model = model.cuda()
    return model(adj)
'''

#: the flag assigned between
ASSIGNED = MODULE + '''

def main(args, adj):
    args.gpu = True
    model = Explain(4, args)
    if args.gpu:
        model = model.cuda()
    return model(adj)
'''

#: another object handed for ``args`` than the one whose flag moves the module
OTHER_ARGS = MODULE + '''

def main(args, opts, adj):
    model = Explain(4, opts)
    if args.gpu:
        model = model.cuda()
    return model(adj)
'''

#: the instance handed on: the wrapper may move it
HANDED = MODULE + '''

def main(args, adj):
    model = Explain(4, args)
    if args.gpu:
        model = model.cuda()
    return nn.DataParallel(model)(adj)
'''


def _lines(finding_lines: Lines, src: str) -> list[int]:
    return finding_lines({"t.py": src}, "FRY011")


@pytest.mark.parametrize("src", [SELF_ARGS, NAME_ARGS], ids=["self-args", "name-args"])
def test_moved_with_the_module_under_one_flag_is_quiet(finding_lines: Lines, src: str) -> None:
    assert _lines(finding_lines, src) == []


@pytest.mark.parametrize("src", [ALWAYS, OTHER_FLAG, ASSIGNED, OTHER_ARGS, HANDED],
                         ids=["always", "other-flag", "assigned", "other-args", "handed"])
def test_module_moved_otherwise_is_reported(finding_lines: Lines, src: str) -> None:
    assert _lines(finding_lines, src) == [9]
