"""JupyterLab's language-server bridge (jupyter-lsp, the server half of jupyterlab-lsp)
starting ``ferry server`` from the spec docs/editor.md gives, and relaying its findings.

A Jupyter server runs with that spec; the test speaks to ``/lsp/ws/ferry`` as
jupyterlab-lsp's front end does (JSON-RPC messages over a websocket) and reads the
diagnostics of a document.  The browser side is not exercised.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SPEC = {
    "ferry": {
        "version": 2,
        "argv": [sys.executable, "-m", "torchferry", "server"],
        "languages": ["python"],
        "mime_types": ["text/x-python", "text/x-ipython"],
        "display_name": "torchferry",
    }
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_jupyter_lsp_relays_the_findings(tmp_path: Path) -> None:
    pytest.importorskip("jupyter_lsp")
    websocket = pytest.importorskip("tornado.websocket")
    from tornado.ioloop import IOLoop

    (tmp_path / "pyproject.toml").write_text('[tool.torchferry]\nselect = ["ALL"]\n')
    config = tmp_path / "jupyter_server_config.json"
    config.write_text(json.dumps({"LanguageServerManager": {
        "language_servers": SPEC, "autodetect": False}}))
    port, token = _free_port(), "ferrytest"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"))
    log = (tmp_path / "jupyter.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
         f"--ServerApp.root_dir={tmp_path}", f"--config={config}", "--allow-root"],
        env=env, stdout=subprocess.DEVNULL, stderr=log, cwd=tmp_path)
    try:
        uri = (tmp_path / "train.py").as_uri()

        async def talk() -> list[dict]:
            url = f"ws://127.0.0.1:{port}/lsp/ws/ferry?token={token}"
            deadline = time.monotonic() + 60
            while True:  # the server takes a moment to listen
                try:
                    ws = await websocket.websocket_connect(url)
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        tail = (tmp_path / "jupyter.log").read_text()[-2000:]
                        raise AssertionError(tail) from None
                    await asyncio.sleep(0.2)

            def send(msg: dict) -> None:
                ws.write_message(json.dumps({"jsonrpc": "2.0", **msg}))

            send({"id": 1, "method": "initialize", "params": {
                "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
            send({"method": "initialized", "params": {}})
            send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1,
                "text": "import torch\ny = torch.ones(1).cuda()\n"}}})
            while True:
                raw = await asyncio.wait_for(ws.read_message(), 60)
                assert raw is not None, "the websocket closed"
                msg = json.loads(raw)
                if msg.get("method") == "textDocument/publishDiagnostics" and \
                        msg["params"]["uri"] == uri:
                    ws.close()
                    return msg["params"]["diagnostics"]

        diags = IOLoop.current().run_sync(talk, timeout=600)
        assert sorted(d["code"] for d in diags) == ["FRY001", "FRY009"]
    finally:
        server.terminate()
        server.wait(30)
        log.close()
