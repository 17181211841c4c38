"""The protocol methods ``ferry server`` answers: document and notebook sync, code actions,
hover, configuration and watched files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from torchferry.server import convert
from torchferry.server.analysis import Settings, fix_cells, fix_parses, fix_python
from torchferry.server.protocol import (
    PYTHON_SUFFIXES,
    URGENT,
    FerryServer,
    Tracked,
    open_document,
)
from torchferry.server.text import noqa_code_at, noqa_edit, rule_markdown

__all__ = ["register"]

WATCHED = ("**/pyproject.toml", "**/*.py", "**/*.ipynb")


def _is_python(uri: str, language: str | None) -> bool:
    return language == "python" or uri.endswith(PYTHON_SUFFIXES)


def register(ls: FerryServer) -> None:
    """Attach every handler to ``ls``."""
    _lifecycle(ls)
    _documents(ls)
    _workspace(ls)
    _actions(ls)


def _lifecycle(ls: FerryServer) -> None:
    """Attach the handlers of ``initialize`` and ``initialized`` (settings, file watching,
    the workspace's index) to ``ls``."""

    @ls.feature(types.INITIALIZE)
    def initialize(ls: FerryServer, params: types.InitializeParams) -> None:
        ls.settings = Settings.parse(params.initialization_options, ls.log)
        ls.projects.clear(ls.settings)

    @ls.feature(types.INITIALIZED)
    def initialized(ls: FerryServer, params: types.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps else None
        if watch is not None and watch.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
            )
            ls.client_register_capability(types.RegistrationParams(registrations=[
                types.Registration("ferry-watch", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   options)]))
        ls.index_workspace()



def _documents(ls: FerryServer) -> None:
    """Attach the handlers of text documents and notebooks opened, changed, saved and
    closed (each schedules or forgets a check) to ``ls``."""

    # -- text documents ---------------------------------------------------------
    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FerryServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        if _is_python(doc.uri, doc.language_id):
            ls.schedule(doc.uri, False, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FerryServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.tracked:
            ls.schedule(params.text_document.uri, False)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: FerryServer, params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in ls.tracked:
            ls.schedule(params.text_document.uri, False, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FerryServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    # -- notebooks ----------------------------------------------------------------
    @ls.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def nb_open(ls: FerryServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, True, 0)

    @ls.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def nb_change(ls: FerryServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, True)

    @ls.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def nb_save(ls: FerryServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, True, 0)

    @ls.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def nb_close(ls: FerryServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)



def _workspace(ls: FerryServer) -> None:
    """Attach the handlers of a changed configuration and of watched files to ``ls``."""

    # -- configuration --------------------------------------------------------------
    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: FerryServer, params: types.DidChangeConfigurationParams
    ) -> None:
        if not Settings.present(params.settings):
            return  # nothing of ours: the settings stand
        ls.settings = Settings.parse(params.settings, ls.log)
        ls.projects.clear(ls.settings)
        ls.recheck_open()

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: FerryServer, params: types.DidChangeWatchedFilesParams) -> None:
        configs = [c for c in params.changes if c.uri.endswith("pyproject.toml")]
        if configs:
            ls.projects.clear()
            ls._said.clear()
            ls.log(f"ferry: configuration reloaded ({', '.join(c.uri for c in configs)})")
            ls.recheck_open()
        for change in params.changes:
            fs = to_fs_path(change.uri)
            if fs and fs.endswith((*PYTHON_SUFFIXES, ".ipynb")) and change.uri not in ls.tracked:
                ls.file_changed(Path(fs), change.type == types.FileChangeType.Deleted)



def _actions(ls: FerryServer) -> None:
    """Attach the handlers of code actions (quick fixes, fix all) and hover to ``ls``."""

    # -- code actions ------------------------------------------------------------------
    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, convert.FIX_ALL],
            resolve_provider=False,
        ),
    )
    async def code_action(
        ls: FerryServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        found = await ls.fresh(params.text_document.uri)
        if found is None:
            return None
        t, uri = found
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(types.CodeActionKind.QuickFix, only):  # parses: on the worker, as checks do
            actions += await ls.worker.submit(URGENT, lambda: quick_fixes(ls, t, uri, params.range))
        if _wanted(convert.FIX_ALL, only):
            fix_all = await _fix_all(ls, t)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    # -- hover -----------------------------------------------------------------------------
    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: FerryServer, params: types.HoverParams) -> types.Hover | None:
        doc = open_document(ls.workspace, params.text_document.uri)
        if doc is None:
            return None
        lines = convert.Lines(doc.lines, ls.encoding())
        line, column = lines.column(params.position)
        text = doc.lines[line - 1].rstrip("\r\n") if 0 < line <= len(doc.lines) else ""
        code = noqa_code_at(text, column)
        markdown = rule_markdown(code) if code else None
        if markdown is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, markdown))


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == o or kind.startswith(str(o) + ".") for o in only)


def _overlaps(r: types.Range, f_line: int, f_end: int) -> bool:
    return f_line - 1 <= r.end.line and r.start.line <= f_end - 1


def quick_fixes(
    ls: FerryServer, t: Tracked, uri: str, rng: types.Range
) -> list[types.CodeAction]:
    """The fix (safe: preferred; unsafe: said so) and "disable for this line" of each
    finding on the requested lines."""
    snap = t.snapshot
    if snap is None:
        return []
    enc = ls.encoding()
    if snap.notebook:
        text = snap.cells[snap.cell_uris.index(uri)].text
    else:
        text = snap.text
    lines = convert.Lines.of(text, enc)
    root = ls.projects.get(snap.path).config.root
    out: list[types.CodeAction] = []
    for item in t.items.get(uri, []):
        f = item.finding
        if not _overlaps(rng, f.line, f.end_line):
            continue
        diag = convert.diagnostic(item, lines, None, uri, root, ls.settings.rule_docs_url)
        if f.fix is not None and f.fix.edits and fix_parses(text, f.fix):
            title = f"ferry ({f.code}): {f.fix.message}"
            out.append(types.CodeAction(
                title=title if f.fix.safe else f"{title} (unsafe fix)",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=f.fix.safe,
                edit=types.WorkspaceEdit(changes={uri: [lines.text_edit(e) for e in f.fix.edits]}),
            ))
        edit = noqa_edit(text, f.line, f.code)
        if edit is not None:
            out.append(types.CodeAction(
                title=f"ferry ({f.code}): disable for this line (# noqa: {f.code})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=types.WorkspaceEdit(changes={uri: [lines.text_edit(edit)]}),
            ))
    return out


async def _fix_all(ls: FerryServer, t: Tracked) -> types.CodeAction | None:
    snap = t.snapshot
    if snap is None:
        return None
    project = ls.projects.get(snap.path)
    classes = ls.classes.classes()
    enc = ls.encoding()
    changes: dict[str, list[types.TextEdit]] = {}
    if snap.notebook:
        new_cells = await ls.worker.submit(
            URGENT, lambda: fix_cells(snap.cells, snap.path, project, classes))
        for index, new in new_cells.items():
            old = snap.cells[index].text
            changes[snap.cell_uris[index]] = [
                convert.minimal_edit(old, new, convert.Lines.of(old, enc))]
    else:
        new = await ls.worker.submit(
            URGENT, lambda: fix_python(snap.text, snap.path, project, classes))
        if new is not None:
            changes[snap.key] = [
                convert.minimal_edit(snap.text, new, convert.Lines.of(snap.text, enc))]
    if not changes:
        return None
    return types.CodeAction(
        title="ferry: fix all safe fixes", kind=convert.FIX_ALL,
        edit=types.WorkspaceEdit(changes=changes),
    )
