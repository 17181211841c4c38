"""FRY013 and the items of a batch's mapping moved by assignment, in place
(``targets["y"] = targets["y"].cuda()``): the mapping handed on whole holds the moved
tensors, and the item read back is the moved one; an item under another key, never
moved, is still reported, as is the mapping whose items are only read."""

from __future__ import annotations

from torchferry.check.engine import check_source

LOOP = """
import torch

def train(model, loader, loss_func):
    model = model.cuda()
    for item in loader:
        graph = item["graph"].cuda()
        targets = item["targets"]
{body}
"""


def _fry013(body: str) -> list[int]:
    return [f.line for f in check_source(LOOP.format(body=body), "t.py", select=("FRY013",))]


def test_a_mapping_whose_items_are_moved_in_place_is_handed_on() -> None:
    body = """        targets["av"] = targets["av"].cuda()
        targets["bv"] = targets["bv"].cuda()
        loss = loss_func(model(graph), targets)"""
    assert _fry013(body) == []


def test_each_item_moved_under_any_key_is_handed_on() -> None:
    body = """        for k in targets:
            targets[k] = targets[k].cuda()
        loss = loss_func(model(graph), targets)"""
    assert _fry013(body) == []


def test_the_moved_item_read_back_is_on_the_device() -> None:
    body = """        targets["av"] = targets["av"].cuda()
        loss = model(graph) - targets["av"]"""
    assert _fry013(body) == []


def test_an_item_under_another_key_is_still_reported() -> None:
    body = """        targets["av"] = targets["av"].cuda()
        loss = model(graph) - targets["bv"]"""
    assert _fry013(body) == [10]


def test_a_mapping_only_read_is_still_reported() -> None:
    body = """        av = targets["av"].cuda()
        loss = loss_func(model(graph), targets)"""
    assert _fry013(body) == [10]
