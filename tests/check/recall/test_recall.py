"""Recall of ``ferry check`` on small faithful reproductions of public bug reports.

Each file in ``fixtures/`` reproduces one issue thread or forum question where a user hit
a device mistake; its header cites the source, and each line a static rule should report
ends with the expected code (``# FRY003``), as in the rule fixtures.  Only cases a static
checker can reasonably catch are included.  The table is printed by
``python benchmarks/check_corpus.py --recall``.

The measured overall recall must not drop below ``RECALL_FLOOR``: raise it when a rule
change catches more (never lower it to make a change pass).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).parent / "fixtures"

#: caught / expected markers, as last measured (the history: docs/performance.md)
RECALL_FLOOR = 64 / 71


def _load():
    name = "check_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "check_corpus.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


cc = _load()


def test_recall_does_not_drop() -> None:
    cases = cc.recall_cases(FIXTURES)
    table, caught, total = cc.recall_table(cases)
    assert total >= 25
    assert caught / total >= RECALL_FLOOR - 1e-9, f"recall fell to {caught}/{total}:\n{table}"


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.py")), ids=lambda p: p.name)
def test_each_reproduction_cites_its_source_and_expects_a_finding(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert re.match(r"# Source: https?://\S+", first), "the first line cites the report"
    assert "# Report:" in text
    assert any(cc._MARKER.search(line) for line in text.splitlines()), "no expected finding"
    compile(text, str(path), "exec")  # a reproduction is valid Python


def test_the_table_counts_a_marker_only_when_its_line_and_code_match(tmp_path: Path) -> None:
    (tmp_path / "r.py").write_text(
        "# Source: https://example.org/1\n# Report: x\nimport torch\n"
        'device = torch.device("cuda")  # FRY001\n'
        "y = 1  # FRY002\n"
    )
    cases = cc.recall_cases(tmp_path)
    table, caught, total = cc.recall_table(cases)
    assert (caught, total) == (1, 2)
    assert "| FRY001 | 1 | 1 | 100% |" in table and "| FRY002 | 1 | 0 | 0% |" in table
