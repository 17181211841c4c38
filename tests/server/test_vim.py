"""A real editor's LSP client: Vim 9 with ALE (Debian's ``vim`` and ``vim-ale``), with
``ferry server`` defined as an ALE LSP linter as docs/editor.md says.  Vim runs on a
pseudo-terminal; ``vim/attach.vim`` writes the diagnostics ALE shows and the code
actions it is offered, and applies the FRY009 quick fix.  Skipped, saying what is
missing, without Vim or ALE.
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.test_neovim import SAFE

pytestmark = pytest.mark.slow

ALE = Path("/usr/share/vim-ale/plugin/ale.vim")


def test_vim_ale_shows_the_findings_and_applies_a_quick_fix(tmp_path: Path) -> None:
    vim = shutil.which("vim")
    if vim is None or not ALE.exists():
        pytest.skip("vim or ALE is not installed (apt-get install vim vim-ale)")
    (tmp_path / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    script = tmp_path / "train.py"
    script.write_text(SAFE)
    out = tmp_path / "out.txt"
    env = dict(os.environ, FERRY_VIM_OUT=str(out), FERRY_VIM_PYTHON=sys.executable,
               HOME=str(tmp_path), TERM="xterm")
    vimrc = Path(__file__).with_name("vim") / "attach.vim"
    primary, secondary = pty.openpty()  # Vim wants a terminal; nothing is typed into it
    try:
        subprocess.run([vim, "-N", "-u", str(vimrc), "-i", "NONE", "-n", str(script)],
                       env=env, cwd=tmp_path, timeout=300, check=False,
                       stdin=secondary, stdout=secondary, stderr=secondary)
    finally:
        os.close(secondary)
        os.close(primary)
    lines = out.read_text().splitlines()
    assert lines[-1] == "done", lines
    assert sorted(x for x in lines if x.startswith("diagnostic")) == [
        "diagnostic FRY001 4 ferry", "diagnostic FRY009 3 ferry"]
    assert any(x.startswith("action ferry (FRY009)") for x in lines), lines
    assert script.read_text().splitlines()[2] == "z = torch.zeros(3, device=device)"
