"""Imports through a directory without ``__init__.py`` inside a package of the run
(``pkg/sub/`` under ``pkg/__init__.py``: a namespace package, importable all the same):
``pkg.sub.mod`` is the run's ``pkg/sub/mod.py``, so its classes are known where they are
used (a module's ``forward`` that reads an argument only with ``.tolist()``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.flow.project import Project
from torchferry.check.runner import Options, check_paths

WRAPPER = '''
import torch

class LossWrapper(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, feats, gts, gt_indices, flag):
        if flag:
            gts = [gts[i] for i in gt_indices.tolist()]
        return self.model(feats).sum() + len(gts)
'''
TRAIN = '''
import torch
{imports}

class Trainer:
    def __init__(self):
        self.lw_model = {make}(torch.nn.Linear(4, 4)).cuda()

    def step(self, feats, gts, flag):
        return self.lw_model(feats.cuda(), gts, torch.arange(0, len(gts)), flag)
'''
SPELLINGS = [
    ("from pkg.modules.loss_wrapper import LossWrapper", "LossWrapper"),
    ("import pkg.modules.loss_wrapper as lw", "lw.LossWrapper"),
    ("from pkg.modules import loss_wrapper", "loss_wrapper.LossWrapper"),
]


def _write(root: Path, train: str, wrapper: str = WRAPPER) -> list[Path]:
    (root / "pkg" / "modules").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "modules" / "loss_wrapper.py").write_text(wrapper)
    (root / "tools").mkdir()
    (root / "tools" / "train.py").write_text(train)
    return [root / "pkg" / "__init__.py", root / "pkg" / "modules" / "loss_wrapper.py",
            root / "tools" / "train.py"]


def _fry010(root: Path, paths: list[Path]) -> list[tuple[str, int]]:
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    return [(Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics]


@pytest.mark.parametrize(("imports", "make"), SPELLINGS, ids=["from-import", "import-as", "from-package"])
def test_a_class_under_a_namespace_directory_is_known(tmp_path: Path, imports: str, make: str) -> None:
    paths = _write(tmp_path, TRAIN.format(imports=imports, make=make))
    assert _fry010(tmp_path, paths) == []


@pytest.mark.parametrize(("imports", "make"), SPELLINGS, ids=["from-import", "import-as", "from-package"])
def test_an_argument_the_forward_computes_with_is_still_found(tmp_path: Path, imports: str, make: str) -> None:
    used = WRAPPER.replace("self.model(feats).sum() + len(gts)",
                           "(self.model(feats) * gt_indices.unsqueeze(1)).sum() + len(gts)")
    assert used != WRAPPER
    paths = _write(tmp_path, TRAIN.format(imports=imports, make=make), used)
    assert _fry010(tmp_path, paths) == [("train.py", 10)]


def test_find_module_through_namespace_directories() -> None:
    files = {"/r/pkg/__init__.py": b"", "/r/pkg/a/b/mod.py": b"", "/r/pkg/a/sub/__init__.py": b"",
             "/r/loose/mod.py": b"", "/r/tools/run.py": b""}
    p = Project(files, packages={"/r/pkg", "/r/pkg/a/sub"})
    assert p.find_module("/r/tools/run.py", "pkg.a.b.mod") == "/r/pkg/a/b/mod.py"
    assert p.find_module("/r/tools/run.py", "pkg.a.sub") == "/r/pkg/a/sub/__init__.py"
    # a dotted name: the one file of that path in a directory above (a namespace package)
    assert p.find_module("/r/tools/run.py", "loose.mod") == "/r/loose/mod.py"
    assert p.find_module("/r/tools/run.py", "pkg.a.b.other") is None
