"""A second real editor's LSP client: Emacs's Eglot (batch mode) attached to ``ferry server``.

Emacs and Eglot come from Debian's packages (``apt-get install emacs-nox elpa-eglot``;
Emacs 29 and later have Eglot built in).  ``.ci/run`` installs them and sets
``FERRY_REQUIRE_EMACS=1``, so there a missing client fails instead of skipping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.test_neovim import SAFE

pytestmark = pytest.mark.slow


def _missing(reason: str) -> None:
    if os.environ.get("FERRY_REQUIRE_EMACS"):
        pytest.fail(reason)
    pytest.skip(reason)


def test_eglot_shows_the_findings_and_applies_a_quick_fix(tmp_path: Path) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        _missing("emacs is not installed (apt-get install emacs-nox elpa-eglot)")
    # FRY001 (every finding, not only its default part) and the opt-in FRY009 come from
    # Eglot's initializationOptions
    (tmp_path / "pyproject.toml").write_text("[tool.torchferry]\n")
    script = tmp_path / "train.py"
    script.write_text(SAFE)
    out = tmp_path / "out.txt"
    env = dict(os.environ, FERRY_EMACS_OUT=str(out), FERRY_EMACS_FILE=str(script),
               FERRY_EMACS_PYTHON=sys.executable, HOME=str(tmp_path / "home"))
    el = Path(__file__).with_name("emacs") / "attach.el"
    run = subprocess.run([str(emacs), "-Q", "--batch", "-l", str(el)], env=env, timeout=600,
                         check=False, capture_output=True, stdin=subprocess.DEVNULL, text=True)
    if not out.exists():
        pytest.fail(f"emacs wrote nothing (status {run.returncode}): {run.stderr[-2000:]}")
    lines = out.read_text().splitlines()
    if lines == ["no eglot"]:
        _missing("Eglot is not installed (apt-get install elpa-eglot, or Emacs 29+)")
    assert lines[-1] == "done", (lines, run.stderr[-2000:])
    found = [x.split(":")[0] for x in lines if x.startswith("diagnostic")]
    assert found == ["diagnostic 3 ferry [FRY009]", "diagnostic 4 ferry [FRY001]"]
    assert any(x.startswith("action ferry (FRY009)") for x in lines)
    assert script.read_text().splitlines()[2] == "z = torch.zeros(3, device=device)"
