"""``ferry server`` end to end: a real server process, pytest-lsp's client over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_asyncio

from tests.server.conftest import (
    codes,
    connect,
    diagnostics,
    disconnect,
    log_matching,
    record_versions,
    types,
)
from torchferry.check import engine

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

SCRIPT = "import torch\nx = torch.ones(2)\nx.to('cpu')\ny = x.cuda()\n"
DEVICE = "import torch\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
#: FRY009 on line 3, with a safe fix
SAFE = DEVICE + "z = torch.zeros(3).to(device)\n"
TRAIN = (
    "import torch\n"
    "from model import Net\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "\n\nclass Head(Net):\n"
    "    def forward(self, x):\n"
    "        return x * torch.ones(2)\n"
    "\n\nout = Head().to(device)(torch.ones(2, 2, device=device))\n"
)
#: every rule, the opt-in ones too (FRY001, FRY007, FRY009 are used below)
ALL = '[tool.torchferry]\nselect = ["ALL"]\n'
MODEL = "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n\nclass Net(Base):\n    pass\n"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text(ALL)
    (root / "model.py").write_text(MODEL)
    (root / "configured").mkdir()
    (root / "configured" / "pyproject.toml").write_text(ALL + 'ignore = ["FRY001"]\n')
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(root: Path):
    client = await connect(root)
    yield client
    await disconnect(client)


def open_doc(client, path: Path, text: str, language: str = "python") -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
    )
    return uri


def replace_all(client, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri),
        [types.TextDocumentContentChangeWholeDocument(text)],
    ))  # fmt: skip


def apply(text: str, edits) -> str:
    """Apply LSP text edits (ASCII text: characters are code units) to ``text``."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


async def actions(client, uri: str, line: int, only=None) -> list[types.CodeAction]:
    rng = types.Range(types.Position(line - 1, 0), types.Position(line - 1, 0))
    result = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), rng, types.CodeActionContext([], only=only)))
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_findings_on_open_with_code_link_and_severity(client, root):
    loop = ("model = torch.nn.Linear(2, 2).to(y.device)\n"
            "for batch in loader:\n    loss = model(batch)\n    print(loss.item())\n")
    uri = open_doc(client, root / "open.py", SCRIPT + loop)
    diags = await diagnostics(client, uri)
    assert codes(diags) == [("FRY002", 3), ("FRY001", 4), ("FRY007", 8)]
    by_code = {d.code: d for d in diags}
    assert by_code["FRY002"].severity == types.DiagnosticSeverity.Error
    assert by_code["FRY007"].severity == types.DiagnosticSeverity.Warning
    assert all(d.source == "ferry" for d in diags)
    link = by_code["FRY002"].code_description.href
    assert link.startswith("file:") and "discarded-move" in Path(link[len("file://"):]).read_text()
    assert by_code["FRY002"].range == types.Range(types.Position(2, 0), types.Position(2, 11))


async def test_change_updates_and_clears(client, root):
    uri = open_doc(client, root / "change.py", SCRIPT)
    await diagnostics(client, uri, lambda d: len(d) == 2)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(2, uri),
        [types.TextDocumentContentChangePartial(
            types.Range(types.Position(2, 0), types.Position(2, 0)), "x = ")],
    ))  # an incremental change: line 3 becomes `x = x.to('cpu')`
    assert codes(await diagnostics(client, uri, lambda d: len(d) == 1)) == [("FRY001", 4)]
    replace_all(client, uri, 3, "import torch\n")
    assert list(await diagnostics(client, uri, lambda d: len(d) == 0)) == []


