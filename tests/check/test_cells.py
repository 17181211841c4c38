"""``check_cells``: notebook/IPython cells checked as one program, findings by cell."""

from __future__ import annotations

import ast

from torchferry.check import CellFinding, check_cells
from torchferry.check.engine import apply_fixes


def test_names_flow_between_cells_and_findings_are_located_by_cell() -> None:
    cells = ["import torch", "x = torch.ones(3)", "%time y = 1", "x.to('cpu')\nprint(x)"]
    found = check_cells(cells)
    assert [(c.cell, c.finding.line, c.finding.column, c.finding.code) for c in found] == [
        (3, 1, 0, "FRY002")
    ]
    assert isinstance(found[0], CellFinding)


def test_fix_edits_its_own_cell_and_the_fixed_cell_runs() -> None:
    cells = ["import torch\nx = torch.ones(3)", "print(1)\nx.to('cpu')\nprint(x)\n"]
    (hit,) = check_cells(cells)
    assert hit.cell == 1 and hit.finding.fix is not None and not hit.finding.fix.safe
    fixed = apply_fixes(cells[1], [hit.finding], unsafe=True)
    assert fixed == "print(1)\nx = x.to('cpu')\nprint(x)\n"
    ast.parse(fixed)


def test_a_cells_last_expression_is_displayed_not_discarded() -> None:
    # IPython shows the value of a cell's last expression (``x.cpu()`` shows the CPU copy):
    # it is used, unless a ``;`` silences it or more code follows in the cell
    setup = "import torch\nx = torch.ones(3)"
    assert check_cells([setup, "x.cpu()"]) == []
    assert check_cells([setup, "x.cpu()  # show it\n\n"]) == []
    assert check_cells([setup + "\nx.cpu()", "y = 1"]) == []
    for cell in ("x.cpu();", "x.cpu() ;  # quiet", "x.cpu()\ny = 1", "if x.sum():\n    x.cpu()"):
        assert [(c.cell, c.finding.code) for c in check_cells([setup, cell])] == [(1, "FRY002")], cell
    # a Python file has no cells: its last statement is discarded like any other
    from torchferry.check import check_source

    assert [f.code for f in check_source(setup + "\nx.cpu()\n")] == ["FRY002"]


def test_select_ignore_and_noqa() -> None:
    cells = ["import torch", "d = torch.device('cuda')", "m = torch.load('m.pt')  # noqa"]
    assert check_cells(cells) == []  # FRY001 is opt-in; FRY004's line has a noqa
    codes = {c.finding.code for c in check_cells(cells, select=["ALL"])}
    assert codes == {"FRY001"}
    assert check_cells(cells, select=["ALL"], ignore=["FRY001"]) == []
    assert {c.finding.code for c in check_cells(cells, noqa=False, select=["FRY004"])} == {"FRY004"}


def test_syntax_error_is_one_fry000_in_its_cell() -> None:
    found = check_cells(["import torch", "x = (", "y = 2"])
    assert [(c.cell, c.finding.code) for c in found] == [(1, "FRY000")]


def test_shell_escape_and_cell_magic_are_blanked() -> None:
    cells = ["!pip install torch", "%%bash\necho cuda", "import torch\nx = torch.ones(2)"]
    assert check_cells(cells) == []


def test_no_cells() -> None:
    assert check_cells([]) == []
