"""Imports of a dotted module whose directories hold no ``__init__.py`` (namespace
packages: ``from tasks.model import Net`` in ``src/tasks/train.py``, run with ``src`` on the
path) resolve to the one file of the run above the importing file that has that path; the
analysis then follows the class it names (here: FRY013 and a batch item the model's
``forward`` uses as text).  Two such files leave the import unresolved."""

from __future__ import annotations

from pathlib import Path

from tests.check.test_fry013_items_used_as_text import ENCODER, MODEL, TRAIN
from torchferry.check.runner import Options, check_paths


def findings(tmp_path: Path, encoder: str = ENCODER, extra: dict[str, str] | None = None
             ) -> list[tuple[str, int]]:
    files = {"src/lxrt/encoder.py": encoder, "src/tasks/model.py": MODEL, "src/tasks/train.py": TRAIN,
             **(extra or {})}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    opts = Options(root=tmp_path, select=("FRY013",), target_torch_version=None)
    paths = sorted(tmp_path.rglob("*.py"))
    return [(Path(o.path).name, d.line) for o in check_paths(paths, opts, jobs=1) for d in o.diagnostics]


def test_classes_of_namespace_packages_are_followed(tmp_path: Path) -> None:
    assert findings(tmp_path) == []


def test_an_item_used_as_a_tensor_there_is_still_reported(tmp_path: Path) -> None:
    assert findings(tmp_path, ENCODER.replace("sent.strip()", "sent")) == [("train.py", 8)]


def test_two_files_of_that_path_leave_the_import_unresolved(tmp_path: Path) -> None:
    # ``tasks/model.py`` also at the top: which one is on the path is not read
    assert findings(tmp_path, extra={"tasks/model.py": MODEL}) == [("train.py", 8)]
