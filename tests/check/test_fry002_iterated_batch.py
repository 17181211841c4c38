"""FRY002 and the items of a loader's batch reached by iterating it (``for t in batch:``):
the items of a collated tuple or list, or the rows of a collated tensor, are tensors, so a
discarded move of one is reported (with no one-line fix: rebinding the loop's name keeps
nothing in the batch); the whole batch stays an object that may move in place."""

from __future__ import annotations

import ast

from torchferry.check.engine import check_source
from torchferry.check.flow.places import iterated_batch, whole_batch

HEAD = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "def fit(model, data, device):\n"
    "    loader = DataLoader(data, batch_size=4)\n"
)


def found(body: str) -> list[tuple[int, bool]]:
    return [(f.line, f.fix is not None)
            for f in check_source(HEAD + body, "<case>", select=["FRY002"])]


def test_item_of_an_iterated_batch_is_reported_without_a_fix() -> None:
    body = (
        "    for i, batch in enumerate(loader):\n"
        "        for tensor in batch:\n"
        "            tensor.to(device)\n"
        "        model(batch[0])\n"
    )
    assert found(body) == [(7, False)]


def test_message_says_how_to_keep_the_moved_items() -> None:
    body = (
        "    for batch in loader:\n"
        "        for t in batch:\n"
        "            t.cuda()\n"
    )
    (f,) = check_source(HEAD + body, "<case>", select=["FRY002"])
    assert "`batch = [t.cuda() for t in batch]`" in f.message
    assert "an item of the batch `batch`" in f.evidence[0].message


def test_the_whole_batch_moved_as_a_statement_stays_quiet() -> None:
    body = (
        "    for batch in loader:\n"
        "        batch.to(device)\n"
        "        model(batch)\n"
    )
    assert found(body) == []


def test_a_loop_over_something_else_stays_quiet() -> None:
    body = (
        "    for batch in loader:\n"
        "        for t in batch.values_list():\n"
        "            t.to(device)\n"
    )
    assert found(body) == []


def test_a_loop_over_an_unknown_sequence_stays_quiet() -> None:
    body = (
        "    for t in data.parts:\n"
        "        t.to(device)\n"
    )
    assert found(body) == []


def test_whole_batch_and_iterated_batch() -> None:
    fn = ast.parse(
        "for b in loader:\n"
        "    for t in b:\n"
        "        pass\n"
        "for x in x:\n"
        "    pass\n"
    )
    t, b, x = ast.Name("t"), ast.Name("b"), ast.Name("x")
    assert whole_batch(fn, b) and not whole_batch(fn, t)
    assert whole_batch(fn, x)  # (a loop over itself: not over another batch)
    found_batch = iterated_batch(fn, t)
    assert found_batch is not None and found_batch.id == "b"
    assert iterated_batch(fn, b) is None
