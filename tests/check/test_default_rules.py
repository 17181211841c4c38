"""The default rule set: which rules run when nothing selects rules, and where it shows."""

from __future__ import annotations

import json

from torchferry.check import check_source
from torchferry.check.docs import rule_doc, rules_markdown
from torchferry.check.rules import OPT_IN, all_rules, default_part, rule_by_code
from torchferry.cli import main

HARDCODED_AND_PARTIAL = """\
import torch
model = torch.nn.Linear(2, 2).cuda()
x = torch.zeros(2)
print(model(x).detach().numpy())
"""


def test_opt_in_rules_run_only_when_selected() -> None:
    default = {f.code for f in check_source(HARDCODED_AND_PARTIAL)}
    every = {f.code for f in check_source(HARDCODED_AND_PARTIAL, select=["ALL"])}
    assert "FRY001" in every and "FRY001" not in default
    assert default and default <= every
    assert not default & set(OPT_IN)


def test_every_rule_says_in_its_doc_whether_it_is_on_by_default() -> None:
    for mod in all_rules():
        doc = rule_doc(mod)
        line = next(ln for ln in doc.splitlines() if ln.startswith("Default: "))
        if mod.CODE in OPT_IN:
            assert OPT_IN[mod.CODE] in line and "extend-select" in line
        elif default_part(mod.CODE) is not None:
            assert line.startswith(f"Default: on by default, {default_part(mod.CODE)} (")
        else:
            assert line == "Default: on by default"
    table = rules_markdown()
    assert "| [FRY004](#fry004-load-without-map-location) | load-without-map-location | opt-in |" in table
    assert "| [FRY001](#fry001-hardcoded-accelerator) | hardcoded-accelerator | default, part |" in table
    assert "| [FRY013](#fry013-partial-batch-move) | partial-batch-move | default |" in table
    assert "| factory-without-device | default, part |" in table


def test_ferry_rules_shows_the_default_set(capsys) -> None:
    assert main(["rules", "--format", "json"]) == 0
    items = {i["code"]: i["default"] for i in json.loads(capsys.readouterr().out)}
    assert items == {"FRY000": True, **{m.CODE: m.CODE not in OPT_IN for m in all_rules()}}
    assert main(["rules"]) == 0
    rows = {ln.split()[0]: ln.split()[2] for ln in capsys.readouterr().out.splitlines()}
    assert rows["FRY004"] == "opt-in" and rows["FRY002"] == "default"
    assert rule_by_code("FRY013") is not None


def test_extend_select_adds_to_the_default_set(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "t.py").write_text(HARDCODED_AND_PARTIAL)

    def codes(*argv: str) -> set[str]:
        main(["check", "--no-cache", "--output-format", "json", *argv, "t.py"])
        return {f["code"] for f in json.loads(capsys.readouterr().out)}

    default, every = codes(), codes("--select", "ALL")
    assert "FRY001" not in default and "FRY001" in every
    assert codes("--extend-select", "FRY001") == default | {"FRY001"}
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\n[tool.torchferry]\nextend-select = ["FRY001"]\n'
    )
    assert codes() == default | {"FRY001"}
