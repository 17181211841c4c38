"""``check_cells``: notebook/IPython cells checked as one program, findings by cell."""

from __future__ import annotations

import ast

from torchferry.check import CellFinding, check_cells
from torchferry.check.engine import apply_fixes


def test_names_flow_between_cells_and_findings_are_located_by_cell() -> None:
    cells = ["import torch", "x = torch.ones(3)", "%time y = 1", "x.to('cpu')"]
    found = check_cells(cells)
    assert [(c.cell, c.finding.line, c.finding.column, c.finding.code) for c in found] == [
        (3, 1, 0, "FRY002")
    ]
    assert isinstance(found[0], CellFinding)


def test_fix_edits_its_own_cell_and_the_fixed_cell_runs() -> None:
    cells = ["import torch\nx = torch.ones(3)", "print(1)\nx.to('cpu')\n"]
    (hit,) = check_cells(cells)
    assert hit.cell == 1 and hit.finding.fix is not None and hit.finding.fix.safe
    fixed = apply_fixes(cells[1], [hit.finding])
    assert fixed == "print(1)\nx = x.to('cpu')\n"
    ast.parse(fixed)


def test_select_ignore_and_noqa() -> None:
    cells = ["import torch", "d = torch.device('cuda')", "m = torch.load('m.pt')  # noqa"]
    codes = {c.finding.code for c in check_cells(cells)}
    assert codes == {"FRY001"}
    assert check_cells(cells, ignore=["FRY001"]) == []
    assert {c.finding.code for c in check_cells(cells, noqa=False, select=["FRY004"])} == {"FRY004"}


def test_syntax_error_is_one_fry000_in_its_cell() -> None:
    found = check_cells(["import torch", "x = (", "y = 2"])
    assert [(c.cell, c.finding.code) for c in found] == [(1, "FRY000")]


def test_shell_escape_and_cell_magic_are_blanked() -> None:
    cells = ["!pip install torch", "%%bash\necho cuda", "import torch\nx = torch.ones(2)"]
    assert check_cells(cells) == []


def test_no_cells() -> None:
    assert check_cells([]) == []
