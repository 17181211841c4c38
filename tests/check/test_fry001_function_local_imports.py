"""FRY001 and parameter defaults reached through imports local to a function: ``def f():
from m1 import g`` binds ``g`` in ``f`` alone, so a call ``g(...)`` there runs ``m1.g``,
never the ``g`` of another module that a second function imports under the same name."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.runner import Options, check_paths

FIRST = """\
import torch


def get_embeddings(model, text, flag=False, extra=None, device='cuda:0'):
    return model(torch.tensor(text).to(device))
"""

SECOND = """\
import torch


def get_embeddings(model, text, positions, device='cuda:0'):
    return model(torch.tensor(text).to(device))[positions]
"""

CALLER = """\
def first(model, text):
    from pkg.first import get_embeddings
    return get_embeddings(model, text, True, None, 'cpu')


def second(model, text, positions):
    from pkg.second import get_embeddings
    return get_embeddings(model, text, positions{rest})
"""


def _run(tmp_path: Path, rest: str) -> list[tuple[str, int, list[tuple[str | None, int]]]]:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    files = {"__init__.py": "", "first.py": FIRST, "second.py": SECOND,
             "caller.py": CALLER.format(rest=rest)}
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text))
    opts = Options(root=tmp_path, select=["FRY001"], target_torch_version=None)
    outcomes = check_paths(sorted(pkg.glob("*.py")), opts, cache=None, jobs=1)
    return sorted((Path(o.path).name, d.line,
                   [(Path(e.path).name if e.path else None, e.line) for e in d.evidence])
                  for o in outcomes for d in o.diagnostics if d.code == "FRY001")


def test_each_call_is_of_the_function_its_own_import_names(tmp_path: Path) -> None:
    """The second function's call leaves the second module's default; the first function's
    call passes five arguments, more than the second module's function takes, and is not
    a call of it."""
    assert _run(tmp_path, "") == [("second.py", 4, [("caller.py", 8)])]


def test_a_call_passing_the_device_to_its_own_import_is_quiet(tmp_path: Path) -> None:
    """Neither call leaves a default: the first module's function is not credited with the
    second function's call, which binds four of its parameters and leaves its ``device``."""
    assert _run(tmp_path, ", 'cpu'") == []
