"""The client's settings: ``initializationOptions`` first, ``didChangeConfiguration`` later."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.server.conftest import SERVER, codes, diagnostics, log_matching, pytest_lsp, start

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

SCRIPT = "import torch\nx = torch.ones(2)\nx.to('cpu')\ny = x.cuda()\n"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: pytest_lsp.LanguageClient, tmp_path: Path):
    await start(lsp_client, tmp_path, {"ferry": {"select": ["FRY001"], "ignore": ["FRY999"]}})
    yield
    await lsp_client.shutdown_session()


async def test_settings_select_and_ignore(client, tmp_path):
    uri = (tmp_path / "a.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SCRIPT)))
    assert codes(await diagnostics(client, uri)) == [("FRY001", 4)]
    assert "FRY999" in await log_matching(client, "settings: ignore")  # named, then ignored
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"ferry": {"ignore": ["FRY001"]}}))
    assert codes(await diagnostics(client, uri, lambda d: codes(d) == [("FRY002", 3)]))
    # FRY001 is opt-in: the default rule set leaves it out, extendSelect adds it
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"ferry": {"extendSelect": ["FRY001"]}}))
    await diagnostics(client, uri, lambda d: codes(d) == [("FRY002", 3), ("FRY001", 4)])
