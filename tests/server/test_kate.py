"""Kate (Debian's package, 22.12) on a virtual X display, its LSP client configured with
the JSON docs/editor.md gives: Kate starts ``ferry server`` for a Python file, opens the
file in it, and receives its findings.  The server runs behind ``kate/lsp_tee.py``,
which logs the traffic (Kate does not expose it); what Kate draws is in the screenshot
(``FERRY_SCREENSHOT_DIR``), not asserted.  Skipped without Kate, Xvfb or xwd.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.server.test_neovim import SAFE

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent


def _frames(path: Path) -> list[dict]:
    """The JSON-RPC messages of an LSP stream (``Content-Length`` framed)."""
    data, out = path.read_bytes() if path.exists() else b"", []
    while (head := data.find(b"\r\n\r\n")) != -1:
        length = int(data[:head].split(b"Content-Length:")[1].split(b"\r\n")[0])
        body = data[head + 4:head + 4 + length]
        if len(body) < length:
            break
        out.append(json.loads(body))
        data = data[head + 4 + length:]
    return out


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        return xvfb, ":" + f.readline().strip()


def test_kate_starts_the_server_from_its_settings_and_gets_the_findings(tmp_path: Path) -> None:
    for tool in ("kate", "Xvfb", "xwd"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install kate xvfb x11-apps)")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    script = ws / "train.py"
    script.write_text(SAFE)
    log, config = tmp_path / "lsp", tmp_path / "config"
    command = [sys.executable, str(HERE / "kate" / "lsp_tee.py"), str(log),
               sys.executable, "-m", "torchferry", "server"]
    (config / "kate" / "lspclient").mkdir(parents=True)
    (config / "kate" / "lspclient" / "settings.json").write_text(json.dumps(
        {"servers": {"python": {"command": command, "highlightingModeRegex": "^Python$"}}}))
    # Kate asks once before it starts a server command line it has not seen; the
    # answer "yes" is kept in katerc, as it is written here
    (config / "katerc").write_text("[Kate Plugins]\nlspclientplugin=true\n\n[lspclient]\n"
                                   f"AllowedServerCommandLines={' '.join(command)}\n")
    xvfb, display = _start_xvfb()
    env = dict(os.environ, DISPLAY=display, HOME=str(tmp_path), XDG_CONFIG_HOME=str(config),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_RUNTIME_DIR=str(tmp_path / "rt"))
    (tmp_path / "rt").mkdir(mode=0o700)
    kate = subprocess.Popen(["kate", "--new", str(script)], env=env, cwd=ws,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        published: list[dict] = []
        deadline = time.monotonic() + 120
        while not published and time.monotonic() < deadline:
            time.sleep(0.5)
            published = [m for m in _frames(log.with_suffix(".out")) if m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == script.as_uri() and m["params"]["diagnostics"]]
        assert published, _frames(log.with_suffix(".in"))
        sent = [m.get("method") for m in _frames(log.with_suffix(".in"))]
        assert sent[:2] == ["initialize", "initialized"] and "textDocument/didOpen" in sent, sent
        assert sorted(d["code"] for d in published[-1]["params"]["diagnostics"]) == [
            "FRY001", "FRY009"]
        folder = os.environ.get("FERRY_SCREENSHOT_DIR")
        if folder:
            time.sleep(3)  # Kate draws the marks
            sys.path.insert(0, str(HERE.parents[1] / "docs" / "images"))
            from screenshot import xwd_to_png  # type: ignore[import-not-found]

            dump = subprocess.run(["xwd", "-root", "-silent", "-display", display],
                                  check=True, capture_output=True).stdout
            xwd_to_png(dump, Path(folder) / "kate-diagnostics.png")
    finally:
        kate.kill()
        kate.wait(30)
        xvfb.kill()
