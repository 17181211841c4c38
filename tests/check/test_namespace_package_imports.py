"""Imports of a dotted module whose directories hold no ``__init__.py`` (namespace
packages: ``from tasks.model import Net`` in ``src/tasks/train.py``, run with ``src`` on the
path) resolve to the one file of the run above the importing file that has that path; the
analysis then follows the class it names (here: FRY013 and a batch item the model's
``forward`` uses as text).  Two such files leave the import unresolved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.check.test_fry013_items_used_as_text import ENCODER, MODEL, TRAIN

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


def findings(finding_places: Places, encoder: str = ENCODER, extra: dict[str, str] | None = None
             ) -> list[tuple[str, int]]:
    files = {"src/lxrt/encoder.py": encoder, "src/tasks/model.py": MODEL, "src/tasks/train.py": TRAIN,
             **(extra or {})}
    return finding_places(dict(sorted(files.items(), key=lambda kv: Path(kv[0]).parts)), "FRY013")


def test_classes_of_namespace_packages_are_followed(finding_places: Places) -> None:
    assert findings(finding_places) == []


def test_an_item_used_as_a_tensor_there_is_still_reported(finding_places: Places) -> None:
    assert findings(finding_places, ENCODER.replace("sent.strip()", "sent")) == [("train.py", 8)]


def test_two_files_of_that_path_leave_the_import_unresolved(finding_places: Places) -> None:
    # ``tasks/model.py`` also at the top: which one is on the path is not read
    assert findings(finding_places, extra={"tasks/model.py": MODEL}) == [("train.py", 8)]
