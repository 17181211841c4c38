"""A device tensor handed through a method of an object that another class's constructor
keeps (``self.grid.select(idx)`` of ``Cells(grid)``), then through a static method called
through its class (``Cells.pick(idx, self)``): the mask that static method makes on the
CPU meets it, whichever files of the run hold the classes and build the objects."""

from __future__ import annotations

from pathlib import Path

from .test_project_callers import found, write

GRID = """\
import torch


class Grid:
    def __init__(self, points, device):
        self.points = points.to(device)

    def select(self, idx):
        return Cells.pick(idx, self)


class Cells:
    def __init__(self, grid, n):
        self.grid = grid
        self.parts = []
        for k in range(n):
            idx = torch.arange(k).to(self.grid.points.device)
            self.parts.append(self.grid.select(idx))

    @staticmethod
    def pick(idx, grid):
        mask = torch.zeros(grid.points.shape[0])
        return mask + idx
"""
MAIN = """\
import torch
from grid import Grid, Cells

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
grid = Grid(torch.rand(10, 3), device)
cells = Cells(grid, 4)
"""


def test_a_static_method_reached_through_a_held_object_meets_the_device_index(tmp_path: Path) -> None:
    """Both classes in grid.py, the objects built in main.py."""
    paths = write(tmp_path, {"grid.py": GRID, "main.py": MAIN})
    line = GRID.splitlines().index("        mask = torch.zeros(grid.points.shape[0])") + 1
    assert found(tmp_path, paths, "FRY010")[0] == [("grid.py", line, "FRY010")]


def test_the_holder_in_its_own_file(tmp_path: Path) -> None:
    """``Cells`` in cells.py (importing ``Grid``), ``Grid`` in grid.py calling a helper of
    its own file with the index it is given."""
    grid, cells = GRID.split("class Cells:")
    grid = grid.replace("return Cells.pick(idx, self)", "return pick(idx, self)") + \
        "def pick(idx, grid):\n    mask = torch.zeros(grid.points.shape[0])\n    return mask + idx\n"
    cells = "import torch\nfrom grid import Grid\n\n\nclass Cells:" + cells.split("    @staticmethod")[0]
    main = MAIN.replace("from grid import Grid, Cells", "from grid import Grid\nfrom cells import Cells")
    paths = write(tmp_path, {"grid.py": grid, "cells.py": cells, "main.py": main})
    line = grid.splitlines().index("    mask = torch.zeros(grid.points.shape[0])") + 1
    assert found(tmp_path, paths, "FRY010")[0] == [("grid.py", line, "FRY010")]


def test_quiet_when_a_construction_hands_an_object_the_run_does_not_show(tmp_path: Path) -> None:
    """A second ``Cells(load_grid(), 2)``: the attribute may hold anything, so nothing says
    ``Grid.select`` is called with the device index."""
    main = MAIN + "from loaders import load_grid\nmore = Cells(load_grid(), 2)\n"
    paths = write(tmp_path, {"grid.py": GRID, "main.py": main})
    assert found(tmp_path, paths, "FRY010")[0] == []
