"""The rule codes and names the runtime diagnostics print are those of ``ferry check``'s rules."""

from __future__ import annotations

import pathlib
import re

import torch

import torchferry as tf
from torchferry.check.rules import all_rules, rule_by_code
from torchferry.diagnose._rules import rule_name
from torchferry.diagnose.explanation import format_report

DIAGNOSE = pathlib.Path(tf.__file__).parent / "diagnose"


def test_every_rule_code_diagnose_mentions_exists_in_check_rules():
    mentioned = {
        code
        for path in DIAGNOSE.glob("*.py")
        for code in re.findall(r"\bFRY\d{3}\b", path.read_text(encoding="utf-8"))
    }
    assert len(mentioned) >= 8  # the scan reads the real sources
    known = {m.CODE for m in all_rules()}
    assert mentioned - known == set()


def test_no_rule_name_is_spelled_out_in_diagnose():
    names = {m.NAME for m in all_rules()}
    for path in DIAGNOSE.glob("*.py"):
        if path.name == "_rules.py":  # its doctest shows what rule_name() returns
            continue
        text = path.read_text(encoding="utf-8")
        quoted = {n for n in names if f'"{n}"' in text or f"'{n}'" in text}
        assert quoted == set(), f"{path.name} spells out rule names {quoted}: use rule_name()"


def test_rule_modules_are_looked_up_in_one_place():
    """``_rules.py`` is diagnose's one way to a rule (its name, its hint); html.py and
    ipython.py had their own lookups."""
    lookups = {p.name for p in DIAGNOSE.glob("*.py")
               if "rule_by_code" in p.read_text(encoding="utf-8")} - {"_rules.py"}
    assert lookups == set(), f"use diagnose._rules, not check.rules, in {lookups}"


def test_names_come_from_check_rules():
    for mod in all_rules():
        assert rule_name(mod.CODE) == mod.NAME
    assert rule_name("FRY999") == ""


def test_explain_and_trips_print_the_check_rule_name():
    x = torch.ones(3, device="meta")
    try:
        with tf.explain(file=None) as ex:
            labels = torch.ones(3)
            _ = x + labels
    except RuntimeError:
        pass
    assert ex.report is not None
    code = ex.report.rule
    assert f"rule: {code} {rule_by_code(code).NAME} " in format_report(ex.report)

    with tf.simulate("cuda"):
        with tf.trips() as t:
            y = torch.ones(4).to("cuda")
            for _ in range(5):
                y.sum().item()
    assert f"FRY007 {rule_by_code('FRY007').NAME}; fix:" in t.format()
