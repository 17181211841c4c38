"""JupyterLab with jupyterlab-lsp, configured as docs/editor.md says, in headless
Chromium: a notebook cell with a device mistake gets ``ferry server``'s findings,
underlined in the cell and listed in jupyterlab-lsp's diagnostics panel.

jupyterlab-lsp 5 has no code actions (its features: completion, diagnostics, hover,
highlights, jump to definition, rename, signature, symbols), so no quick fix is tried.
Needs ``jupyterlab`` and ``jupyterlab-lsp`` (PyPI) in this interpreter, Chromium and
Playwright (``tests/server/browser.py``); skipped, saying which is missing, without them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.browser import (
    chromium_or_skip,
    free_port,
    notebook,
    page,
    screenshot,
    text,
    wait_for_port,
)
from tests.server.test_jupyter_lsp import SPEC
from tests.server.test_neovim import SAFE

pytestmark = pytest.mark.slow

PATIENCE_MS = 120_000


def _lab_or_skip() -> None:
    for module in ("jupyterlab", "jupyterlab_lsp"):
        pytest.importorskip(module, reason=f"{module} is not installed "
                            "(pip install jupyterlab jupyterlab-lsp)")


def _start_lab(root: Path, ws: Path) -> tuple[subprocess.Popen[bytes], int, str, Path]:
    config = root / "jupyter_server_config.json"
    config.write_text(json.dumps({"LanguageServerManager": {
        "language_servers": SPEC, "autodetect": False}}))
    labconfig = root / "cfg" / "labconfig"  # no "official Jupyter news?" toast
    labconfig.mkdir(parents=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": {
        "@jupyterlab/apputils-extension:announcements": True}}))
    port, token, log = free_port(), "ferrytest", root / "jupyter.log"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "cfg"), JUPYTER_RUNTIME_DIR=str(root / "rt"),
               JUPYTERLAB_SETTINGS_DIR=str(root / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "lab-workspaces"), HOME=str(root))
    with log.open("wb") as out:
        lab = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", f"--ServerApp.port={port}",
             f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
             f"--ServerApp.root_dir={ws}", f"--config={config}", "--allow-root",
             "--LabApp.news_url=", "--LabApp.check_for_updates_class="
             "jupyterlab.NeverCheckForUpdate"],
            env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ws)
    return lab, port, token, log


def _wait_text(locator: Any, want: str) -> str:
    deadline = time.monotonic() + PATIENCE_MS / 1000
    while True:
        seen = " ".join(text(locator.nth(i)) for i in range(locator.count()))
        if want in seen or time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


def test_jupyterlab_lsp_shows_the_findings_in_a_notebook_cell(tmp_path: Path) -> None:
    _lab_or_skip()
    chromium = chromium_or_skip()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    lines = SAFE.splitlines(keepends=True)
    (ws / "nb.ipynb").write_text(notebook(["".join(lines[:2]), "".join(lines[2:])]))
    lab, port, token, log = _start_lab(tmp_path, ws)
    try:
        wait_for_port(port, lambda: lab.poll() is None, log)
        with page(chromium, tmp_path / "profile") as pg:
            pg.goto(f"http://127.0.0.1:{port}/lab/tree/nb.ipynb?token={token}")
            cells = pg.locator(".jp-Notebook .jp-CodeCell")
            cells.nth(1).wait_for(timeout=PATIENCE_MS)
            marks = cells.nth(1).locator(".cm-lintRange")
            marks.first.wait_for(timeout=PATIENCE_MS)
            marks.first.hover()
            tip = pg.locator(".cm-tooltip-lint")
            seen = _wait_text(tip, "builds the tensor on the CPU")  # FRY009's message
            screenshot(pg, "jupyterlab-notebook-diagnostic.png")
            assert "`torch.zeros(...)` builds the tensor on the CPU" in seen, seen
            assert seen.splitlines()[-1] == "ferry", seen  # the diagnostic's source
            pg.keyboard.press("Control+Shift+c")
            palette = pg.locator(".lm-CommandPalette-input")
            palette.fill("Show diagnostics panel")
            palette.press("Enter")
            panel = pg.locator(".lsp-diagnostics-listing")
            seen = _wait_text(panel, "FRY001")
            assert "FRY009" in seen and "FRY001" in seen, seen
    finally:
        lab.terminate()
        lab.wait(30)
