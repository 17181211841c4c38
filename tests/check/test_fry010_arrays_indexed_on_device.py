"""FRY010 on ``torch.tensor(arr)`` of a NumPy array whose rank the code does not show
(``X[mask, :]`` of ``np.genfromtxt(path)``): made on the CPU, it is reported only where a
tensor of one or more dimensions on the device indexes it ("indices should be either on cpu
or on the same device as the indexed tensor"), which fails whatever its own size; in the
same file or in a file that imports the one that made it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths


def lines(source: str) -> list[int]:
    found = check_source(textwrap.dedent(source), "m.py", select=["FRY010"])
    return sorted(f.line for f in found if f.code == "FRY010")


INDEXED = {
    "loaded_table_sampled_by_a_permutation": """\
        import numpy as np
        import torch

        def sample(path, device):
            data = np.loadtxt(path)
            table = torch.tensor(data, dtype=torch.float)
            idx = torch.randperm(len(data)).to(device)
            return table[idx]
        """,
    "selected_rows_indexed_by_joined_indices": """\
        import numpy as np
        import torch

        def hardest(path, model, k):
            x = np.genfromtxt(path, delimiter=",")
            rows = torch.as_tensor(x[x[:, 0] > 0, :])
            model = model.cuda()
            scores = model(rows.cuda()).flatten()
            low, high = torch.topk(scores, k).indices, torch.topk(-scores, k).indices
            idx = 0
            idx = torch.cat([low, high])
            return rows[idx]
        """,
}


@pytest.mark.parametrize("name", sorted(INDEXED))
def test_an_array_of_unknown_rank_indexed_on_the_device(name: str) -> None:
    source = INDEXED[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.tensor(" in t or "torch.as_tensor(" in t)
    assert lines(source) == [factory]


QUIET = {
    # a 0-dimensional index reads as its number on any device
    "one_index_of_a_loop": """\
        import numpy as np
        import torch

        def sample(path, device):
            table = torch.tensor(np.loadtxt(path), dtype=torch.float)
            out = 0
            for idx in torch.arange(4, device=device):
                out = out + table[idx]
            return out
        """,
    # its rank unknown, it may be a 0-dimensional number, which mixes with tensors anywhere
    "met_in_arithmetic": """\
        import numpy as np
        import torch

        def shift(path, x):
            offset = torch.tensor(np.load(path))
            return x.cuda() + offset
        """,
    # an index on the CPU
    "indexed_on_the_cpu": INDEXED["loaded_table_sampled_by_a_permutation"].replace(
        ".to(device)", ""),
    # data that may be a tensor (then ``torch.tensor`` copies it where it is)
    "data_of_unknown_kind": INDEXED["loaded_table_sampled_by_a_permutation"].replace(
        "np.loadtxt(path)", "load(path)"),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert lines(QUIET[name]) == []


FUNCTIONS = """\
import numpy as np
import torch

def load(path):
    X = np.genfromtxt(path, delimiter=",")
    keep = np.random.rand(len(X)) < 0.7
    x_train = torch.tensor(X[keep, :], dtype=torch.float)
    x_test = torch.tensor(X[~keep, :], dtype=torch.float)
    return x_train, x_test
"""

SCRIPT = """\
import torch
from functions import load

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
x_train, x_test = load("data.csv")
model = torch.nn.Linear(8, 1).to(device)
pred = model(x_test.to(device)).reshape(-1)
idx = torch.cat([torch.topk(pred, 4).indices, torch.topk(-pred, 4).indices])
picked = x_test[{index}]
"""


def _found(root: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for rel, text in files.items():
        (root / rel).write_text(text)
    outcomes = check_paths(sorted(root.glob("*.py")), Options(root=root, select=("FRY010",),
                                                               target_torch_version=None), jobs=1)
    return [(Path(o.path).name, d.line) for o in outcomes for d in o.diagnostics]


def test_indexed_in_the_file_that_imports_it(tmp_path: Path) -> None:
    assert _found(tmp_path, {"functions.py": FUNCTIONS, "run.py": SCRIPT.format(index="idx")}) == [
        ("functions.py", 8)]


def test_quiet_where_the_importer_indexes_it_on_the_cpu(tmp_path: Path) -> None:
    assert _found(tmp_path, {"functions.py": FUNCTIONS,
                             "run.py": SCRIPT.format(index="idx.cpu()")}) == []
