"""FRY007 stays quiet on a read that follows, in the same iteration, a host read of a device
value with no device work in between: the earlier read waited for everything queued, so
the later one adds no wait. A read after more device work, after a call that may queue
some, or into a container that is not a plain list/dict still waits and is reported."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses, accs = [], []
for step in range(100):
    x = torch.randn(8, 4, device=device)
    y = torch.randint(0, 2, (8,), device=device)
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out, y)
    acc = (out.argmax(-1) == y).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    {first}
    {between}
    {second}
"""


def lines(first: str, second: str, between: str = "pass") -> list[int]:
    src = textwrap.dedent(SOURCE.format(first=first, between=between, second=second))
    return [f.line for f in check_source(src, "t.py", select=["FRY007"])]


@pytest.mark.parametrize(("first", "second", "between"), [
    ("losses.append(loss.item())", "accs.append(acc.item() * 100)", "pass"),
    ("a = float(loss)", "b = acc.detach().item()", "n = loss.item() / 2"),
    ("losses.append(loss.item())", "accs.append(acc.item())", "if step > 0:\n        pass"),
])
def test_a_read_after_a_read_with_no_device_work_between_is_not_reported(
        first: str, second: str, between: str) -> None:
    assert lines(first, second, between) == [17]


def test_keys_of_a_dict_bound_in_the_loop_are_host_stores() -> None:
    second = "logs = {}\n    logs['loss'] = loss.detach().item()\n    logs['acc'] = acc.item()"
    assert lines("pass", second) == [20]


@pytest.mark.parametrize("between", [
    "acc = acc * 100",  # more device work: the second read waits for it
    "opt.step()",  # a call that may queue work
])
def test_a_read_after_more_device_work_is_reported(between: str) -> None:
    assert lines("losses.append(loss.item())", "accs.append(acc.item())", between) == [17, 19]


@pytest.mark.parametrize("between", [
    "if step > 0:\n        acc = acc * 100",  # more work on some path
    "if acc.sum() > 9:\n        pass",  # the test calls something
])
def test_a_read_after_an_if_that_may_queue_work_is_reported(between: str) -> None:
    assert lines("losses.append(loss.item())", "accs.append(acc.item())", between) == [17, 20]


def test_a_read_after_a_conditional_read_is_reported() -> None:
    first = "if flag:\n        losses.append(loss.item())"
    src = SOURCE.replace("losses, accs", "flag = True\nlosses, accs")
    src = textwrap.dedent(src.format(first=first, between="pass", second="accs.append(acc.item())"))
    assert [f.line for f in check_source(src, "t.py", select=["FRY007"])] == [19, 21]


def test_a_read_whose_own_statement_computes_on_the_device_is_reported() -> None:
    assert lines("losses.append(loss.item())", "accs.append((acc * 100).item())") == [17, 19]


def test_a_store_into_a_container_that_is_not_a_plain_list_is_reported() -> None:
    # ``box`` may be anything: its ``append`` may queue device work
    src = SOURCE.replace("losses, accs = [], []", "losses, accs = [], make_box()")
    src = textwrap.dedent(src.format(first="losses.append(loss.item())", between="pass",
                                     second="accs.append(acc.item())"))
    assert [f.line for f in check_source(src, "t.py", select=["FRY007"])] == [17, 19]


def test_a_read_in_a_nested_block_entered_through_a_with_is_reported() -> None:
    second = "with torch.no_grad():\n        accs.append(acc.item())"
    assert lines("losses.append(loss.item())", second) == [17, 20]


def test_both_reads_in_the_same_with_block_are_one_wait() -> None:
    second = "with torch.no_grad():\n        losses.append(loss.item())\n        accs.append(acc.item())"
    assert lines("pass", second) == [20]