async def test_a_burst_of_changes_ends_on_the_last_text(client, root):
    versions = record_versions(client)
    uri = open_doc(client, root / "burst.py", "import torch\n")
    await diagnostics(client, uri)
    for version in range(2, 42):  # faster than any analysis: no await between them
        replace_all(client, uri, version, "import torch\n" + "x = 1\n" * version + "y.cuda()\n")
    final = await diagnostics(client, uri, lambda d: codes(d) == [("FRY001", 43)])
    # each publication is of a newer text than the one before, the last of the last text
    assert versions[uri][-1] == 41 and versions[uri] == sorted(set(versions[uri]))
    # a request that needs fresh results agrees: nothing stale is kept
    assert await actions(client, uri, 43) and codes(final) == [("FRY001", 43)]


async def test_a_change_after_a_pause_is_checked_at_once(root):
    """Only the later changes of a burst wait ``debounceMs``: with an hour's debounce, a
    single change still gets its findings (it would wait the hour otherwise)."""
    client = await connect(root, {"debounceMs": 3_600_000})
    try:
        uri = open_doc(client, root / "pause.py", SCRIPT)
        await diagnostics(client, uri, lambda d: len(d) == 2)
        replace_all(client, uri, 2, "import torch\n")
        assert list(await diagnostics(client, uri, lambda d: len(d) == 0)) == []
    finally:
        await disconnect(client)


async def test_close_clears(client, root):
    uri = open_doc(client, root / "close.py", SCRIPT)
    await diagnostics(client, uri, lambda d: len(d) == 2)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert list(await diagnostics(client, uri, lambda d: len(d) == 0)) == []


async def test_a_file_that_does_not_parse(client, root):
    uri = open_doc(client, root / "broken.py", "import torch\nx = (\n")
    diags = await diagnostics(client, uri)
    assert codes(diags) == [("FRY000", 2)] and "never closed" in diags[0].message
    replace_all(client, uri, 2, "import torch\nx = ()\n")
    assert list(await diagnostics(client, uri, lambda d: len(d) == 0)) == []


async def test_quick_fix_and_noqa(client, root):
    uri = open_doc(client, root / "fixes.py", SAFE)
    await diagnostics(client, uri, lambda d: codes(d) == [("FRY009", 3)])
    found = await actions(client, uri, 3)
    fix = next(a for a in found if a.is_preferred)
    assert fix.kind == types.CodeActionKind.QuickFix and "FRY009" in fix.title
    assert "unsafe" not in fix.title
    fixed = apply(SAFE, fix.edit.changes[uri])
    assert fixed.splitlines()[2] == "z = torch.zeros(3, device=device)"
    assert engine.check_source(fixed, select=["ALL"]) == []
    noqa = next(a for a in found if "noqa" in a.title)
    silenced = apply(SAFE, noqa.edit.changes[uri])
    assert silenced.splitlines()[2] == "z = torch.zeros(3).to(device)  # noqa: FRY009"
    assert engine.check_source(silenced, select=["ALL"]) == []


async def test_unsafe_fix_is_marked(client, root):
    uri = open_doc(client, root / "unsafe.py", SCRIPT)
    await diagnostics(client, uri, lambda d: len(d) == 2)
    fixes = [a for a in await actions(client, uri, 3) if "noqa" not in a.title]
    assert [a.title for a in fixes] == ["ferry (FRY002): Assign the result: `x = x.to('cpu')` "
                                        "(unsafe fix)"]
    assert not fixes[0].is_preferred
    assert apply(SCRIPT, fixes[0].edit.changes[uri]).splitlines()[2] == "x = x.to('cpu')"


async def test_fix_all(client, root):
    text = SAFE + "w = torch.ones(3).to(device)\n" + "x = torch.ones(2)\nx.to('cpu')\n"
    uri = open_doc(client, root / "fixall.py", text)
    await diagnostics(client, uri, lambda d: len(d) == 3)
    found = await actions(client, uri, 1, only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in found] == ["source.fixAll.ferry"]
    fixed = apply(text, found[0].edit.changes[uri])
    assert fixed == engine.fix_source(text, select=["ALL"]).source != text
    assert [f.code for f in engine.check_source(fixed, select=["ALL"])] == ["FRY002"]  # unsafe
    assert await actions(client, uri, 1, only=["source.organizeImports"]) == []


