"""Rule documentation: docs/rules.md is generated and up to date; ferry rule / rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchferry.check.docs import rules_markdown, sections
from torchferry.check.engine import _all_rules
from torchferry.cli import main

REPO = Path(__file__).resolve().parents[2]
SECTIONS = [
    "What it does",
    "Why is this bad",
    "Example",
    "Use instead",
    "Fix safety",
    "Known limits",
]


def test_committed_rules_md_is_up_to_date():
    committed = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_markdown(), (
        "docs/rules.md is stale: python -m torchferry.check.docs > docs/rules.md"
    )


@pytest.mark.parametrize("rule", _all_rules(), ids=lambda m: m.CODE)
def test_every_rule_documents_every_section(rule):
    secs = sections(rule)
    for name in SECTIONS:
        assert secs.get(name, "").strip(), f"{rule.CODE}: missing '## {name}'"
    assert f"## {rule.CODE} {rule.NAME}" in rules_markdown()


def test_rules_md_lists_all_fifteen_rules():
    codes = [m.CODE for m in _all_rules()]
    assert codes == [f"FRY{n:03d}" for n in range(1, 16)]


def test_ferry_rule_prints_the_docstring(capsys):
    rule = _all_rules()[1]
    assert main(["rule", rule.CODE]) == 0
    by_code = capsys.readouterr().out
    assert by_code.startswith(f"# {rule.CODE} ({rule.NAME})\n")
    assert "## What it does" in by_code and "## Known limits" in by_code
    assert main(["rule", rule.NAME]) == 0
    assert capsys.readouterr().out == by_code
    assert main(["rule", rule.CODE.lower()]) == 0
    assert capsys.readouterr().out == by_code


def test_ferry_rule_fry000_and_unknown(capsys):
    assert main(["rule", "FRY000"]) == 0
    assert "syntax error" in capsys.readouterr().out
    assert main(["rule", "FRY999"]) == 2
    err = capsys.readouterr().err
    assert err == "ferry rule: error: unknown rule 'FRY999' (see 'ferry rules')\n"


def test_ferry_rules_lists_code_name_default_fix_summary(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(_all_rules()) + 1  # FRY000 (syntax-error) first, as 'ferry rule' knows it
    assert lines[0].split()[:4] == ["FRY000", "syntax-error", "default", "none"]
    first = _all_rules()[0]
    assert lines[1].split()[:4] == [first.CODE, first.NAME, "default", first.FIX]
    assert main(["rules", "--format", "json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert [i["code"] for i in items] == ["FRY000", *(m.CODE for m in _all_rules())]
    assert all(i["summary"] and i["fix"] in {"safe", "unsafe", "none"} for i in items)


def test_docs_module_runs_as_a_script():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "torchferry.check.docs"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout == rules_markdown()
