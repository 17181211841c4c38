"""VS Code with the extension of ``editors/vscode/``, run as ``code-server`` (VS Code in
the browser) and driven in headless Chromium: the findings of a script and of a notebook
cell, and a quick fix applied in the notebook editor.

Needs ``code-server`` (``npm install --unsafe-perm code-server``; ``FERRY_CODE_SERVER``
names its binary), the extension built (``cd editors/vscode && npm install && npm run
package``), Chromium and Playwright (``tests/server/browser.py``); skipped, saying which
is missing, without them.
"""

from __future__ import annotations

import json
import os
import shutil
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
from tests.server.test_neovim import SAFE

pytestmark = pytest.mark.slow

VSIX = Path(__file__).parents[2] / "editors" / "vscode" / "torchferry.vsix"
PATIENCE_MS = 120_000
#: VS Code's user settings: nothing shown or fetched at start that is not under test.
USER_SETTINGS = {
    "workbench.startupEditor": "none", "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False, "update.mode": "none", "workbench.tips.enabled": False,
    "chat.disableAIFeatures": True, "workbench.enableExperiments": False,
}


def _code_server_or_skip() -> str:
    path = os.environ.get("FERRY_CODE_SERVER") or shutil.which("code-server")
    if path is None:
        pytest.skip("code-server is not installed (npm install --unsafe-perm code-server)")
    if not VSIX.exists():
        pytest.skip("the extension is not built (cd editors/vscode && npm install && npm run package)")
    return path


def _workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    (ws / "train.py").write_text(SAFE)
    lines = SAFE.splitlines(keepends=True)
    (ws / "nb.ipynb").write_text(notebook(["".join(lines[:2]), "".join(lines[2:])]))
    (ws / ".vscode" / "settings.json").write_text(json.dumps(
        {"ferry.path": [sys.executable, "-m", "torchferry"]}))
    return ws


def _command(pg: Any, query: str, first: str) -> None:
    """Type ``query`` into the quick-input box (F1) and accept the first match once it
    reads ``first`` (a file's name, a command's title)."""
    pg.keyboard.press("F1")
    box = pg.locator(".quick-input-widget input")
    box.wait_for(timeout=PATIENCE_MS)
    box.fill(query)
    row = pg.locator(".quick-input-list .monaco-list-row").first
    deadline = time.monotonic() + PATIENCE_MS / 1000
    while not (row.count() and first in text(row)):
        assert time.monotonic() < deadline, f"no {first!r} for {query!r}"
        time.sleep(0.2)
    box.press("Enter")


def _problems(pg: Any, want: str, count: int) -> str:
    """The Problems panel's text once ``want`` shows in it ``count`` times."""
    panel = pg.locator(".markers-panel")
    deadline = time.monotonic() + PATIENCE_MS / 1000
    while True:
        seen = text(panel) if panel.count() else ""
        if seen.count(want) >= count or time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


def test_vscode_shows_the_findings_and_applies_a_notebook_quick_fix(tmp_path: Path) -> None:
    code_server = _code_server_or_skip()
    chromium = chromium_or_skip()
    ws = _workspace(tmp_path)
    ext, data = tmp_path / "extensions", tmp_path / "data"
    (data / "User").mkdir(parents=True)
    (data / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    dirs = [f"--extensions-dir={ext}", f"--user-data-dir={data}"]
    env = dict(os.environ, HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    subprocess.run([code_server, *dirs, "--install-extension", str(VSIX)], env=env,
                   check=True, capture_output=True, timeout=300)
    port, log = free_port(), tmp_path / "code-server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [code_server, *dirs, "--auth=none", f"--bind-addr=127.0.0.1:{port}",
             "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
             "--disable-getting-started-override", str(ws)],
            env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_for_port(port, lambda: server.poll() is None, log)
        with page(chromium, tmp_path / "profile") as pg:
            try:
                _drive(pg, port, ws)
            except BaseException:
                screenshot(pg, "vscode-failure.png")
                raise
    finally:
        server.terminate()
        server.wait(30)


def _drive(pg: Any, port: int, ws: Path) -> None:
    pg.goto(f"http://127.0.0.1:{port}/?folder={ws}")
    pg.locator(".monaco-workbench").wait_for(timeout=PATIENCE_MS)
    _command(pg, "train.py", "train.py")
    _command(pg, ">View: Focus Problems", "Focus Problems")
    seen = _problems(pg, "FRY009", 1)
    assert "FRY009" in seen and "FRY001" in seen, seen
    _command(pg, "nb.ipynb", "nb.ipynb")
    pg.locator(".notebook-editor .cell-list-container").wait_for(timeout=PATIENCE_MS)
    seen = _problems(pg, "FRY009", 2)  # the script's and the notebook cell's
    assert seen.count("FRY009") == 2 and "nb.ipynb" in seen, seen
    _apply_quick_fix(pg)


def _apply_quick_fix(pg: Any) -> None:
    """In the notebook's second cell, on FRY009's line, the preferred quick fix."""
    cells = pg.locator(".notebook-editor .cell-list-container .monaco-editor")
    line = cells.locator(".view-line", has_text="zeros").first
    line.locator("span", has_text="zeros").last.click()
    pg.keyboard.press("Control+.")
    rows = pg.locator(".action-widget .monaco-list-row")
    rows.first.wait_for(timeout=PATIENCE_MS)
    titles = [text(rows.nth(i)) for i in range(rows.count())]
    # under the "Quick Fix" header, the preferred (safe) fix first and focused
    assert titles[0] == "Quick Fix", titles
    assert "ferry (FRY009): Pass `device=device`" in titles[1], titles
    assert any("disable for this line (# noqa: FRY009)" in t for t in titles), titles
    screenshot(pg, "vscode-notebook-quick-fix.png")
    pg.keyboard.press("Enter")
    deadline = time.monotonic() + PATIENCE_MS / 1000
    while "torch.zeros(3, device=device)" not in text(cells.nth(1)):
        assert time.monotonic() < deadline, text(cells.nth(1))
        time.sleep(0.3)