async def test_hover_on_a_noqa_code(client, root):
    text = "import torch\ny = torch.ones(1).cuda()  # noqa: FRY001, FRY002\n"
    uri = open_doc(client, root / "hover.py", text)
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, text.splitlines()[1].index("FRY002") + 2)))
    assert hover is not None and "discarded-move" in hover.contents.value
    none = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 2)))
    assert none is None


async def test_configuration_and_its_reload(client, root):
    project = root / "configured"
    uri = open_doc(client, project / "a.py", SCRIPT)
    assert codes(await diagnostics(client, uri)) == [("FRY002", 3)]  # FRY001 ignored there
    (project / "pyproject.toml").write_text(ALL + 'ignore = ["FRY002"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([
        types.FileEvent((project / "pyproject.toml").as_uri(), types.FileChangeType.Changed)]))
    assert codes(await diagnostics(client, uri, lambda d: codes(d) == [("FRY001", 4)]))
    await log_matching(client, "configuration reloaded")
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)


async def test_a_file_over_the_size_limit(client, root):
    (root / "configured" / "pyproject.toml").write_text(
        ALL + "max-file-size = 2000\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([
        types.FileEvent((root / "configured" / "pyproject.toml").as_uri(),
                        types.FileChangeType.Changed)]))
    uri = open_doc(client, root / "configured" / "huge.py", SCRIPT + "x = 1\n" * 1000)
    diags = await diagnostics(client, uri)
    assert codes(diags) == [("FRY000", 1)] and "max-file-size" in diags[0].message
    assert "not checked" in await log_matching(client, "huge.py")


async def test_classes_of_other_workspace_files(client, root):
    uri = open_doc(client, root / "train.py", TRAIN)
    # model.py is read in the background: its Net is a module, so Head.forward's x is a
    # module input and the factory it meets is flagged
    await diagnostics(client, uri, lambda d: ("FRY010", 8) in codes(d))
    (root / "model.py").write_text(MODEL.replace("nn.Module", "object"))
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([
        types.FileEvent((root / "model.py").as_uri(), types.FileChangeType.Changed)]))
    await diagnostics(client, uri, lambda d: "FRY010" not in [c for c, _ in codes(d)])


# ---------------------------------------------------------------- notebooks
def _cell(nb: str, i: int) -> str:
    return f"{nb}#cell{i}"


def open_notebook(client, path: Path, cells: list[str], metadata=None) -> tuple[str, list[str]]:
    nb = path.as_uri()
    uris = [_cell(nb, i) for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(nb, "jupyter-notebook", 1, [
            types.NotebookCell(types.NotebookCellKind.Code, u) for u in uris], metadata=metadata),
        [types.TextDocumentItem(u, "python", 1, t) for u, t in zip(uris, cells, strict=True)],
    ))  # fmt: skip
    return nb, uris


async def test_notebook_cells(client, root):
    third = "print(1)\nz = torch.zeros(3).to(device)\nprint(z)"
    nb, cells = open_notebook(client, root / "nb.ipynb", [DEVICE, "%matplotlib inline", third])
    diags = await diagnostics(client, cells[2])
    assert codes(diags) == [("FRY009", 2)]  # line 2 of the third cell, as ferry check says
    assert [codes(client.diagnostics.get(c, [])) for c in cells[:2]] == [[], []]
    found = await actions(client, cells[2], 2)
    fix = next(a for a in found if a.is_preferred)
    assert list(fix.edit.changes) == [cells[2]]
    fixed = apply(third, fix.edit.changes[cells[2]])
    assert fixed == "print(1)\nz = torch.zeros(3, device=device)\nprint(z)"
    noqa = next(a for a in found if "noqa" in a.title)
    assert apply(third, noqa.edit.changes[cells[2]]).splitlines()[1].endswith("# noqa: FRY009")
    fix_all = await actions(client, cells[2], 1, only=["source.fixAll"])
    assert [list(a.edit.changes) for a in fix_all] == [[cells[2]]]
    assert apply(third, fix_all[0].edit.changes[cells[2]]) == fixed

    # the user applies the fix in the cell: the finding goes
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(2, nb),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                types.VersionedTextDocumentIdentifier(2, cells[2]),
                [types.TextDocumentContentChangeWholeDocument(fixed)])]))))
    assert list(await diagnostics(client, cells[2], lambda d: len(d) == 0)) == []


