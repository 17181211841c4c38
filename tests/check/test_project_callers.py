"""A function's parameters placed by its callers in the other files of the run.

``ferry check DIR`` checks a repository's files together: a helper of ``utils.py`` that
``train.py`` calls with a tensor it moved has that tensor on the device, however the
helper is imported (``from utils import f``, ``import utils``, ``from utils import *``, a
relative import, a package's ``__init__`` that re-exports it).  A function no file of the
run calls keeps parameters of unknown place, and callers that disagree make the
parameter's place a join: "may be on the device", never a safe fix."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

ONE_HOT = """\
import torch


def one_hot(labels, n):
    y = torch.eye(n)
    return y[labels]
"""
TRAIN = """\
import torch
{imports}

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def train(loader):
    for x, labels in loader:
        {move}
        print({call}(labels, 10))
"""
MOVE_TO = "labels = labels.to(device)"
MOVE_CUDA = "labels = labels.cuda()"
NO_MOVE = "x = x.to(device)"


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return sorted(root.rglob("*.py"))


def found(root: Path, paths: list[Path], select: str, cache: Cache | None = None):
    opts = Options(root=root, select=(select,), target_torch_version=None)
    outcomes = check_paths(paths, opts, cache=cache, jobs=1)
    return [(p.relative_to(root).as_posix(), d.line, d.code) for o in outcomes
            for d in o.diagnostics if (p := Path(o.path).resolve())], outcomes


def train(imports: str, move: str = MOVE_TO, call: str = "one_hot") -> str:
    return TRAIN.format(imports=imports, move=move, call=call)


def test_a_helper_meets_what_a_caller_in_another_file_moved(tmp_path: Path) -> None:
    """``torch.eye(n)`` indexed by ``labels``, which ``train.py`` moves before the call
    (``.to(device)`` or ``.cuda()``): the identity is on the CPU, the indices may not be."""
    for move in (MOVE_TO, MOVE_CUDA):
        paths = write(tmp_path, {"utils.py": ONE_HOT, "train.py": train("from utils import one_hot", move)})
        assert found(tmp_path, paths, "FRY010")[0] == [("utils.py", 5, "FRY010")]


def test_every_spelling_of_the_import_reaches_the_helper(tmp_path: Path) -> None:
    cases = {
        "module": {"utils.py": ONE_HOT, "train.py": train("import utils", call="utils.one_hot")},
        "alias": {"utils.py": ONE_HOT, "train.py": train("import utils as U", call="U.one_hot")},
        "star": {"utils.py": ONE_HOT, "train.py": train("from utils import *")},
        "relative": {"pkg/__init__.py": "", "pkg/utils.py": ONE_HOT,
                     "pkg/train.py": train("from .utils import one_hot")},
        "parent": {"pkg/__init__.py": "", "pkg/utils.py": ONE_HOT, "pkg/sub/__init__.py": "",
                   "pkg/sub/train.py": train("from ..utils import one_hot")},
        "re-exported": {"pkg/__init__.py": "from .utils import one_hot\n", "pkg/utils.py": ONE_HOT,
                        "train.py": train("from pkg import one_hot")},
    }
    for name, files in cases.items():
        root = tmp_path / name
        paths = write(root, files)
        helper = next(p for p in files if p.endswith("utils.py"))
        assert found(root, paths, "FRY010")[0] == [(helper, 5, "FRY010")], name


def test_a_file_without_torch_that_no_checked_file_imports_stays_skipped(tmp_path: Path) -> None:
    plain = VIZ.replace("import torch\n", "")
    paths = write(tmp_path, {"viz.py": plain, "other.py": "import torch\nimport json\n"})
    opts = Options(root=tmp_path, select=("ALL",), target_torch_version=None)
    assert [o.skipped for o in check_paths(paths, opts, jobs=1)] == [False, True]


def test_a_helper_without_callers_or_given_cpu_tensors_is_quiet(tmp_path: Path) -> None:
    """A library's entry point (no call in the run) keeps parameters of unknown place: no
    guess from the name ``labels``; a caller that passes its batch unmoved gives the CPU."""
    paths = write(tmp_path / "none", {"utils.py": ONE_HOT, "train.py": "import torch\nimport utils\n"})
    assert found(tmp_path / "none", paths, "FRY010")[0] == []
    paths = write(tmp_path / "cpu", {"utils.py": ONE_HOT, "train.py": train("from utils import one_hot", NO_MOVE)})
    assert found(tmp_path / "cpu", paths, "FRY010")[0] == []


def test_callers_that_disagree_give_may_be_there_and_no_safe_fix(tmp_path: Path) -> None:
    """``train.py`` moves the labels, ``evaluate.py`` does not: the run of ``train.py`` puts
    them on the device (a sure meeting: that call fails on a GPU), and the fix, which
    changes where the tensor lives for ``evaluate.py`` too, is not safe to apply unseen."""
    paths = write(tmp_path, {"utils.py": ONE_HOT, "train.py": train("from utils import one_hot"),
                             "evaluate.py": train("from utils import one_hot", NO_MOVE)})
    codes, outcomes = found(tmp_path, paths, "FRY010")
    assert codes == [("utils.py", 5, "FRY010")]
    (diag,) = [d for o in outcomes for d in o.diagnostics]
    assert "the code puts on the accelerator when there is one" in diag.message
    assert diag.fix is not None and not diag.fix.safe


VIZ = """\
import torch
import matplotlib.pyplot as plt


