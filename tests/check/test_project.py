"""Files checked together: a module class defined in one file is known in the others."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

TRAIN = (
    "import torch\n"
    "from model import Net\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "net = Net()\n"
    "out = net(torch.ones(2, 2).to(device))\n"
    "print(out.numpy())\n"
)
MODEL = "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n\nclass Net(Base):\n    pass\n"


def codes(outcomes) -> list[tuple[str, int, str]]:
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


def test_module_class_of_another_file_is_known(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    paths = [tmp_path / "model.py", tmp_path / "train.py"]
    assert codes(check_paths(paths, opts, jobs=1)) == [("train.py", 6, "FRY003")]
    # alone, Net is unknown: a callable given a tensor on the device is taken to return
    # its result there too
    assert codes(check_paths([tmp_path / "train.py"], opts, jobs=1)) == [("train.py", 6, "FRY003")]
    # a class of the run that is no module: calling its instance gives nothing known
    (tmp_path / "model.py").write_text(MODEL.replace("nn.Module", "object"))
    assert codes(check_paths(paths, opts, jobs=1)) == []


def test_cache_entries_depend_on_the_classes_of_the_run(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    paths = [tmp_path / "model.py", tmp_path / "train.py"]
    cache = Cache(tmp_path, "test")
    first = check_paths(paths, opts, cache=cache, jobs=1)
    cache.save()
    again = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert all(o.cached for o in again) and codes(again) == codes(first)
    (tmp_path / "model.py").write_text(MODEL.replace("nn.Module", "object"))
    second = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert codes(first) == [("train.py", 6, "FRY003")] and codes(second) == []
    assert not any(o.cached for o in second)  # train.py's entry no longer applies
