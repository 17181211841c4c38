"""Notebooks: a cell whose only line IPython runs as a magic without its ``%`` (automagic)."""

from __future__ import annotations

import ast
import os

import pytest

from torchferry.check.automagic import ALIASES, LINE_MAGICS
from torchferry.check.engine import check_cells
from torchferry.check.notebook import from_cells


def _syntax_errors(cells: list[str]) -> list[tuple[int, int]]:
    """(cell index, line) of each FRY000."""
    return [(f.cell, f.finding.line) for f in check_cells(cells, select=["FRY000"])]


def test_a_single_line_cell_run_by_automagic_is_blanked():
    cells = ["import torch\n", "pip install pytorch_lightning --quiet", "\n  ls lightning_logs/\n"]
    nb = from_cells(cells)
    assert nb.source == "import torch\npass\n\npass\n"
    assert nb.blanked == {2, 4}
    assert _syntax_errors(cells) == []


def test_the_same_line_in_a_cell_of_several_lines_is_still_a_syntax_error():
    cells = ["import torch\npip install pytorch_lightning --quiet\n"]
    assert from_cells(cells).blanked == set()
    assert _syntax_errors(cells) == [(0, 2)]


def test_a_trailing_blank_line_makes_a_cell_of_two_lines():
    # IPython's prefilter reads a cell of one line; "ls x\n\n" is two
    assert _syntax_errors(["ls lightning_logs/\n\n"]) == [(0, 1)]


def test_a_name_bound_earlier_shadows_the_magic():
    cells = ["ls = [1, 2]\n", "ls lightning_logs/\n"]
    assert from_cells(cells).blanked == set()
    assert _syntax_errors(cells) == [(1, 1)]
    assert _syntax_errors(["import os as cd\n", "cd ..\n"]) == [(1, 1)]


def test_a_name_only_mentioned_earlier_does_not_shadow():
    cells = ["!pip install torch\n# pip install tqdm\nx = 'ls'\n", "ls lightning_logs/\n"]
    assert _syntax_errors(cells) == []


def test_automagic_switched_off_leaves_the_line_python():
    assert _syntax_errors(["%automagic off\n", "ls x/\n"]) == [(1, 1)]
    assert _syntax_errors(["%automagic 0\n", "%automagic\n", "ls x/\n"]) == []
    assert _syntax_errors(["automagic\n", "ls x/\n"]) == [(1, 1)]


def test_python_as_written_stays_python():
    nb = from_cells(["pwd\n", "ls = 3\n", "time.sleep(1)\n", "ls, b = 1, 2\n"])
    assert nb.blanked == set()


# (cells run before, the cell): whether it parses after IPython's transform_cell
CASES = [
    ([], "pip install pytorch_lightning --quiet"),
    ([], "ls lightning_logs/"),
    ([], "cd .."),
    ([], "ls -la"),
    ([], "ls == 3"),
    ([], "ls = 3"),
    ([], "  pip install x\n"),
    ([], "\n\nmkdir -p out\n"),
    ([], "ls x\n\n"),
    ([], "x = 1\npip install y"),
    ([], "pip-install x"),
    ([], "pip.main install"),
    ([], "conda install -y x"),
    ([], "print install x"),
    (["ls = [1, 2]"], "ls -la"),
    (["ls = [1, 2]"], "ls lightning_logs/"),
    (["import os as cd"], "cd .."),
    (["def pip():\n    pass"], "pip install x"),
    (["%automagic off"], "ls x/"),
    (["%automagic off", "%automagic on"], "ls x/"),
]


def _new_shell(directory):
    pytest.importorskip("IPython")
    os.environ.setdefault("IPYTHONDIR", str(directory))
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    return InteractiveShell(config=config)


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    return _new_shell(tmp_path_factory.mktemp("ipython"))


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize(("before", "cell"), CASES)
def test_a_cell_parses_exactly_when_ipython_runs_it(shell, capsys, before, cell):
    shell.reset(new_session=False)
    shell.automagic = True
    for earlier in before:
        assert shell.run_cell(earlier).success
    ipython_runs = _parses(shell.transform_cell(cell))
    capsys.readouterr()
    assert _parses(from_cells([*before, cell]).source) == ipython_runs


@pytest.mark.skipif(os.name != "posix", reason="IPython's default aliases are the POSIX ones")
def test_the_names_are_ipythons(tmp_path):
    shell = _new_shell(tmp_path)  # as a kernel starts it (``reset`` adds terminal aliases)
    line = set(shell.magics_manager.magics["line"])
    aliases = {name for name, _ in shell.alias_manager.aliases}
    assert ALIASES == aliases
    assert LINE_MAGICS == line - aliases
