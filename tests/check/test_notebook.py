"""Notebooks: code cells only, IPython syntax blanked, findings by (cell, line), safe fixes."""

from __future__ import annotations

import json

import nbformat
import pytest

from torchferry.check.engine import check_cells
from torchferry.check.notebook import NotebookError, from_cells, parse_notebook
from torchferry.cli import main


def make_nb(*cells, outputs=True):
    nb = nbformat.v4.new_notebook()
    for kind, src in cells:
        if kind == "code":
            cell = nbformat.v4.new_code_cell(src)
            if outputs:
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]
                cell.execution_count = 3
        else:
            cell = nbformat.v4.new_markdown_cell(src)
        nb.cells.append(cell)
    return nb


CELLS = (
    ("markdown", "# Title with torch"),
    ("code", "%matplotlib inline\nimport torch\n!pip install x"),
    ("markdown", "text"),
    ("code", 'for i in range(3):\n    %time f(i)\n    x.to(d)\ndev = "cuda"'),
    ("code", "%%bash\necho x.to(d)"),
    ("code", "%%time\ny.to(d)"),
)


@pytest.fixture
def nbproj(tmp_path, monkeypatch, fake_rules):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "nb.ipynb"
    nbformat.write(make_nb(*CELLS), path)
    return path


def run(capsys, *argv):
    rc = main(["check", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_parse_blanks_ipython_and_keeps_lines():
    nb = parse_notebook(nbformat.writes(make_nb(*CELLS)))
    assert nb.source.splitlines() == [
        "pass",
        "import torch",
        "pass",
        "for i in range(3):",
        "    pass",
        "    x.to(d)",
        'dev = "cuda"',
        "",
        "",
        "",
        "y.to(d)",
    ]
    assert nb.locate(6) == (4, 3)
    assert nb.locate(11) == (6, 2)


def test_findings_located_by_cell_over_all_cells(nbproj, capsys):
    rc, out, _ = run(capsys, "--format", "json")
    assert rc == 1
    got = [(i["code"], i["cell"], i["line"], i["column"]) for i in json.loads(out)]
    assert got == [("FRY901", 4, 3, 5), ("FRY902", 4, 4, 7), ("FRY901", 6, 2, 1)]
    rc, out, _ = run(capsys)
    assert out.startswith("nb.ipynb:cell 4:3:5: FRY901 [*] result of `.to()` is discarded\n")
    assert "  3 |     x.to(d)\n" in out


def test_fix_keeps_a_valid_notebook_with_outputs(nbproj, capsys):
    before = nbformat.read(nbproj, as_version=4)
    raw_before = nbproj.read_text()
    rc, out, _ = run(capsys, "--fix")
    assert rc == 1  # the unsafe FRY902 remains
    after = nbformat.read(nbproj, as_version=4)
    nbformat.validate(after)
    assert (
        after.cells[3].source == 'for i in range(3):\n    %time f(i)\n    x = x.to(d)\ndev = "cuda"'
    )
    assert after.cells[5].source == "%%time\ny = y.to(d)"
    for b, a in zip(before.cells, after.cells, strict=True):
        assert a.get("outputs") == b.get("outputs")
        assert a.get("execution_count") == b.get("execution_count")
        assert a.metadata == b.metadata
    # only the fixed source lines differ in the file's bytes
    raw_after = nbproj.read_text()
    assert raw_after == raw_before.replace('"    x.to(d)\\n"', '"    x = x.to(d)\\n"').replace(
        '"y.to(d)"', '"y = y.to(d)"'
    )
    # a second run changes nothing
    mtime = nbproj.stat().st_mtime_ns
    run(capsys, "--fix")
    assert nbproj.read_text() == raw_after and nbproj.stat().st_mtime_ns == mtime


def test_notebook_unsafe_fix_and_diff(nbproj, capsys):
    raw = nbproj.read_text()
    rc, out, err = run(capsys, "--diff", "--unsafe-fixes")
    assert rc == 1 and nbproj.read_text() == raw
    assert "--- a/nb.ipynb:cell 4\n+++ b/nb.ipynb:cell 4\n" in out
    assert "+dev = device" in out and "+y = y.to(d)" in out
    assert "Would fix 3 findings." in err
    run(capsys, "--fix", "--unsafe-fixes")
    nb = nbformat.read(nbproj, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[3].source.endswith("dev = device")


def test_invalid_notebook_json_is_fry000(tmp_path, monkeypatch, capsys, fake_rules):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.ipynb").write_text('{"cells": [torch')
    rc, out, _ = run(capsys, "--format", "json")
    assert rc == 1
    (item,) = json.loads(out)
    assert item["code"] == "FRY000" and "invalid notebook JSON" in item["message"]


def test_notebook_without_cells_and_bad_cells():
    with pytest.raises(NotebookError, match="no 'cells' list"):
        parse_notebook('{"torch": 1}')
    with pytest.raises(NotebookError, match="nbformat 3"):
        parse_notebook('{"worksheets": []}')
    with pytest.raises(NotebookError, match="cell 1: 'source' must be"):
        parse_notebook('{"cells": [{"cell_type": "code", "source": 5}]}')


def test_syntax_error_in_a_cell_is_located_in_it(tmp_path, monkeypatch, capsys, fake_rules):
    monkeypatch.chdir(tmp_path)
    nbformat.write(make_nb(("code", "import torch"), ("code", "x = (1,\n")), tmp_path / "n.ipynb")
    rc, out, _ = run(capsys, "--format", "json")
    (item,) = json.loads(out)
    assert (item["code"], item["cell"]) == ("FRY000", 2)


def test_string_source_and_indent_2_layout_kept(tmp_path, monkeypatch, capsys, fake_rules):
    monkeypatch.chdir(tmp_path)
    data = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": "import torch\nx.to(d)",
            },  # fmt: skip
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "s.ipynb"
    text = json.dumps(data, indent=2) + "\n"
    path.write_text(text)
    run(capsys, "--fix")
    assert path.read_text() == text.replace("x.to(d)", "x = x.to(d)")


def test_real_rules_on_a_notebook(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "lesson.ipynb"
    nbformat.write(
        make_nb(
            ("markdown", "# Loading"),
            ("code", "!pip install torch\nimport torch\nmodel = torch.nn.Linear(2, 2)"),
            ("code", "%%time\nstate = torch.load('ckpt.pt')\nmodel.load_state_dict(state)"),
        ),
        path,
    )
    rc, out, _ = run(capsys, "--format", "json", "--select", "FRY004")
    (item,) = json.loads(out)
    assert (item["code"], item["cell"], item["line"], item["column"]) == ("FRY004", 3, 2, 9)
    rc, out, _ = run(capsys, "--fix", "--select", "FRY004")
    assert rc == 0, out
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[2].source == (
        "%%time\nstate = torch.load('ckpt.pt', map_location=\"cpu\")\nmodel.load_state_dict(state)"
    )
    assert nb.cells[2].outputs[0]["text"] == "hi\n"


# IPython runs a cell after its cleanup transforms; ``ferry check`` reads it the same way
# (IPython/core/inputtransformer2.py: ``leading_indent`` dedents the whole cell, and a
# ``!``/``%`` line ending in a backslash continues on the next line)
IPYTHON_CELLS = [
    "!pip install a \\\n    b \\\n    c\nimport torch\n",
    "x = !ls \\\n  -la\nprint(x)\n",
    "%time f(1, \\\n  2)\n",
    "  x = 1\n    y = 2\n",
    "    x = 1\n  y = 2\n",
    "\tx = 1\n\tif x:\n\t\ty = 2\n",
    "  x = '''\nabc'''\n",
    "  %matplotlib inline\n  import torch\n",
    "   \n  x = 1\n  \n  y = 2",
    "  !pip install \\\n  foo\n  x = 1\n",
    "for i in range(2):\n    !echo \\\n    hi\n    x = i\n",
    "  %%time\n  x = 1\n",
    " num_params = 85,800,963\n print(num_params)\n",
    "# IPython's wildcard help (%psearch), Atcold/NYU-DLSP20 01-tensor_tutorial\ntorch.*Tensor?\n",
    "?torch.*Tensor\nx = 1\n",
    "import torch\ntorch.*Tensor?\n",
    "x = [1]\nx[0]?\nx.append??\n",
    "x = 1 if y else 2?\n",
]


@pytest.mark.parametrize("cell", IPYTHON_CELLS)
def test_cell_parses_exactly_when_ipython_runs_it(cell):
    import ast

    ipt = pytest.importorskip("IPython.core.inputtransformer2")
    try:
        ast.parse(ipt.TransformerManager().transform_cell(cell))
        ipython_runs = True
    except SyntaxError:
        ipython_runs = False
    try:
        ast.parse(from_cells([cell]).source)
        we_parse = True
    except SyntaxError:
        we_parse = False
    assert we_parse == ipython_runs


def test_continued_shell_line_is_blanked_to_its_end():
    nb = from_cells(["!pip install torch \\\n    torchvision \\\n    tqdm\nimport torch\n"])
    assert nb.source == "pass\n\n\nimport torch\n"
    assert nb.blanked == {1, 2, 3}


def test_indented_cell_is_dedented_and_findings_point_into_the_cell():
    cells = ["import torch\n", "  x = torch.ones(2)\n  \n  y = x.to('cuda')\n"]
    nb = from_cells(cells)
    assert nb.source.splitlines()[1:] == ["x = torch.ones(2)", "", "y = x.to('cuda')"]
    (found,) = check_cells(cells, select=["FRY001"])
    f = found.finding
    assert (found.cell, f.line, f.column, f.end_column) == (1, 3, 11, 17)
    assert cells[1].splitlines()[2][f.column:f.end_column] == "'cuda'"


def test_fix_in_a_dedented_cell_edits_the_cell_at_its_own_columns(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "ind.ipynb"
    nbformat.write(make_nb(("code", " import torch\n x = torch.ones(2)\n x.to('cpu')\n y = 1")), path)
    rc, out, _ = run(capsys, "--fix", "--unsafe-fixes", "--select", "FRY002")
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].source == " import torch\n x = torch.ones(2)\n x = x.to('cpu')\n y = 1"
