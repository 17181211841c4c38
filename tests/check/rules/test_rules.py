"""The rules of ``ferry check`` against their fixtures (flake8-bugbear style).

* ``fixtures/FRY0NN.py``: bad and good code for one rule; each line that must be
  reported ends with a comment naming each finding's code and 1-based column, as
  ``ferry check`` prints it: ``# FRY002:1`` or ``# FRY009:5, FRY001:20``.
  The rule alone is run (``select=[code]``) and the set of (line, column, code) must
  equal the markers: a missing, an extra *or* a misplaced finding fails.
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
ONE = r"FRY\d{3}:\d+"
MARKER = re.compile(rf"#\s*({ONE}(?:\s*,\s*{ONE})*)\s*$")
#: A marker written without its column (the old form): refused, so none is skipped.
BARE = re.compile(r"#\s*FRY\d{3}\b(?!:)")
CODE_FILE = re.compile(r"^(FRY\d{3})")


def expected_markers(source: str) -> set[tuple[int, int, str]]:
    """(line, 1-based column, code) of every marker; a marker without a column fails."""
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = MARKER.search(line)
        if m:
            for item in m.group(1).split(","):
                code, column = item.strip().split(":")
                out.add((lineno, int(column), code))
        elif BARE.search(line):
            raise AssertionError(f"line {lineno}: marker without a column: {line.strip()}")
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
        assert all(code == select[0] for _, _, code in expected), "markers of other rules"
    findings = check_source(source, str(path), select=select or ["ALL"])
    got = {(f.line, f.column + 1, f.code) for f in findings}
    missing = sorted(expected - got)
    extra = sorted(
        (f.line, f.column + 1, f.code, f.message)
        for f in findings
        if (f.line, f.column + 1, f.code) not in expected
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
    src = "x = 1  # FRY009:5, FRY001:1\ny = 2\nz = 3  # FRY002:12\n"
    assert expected_markers(src) == {(1, 5, "FRY009"), (1, 1, "FRY001"), (3, 12, "FRY002")}


def test_a_marker_without_its_column_is_refused() -> None:
    with pytest.raises(AssertionError, match="line 2: marker without a column"):
        expected_markers("x = 1\ny = x.numpy()  # FRY003\n")