async def test_notebook_cell_uris_with_escapes_as_vs_code_sends_them(client, root):
    # VS Code's cell URIs end in a base64 fragment with its "=" escaped ("%3D"): the
    # findings are published under those URIs, spelled as the client spelled them
    nb = (root / "vscode.ipynb").as_uri()
    cells = [f"vscode-notebook-cell:{nb[5:]}#W{i}sdnNjb2RlLXJlbW90ZQ%3D%3D" for i in range(2)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(nb, "jupyter-notebook", 0, [
            types.NotebookCell(types.NotebookCellKind.Code, u) for u in cells]),
        [types.TextDocumentItem(u, "python", 1, t) for u, t in zip(
            cells, [DEVICE, "z = torch.zeros(3).to(device)\n"], strict=True)],
    ))  # fmt: skip
    assert codes(await diagnostics(client, cells[1])) == [("FRY009", 1)]
    fix = next(a for a in await actions(client, cells[1], 1) if a.is_preferred)
    assert list(fix.edit.changes) == [cells[1]]


async def test_file_uri_with_escapes(client, root):
    (root / "my dir").mkdir()
    text = SAFE + "w = torch.ones(2).to(device)  # noqa: FRY009\n"
    uri = open_doc(client, root / "my dir" / "train.py", text)  # ".../my%20dir/train.py"
    assert "%20" in uri
    assert codes(await diagnostics(client, uri)) == [("FRY009", 3)]
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(3, text.splitlines()[3].index("FRY"))))
    assert hover is not None and "FRY009" in hover.contents.value


async def test_notebook_cell_removed_and_closed(client, root):
    nb, cells = open_notebook(client, root / "nb2.ipynb", ["import torch", "y = x.cuda()"])
    await diagnostics(client, cells[1], lambda d: codes(d) == [("FRY001", 1)])
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(2, nb),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                types.NotebookCellArrayChange(1, 1, []),
                did_close=[types.TextDocumentIdentifier(cells[1])])))))
    assert list(await diagnostics(client, cells[1], lambda d: len(d) == 0)) == []
    nb3, cells3 = open_notebook(client, root / "nb3.ipynb", ["import torch\ny = x.cuda()"])
    await diagnostics(client, cells3[0], lambda d: len(d) == 1)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        types.NotebookDocumentIdentifier(nb3), [types.TextDocumentIdentifier(cells3[0])]))
    assert list(await diagnostics(client, cells3[0], lambda d: len(d) == 0)) == []


async def test_notebook_with_another_kernel(client, root):
    meta = {"kernelspec": {"language": "R", "name": "ir"}}
    nb, cells = open_notebook(client, root / "r.ipynb", ["library(torch)\nx.cuda()"], meta)
    message = await log_matching(client, "r.ipynb")
    assert "not Python" in message
    # nothing is published for its cells (any earlier state would have been cleared)
    assert not client.diagnostics.get(cells[0])


# ---------------------------------------------------------------- the process
async def test_a_client_that_disconnects():
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "torchferry", "server",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
    assert proc.stdin is not None
    proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    await proc.stdin.drain()
    proc.stdin.close()
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert b'"capabilities"' in out
    assert proc.returncode == 1 and b"disconnected without a shutdown" in err
    assert b"Traceback" not in err
