"""torchferry._internal.frames: the one "is this user code?" answer, used by sim and diagnose."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torchferry
from torchferry._internal import frames


def test_libraries_are_not_user_code():
    assert not frames.is_user_file(json.__file__)  # stdlib
    assert not frames.is_user_file(torch.__file__)
    assert not frames.is_user_file(torchferry.__file__)
    import pytest as _pytest  # installed in site-packages

    assert not frames.is_user_file(_pytest.__file__)
    assert not frames.is_user_file("<frozen importlib._bootstrap>")


def test_user_sources_are_user_code(tmp_path):
    assert frames.is_user_file(__file__)
    assert frames.is_user_file(str(tmp_path / "train.py"))
    assert frames.is_user_file("<stdin>") and frames.is_user_file("<ipython-input-3-abc>")


def test_add_user_root_covers_a_package_installed_in_site_packages(tmp_path):
    pkg = tmp_path / "site-packages" / "mypkg"
    pkg.mkdir(parents=True)
    (pkg / "train.py").write_text("")
    f = str(pkg / "train.py")
    saved = frames._LIB_DIRS, frames._USER_ROOTS
    try:
        frames._LIB_DIRS = (*frames._library_dirs(), str(tmp_path / "site-packages") + os.sep)
        assert not frames.is_user_file(f)
        frames.add_user_root(str(pkg))
        assert frames.is_user_file(f)
    finally:
        frames._LIB_DIRS, frames._USER_ROOTS = saved
        frames._USER_CODE.clear()


def test_user_frame_skips_library_frames():
    def here():
        return frames.user_frame(0)

    f = here()
    assert f is not None and f.f_code is here.__code__
    # called back from the stdlib: the stdlib frames are skipped, the user's lambda found
    import functools

    got = functools.reduce(lambda acc, _: frames.user_frame(0), [1], None)
    assert got is not None and got.f_code.co_filename == __file__


def test_sim_creation_site_skips_the_stdlib_like_explain_does():
    # sim/tags.py used to count the stdlib as user code: a tensor copied by copy.deepcopy
    # was "created" in copy.py, while explain pointed at the user's line
    from torchferry import sim

    with torchferry.simulate("cuda"):
        x = torch.ones(2, device="cuda")
        y = copy.deepcopy(x)
        line = sys._getframe().f_lineno - 1
        path, got_line, func = sim.created_at(y)
    assert (path, got_line) == (__file__, line)
    assert frames.is_user_file(path)


@pytest.mark.slow
def test_ferry_run_m_of_a_package_installed_in_site_packages_explains_its_lines(tmp_path):
    site = tmp_path / "env" / "site-packages"
    pkg = site / "trainer"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(textwrap.dedent("""\
        import torch
        x = torch.ones(3, device="cuda")
        labels = torch.ones(3)
        y = x + labels
    """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    r = subprocess.run(
        [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda", "--report",
         str(tmp_path / "r.json"), "-m", "trainer"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600,
    )
    assert r.returncode == 1, r.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    err = data["error"]
    assert err["path"] == str(pkg / "__main__.py") and err["line"] == 4
    assert [o["expr"] for o in err["operands"] if o["culprit"]] == ["labels"]
