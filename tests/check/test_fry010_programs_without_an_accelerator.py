"""FRY010's hints (a partner that only may be on an accelerator: a module's input no call
of the run places) in a program that never asks for an accelerator: no file of the run
mentions a device, a move or a load, every import is of the standard library, of torch, of
the run or of a package that does not depend on torch, and a file is a script.  Every
tensor of such a run is on the CPU, so there is no hint; a mention anywhere in the run, an
import of another package, or a run of definitions only (a library) keeps it.  The hint
of a file depends on the run's other files, which its cache key covers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

MODEL = """\
    import torch
    from torch import nn


    class DeepAR(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            mu = self.fc(x)
            return mu + torch.randn(mu.size()) * torch.sqrt(mu.exp())
    """

MAIN = """\
    import numpy as np
    import pandas as pd
    import torch
    from model import DeepAR
    {extra}

    def train(data):
        model = DeepAR()
        return model(torch.from_numpy(data))


    if __name__ == "__main__":
        train(np.zeros((3, 4), dtype="float32"))
    """


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    return sorted(root.glob("*.py"))


def found(root: Path, paths: list[Path], cache: Cache | None = None):
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    outcomes = check_paths(paths, opts, cache=cache, jobs=1)
    return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics], outcomes


def test_no_hint_in_a_program_that_never_asks_for_an_accelerator(tmp_path: Path) -> None:
    paths = write(tmp_path, {"model.py": MODEL, "main.py": MAIN.replace("{extra}", "")})
    assert found(tmp_path, paths)[0] == []


@pytest.mark.parametrize("extra", [
    "DEV = 'cuda'",                      # a device named anywhere
    "x = torch.zeros(2).to(0)",          # a move, whatever its argument
    "state = torch.load('model.pt')",    # a load restores the places it was saved from
    "from sentence_transformers import SentenceTransformer",  # a package that may place
])
def test_a_mention_or_an_unknown_import_keeps_the_hint(tmp_path: Path, extra: str) -> None:
    paths = write(tmp_path, {"model.py": MODEL, "main.py": MAIN.replace("{extra}", extra)})
    assert found(tmp_path, paths)[0] == [("model.py", 12)]


def test_a_library_without_a_script_keeps_the_hint(tmp_path: Path) -> None:
    paths = write(tmp_path, {"model.py": MODEL})
    assert found(tmp_path, paths)[0] == [("model.py", 12)]


def test_cache_rechecks_when_another_file_asks_for_an_accelerator(tmp_path: Path) -> None:
    paths = write(tmp_path, {"model.py": MODEL, "main.py": MAIN.replace("{extra}", "")})
    first, _ = found(tmp_path, paths, cache=(cache := Cache(tmp_path, "test")))
    cache.save()
    assert first == []
    write(tmp_path, {"main.py": MAIN.replace("{extra}", "DEV = 'cuda'")})
    again, outcomes = found(tmp_path, paths, cache=Cache(tmp_path, "test"))
    assert again == [("model.py", 12)]
