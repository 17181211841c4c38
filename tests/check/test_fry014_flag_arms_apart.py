"""FRY014 and a model moved only under a device flag in its callers: ``if args.gpu: model =
model.cuda()`` then ``train(model, args)``, whose ``else`` arm of ``if args.gpu:`` feeds the
model a CPU input.  Where the flag is false the model is on the CPU too: nothing to report.
A model moved whatever the flag, under another flag, or a flag the code changes between,
still meets the CPU input."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = '''import argparse
import torch
import torch.nn as nn

'''

TRAIN = '''
def train(model, args):
    x = torch.randn(8, 4)
    if args.gpu:
        out = model(x.cuda())
    else:
        out = model(x)
    return out
'''

#: every caller moves the model under the flag of the ``args`` it hands on
SAME_FLAG = HEAD + TRAIN + '''

def task_a(args):
    model = nn.Linear(4, 2)
    if args.gpu:
        model = model.cuda()
    train(model, args)


def task_b(args):
    model = nn.Linear(4, 2)
    if args.gpu:
        model = model.cuda()
    train(model, args=args)
'''

#: the caller's ``args`` is handed under another name to the parameter
RENAMED = HEAD + TRAIN + '''

def main(opts):
    model = nn.Linear(4, 2)
    if opts.gpu:
        model = model.cuda()
    train(model, opts)
'''

#: a script-level flag bound once, read by caller and callee alike
MODULE_FLAG = HEAD + '''
USE_GPU = torch.cuda.is_available()


def run(model):
    x = torch.randn(8, 4)
    if USE_GPU:
        out = model(x.cuda())
    else:
        out = model(x)
    return out


def main():
    model = nn.Linear(4, 2)
    if USE_GPU:
        model = model.cuda()
    run(model)
'''

#: the model moved whatever the flag: the CPU arm meets it on the GPU
UNCONDITIONAL = HEAD + TRAIN + '''

def main(args):
    model = nn.Linear(4, 2)
    model = model.cuda()
    train(model, args)
'''

#: one caller moves it under the flag, another whatever the flag
ONE_CALLER_ALWAYS = SAME_FLAG + '''

def task_c(args):
    model = nn.Linear(4, 2).cuda()
    train(model, args)
'''

#: the model moved under another flag than the one the callee tests
OTHER_FLAG = HEAD + TRAIN + '''

def main(args):
    model = nn.Linear(4, 2)
    if args.cuda:
        model = model.cuda()
    train(model, args)
'''

#: the flag changed between the move and the call
REBOUND = HEAD + TRAIN + '''

def main(args):
    model = nn.Linear(4, 2)
    if args.gpu:
        model = model.cuda()
    args.gpu = False
    train(model, args)
'''

#: the name of the flag's object bound to another object before the call
OTHER_ARGS = HEAD + TRAIN + '''

def main(args, other):
    model = nn.Linear(4, 2)
    if args.gpu:
        model = model.cuda()
    args = other
    train(model, args)
'''

#: another object handed for ``args`` than the one whose flag moved the model
HANDED_OTHER = HEAD + TRAIN + '''

def main(args, other):
    model = nn.Linear(4, 2)
    if args.gpu:
        model = model.cuda()
    train(model, other)
'''


def _codes(src: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(src, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("src", [SAME_FLAG, RENAMED, MODULE_FLAG], ids=["same-flag", "renamed", "module-flag"])
def test_cpu_arm_of_the_moving_flag_is_quiet(src: str) -> None:
    assert _codes(src) == []


@pytest.mark.parametrize("src", [UNCONDITIONAL, ONE_CALLER_ALWAYS, OTHER_FLAG, REBOUND, OTHER_ARGS, HANDED_OTHER],
                         ids=["unconditional", "one-caller-always", "other-flag", "rebound", "other-args",
                              "handed-other"])
def test_model_on_the_device_in_the_cpu_arm_is_reported(src: str) -> None:
    line = src.splitlines().index("        out = model(x)") + 1
    assert ("FRY014", line) in _codes(src)
