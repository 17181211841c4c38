"""The server's pieces without a client: evidence as related information, cells, positions.

The tests of ``convert`` import ``lsprotocol`` (half a second of CPU): marked slow, so
the fast loop does not pay for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.conftest import types
from torchferry.check.api import Evidence, Finding
from torchferry.server import analysis
from torchferry.server.analysis import CellText, Item, Place, Projects, Settings


@pytest.mark.slow
def test_evidence_becomes_related_information(tmp_path: Path) -> None:
    from torchferry.server import convert

    item = Item(Finding("FRY013", "labels stay on the CPU", 3, 4, 3, 10),
                related=(Place("made here", 1, 0), Place("used here", 2, 3, path="other.py")))
    lines = convert.Lines(["é = 1", "x", "    labels"], "utf-16")
    diag = convert.diagnostic(item, lines, None, "file:///a.py", tmp_path, None)
    info = diag.related_information
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in info] == [
        ("file:///a.py", 0, "made here"), ((tmp_path / "other.py").as_uri(), 1, "used here")]


def test_evidence_in_another_cell_points_at_that_cell(monkeypatch, tmp_path: Path) -> None:
    def fake(source, path, **kw):  # a rule whose evidence lies in an earlier cell
        return [Finding("FRY013", "m", 4, 0, 4, 1, evidence=(Evidence("made here", 2, 4),))]

    monkeypatch.setattr(analysis.engine, "check_source", fake)
    cells = [CellText("  import torch\n  x = torch.ones(1)\n"), CellText("x", "r"),
             CellText("print(x)\nx")]
    path = tmp_path / "nb.ipynb"
    items = analysis.check_cells(cells, path, Projects(Settings()).get(path), frozenset())
    # the R cell is not part of the program; the dedented first cell keeps its columns
    assert [(i.finding.line, i.cell, i.related) for i in items] == [
        (2, 2, (Place("made here", 2, 6, 0),))]


@pytest.mark.slow
def test_positions_round_trip_in_utf16() -> None:
    from torchferry.server import convert

    lines = convert.Lines(["a😀b = 'é'"], "utf-16")
    pos = lines.position(1, 2)
    assert (pos.line, pos.character) == (0, 3)
    assert lines.column(types.Position(0, 3)) == (1, 2)
    assert convert.Lines(["a😀b"], "utf-8").position(1, 2).character == 5


@pytest.mark.slow
def test_minimal_edit_touches_only_the_difference() -> None:
    from torchferry.server import convert

    old, new = "a\nb = x.to(d)\nc\n", "a\nb = x.to(d, non_blocking=True)\nc\n"
    edit = convert.minimal_edit(old, new, convert.Lines.of(old, "utf-16"))
    assert (edit.range.start.line, edit.range.start.character) == (1, 10)
    assert (edit.range.end.line, edit.range.end.character) == (1, 10)
    assert edit.new_text == ", non_blocking=True"


@pytest.mark.slow
def test_severity_by_rule_kind() -> None:
    from torchferry.server import convert

    assert [convert.severity(c).name for c in ("FRY000", "FRY001", "FRY007", "FRY009")] == [
        "Error", "Error", "Warning", "Information"]


def test_the_modules_left_out_of_doctest_collection_hold_no_examples() -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = Path(__file__).resolve().parents[2]
    addopts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"]
    ignored = [a.split("=", 1)[1] for a in addopts.split() if a.startswith("--ignore=src/")]
    assert ignored, "the server modules that import lsprotocol are left out"
    for rel in ignored:
        assert ">>>" not in (root / rel).read_text(), f"{rel} holds doctests that never run"


def test_the_vscode_extension_passes_every_setting() -> None:
    """editors/vscode declares and sends each of the server's settings (``ferry.path`` is
    the extension's own: the command)."""
    import json

    from torchferry.server.analysis import _SETTING_KEYS

    vscode = Path(__file__).resolve().parents[2] / "editors" / "vscode"
    declared = json.loads((vscode / "package.json").read_text())["contributes"][
        "configuration"]["properties"]
    assert {k.removeprefix("ferry.") for k in declared} == {*_SETTING_KEYS, "path"}
    extension = (vscode / "extension.js").read_text()
    assert [k for k in _SETTING_KEYS if f'{k}: c.get("{k}")' not in extension] == []