def show_filters(network):
    w = network.conv1.weight.data.numpy()
    plt.imshow(w[0, 0])
"""
NET = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)

    def forward(self, x):
        return self.conv1(x)
"""
MAIN = """\
import torch
from model import Net
import viz

net = Net()
{body}
"""


def test_a_plotting_helper_reads_the_weights_of_a_model_a_caller_moved(tmp_path: Path) -> None:
    """``viz.py`` (with or without a mention of torch: a file the pre-filter would skip is
    checked when a checked file imports it) is given a model ``main.py`` moved."""
    bodies = {"net = net.cuda()\nviz.show_filters(net)\n": [("viz.py", 6, "FRY003")],
              "device = torch.device('cuda')\nviz.show_filters(net.to(device))\n": [("viz.py", 6, "FRY003")],
              "viz.show_filters(net)\n": []}
    for i, (body, expected) in enumerate(bodies.items()):
        for viz in (VIZ, VIZ.replace("import torch\n", "import numpy\n")):
            root = tmp_path / str(i) / str(len(viz))
            paths = write(root, {"model.py": NET, "viz.py": viz, "main.py": MAIN.format(body=body)})
            codes, outcomes = found(root, paths, "FRY003")
            assert codes == expected, (body, viz)
            notes = {(Path(e.path or "").name, e.line) for o in outcomes for d in o.diagnostics
                     for e in d.evidence}
            assert not expected or any(name == "main.py" for name, _ in notes)  # the move


def test_the_helpers_cached_findings_follow_an_edit_of_its_caller(tmp_path: Path) -> None:
    """With the cache on: ``train.py`` stops moving the labels, ``utils.py`` is unchanged;
    its finding goes, and comes back when the move does."""
    paths = write(tmp_path, {"utils.py": ONE_HOT, "train.py": train("from utils import one_hot")})
    cache = Cache(tmp_path, "test")
    first, _ = found(tmp_path, paths, "FRY010", cache)
    cache.save()
    assert first == [("utils.py", 5, "FRY010")]
    for move, expected in ((NO_MOVE, []), (MOVE_CUDA, first)):
        cache = Cache(tmp_path, "test")
        again, outcomes = found(tmp_path, paths, "FRY010", cache)
        assert all(o.cached for o in outcomes)  # nothing changed since the last run
        cache.save()
        (tmp_path / "train.py").write_text(train("from utils import one_hot", move))
        cache = Cache(tmp_path, "test")
        codes, outcomes = found(tmp_path, paths, "FRY010", cache)
        cache.save()
        assert codes == expected
        assert not any(o.cached for o in outcomes if Path(o.path).name == "utils.py")


def test_the_cli_checks_the_directory_as_one_run(tmp_path: Path, capsys, monkeypatch) -> None:
    from torchferry.cli import main

    write(tmp_path, {"utils.py": ONE_HOT, "train.py": train("import utils", MOVE_CUDA, "utils.one_hot")})
    monkeypatch.chdir(tmp_path)
    main(["check", ".", "--select", "FRY010", "--format", "json", "--no-cache", "--exit-zero"])
    out = json.loads(capsys.readouterr().out)
    assert [(d["path"], d["line"], d["code"]) for d in out] == [("utils.py", 5, "FRY010")]


EMBEDDING = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)

    def embeddings(self):
        return self.emb.weight.data.numpy()
"""
USE = """\
import torch
from {module} import Net

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
{build}
print(model.embeddings())
"""


def test_a_model_class_is_on_the_device_where_another_file_moves_an_instance(tmp_path: Path) -> None:
    """``Net.embeddings`` reads its weights with NumPy; ``train.py`` moves the model
    (``Net().to(device)``, or ``model.cuda()`` as a statement, through a relative import):
    in the methods of ``Net``, ``self`` may be on the device."""
    cases = {
        "to": ({"model.py": EMBEDDING, "train.py": USE.format(
            module="model", build="model = Net().to(device)")}, [("model.py", 13, "FRY003")]),
        "cuda": ({"pkg/__init__.py": "", "pkg/model.py": EMBEDDING, "pkg/train.py": USE.format(
            module=".model", build="model = Net()\nmodel.cuda()")}, [("pkg/model.py", 13, "FRY003")]),
        "unmoved": ({"model.py": EMBEDDING, "train.py": USE.format(
            module="model", build="model = Net()")}, []),
    }
    for name, (files, expected) in cases.items():
        root = tmp_path / name
        codes, outcomes = found(root, write(root, files), "FRY003")
        assert codes == expected, name
        notes = {Path(e.path or "").name for o in outcomes for d in o.diagnostics for e in d.evidence}
        assert not expected or "train.py" in notes, name  # the move
