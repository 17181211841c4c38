"""The client's settings: ``initializationOptions`` first, ``didChangeConfiguration`` later."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio

from tests.server.conftest import codes, connect, diagnostics, disconnect, log_matching, types

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

SCRIPT = "import torch\nx = torch.ones(2)\nx.to('cpu')\ny = x.cuda()\n"


@pytest_asyncio.fixture
async def client(tmp_path: Path):
    client = await connect(tmp_path, {"ferry": {"select": ["FRY001"], "ignore": ["FRY999"]}})
    yield client
    await disconnect(client)


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


async def test_a_configuration_change_without_our_settings_keeps_them(client, tmp_path):
    """Eglot sends ``didChangeConfiguration`` with ``{}`` right after ``initialize``;
    other clients send other servers' settings: ours (``select`` FRY001) stand."""
    uri = (tmp_path / "b.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SCRIPT)))
    assert codes(await diagnostics(client, uri)) == [("FRY001", 4)]
    for settings in ({}, None, {"pylsp": {"plugins": {}}}):
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(2, uri),
        [types.TextDocumentContentChangeWholeDocument(SCRIPT + "z = x.cuda()\n")]))
    assert codes(await diagnostics(client, uri, lambda d: len(d) > 1)) == [
        ("FRY001", 4), ("FRY001", 5)]

