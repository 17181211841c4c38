"""A ``ferry server`` process driven over stdio by pytest-lsp's client, shared by a module."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from lsprotocol import types

pytest_lsp = pytest.importorskip("pytest_lsp")

#: A guard against a hang, not a timing assertion: the server answers in milliseconds.
PATIENCE = 60.0

SERVER = pytest_lsp.ClientServerConfig(server_command=[sys.executable, "-m", "torchferry", "server"])


async def start(client, root: Path, options: dict | None = None, spec: str = "visual-studio-code"):
    """Initialize a session rooted at ``root``, as VS Code's capabilities say (file watchers
    registered dynamically: this client accepts the registration)."""
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    params = types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities(spec),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        initialization_options=options,
    )
    return await client.initialize_session(params)


async def diagnostics(
    client, uri: str, ok: Callable[[Sequence[types.Diagnostic]], bool] = lambda d: True
) -> Sequence[types.Diagnostic]:
    """The diagnostics published for ``uri``, once ``ok`` accepts them."""

    async def wait() -> Sequence[types.Diagnostic]:
        while uri not in client.diagnostics or not ok(client.diagnostics[uri]):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]

    return await asyncio.wait_for(wait(), PATIENCE)


async def log_matching(client, text: str) -> str:
    async def wait() -> str:
        while True:
            for m in client.log_messages:
                if text in m.message:
                    return m.message
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)

    return await asyncio.wait_for(wait(), PATIENCE)


def codes(diags: Sequence[types.Diagnostic]) -> list[tuple[str, int]]:
    return [(str(d.code), d.range.start.line + 1) for d in diags]
