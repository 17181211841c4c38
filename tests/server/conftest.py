"""A ``ferry server`` process driven over stdio by pytest-lsp's client.

Nothing heavy is imported here or at the top of the test modules: ``lsprotocol`` costs
about half a second of CPU to import, and the fast loop imports every test module.
``types`` stands for ``lsprotocol.types``, imported on first use; pytest-lsp's pytest
plugin is off (``-p no:pytest-lsp`` in pyproject.toml), its client is used directly.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: A guard against a hang, not a timing assertion: the server answers in milliseconds.
PATIENCE = 60.0
COMMAND = (sys.executable, "-m", "torchferry", "server")


class _Types:
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # pytest probes module attributes (``_mock_name``, ...)
            raise AttributeError(name)
        from lsprotocol import types as real

        return getattr(real, name)


types: Any = _Types()


async def connect(root: Path, options: dict | None = None, spec: str = "visual-studio-code"):
    """A client attached to a new server process, its session initialized at ``root`` with
    VS Code's capabilities (file watchers registered dynamically: this client accepts)."""
    from pytest_lsp import client_capabilities, make_test_lsp_client

    client = make_test_lsp_client()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params) -> None:
        client.registrations.extend(params.registrations)

    await client.start_io(*COMMAND)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(spec),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        initialization_options=options,
    ))  # fmt: skip
    return client


async def disconnect(client) -> None:
    await client.shutdown_session()
    await client.stop()


async def diagnostics(client, uri: str, ok: Callable[[Sequence[Any]], bool] = lambda d: True):
    """The diagnostics published for ``uri``, once ``ok`` accepts them."""

    async def wait() -> Sequence[Any]:
        while uri not in client.diagnostics or not ok(client.diagnostics[uri]):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]

    return await asyncio.wait_for(wait(), PATIENCE)


async def log_matching(client, text: str) -> str:
    """The first log message that contains ``text``.

    A guard against a hang, not a time limit: it fails only when the server sends nothing
    new (no log message, no diagnostics for another document) for ``PATIENCE`` seconds.
    A long piece of work, such as reading a workspace of 1,000 files, may take minutes on
    a loaded machine; it fails only if it stops making progress.
    """
    loop = asyncio.get_running_loop()
    progress, since = (-1, -1), loop.time()
    while True:
        for m in client.log_messages:
            if text in m.message:
                return str(m.message)
        now = (len(client.log_messages), len(client.diagnostics))
        if now != progress:
            progress, since = now, loop.time()
        elif loop.time() - since > PATIENCE:
            raise TimeoutError(f"no log message with {text!r} and no progress for {PATIENCE:.0f} s")
        await asyncio.sleep(0.05)


def codes(diags: Sequence[Any]) -> list[tuple[str, int]]:
    return [(str(d.code), d.range.start.line + 1) for d in diags]


def record_versions(client) -> dict[str, list[int | None]]:
    """The ``version`` of every ``publishDiagnostics`` the client receives, by URI, in
    order (pytest-lsp's client keeps only the last diagnostics)."""
    import collections

    versions: dict[str, list[int | None]] = collections.defaultdict(list)
    features = client.protocol.fm.features
    keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params) -> None:
        versions[params.uri].append(params.version)
        keep(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    return versions
