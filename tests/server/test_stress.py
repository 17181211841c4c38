"""``ferry server`` under load: a large workspace read in the background, a very large
file, a client that goes away in the middle of a check."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.server.conftest import (
    PATIENCE,
    codes,
    connect,
    diagnostics,
    disconnect,
    log_matching,
    types,
)

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

MODULE = (
    "import torch\nimport torch.nn as nn\n\n\nclass Net{i}(nn.Module):\n"
    "    def forward(self, x):\n        return x\n\n\nx = torch.ones(2)\nx.to('cpu')\n"
)
#: work that every workspace file adds to the check (functions that make and move
#: tensors), so that reading 1,000 of them takes far longer than the editor's requests
#: even when the test's own process is starved of CPU for seconds on a loaded machine
FILLER = "".join(
    f"\n\ndef step{k}(x):\n    y = torch.zeros(4) + x.to('cpu')\n    return y.sum().item()\n"
    for k in range(40)
)
EDITED = "import torch\nx = torch.ones(2)\nx.to('cpu')  # noqa: FRY002\ny = x.cuda()\n"


def _workspace(root: Path, files: int) -> list[str]:
    uris = []
    for i in range(files):
        path = root / f"pkg{i // 100}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(MODULE.format(i=i) + FILLER)
        uris.append(path.as_uri())
    return uris


async def test_a_1000_file_workspace_does_not_block_the_editor(tmp_path: Path) -> None:
    """While the workspace's 1,000 files are read and checked (``checkWorkspace``), an
    open file's diagnostics, a changed file's, a hover and a code action are answered,
    and the workspace's findings arrive file by file.  Not a race: the editor's requests
    go before the queued workspace files (they wait for at most the file being read),
    and the 1,000 files are far more work than the requests."""
    uris = _workspace(tmp_path, 1000)
    client = await connect(tmp_path, {"checkWorkspace": True, "extendSelect": ["FRY001"]})
    try:

        def published() -> int:
            return sum(1 for u in uris if u in client.diagnostics)

        async def started() -> None:  # the first workspace file is published
            while published() == 0:
                await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

        await asyncio.wait_for(started(), PATIENCE)
        uri = (tmp_path / "editing.py").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "python", 1, "import torch\nx = torch.ones(2)\n")))
        assert codes(await diagnostics(client, uri)) == []
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(2, uri),
            [types.TextDocumentContentChangeWholeDocument(EDITED)]))
        assert codes(await diagnostics(client, uri, lambda d: len(d) == 1)) == [("FRY001", 4)]
        hover = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(2, EDITED.index("FRY002") - 30)))
        assert hover is not None and "FRY002" in hover.contents.value
        found = await client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), types.Range(types.Position(3, 0), types.Position(3, 0)),
            types.CodeActionContext([])))
        assert found and any("FRY001" in a.title for a in found)
        during = published()
        assert 0 < during < len(uris)  # answered while the workspace was being read
        await log_matching(client, "read 1000 files")
        assert published() == len(uris)
        assert codes(client.diagnostics[uris[-1]]) == [("FRY002", 11)]
    finally:
        await disconnect(client)


async def test_a_very_large_file(tmp_path: Path) -> None:
    """A 30,000-line file (under max-file-size) is checked; a hover sent meanwhile is
    answered; a change to it replaces its findings."""
    body = "import torch\n" + "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(10_000))
    client = await connect(tmp_path)
    try:
        uri = (tmp_path / "large.py").as_uri()
        text = body + "x = torch.ones(2)\nx.to('cpu')\n"
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "python", 1, text)))
        hover = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(0, 0)))
        assert hover is None
        line = text.count("\n")
        assert codes(await diagnostics(client, uri)) == [("FRY002", line)]
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(2, uri),
            [types.TextDocumentContentChangeWholeDocument(body)]))
        assert list(await diagnostics(client, uri, lambda d: len(d) == 0)) == []
    finally:
        await disconnect(client)


def _message(method: str, params: dict, id: int | None = None) -> bytes:
    import json

    body: dict = {"jsonrpc": "2.0", "method": method, "params": params}
    if id is not None:
        body["id"] = id
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


async def test_a_client_that_disconnects_during_a_check(tmp_path: Path) -> None:
    """The client opens a large file and goes away (no shutdown) while it is checked: the
    server exits with status 1 and one line on stderr, no traceback."""
    text = "import torch\n" + "x = torch.ones(2)\nx.to('cpu')\n" * 20_000
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "torchferry", "server",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stdin is not None
    uri = (tmp_path / "big.py").as_uri()
    proc.stdin.write(_message("initialize", {"capabilities": {}, "rootUri": tmp_path.as_uri()}, 1)
                     + _message("initialized", {})
                     + _message("textDocument/didOpen", {"textDocument": {
                         "uri": uri, "languageId": "python", "version": 1, "text": text}}))
    await proc.stdin.drain()
    proc.stdin.close()
    out, err = await asyncio.wait_for(proc.communicate(), PATIENCE)
    assert b'"capabilities"' in out
    assert proc.returncode == 1, err
    assert err.decode().strip().splitlines()[-1] == (
        "ferry server: the client disconnected without a shutdown request")
    assert b"Traceback" not in err
