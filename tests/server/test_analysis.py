"""The server's pieces without a client: evidence as related information, cells, positions."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.api import Evidence, Finding
from torchferry.server import analysis, convert
from torchferry.server.analysis import CellText, Item, Place, Projects, Settings

lsp_types = __import__("lsprotocol.types").types


def test_evidence_becomes_related_information(tmp_path: Path) -> None:
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


def test_positions_round_trip_in_utf16() -> None:
    lines = convert.Lines(["a😀b = 'é'"], "utf-16")
    pos = lines.position(1, 2)
    assert (pos.line, pos.character) == (0, 3)
    assert lines.column(lsp_types.Position(0, 3)) == (1, 2)
    assert convert.Lines(["a😀b"], "utf-8").position(1, 2).character == 5


def test_minimal_edit_touches_only_the_difference() -> None:
    old, new = "a\nb = x.to(d)\nc\n", "a\nb = x.to(d, non_blocking=True)\nc\n"
    edit = convert.minimal_edit(old, new, convert.Lines.of(old, "utf-16"))
    assert (edit.range.start.line, edit.range.start.character) == (1, 10)
    assert (edit.range.end.line, edit.range.end.character) == (1, 10)
    assert edit.new_text == ", non_blocking=True"
