"""A source encoding that a dependency the project declares registers (``future_fstrings``)."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

SOURCE = "# -*- coding: future_fstrings -*-\nimport torch\nx = torch.zeros(2).cuda()\n"


def codes(root: Path) -> list[str]:
    (root / "a.py").write_text(SOURCE)
    opts = Options(root=root, select=("FRY000", "FRY001"), target_torch_version=None)
    return [d.code for o in check_paths([root / "a.py"], opts, jobs=1) for d in o.diagnostics]


def test_an_undeclared_codec_is_an_unknown_encoding(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\n")
    assert codes(tmp_path) == ["FRY000"]


def test_a_codec_of_a_declared_dependency_reads_as_utf8(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\nfuture-fstrings>=1.2\n")
    assert codes(tmp_path) == ["FRY001"]


def test_a_codec_declared_in_setup_py_reads_as_utf8(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='x', install_requires=['future_fstrings'])\n")
    assert codes(tmp_path) == ["FRY001"]
