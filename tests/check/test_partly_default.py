"""A rule on by default in part: FRY010 reports, when only the default rule set selects it,
the meetings it is sure of (the run's own code puts the partner on the accelerator), and
every meeting where a selector names it (its code, a prefix, ``ALL``, ``extend-select``),
on the command line, in the configuration, for notebooks' cells alike."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchferry.check import engine, rules
from torchferry.check.api import RuleSet, Selected
from torchferry.check.config import Config
from torchferry.check.docs import rule_doc
from torchferry.check.engine import check_cells, check_source, resolve_selection
from torchferry.cli import main

SURE = "the code puts on the accelerator when there is one"
MAY = "may be on an accelerator"

BOTH = """\
import torch
from torch import Tensor

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def step(batch):
    x = batch.to(device)
    return x + torch.randn(x.shape[0], 3)


def add_noise(x: Tensor) -> Tensor:
    return x + torch.randn(x.shape[0], 3)
"""
SURE_LINE, MAY_LINE = 9, 13


@pytest.fixture(autouse=True)
def fry010_on_by_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """FRY010 on by default for its sure meetings (as the rule set ships it, or made so)."""
    monkeypatch.delitem(rules.OPT_IN, "FRY010", raising=False)
    monkeypatch.setitem(rules.PARTLY_DEFAULT, "FRY010", "sure meetings, tensors or layers of the module or an optimizer's parameters")
    engine._resolve.cache_clear()
    yield
    engine._resolve.cache_clear()


def lines(found) -> list[int]:
    return [f.line for f in found if f.code == "FRY010"]


def test_the_default_set_reports_only_the_sure_meetings() -> None:
    found = [f for f in check_source(BOTH, "t.py") if f.code == "FRY010"]
    assert [f.line for f in found] == [SURE_LINE]
    assert SURE in found[0].message


@pytest.mark.parametrize(
    "select",
    [["FRY010"], ["ALL"], ["FRY01"], ["factory-without-device"], [RuleSet.DEFAULT, "FRY010"]],
)
def test_a_selector_naming_the_rule_reports_every_meeting(select: list) -> None:
    found = [f for f in check_source(BOTH, "t.py", select=select) if f.code == "FRY010"]
    assert [f.line for f in found] == [SURE_LINE, MAY_LINE]
    assert SURE in found[0].message and MAY in found[1].message


def test_ignoring_the_rule_or_replacing_the_default_set_turns_it_off() -> None:
    assert lines(check_source(BOTH, "t.py", ignore=["FRY010"])) == []
    assert lines(check_source(BOTH, "t.py", select=["FRY013"])) == []


def test_the_selection_says_how_each_rule_is_selected() -> None:
    how = {m.CODE: s for m, s in resolve_selection()}
    assert how["FRY010"] is Selected.BY_DEFAULT and how["FRY013"] is Selected.BY_DEFAULT
    assert "FRY004" not in how
    assert {m.CODE: s for m, s in resolve_selection(["ALL"])}["FRY010"] is Selected.NAMED
    extended = {m.CODE: s for m, s in resolve_selection([RuleSet.DEFAULT, "FRY010"])}
    assert extended["FRY010"] is Selected.NAMED and extended["FRY013"] is Selected.BY_DEFAULT


def test_the_configuration_extends_the_default_set_by_naming_it() -> None:
    extended = Config(Path("."), extend_select=["FRY010"]).selection()
    assert lines(check_source(BOTH, "t.py", select=extended)) == [SURE_LINE, MAY_LINE]
    assert lines(check_source(BOTH, "t.py", select=Config(Path(".")).selection())) == [SURE_LINE]


def test_notebook_cells_take_the_same_selection() -> None:
    head, tail = BOTH.split("\n\n\ndef add_noise")
    cells = [head, "def add_noise" + tail]
    assert [(c.cell, c.finding.line) for c in check_cells(cells) if c.finding.code == "FRY010"] == [
        (0, SURE_LINE)
    ]
    assert (
        len([c for c in check_cells(cells, select=["FRY010"]) if c.finding.code == "FRY010"]) == 2
    )


def _cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
    config: str,
    *argv: str,
    cache: bool = False,
) -> list[int]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n' + config)
    (tmp_path / "t.py").write_text(BOTH)
    main(["check", *([] if cache else ["--no-cache"]), "--output-format", "json", *argv, "t.py"])
    return [f["line"] for f in json.loads(capsys.readouterr().out) if f["code"] == "FRY010"]


@pytest.mark.parametrize(("config", "argv", "expected"), [
    ("", (), [SURE_LINE]),
    ("", ("--select", "ALL"), [SURE_LINE, MAY_LINE]),
    ("", ("--extend-select", "FRY010"), [SURE_LINE, MAY_LINE]),
    ("", ("--ignore", "FRY010"), []),
    ('[tool.torchferry]\nextend-select = ["FRY010"]\n', (), [SURE_LINE, MAY_LINE]),
    ('[tool.torchferry]\nselect = ["FRY010"]\n', (), [SURE_LINE, MAY_LINE]),
    ('[tool.torchferry]\nselect = ["FRY013"]\n', (), []),
    ('[tool.torchferry]\nignore = ["FRY010"]\n', (), []),
])  # fmt: skip
def test_the_command_line_and_the_configuration(
    tmp_path, monkeypatch, capsys, config, argv, expected
) -> None:
    assert _cli(tmp_path, monkeypatch, capsys, config, *argv) == expected


def test_the_cache_tells_the_default_part_from_every_finding(tmp_path, monkeypatch, capsys) -> None:
    assert _cli(tmp_path, monkeypatch, capsys, "", cache=True) == [SURE_LINE]
    every = _cli(tmp_path, monkeypatch, capsys, "", "--select", "FRY010", cache=True)
    assert every == [SURE_LINE, MAY_LINE]
    assert _cli(tmp_path, monkeypatch, capsys, "", cache=True) == [SURE_LINE]


def test_ferry_rules_and_the_rule_doc_show_the_default_part(capsys) -> None:
    assert main(["rules", "--format", "json"]) == 0
    items = {i["code"]: i for i in json.loads(capsys.readouterr().out)}
    assert items["FRY010"]["default"] is True
    assert items["FRY010"]["default_part"] == "sure meetings, tensors or layers of the module or an optimizer's parameters"
    assert items["FRY013"]["default_part"] is None
    assert main(["rules"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("FRY010"))
    assert row.split()[2] == "default" and "(default: sure meetings, tensors or layers of the module or an optimizer's parameters)" in row
    doc = next(
        ln
        for ln in rule_doc(rules.rule_by_code("FRY010")).splitlines()
        if ln.startswith("Default: ")
    )
    assert "sure meetings, tensors or layers of the module or an optimizer's parameters" in doc and 'extend-select = ["FRY010"]' in doc


def test_the_language_server_takes_the_same_selection(tmp_path: Path) -> None:
    from torchferry.server.analysis import Projects, Settings, check_python

    path = tmp_path / "t.py"
    path.write_text(BOTH)

    def found(settings: Settings) -> list[int]:
        project = Projects(settings).get(path)
        return lines(i.finding for i in check_python(BOTH, path, project, frozenset()))

    assert found(Settings()) == [SURE_LINE]
    assert found(Settings(extend_select=("FRY010",))) == [SURE_LINE, MAY_LINE]
    assert found(Settings(select=("ALL",))) == [SURE_LINE, MAY_LINE]
