"""``from M import *`` of a module of the run binds, in the importing file, the names that
module imports from outside the run (``import torch``, ``from torch import nn``), as Python
does: the strings of a literal ``__all__``, else the public names, and through the star
imports of that module too.  A module that is not in the run binds nothing known."""

from __future__ import annotations

import ast
from pathlib import Path

from torchferry.check.flow import Project
from torchferry.check.flow.stars import exports_of

from .test_project_callers import found, write

OPS = """\
import torch
from torch import nn
import torch.nn.functional as F
"""

MODEL = """\
{imports}


class PriorGrad(nn.Module):
    def __init__(self, levels):
        super().__init__()
        self.levels = torch.tensor(levels)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        t = torch.randint(0, 4, (x.shape[0],), device=x.device)
        return F.relu(self.fc(x)) * self.levels[t]
"""

ATTRIBUTE_LINE = 7  # ``self.levels = torch.tensor(levels)``


def fry011(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    return found(tmp_path, write(tmp_path, files), "FRY011")[0]


def model(imports: str = "from ops import *") -> str:
    return MODEL.format(imports=imports)


def test_the_names_a_star_imported_module_imports_are_bound(tmp_path: Path) -> None:
    files = {"ops.py": OPS, "model.py": model()}
    assert fry011(tmp_path, files) == [("model.py", ATTRIBUTE_LINE, "FRY011")]


def test_a_star_imported_module_outside_the_run_binds_nothing_known(tmp_path: Path) -> None:
    assert fry011(tmp_path, {"model.py": model()}) == []


def test_star_imports_are_followed_through_star_imports(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/torch_core.py": OPS,
             "pkg/core.py": "from .torch_core import *\n",
             "pkg/model.py": model("from .core import *")}
    assert fry011(tmp_path, files) == [("pkg/model.py", ATTRIBUTE_LINE, "FRY011")]


def test_a_cycle_of_star_imports_ends(tmp_path: Path) -> None:
    files = {"ops.py": OPS + "from layers import *\n", "layers.py": "from ops import *\n",
             "model.py": model("from layers import *")}
    assert fry011(tmp_path, files) == [("model.py", ATTRIBUTE_LINE, "FRY011")]


def test_a_literal_all_decides_what_is_bound(tmp_path: Path) -> None:
    listed = {"ops.py": OPS + "__all__ = ['torch', 'nn', 'F']\n", "model.py": model()}
    assert fry011(tmp_path, listed) == [("model.py", ATTRIBUTE_LINE, "FRY011")]
    for all_list in ("__all__ = ['torch', 'F']", "__all__ = ['torch', 'nn'] + ['F']"):
        files = {"ops.py": OPS + all_list + "\n", "model.py": model()}
        assert fry011(tmp_path, files) == [], all_list


def test_an_import_the_module_binds_again_is_not_bound(tmp_path: Path) -> None:
    for rebound in ("nn = None", "from mylib import nn", "_F = F", "def nn(): pass"):
        files = {"ops.py": OPS + rebound + "\n", "model.py": model()}
        expected = [("model.py", ATTRIBUTE_LINE, "FRY011")] if rebound.startswith("_") else []
        assert fry011(tmp_path, files) == expected, rebound


def test_a_private_name_is_not_bound(tmp_path: Path) -> None:
    files = {"ops.py": OPS.replace("from torch import nn", "from torch import nn as _nn"),
             "model.py": model().replace("nn.", "_nn.")}
    assert fry011(tmp_path, files) == []


FPS = """\
from .core import *


def roc(scores, device):
    fps = scores.to(device).cumsum(0)
    return torch.cat((LongTensor([0]), fps))
"""


def test_a_torch_constructor_imported_by_a_star_imported_module(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/torch_core.py": "import torch\nfrom torch import LongTensor\n",
             "pkg/core.py": "from .torch_core import *\n", "pkg/metrics.py": FPS}
    assert found(tmp_path, write(tmp_path, files), "FRY010")[0] == [("pkg/metrics.py", 6, "FRY010")]


def test_a_class_left_out_of_a_literal_all_is_not_bound(tmp_path: Path) -> None:
    from .test_project_class_aliases import AGENTS, codes, sink, train

    for all_list, fires in (("", True), ("__all__ = ['Agent']", True), ("__all__ = ['Critic']", False)):
        files = {"agents.py": AGENTS + all_list + "\n",
                 "train.py": train("from agents import *", "agent = Agent(device)")}
        assert codes(tmp_path, files) == (sink(files) if fires else []), all_list


def test_a_star_imported_file_is_parsed_once_for_its_exports_and_its_analysis() -> None:
    parsed: list[str] = []

    def parse(source: str, path: str) -> ast.Module:
        parsed.append(path)
        return ast.parse(source)

    run = Project({"/p/ops.py": OPS.encode(), "/p/model.py": model().encode()},
                  packages=(), parse=parse)
    ex = run.exports("/p/ops.py")
    assert ex is not None and ex.imports["F"] == "torch.nn.functional"
    ff = run.file_flow("/p/ops.py")
    assert ff is not None and parsed == ["/p/ops.py"]
    assert run.tree_of("/p/ops.py", OPS) is ff.tree


def test_the_globals_a_function_declares_are_bound_by_the_module() -> None:
    source = "import torch\nfrom torch import nn\ndef f():\n    global nn\n    nn = None\n"
    ex = exports_of(ast.parse(source))
    assert "nn" in ex.bound and "nn" not in ex.imports and ex.imports == {"torch": "torch"}
