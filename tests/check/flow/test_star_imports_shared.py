"""The star imports of the run, read once before the workers start: every worker inherits
the answers and the trees of the modules they read, and the findings are those of one
process."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from torchferry.check import runner
from torchferry.check.flow import Project
from torchferry.check.flow import project as project_module

FILES = {
    "/r/pkg/__init__.py": b"from .layers import *\nfrom .blocks import *  # two\n",
    "/r/pkg/layers.py": b"import torch\nfrom torch import nn\n__all__ = ['nn', 'Norm']\n"
                        b"class Norm(nn.Module):\n    pass\n",
    "/r/pkg/blocks.py": b"from torch.nn import functional as F\nfrom .layers import *\n"
                        b"def act(x):\n    return F.relu(x)\n",
    "/r/pkg/text.py": b"HELP = '''\nfrom .nowhere import *\n'''\n",
    "/r/use.py": b"from pkg import *\nx = Norm()\n",
}
PACKAGES = {"/r/pkg"}


def _never(text: str, path: str) -> ast.Module:
    raise AssertionError(f"{path} parsed again")


def test_read_star_imports_answers_every_star_import_and_keeps_the_trees() -> None:
    run = Project(FILES, packages=PACKAGES)
    fresh = Project(FILES, packages=PACKAGES)
    assert run.read_star_imports() == 5  # (the one inside a string too: it reads nothing)
    run._parse = _never  # type: ignore[method-assign]  # every answer was kept
    for path, module in [("/r/pkg/__init__.py", ".layers"), ("/r/pkg/__init__.py", ".blocks"),
                         ("/r/pkg/blocks.py", ".layers"), ("/r/use.py", "pkg")]:
        assert run.star_imports(path, module) == fresh.star_imports(path, module)
    assert run.star_imports("/r/use.py", "pkg") == {"nn": "torch.nn", "F": "torch.nn.functional"}
    for path in ("/r/pkg/layers.py", "/r/pkg/blocks.py", "/r/pkg/__init__.py"):
        text = FILES[path].decode()
        assert run.tree_of(path, text) is not None  # a check of it reuses the tree
        assert run.file_flow(path) is not None
    assert run.tree_of("/r/use.py", FILES["/r/use.py"].decode()) is None  # not star-imported


def test_the_workers_start_with_the_star_imports_read(tmp_path: Path, monkeypatch) -> None:
    seen: list[int] = []

    def batches(todo, opts, workers, ctx, progress):
        seen.append(len(opts.project._stars))
        return [runner._check_file(p, data, opts, display) for _, p, data, display, _ in todo]

    monkeypatch.setattr(runner, "_parallel_batches", batches)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(project_module.Project, "_is_package",
                        lambda self, d: os.path.basename(d) == "pkg")
    for path, data in FILES.items():
        target = tmp_path / path.removeprefix("/r/")
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(b"import torch\n" + data)
    paths = sorted(tmp_path.rglob("*.py"))
    opts = runner.Options(root=tmp_path, select=("ALL",))
    two = runner.check_paths(paths, opts, jobs=2)
    assert seen and seen[0] > 0
    one = runner.check_paths(paths, opts, jobs=1)
    assert [(o.path, o.diagnostics) for o in two] == [(o.path, o.diagnostics) for o in one]
