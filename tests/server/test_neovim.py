"""A real editor's LSP client: Neovim (headless) attached to ``ferry server``.

Neovim comes from Debian's packages (``apt-get install neovim``; ``.ci/run`` installs it
and sets ``FERRY_REQUIRE_NVIM=1``, so there a missing Neovim fails instead of skipping).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SAFE = (
    "import torch\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "z = torch.zeros(3).to(device)\n"
    "y = z.cuda()\n"
)


def test_neovim_shows_the_findings_and_applies_a_quick_fix(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        if os.environ.get("FERRY_REQUIRE_NVIM"):
            pytest.fail("nvim is not installed (apt-get install neovim)")
        pytest.skip("nvim is not installed (apt-get install neovim)")
    (tmp_path / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    script = tmp_path / "train.py"
    script.write_text(SAFE)
    out = tmp_path / "out.txt"
    env = dict(os.environ, FERRY_NVIM_OUT=str(out), FERRY_NVIM_FILE=str(script),
               FERRY_NVIM_PYTHON=sys.executable, XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"))
    lua = Path(__file__).with_name("nvim") / "attach.lua"
    subprocess.run([nvim, "--headless", "--clean", "-c", f"luafile {lua}"], env=env,
                   timeout=600, check=False, capture_output=True, stdin=subprocess.DEVNULL)
    lines = out.read_text().splitlines()
    assert lines[-1] == "done", lines
    assert [x for x in lines if x.startswith("diagnostic")] == [
        "diagnostic FRY009 3 ferry", "diagnostic FRY001 4 ferry"]
    assert any(x.startswith("action ferry (FRY009)") for x in lines)
    assert script.read_text().splitlines()[2] == "z = torch.zeros(3, device=device)"
