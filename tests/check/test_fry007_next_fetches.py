"""A training loop (its own body calls ``.backward()`` and an optimizer's ``.step()``)
that fetches its batch with ``next(it)`` takes a batch, whatever the iterator is named:
moved to the device, the loss computed from it is there, and reading it every step waits."""

from __future__ import annotations

import pytest

from torchferry.check import check_source

SRC = '''\
import torch
device = "cuda" if torch.cuda.is_available() else "cpu"


def train(model, optimizer, data_iterator, steps):
    for i in range(steps):
        train_batch, labels_batch = next(data_iterator)
        train_batch = train_batch.to(device)
        loss = model(train_batch).sum()
        print(loss.item())
        optimizer.zero_grad()
        loss.backward()
        {step}
'''


def lines(step: str) -> list[int]:
    return [f.line for f in check_source(SRC.format(step=step), "t.py", select=["FRY007"])]


def test_a_batch_fetched_with_next_in_a_training_loop_is_a_batch() -> None:
    assert lines("optimizer.step()") == [10]


@pytest.mark.parametrize("step", ["pass", "scheduler.update()"])
def test_a_loop_that_steps_no_optimizer_takes_nothing_from_the_name(step: str) -> None:
    assert lines(step) == []


def test_a_next_in_a_nested_loop_is_not_the_step_loops_fetch() -> None:
    src = SRC.format(step="optimizer.step()").replace(
        "        train_batch, labels_batch = next(data_iterator)\n",
        "        for _ in range(1):\n            train_batch, labels_batch = next(data_iterator)\n")
    assert [f.line for f in check_source(src, "t.py", select=["FRY007"])] == []
