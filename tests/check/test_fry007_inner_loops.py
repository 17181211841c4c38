"""FRY007 reports a read in a loop nested in the body of a training loop: the nested loop
runs on every step, so the read waits for the accelerator once per item each step; a read
under a logging interval of either loop, or one that decides what the nested loop does,
stays quiet, and so does a nested loop of an epoch loop around the batch loop."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch


def train(model, loader, opt, n_heads):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    for step, x in enumerate(loader):
        feats = model(x.to(device))
        losses, logs = [], []
        for k in range(n_heads):
            loss = feats[:, k].mean()
            losses.append(loss)
            {read}
        sum(losses).backward()
        opt.step()
"""


def lines(read: str) -> list[int]:
    src = textwrap.dedent(SOURCE.format(read=read))
    return [f.line for f in check_source(src, "t.py", select=["FRY007"])]


@pytest.mark.parametrize("read", ["logs.append(loss.item())", "logs.append(float(loss))"])
def test_a_read_in_a_loop_nested_in_the_step_loop_is_reported(read: str) -> None:
    assert lines(read) == [14]


@pytest.mark.parametrize("read", [
    "if step % 100 == 0: logs.append(loss.item())",  # the step loop's interval
    "if k == 0: logs.append(loss.item())",  # the nested loop's counter
    "if loss.item() > 10: break",  # decides what the nested loop does
])
def test_a_guarded_or_deciding_read_in_the_nested_loop_is_not_reported(read: str) -> None:
    assert lines(read) == []


EPOCHS = """
import torch


def train(model, loader, opt, epochs):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    for epoch in range(epochs):
        for x in loader:
            out = model(x.to(device))
            loss = out.mean()
            loss.backward()
            opt.step()
            {inner}
        {outer}
"""

READS = "for k in range(2): print(out[k].item())"


def epoch_lines(inner: str, outer: str) -> list[int]:
    src = textwrap.dedent(EPOCHS.format(inner=inner, outer=outer))
    return [f.line for f in check_source(src, "t.py", select=["FRY007"])]


def test_a_nested_loop_of_an_epoch_loop_runs_once_per_epoch_and_is_not_reported() -> None:
    assert epoch_lines("pass", READS) == []


def test_the_same_loop_nested_in_the_batch_loop_is_reported() -> None:
    assert epoch_lines(READS, "pass") == [14]
