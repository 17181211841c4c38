"""``ferry server``: the Language Server (pygls) that publishes ``ferry check``'s findings.

The event loop only takes snapshots and talks to the client; every check runs on one
worker thread, by priority (:class:`Worker`), so a long check never delays a hover.  A
change after a pause is checked at once; the later changes of a burst (each within
``debounceMs`` of the one before), and those that come while the document's check runs,
cost one check of the last text.  A result whose document changed or closed meanwhile
is dropped, and a new check follows.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import itertools
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from torchferry._version import __version__
from torchferry.server import convert
from torchferry.server.analysis import (
    CellText,
    ClassIndex,
    Item,
    Projects,
    Settings,
    Snapshot,
    check_cells,
    check_python,
    kernel_language,
    refused_for_size,
    safe_run,
)

__all__ = ["FerryServer", "Worker"]

#: The worker's priorities: a request waiting on a result, an open document, the workspace.
URGENT, OPEN, BACKGROUND = 0, 1, 2
PYTHON_SUFFIXES = (".py", ".pyi")
#: open documents are checked again this long after another file's classes change: while
#: a workspace is read, its classes change file after file, and each recheck costs a check
CLASS_RECHECK_S = 0.25


class Worker:
    """One daemon thread running jobs by priority; results come back as asyncio futures.
    A daemon, so a client that disconnects mid-check does not keep the process alive."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._jobs: queue.PriorityQueue[tuple[int, int, Any, Any]] = queue.PriorityQueue()
        self._seq = itertools.count()
        threading.Thread(target=self._run, name="ferry-check", daemon=True).start()

    def submit(self, priority: int, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._jobs.put((priority, next(self._seq), fn, fut))
        return fut

    def _run(self) -> None:
        while True:
            _, _, fn, fut = self._jobs.get()
            if fut.cancelled():
                continue
            # the collector would walk each fresh syntax tree (no cycles in it) again and
            # again during the check: off while it runs, as ``ferry check`` does
            gc.disable()
            try:
                result, error = fn(), None
            except BaseException as exc:  # handed to the awaiting coroutine
                result, error = None, exc
            finally:
                gc.enable()
            try:
                self._loop.call_soon_threadsafe(_settle, fut, result, error)
            except RuntimeError:  # the loop is closed: the server is gone
                return


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


@dataclass
class Tracked:
    """A document the server publishes findings for: a file or a notebook."""

    key: str
    notebook: bool
    timer: asyncio.TimerHandle | None = None
    #: the loop's time of the last change, and when the check of it is due
    changed_at: float = float("-inf")
    due: float = float("-inf")
    running: bool = False
    again: bool = False
    #: the configuration or the workspace's classes changed since the last check
    stale: bool = False
    #: the last published check: the version it read, its snapshot, items by target URI
    version: int | None = -1
    snapshot: Snapshot | None = None
    items: dict[str, list[Item]] = field(default_factory=dict)
    published: set[str] = field(default_factory=set)


def _same_text(a: Snapshot, b: Snapshot) -> bool:
    return (a.text, a.cells, a.cell_uris, a.path) == (b.text, b.cells, b.cell_uris, b.path)


def open_document(ws: Workspace, uri: str) -> TextDocument | None:
    """The open document (a file or a cell) ``uri`` names, however the client escaped it:
    pygls keeps documents under their unescaped URIs (VS Code sends a cell's
    ``...#W0s...%3D%3D``, a file's ``my%20dir``), where ``get_text_document`` would read
    a document it does not have from disk."""
    return ws.text_documents.get(unquote(uri))


def _path(uri: str) -> Path:
    fs = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(fs) if fs else Path.cwd() / "untitled.py"


class FerryServer(LanguageServer):
    def __init__(self) -> None:
        sync = types.NotebookDocumentSyncOptions(
            notebook_selector=[
                types.NotebookDocumentFilterWithCells(
                    notebook="*", cells=[types.NotebookCellLanguage("python")]
                )
            ],
            save=True,
        )
        super().__init__("ferry", __version__, notebook_document_sync=sync)
        self.settings = Settings()
        self.projects = Projects(self.settings)
        self.classes = ClassIndex()
        self.tracked: dict[str, Tracked] = {}
        self._worker: Worker | None = None
        self._said: set[str] = set()

    # -- plumbing -----------------------------------------------------------
    @property
    def worker(self) -> Worker:
        if self._worker is None:
            self._worker = Worker(asyncio.get_running_loop())
        return self._worker

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        try:
            self.window_log_message(types.LogMessageParams(kind, message))
        except Exception:  # the client is gone: stderr is the log then
            print(message, file=sys.stderr)

    def log_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        if message not in self._said:
            self._said.add(message)
            self.log(message, kind)

    def encoding(self) -> str:
        try:
            return str(self.workspace.position_encoding or "utf-16")
        except RuntimeError:
            return "utf-16"

    # -- snapshots (on the loop) ---------------------------------------------
    def snapshot(self, key: str, notebook: bool) -> Snapshot | None:
        ws = self.workspace
        if not notebook:
            doc = open_document(ws, key)
            if doc is None:
                return None
            return Snapshot(key, doc.version, _path(key), text=doc.source)
        nb = ws.get_notebook_document(notebook_uri=key)
        if nb is None:
            return None
        snap = Snapshot(key, nb.version, _path(key).with_suffix(".ipynb"), notebook=True)
        language = kernel_language(nb.metadata)
        if language is not None:
            self.log_once(f"ferry: {key}: the kernel's language is {language}, not Python; "
                          "not checked")
            return snap  # no cells: nothing to check, old findings are cleared
        for cell in nb.cells:
            if cell.kind != types.NotebookCellKind.Code:
                continue
            doc = open_document(ws, cell.document)
            if doc is None:
                continue
            snap.cells.append(CellText(doc.source, doc.language_id or "python"))
            snap.cell_uris.append(cell.document)
        return snap

    # -- checking (on the worker) -------------------------------------------
    def check(self, snap: Snapshot) -> dict[str, list[Item]]:
        """Items by target URI (the document, or each cell) for a snapshot."""
        project = self.projects.get(snap.path)
        if project.error:
            self.call_soon(self.log_once, f"ferry: {project.error}", types.MessageType.Error)
        if snap.notebook:
            if not snap.cells:
                return {}
            text = "\n".join(c.text for c in snap.cells if c.language == "python")
            self._note_classes(snap.key, text)
            items = safe_run(lambda: check_cells(snap.cells, snap.path, project,
                                                 self.classes.classes()), snap.path, self.log_soon)
            if refused_for_size(items):
                self.call_soon(self.log_once, f"ferry: {snap.path}: {items[0].finding.message}")
            out: dict[str, list[Item]] = {u: [] for u in snap.cell_uris}
            for item in items:
                out[snap.cell_uris[item.cell or 0]].append(item)
            return out
        self._note_classes(snap.key, snap.text)
        items = safe_run(lambda: check_python(snap.text, snap.path, project,
                                              self.classes.classes()), snap.path, self.log_soon)
        if refused_for_size(items):
            self.call_soon(self.log_once, f"ferry: {snap.path}: {items[0].finding.message}")
        return {snap.key: items}

    def _note_classes(self, key: str, text: str) -> None:
        if self.classes.update(key, text.encode("utf-8", "replace")):
            self.call_soon(self.recheck_open, key, CLASS_RECHECK_S)

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            self._loop().call_soon_threadsafe(fn, *args)
        except RuntimeError:
            pass

    def log_soon(self, message: str) -> None:
        self.call_soon(self.log, message, types.MessageType.Error)

    def _loop(self) -> asyncio.AbstractEventLoop:
        assert self._worker is not None
        return self._worker._loop

    # -- scheduling (on the loop) --------------------------------------------
    def schedule(self, key: str, notebook: bool, delay: float | None = None) -> None:
        """Check a document after ``delay`` seconds, or sooner where a check of it is due
        sooner; None: it changed (:meth:`change_delay`: a burst pushes its check later)."""
        t = self.tracked.get(key)
        if t is None:
            t = self.tracked[key] = Tracked(key, notebook)
        loop = asyncio.get_running_loop()
        if delay is None:
            delay = self.change_delay(t, loop.time())
        elif t.timer is not None and t.timer.when() <= loop.time() + delay:
            return  # a recheck never postpones a due check (a workspace read would starve it)
        if t.timer is not None:
            t.timer.cancel()
        self.worker  # noqa: B018 - started on the loop's thread
        t.timer = loop.call_later(delay, lambda: asyncio.ensure_future(self.run_check(t)))

    def change_delay(self, t: Tracked, now: float) -> float:
        """0 for a change after a pause (the last change more than ``debounceMs`` ago),
        else ``debounceMs``: the rest of a burst waits for its end.  With ``checkAtOnce``
        off, always ``debounceMs``.  A check under way is followed by one of the last text."""
        wait = self.settings.debounce_ms / 1000
        pause = now - t.changed_at >= wait
        t.changed_at = now
        t.due = now if pause and self.settings.check_at_once else now + wait
        return t.due - now

    def recheck_open(self, changed_key: str | None = None, delay: float | None = None) -> None:
        """Check every open document again after ``delay`` seconds (default ``debounceMs``):
        the configuration or the workspace's classes changed; except ``changed_key``, whose
        own check is already under way."""
        for key, t in list(self.tracked.items()):
            if key != changed_key:
                t.stale = True
                self.schedule(key, t.notebook,
                              self.settings.debounce_ms / 1000 if delay is None else delay)

    async def run_check(self, t: Tracked, priority: int = OPEN) -> None:
        t.timer = None
        if t.running:
            t.again = True
            return
        snap = self.snapshot(t.key, t.notebook)
        if snap is None:
            return
        if not t.stale and t.snapshot is not None and _same_text(t.snapshot, snap):
            t.version = snap.version  # saved, or undone back: the findings stand
            return
        t.stale = False
        t.running = True
        try:
            result = await self.worker.submit(priority, lambda: self.check(snap))
        finally:
            t.running = False
        if self.tracked.get(t.key) is not t:
            return  # closed meanwhile: its findings were cleared
        current = self.snapshot(t.key, t.notebook)
        if t.again or current is None or current.version != snap.version:
            t.again = False  # the burst that came meanwhile: checked once it ends
            self.schedule(t.key, t.notebook, max(t.due - asyncio.get_running_loop().time(), 0))
            return
        self.publish(t, snap, result)

    def publish(self, t: Tracked, snap: Snapshot, result: dict[str, list[Item]]) -> None:
        t.version, t.snapshot, t.items = snap.version, snap, result
        enc = self.encoding()
        root = self.projects.get(snap.path).config.root
        template = self.settings.rule_docs_url
        cells = {}
        if snap.notebook:
            index = 0
            for uri, cell in zip(snap.cell_uris, snap.cells, strict=True):
                cells[index] = (uri, convert.Lines.of(cell.text, enc))
                index += 1
        for uri, items in result.items():
            lines = cells[snap.cell_uris.index(uri)][1] if snap.notebook else convert.Lines.of(
                snap.text, enc)
            diags = [convert.diagnostic(i, lines, cells, uri, root, template) for i in items]
            version = None if snap.notebook else snap.version  # the text these are of
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri, diags, version))
            t.published.add(uri)
        for uri in t.published - set(result):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        t.published &= set(result)

    def forget(self, key: str) -> None:
        t = self.tracked.pop(key, None)
        if t is None:
            return
        if t.timer is not None:
            t.timer.cancel()
        for uri in t.published:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    async def fresh(self, uri: str) -> tuple[Tracked, str] | None:
        """The tracked document holding ``uri`` (a file or a cell) with findings of its
        current text, and the URI of the document that ``uri`` is (the cell's, the file's)."""
        key, notebook = uri, False
        nb = self.workspace.get_notebook_document(cell_uri=uri)
        if nb is not None:
            key, notebook = nb.uri, True
        t = self.tracked.get(key)
        if t is None:
            return None
        current = self.snapshot(key, notebook)
        if current is None:
            return None
        if t.version != current.version or t.snapshot is None:
            result = await self.worker.submit(URGENT, lambda: self.check(current))
            if self.tracked.get(key) is t:
                if t.timer is not None:
                    t.timer.cancel()
                    t.timer = None
                self.publish(t, current, result)
        return t, uri

    # -- workspace ------------------------------------------------------------
    def index_workspace(self) -> None:
        """Read the workspace's files in the background: their classes, and with
        ``checkWorkspace`` their findings, published as each file is done."""
        roots = [Path(p) for f in self.workspace.folders.values() if (p := to_fs_path(f.uri))]
        if not roots and self.workspace.root_path:
            roots = [Path(self.workspace.root_path)]
        for root in roots:
            self.worker.submit(BACKGROUND, functools.partial(self._discover, root))

    def _discover(self, root: Path) -> None:
        started = time.perf_counter()
        project = self.projects.get(root / "pyproject.toml")
        files = project.walker.walk(root) if root.is_dir() else []
        for path in files:
            self.call_soon(self._submit_file, path)
        self.call_soon(self._submit_done, root, len(files), started)

    def _submit_file(self, path: Path) -> None:
        self.worker.submit(BACKGROUND, lambda: self._index_file(path))

    def _submit_done(self, root: Path, count: int, started: float) -> None:
        def done() -> None:
            seconds = time.perf_counter() - started
            self.call_soon(self.log, f"ferry: read {count} files of {root} in {seconds:.1f} s")

        self.worker.submit(BACKGROUND, done)

    def _index_file(self, path: Path) -> None:
        from torchferry.server.analysis import read_source

        uri = path.as_uri()
        if uri in self.tracked:
            return  # open: its own text counts, not the disk's
        project = self.projects.get(path)
        data = read_source(path, project.options.max_file_size)
        if data is None:
            self.classes.remove(uri)
            return
        if self.classes.update(uri, data):
            self.call_soon(self.recheck_open, None, CLASS_RECHECK_S)
        if self.settings.check_workspace:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                return
            items: list[Item] = []
            if path.suffix != ".ipynb":
                items = safe_run(lambda: check_python(text, path, project, self.classes.classes()),
                                 path, self.log_soon)
            self.call_soon(self._publish_disk, uri, text, items)

    def file_changed(self, path: Path, deleted: bool) -> None:
        """A workspace file that is not open changed on disk (or went away)."""
        uri = path.as_uri()
        if not deleted:
            self.worker.submit(BACKGROUND, lambda: self._index_file(path))
            return
        if self.classes.remove(uri):
            self.recheck_open()
        if self.settings.check_workspace:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    def _publish_disk(self, uri: str, text: str, items: list[Item]) -> None:
        if uri in self.tracked:
            return
        lines = convert.Lines.of(text, self.encoding())
        root = self.projects.get(_path(uri)).config.root
        diags = [convert.diagnostic(i, lines, None, uri, root, self.settings.rule_docs_url)
                 for i in items]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diags))
