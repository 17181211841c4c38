"""A record's attribute is what the record was built with: ``EasyDict(train=loader)``,
``types.SimpleNamespace(train=loader)`` and ``argparse.Namespace(train=loader)`` (also
returned by a function of the run, ``data = load(); for x, y in data.train:``), unless a
file the record may reach writes that attribute."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

LOAD = """\
import argparse
import types

import torch
from easydict import EasyDict

def load(ds):
    train_loader = torch.utils.data.DataLoader(ds, batch_size=4)
    test_loader = torch.utils.data.DataLoader(ds, batch_size=4)
    return {record}


def main(ds, net, device):
    data = load(ds)
    for x, y in data.train:
        x.to(device); y = y.to(device)
        net(y)
    for x, y in data.test:
        x, y = x.to(device), y
        loss = net(x).max(1)[1].eq(y)
{extra}{tail}"""


def found(record: str = "EasyDict(train=train_loader, test=test_loader)", extra: str = "",
          tail: str = "") -> list[tuple[int, str]]:
    src = LOAD.format(record=record, extra=extra, tail=tail)
    return [(f.line, f.code) for f in check_source(src, "<case>", select=["FRY002", "FRY013"])]


EXPECTED = [(16, "FRY002"), (20, "FRY013")]


def test_the_loaders_of_a_returned_easydict_are_loops_over_loaders() -> None:
    assert found() == EXPECTED


@pytest.mark.parametrize("record", [
    "EasyDict({'train': train_loader, 'test': test_loader})",
    "EasyDict({'train': train_loader}, test=test_loader)",
    "types.SimpleNamespace(train=train_loader, test=test_loader)",
    "argparse.Namespace(train=train_loader, test=test_loader)",
])
def test_other_record_types_and_a_written_dict_are_read_alike(record: str) -> None:
    assert found(record) == EXPECTED


@pytest.mark.parametrize("record", [
    "EasyDict(**dict(train=train_loader, test=test_loader))",
    "EasyDict(d=dict(train=train_loader, test=test_loader))",
    "dict(train=train_loader, test=test_loader)",
    "Record(train=train_loader, test=test_loader)",
])
def test_records_built_otherwise_stay_unknown(record: str) -> None:
    extra = "\nclass Record:\n    def __init__(self, **kw):\n        pass\n"
    assert found(record, extra=extra) == []


@pytest.mark.parametrize("tail", [
    "def swap(data, other):\n    data.train = other\n",
    "def swap(data, other):\n    data['train'] = other\n",
    "def swap(data, other):\n    data.update(train=other)\n",
    "def swap(data, other):\n    data.pop('train')\n",
    "def swap(data, other):\n    setattr(data, 'train', other)\n",
    "def swap(data, name, other):\n    setattr(data, name, other)\n",
    "def swap(data, more):\n    data.update(more)\n",
    "def swap(data):\n    vars(data).clear()\n",
])
def test_an_attribute_written_anywhere_in_the_file_is_unknown(tail: str) -> None:
    assert (16, "FRY002") not in found(tail=tail)


def test_writes_of_other_attributes_keep_the_record_known() -> None:
    tail = "def count(report, xs):\n    report.seen += 1\n    xs[0] = 1\n    xs.pop()\n"
    assert found(tail=tail) == EXPECTED


def _project(root: Path, main_tail: str = "", other: str = "") -> list[tuple[str, int, str]]:
    lib = textwrap.dedent("""\
        import torch
        from easydict import EasyDict

        def load(ds):
            return EasyDict(train=torch.utils.data.DataLoader(ds, batch_size=4))
        """)
    main = textwrap.dedent("""\
        import lib

        def main(ds, net, device):
            data = lib.load(ds)
            for x, y in data.train:
                x.to(device)
        """) + main_tail
    (root / "lib.py").write_text(lib)
    (root / "main.py").write_text(main)
    if other:
        (root / "other.py").write_text(other)
    opts = Options(root=root, select=("FRY002",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


def test_a_record_built_in_another_file_of_the_run_is_followed(tmp_path: Path) -> None:
    assert _project(tmp_path) == [("main.py", 6, "FRY002")]


def test_a_write_in_a_file_that_imports_the_reader_makes_it_unknown(tmp_path: Path) -> None:
    other = "import main\n\ndef swap(data, other):\n    data.train = other\n"
    assert _project(tmp_path, other=other) == []
