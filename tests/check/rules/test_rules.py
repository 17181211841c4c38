"""The rules of ``ferry check`` against their fixtures (flake8-bugbear style).

* ``fixtures/FRY0NN.py``: bad and good code for one rule; each line that must be
  reported ends with a comment naming the code(s): ``# FRY002`` or ``# FRY009, FRY001``.
  The rule alone is run (``select=[code]``) and the set of (line, code) must equal the
  markers: a missing *or* an extra finding fails.
* every other fixture (the lessons' own programs, good training loops) is checked
  with all rules, against its markers (often none).
* ``fixtures/fixes/FRY0NN[_name].in.py`` -> ``.out.py``: the fixes applied (safe ones, or
  also unsafe ones when the name contains ``_unsafe``) give exactly ``.out.py``, which
  parses, and applying the fixes again changes nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from torchferry.check.engine import apply_fixes, check_source, fix_source
from torchferry.check.rules import all_rules

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
FIXES = FIXTURES / "fixes"
MARKER = re.compile(r"#\s*(FRY\d{3}(?:\s*,\s*FRY\d{3})*)\s*$")
CODE_FILE = re.compile(r"^(FRY\d{3})")


def expected_markers(source: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = MARKER.search(line)
        if m:
            out.update((lineno, c.strip()) for c in m.group(1).split(","))
    return out


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.py"))


def test_every_rule_has_a_fixture_and_a_fix_pair_when_it_fixes() -> None:
    names = {p.name for p in fixture_files()}
    pairs = {p.name.split(".")[0].split("_")[0] for p in FIXES.glob("*.in.py")}
    for rule in all_rules():
        assert f"{rule.CODE}.py" in names, f"no fixture for {rule.CODE}"
        if rule.FIX != "none":
            assert rule.CODE in pairs, f"no fix pair for {rule.CODE}"


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    m = CODE_FILE.match(path.name)
    select = [m.group(1)] if m else None
    expected = expected_markers(source)
    if select:
        assert all(code == select[0] for _, code in expected), "markers of other rules"
    findings = check_source(source, str(path), select=select)
    got = {(f.line, f.code) for f in findings}
    missing = sorted(expected - got)
    extra = sorted(
        (f.line, f.code, f.message) for f in findings if (f.line, f.code) not in expected
    )
    assert not missing and not extra, f"missing: {missing}\nextra: {extra}"
    lines = source.splitlines()
    for f in findings:  # spans point at real text
        assert 1 <= f.line <= f.end_line <= len(lines)
        assert 0 <= f.column <= len(lines[f.line - 1])
        assert f.message and "None" not in f.message


def fix_pairs() -> list[Path]:
    return sorted(FIXES.glob("*.in.py"))


@pytest.mark.parametrize("path", fix_pairs(), ids=lambda p: p.name)
def test_fix_pair(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    expected = path.with_name(path.name.replace(".in.py", ".out.py")).read_text(encoding="utf-8")
    code = path.name[:6]
    unsafe = "_unsafe" in path.name
    findings = check_source(source, str(path), select=[code])
    assert any(f.fix is not None for f in findings), "nothing to fix in the .in.py"
    result = fix_source(source, str(path), select=[code], unsafe=unsafe)
    assert result.error is None
    assert result.source == expected
    ast.parse(result.source)
    again = check_source(result.source, str(path), select=[code])
    assert apply_fixes(result.source, again, unsafe=unsafe) == result.source
    assert not [f for f in again if f.fix is not None and (f.fix.safe or unsafe)]


def test_markers_parser() -> None:
    src = "x = 1  # FRY009, FRY001\ny = 2\nz = 3  # FRY002\n"
    assert expected_markers(src) == {(1, "FRY009"), (1, "FRY001"), (3, "FRY002")}
