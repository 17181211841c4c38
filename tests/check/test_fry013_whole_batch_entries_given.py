"""FRY013 and the entries the loop gives the whole batch (``batch["x"] = batch["x"].to(device)``):
the entry read back is the moved tensor, an entry it did not give is still on the CPU, one
given in one arm of an ``if`` only may be on either device, and one given at a key the
analysis does not know (``for k, v in batch.items(): batch[k] = v.to(device)``) may be
any entry, so none of them is taken to be left behind."""

from __future__ import annotations

from torchferry.check.engine import check_source

HEAD = """
import torch
from torch.utils.data import DataLoader


def run(model, dataset, device, flag):
    loader = DataLoader(dataset, batch_size=4)
    for batch in loader:
"""


def lines(body: str) -> list[int]:
    src = HEAD + body
    return [d.line for d in check_source(src, "t.py", select=("FRY013",))]


def test_an_entry_given_is_read_back_moved() -> None:
    body = ("        batch['x'] = batch['x'].to(device)\n"
            "        batch['m'] = batch['m'].to(device)\n"
            "        model(batch['x'], batch['m'])\n")
    assert lines(body) == []


def test_an_entry_not_given_is_left_behind() -> None:
    body = ("        batch['x'] = batch['x'].to(device)\n"
            "        batch['m'] = batch['m'].to(device)\n"
            "        model(batch['x'], batch['m'], batch['y'])\n")
    assert lines(body) == [11]


def test_an_entry_given_in_one_arm_only_is_not_reported() -> None:
    body = ("        batch['x'] = batch['x'].to(device)\n"
            "        if flag:\n"
            "            batch['y'] = batch['y'].to(device)\n"
            "        model(batch['x'], batch['y'])\n")
    assert lines(body) == []


def test_entries_given_at_keys_of_a_loop_are_not_reported() -> None:
    body = ("        for k, v in batch.items():\n"
            "            if isinstance(v, torch.Tensor):\n"
            "                batch[k] = v.to(device)\n"
            "        loc = batch['loc'].permute(1, 0, 2)\n"
            "        pad = (batch['ids'] == 0).nonzero(as_tuple=True)[1].to(device)\n"
            "        loc += pad\n"
            "        model(batch['ids'], loc)\n")
    assert lines(body) == []


def test_an_item_of_a_batch_moved_by_name_only_is_still_reported() -> None:
    body = ("        batch['ids'] = batch['ids'].to(device)\n"
            "        loc = batch['loc'].permute(1, 0, 2)\n"
            "        pad = (batch['ids'] == 0).nonzero(as_tuple=True)[1].to(device)\n"
            "        loc += pad\n")
    assert lines(body) == [12]
