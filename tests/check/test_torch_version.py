"""``target-torch-version``: given in [tool.torchferry] or inferred (statically) from the
project's declared torch requirement; FRY005 is quiet from torch 2.6 on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchferry.check.config import load_config
from torchferry.check.engine import check_source
from torchferry.check.torch_version import infer, lower_bound, parse_version, resolve
from torchferry.cli import main
from torchferry.errors import UsageError

LOAD = 'import torch\nstate = torch.load("ckpt.pt", map_location="cpu")\n'


@pytest.mark.parametrize(
    ("req", "bound"),
    [
        ("torch>=2.6", (2, 6, 0)),
        ("torch >= 2.6.1, <3", (2, 6, 1)),
        ("torch==2.5.0", (2, 5, 0)),
        ("torch==2.7.*", (2, 7, 0)),
        ("torch~=2.6", (2, 6, 0)),
        ("torch>2.5", (2, 5, 0)),  # > 2.5 still allows 2.5.1: the bound stays 2.5
        ("torch (>=2.14.0)", (2, 14, 0)),  # wheel METADATA spelling
        ("Torch[opt-einsum]>=2.7; python_version>='3.10'", (2, 7, 0)),
        ("torch>=2.6.0rc1", (2, 6, 0)),
        ("torch", None),
        ("torch<2.6", None),
        ("torch!=2.4.0", None),
    ],
)
def test_lower_bound(req: str, bound: tuple[int, int, int] | None) -> None:
    assert lower_bound(req) == bound


def test_parse_version() -> None:
    assert parse_version("2.10") == (2, 10, 0)  # not 2.1: versions are not floats
    assert parse_version("v2.6.1") == (2, 6, 1)
    assert parse_version("main") is None


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_core_requirements_give_the_highest_lower_bound(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = ["numpy", "torch>=2.1", "torch>=2.7; sys_platform == \'linux\'"]\n'
        '[project.optional-dependencies]\ntest = ["torch>=2.0"]\n',
    )
    assert infer(tmp_path) == ((2, 1, 0), "pyproject.toml [project] dependencies: torch>=2.1")
    _write(tmp_path, "requirements.txt", "torch>=2.7.1  # weights_only default\n-r other.txt\n")
    assert infer(tmp_path)[0] == (2, 7, 1)  # both core declarations apply


def test_an_unbounded_core_requirement_means_unknown(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["torch"]\n')
    assert infer(tmp_path) == (None, "")


def test_optional_only_requirements_give_the_lowest_bound_when_all_have_one(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\n[project.optional-dependencies]\na = ["torch>=2.6"]\nb = ["torch>=2.4"]\n',
    )
    assert infer(tmp_path)[0] == (2, 4, 0)
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\n[project.optional-dependencies]\na = ["torch>=2.6"]\nb = ["torch"]\n',
    )
    assert infer(tmp_path)[0] is None


def test_setup_cfg_and_poetry(tmp_path: Path) -> None:
    _write(tmp_path, "setup.cfg", "[options]\ninstall_requires =\n    numpy\n    torch>=2.6\n")
    assert infer(tmp_path) == ((2, 6, 0), "setup.cfg install_requires: torch>=2.6")
    other = tmp_path / "poetry"
    _write(
        other, "pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "^2.6"\n'
    )
    assert infer(other)[0] == (2, 6, 0)
    _write(other, "pyproject.toml", '[tool.poetry.dependencies]\ntorch = {version = "~2.7"}\n')
    assert infer(other)[0] == (2, 7, 0)


def test_setup_py_is_read_statically_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    _write(
        tmp_path,
        "setup.py",
        "from setuptools import setup\n"
        f"open({str(marker)!r}, 'w').write('x')\n"
        "REQUIRES = ['numpy', 'torch>=2.6.0']\n"
        "setup(name='p', install_requires=REQUIRES, extras_require={'x': ['torch>=2.0']})\n",
    )
    assert infer(tmp_path) == ((2, 6, 0), "setup.py install_requires: torch>=2.6.0")
    assert not marker.exists()


def test_requirements_directory_and_unreadable_files(tmp_path: Path) -> None:
    _write(tmp_path, "requirements/base.txt", "torch==2.8.0\n")
    _write(tmp_path, "setup.py", "def broken(:\n")  # a syntax error is ignored
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe not toml")
    assert infer(tmp_path)[0] == (2, 8, 0)


def test_explicit_key_wins_and_is_validated(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\ndependencies = ["torch>=2.7"]\n[tool.torchferry]\ntarget-torch-version = "2.4"\n',
    )
    assert resolve(tmp_path) == (2, 4, 0)
    assert load_config(tmp_path).target_torch_version == (2, 4, 0)
    for bad in ("2.6.x", "2", "latest"):
        _write(tmp_path, "pyproject.toml", f'[tool.torchferry]\ntarget-torch-version = "{bad}"\n')
        with pytest.raises(
            UsageError, match='target-torch-version must be a version string such as "2.6"'
        ):
            load_config(tmp_path)
    _write(tmp_path, "pyproject.toml", "[tool.torchferry]\ntarget-torch-version = 2.6\n")
    with pytest.raises(UsageError, match="got 2.6"):
        load_config(tmp_path)


def test_fry005_is_quiet_from_torch_2_6() -> None:
    assert [f.code for f in check_source(LOAD, select=["FRY005"])] == ["FRY005"]
    assert [
        f.code for f in check_source(LOAD, select=["FRY005"], target_torch_version=(2, 5, 1))
    ] == ["FRY005"]
    assert check_source(LOAD, select=["FRY005"], target_torch_version=(2, 6, 0)) == []


def _fry005(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> list[str]:
    rc = main(["check", str(root), "--format", "json", "--select", "FRY005", *extra])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    return [item["code"] for item in json.loads(out)]


def test_ferry_check_infers_the_version_and_the_cache_follows_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "train.py", LOAD)
    _write(tmp_path, "requirements.txt", "torch>=2.1\n")
    assert _fry005(capsys, tmp_path) == ["FRY005"]
    _write(tmp_path, "requirements.txt", "torch>=2.6\n")
    assert _fry005(capsys, tmp_path) == []  # the warm cache does not answer for the old version
    _write(tmp_path, "pyproject.toml", '[tool.torchferry]\ntarget-torch-version = "2.0"\n')
    assert _fry005(capsys, tmp_path) == ["FRY005"]
    _write(tmp_path, "pyproject.toml", '[tool.torchferry]\ntarget-torch-version = "two"\n')
    rc = main(["check", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "target-torch-version" in err
