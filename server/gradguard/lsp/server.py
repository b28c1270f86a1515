"""The gradguard language server (pygls 2): diagnostics while typing, hovers, code actions.

Concurrency: handlers run on the asyncio event loop and only read cached results or take snapshots;
analyses and fix edits run in a small thread pool of our own (pygls' pool also reads stdin, so it
must never be busy). Per document, a change restarts a debounce timer; when it fires, the latest
text is analysed under a per-document lock, and a result whose document moved on meanwhile is
dropped (the change that moved it has scheduled its own analysis).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..config import ConfigError, Resolver
from ..settings import Settings
from . import actions, documents
from .diagnostics import SOURCE, to_diagnostic
from .documents import Result, Snapshot
from .hover import hover as hover_for
from .settings import EditorSettings, parse

logger = logging.getLogger(__name__)
T = TypeVar("T")

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            cells=[types.NotebookCellLanguage("python")], notebook=notebook_type
        )
        for notebook_type in ("jupyter-notebook", "interactive")
    ],
    save=True,
)


class GradguardServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "gradguard",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.editor = EditorSettings()
        self.resolver = Resolver()
        self.generation = 0  # bumped when settings change: every cached result is then stale
        self.results: dict[str, Result] = {}
        self.analysed: dict[str, tuple[Hashable, int]] = {}  # key -> (version, generation) last done
        self.published: dict[str, set[str]] = {}  # key -> URIs that got non-empty push diagnostics
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.shown: set[str] = set()
        self.pending_messages: list[str] = []
        self.settings_ready = asyncio.Event()
        self.done = asyncio.Condition()
        self.pull = False
        self.garbage = False  # an analysis finished since the last full collection
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gradguard")

    # ---- client capabilities ---------------------------------------------------------------------
    def _capability(self, path: str) -> Any:
        node: Any = self.client_capabilities
        for part in path.split("."):
            node = getattr(node, part, None)
            if node is None:
                return None
        return node

    @property
    def document_changes(self) -> bool:
        return bool(self._capability("workspace.workspace_edit.document_changes"))

    @property
    def resolves_edits(self) -> bool:
        properties = self._capability("text_document.code_action.resolve_support.properties") or []
        return "edit" in properties

    # ---- messages ----------------------------------------------------------------------------------
    def show(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message once per server lifetime (settings problems repeat on every change)."""
        if message in self.shown:
            return
        self.shown.add(message)
        logger.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"gradguard: {message}"))

    def set_editor_settings(self, raw: Any) -> None:
        settings, messages = parse(raw)
        self.editor = settings
        for message in messages:
            self.show(message)

    # ---- settings per file -------------------------------------------------------------------------
    def settings_for(self, snap: Snapshot) -> Settings:
        base = Settings()
        if snap.path is not None and self.editor.use_config_file:
            try:
                base = self.resolver.for_path(snap.path)
            except (ConfigError, OSError) as exc:
                self.show(f"{exc}; using the default settings")
            for message in self.resolver.messages:
                self.show(f"{message}; ignoring that value")
        return self.editor.apply(base)

    def settings_changed(self) -> None:
        self.generation += 1
        self.resolver = Resolver()
        for key in documents.open_keys(self.workspace):
            self.schedule(key, 0)
        if self.pull:
            # The client pulls again; each pull waits for the analysis under the new settings.
            self._refresh()

    # ---- scheduling ----------------------------------------------------------------------------------
    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    def schedule(self, key: str, delay_ms: float | None = None) -> None:
        """Analyse ``key`` after the debounce (restarted by every call)."""
        delay = self.editor.debounce_ms if delay_ms is None else delay_ms
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self.timers[key] = loop.call_later(delay / 1000, self._fire, key)
        if self.garbage and delay >= 50:
            # Each analysis of a large file leaves tens of thousands of objects in reference cycles
            # (the engine's annotated AST) that only a full collection frees: left to the default
            # thresholds, memory climbs for hundreds of edits. The collection holds the GIL (about
            # 15 ms for a 3,000-line file), so it runs now, hidden in the debounce, rather than
            # after a publish, where it would delay the next keystroke.
            self.garbage = False
            self.executor.submit(gc.collect)

    def _fire(self, key: str) -> None:
        self.timers.pop(key, None)
        task = asyncio.ensure_future(self.analyse(key))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def current_version(self, key: str) -> Hashable | None:
        return documents.version_of(self.workspace, key)

    async def analyse(self, key: str) -> None:
        try:
            await self.settings_ready.wait()
            lock = self.locks.setdefault(key, asyncio.Lock())
            async with lock:
                await self._analyse_locked(key)
        except Exception:  # a failed analysis must never take the server down
            logger.exception("gradguard: analysis of %s failed", key)
            # Counted as done, so a pull waiting for this version answers (with what there is).
            self.analysed[key] = (self.current_version(key), self.generation)
        async with self.done:
            self.done.notify_all()

    async def _analyse_locked(self, key: str) -> None:
        snap = documents.snapshot(self.workspace, key)
        if snap is None:
            return
        generation = self.generation
        if self.analysed.get(key) == (snap.version, generation):
            return
        previous = self.results.get(key)
        settings, editor = self.settings_for(snap), self.editor
        had_findings = previous is not None and bool(previous.findings)
        started = time.perf_counter()
        result = await self.run(self._analyse_and_convert, snap, settings, editor, had_findings)
        logger.debug(
            "analysed %s (version %s) in %.0f ms", key, snap.version, (time.perf_counter() - started) * 1000
        )
        if self.current_version(key) != snap.version or generation != self.generation:
            return  # stale: a newer change or setting has scheduled its own analysis
        if not result.parsed and previous is not None and previous.editor.enable and editor.enable:
            # A syntax error mid-typing: keep the last good findings rather than flicker to none.
            result = previous
        else:
            self.results[key] = result
        self.analysed[key] = (snap.version, generation)
        self.publish(key, result, snap)
        self.garbage = True

    @staticmethod
    def _analyse_and_convert(
        snap: Snapshot, settings: Settings, editor: EditorSettings, had_findings: bool
    ) -> Result:
        result = documents.analyse(snap, settings, editor, had_findings)
        for finding in result.findings:
            placed = to_diagnostic(finding, settings, snap.locator, snap.key)
            if placed is not None:
                result.diagnostics.setdefault(placed[0], []).append(placed[1])
        return result

    def _refresh(self) -> None:
        if self._capability("workspace.diagnostics.refresh_support"):
            self.workspace_diagnostic_refresh(None)

    # ---- publishing ---------------------------------------------------------------------------------
    def _versions(self, snap: Snapshot) -> dict[str, int | None]:
        if snap.notebook is not None:
            return {cell.uri: cell.version for cell in snap.notebook.cells}
        return {snap.key: snap.version if isinstance(snap.version, int) else None}

    def publish(self, key: str, result: Result, snap: Snapshot) -> None:
        """Push the diagnostics of every document of ``key``; clears documents that lost theirs. With
        pull diagnostics, text documents are pulled instead (pushing too would show them twice);
        notebook cells are always pushed, since not every client pulls cells."""
        if self.pull and snap.notebook is None:
            return
        versions = self._versions(snap)
        uris = set(snap.uris())
        before = self.published.get(key, set())
        now: set[str] = set()
        for uri in sorted(uris | before):
            items = result.diagnostics.get(uri, []) if uri in uris else []
            if items:
                now.add(uri)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=versions.get(uri))
            )
        self.published[key] = now

    def forget(self, key: str, uris: list[str]) -> None:
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.results.pop(key, None)
        self.analysed.pop(key, None)
        self.locks.pop(key, None)
        for uri in set(uris) | self.published.pop(key, set()):
            if not self.pull or uri != key:
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
                )

    # ---- reading results -------------------------------------------------------------------------------
    def result_for(self, uri: str) -> tuple[str, Result] | None:
        key = documents.key_of(self.workspace, uri)
        if key is None:
            return None
        result = self.results.get(key)
        return None if result is None else (key, result)

    async def fresh_result(self, key: str) -> Result | None:
        """The result for the current version of ``key``, waiting for the analysis if needed."""
        if key not in self.timers and self.analysed.get(key) != (self.current_version(key), self.generation):
            self.schedule(key, 0)
        async with self.done:
            await self.done.wait_for(
                lambda: (
                    self.current_version(key) is None
                    or self.analysed.get(key) == (self.current_version(key), self.generation)
                )
            )
        return self.results.get(key)


server = GradguardServer()


def _schedule_uri(ls: GradguardServer, uri: str, delay_ms: float | None) -> None:
    key = documents.key_of(ls.workspace, uri)
    if key is not None:
        ls.schedule(key, delay_ms)


@server.feature(types.INITIALIZE)
def initialize(ls: GradguardServer, params: types.InitializeParams) -> None:
    ls.set_editor_settings(params.initialization_options)
    if params.capabilities.text_document is not None and params.capabilities.text_document.diagnostic:
        ls.pull = True

        @ls.feature(
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            types.DiagnosticOptions(
                identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False
            ),
        )
        async def pull_diagnostics(
            ls: GradguardServer, params: types.DocumentDiagnosticParams
        ) -> types.FullDocumentDiagnosticReport:
            uri = params.text_document.uri
            key = documents.key_of(ls.workspace, uri)
            if key is None or key != uri:  # closed, or a notebook cell (cells are pushed)
                return types.FullDocumentDiagnosticReport(items=[])
            result = await ls.fresh_result(key)
            return types.FullDocumentDiagnosticReport(items=result.diagnostics.get(uri, []) if result else [])


@server.feature(types.INITIALIZED)
async def initialized(ls: GradguardServer, params: types.InitializedParams) -> None:
    try:
        if ls._capability("workspace.configuration"):
            await _pull_configuration(ls)
    finally:
        ls.settings_ready.set()
    if ls._capability("workspace.did_change_watched_files.dynamic_registration"):
        # Edits to pyproject.toml made outside the editor change the settings too.
        watcher = types.FileSystemWatcher(glob_pattern="**/pyproject.toml")
        registration = types.Registration(
            id="gradguard-pyproject",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # without the watcher, saving pyproject.toml in the editor still works
            logger.info("gradguard: could not watch pyproject.toml: %s", exc)


async def _pull_configuration(ls: GradguardServer) -> None:
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="gradguard")])
        )
    except Exception as exc:  # a client that fails the request keeps the settings it sent at start
        logger.warning("gradguard: workspace/configuration failed: %s", exc)
        return
    if values and values[0] is not None:
        ls.set_editor_settings(values[0])


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: GradguardServer, params: types.DidChangeConfigurationParams) -> None:
    if ls._capability("workspace.configuration"):
        await _pull_configuration(ls)
    elif params.settings is not None:
        ls.set_editor_settings(params.settings)
    ls.settings_changed()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: GradguardServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(change.uri.endswith("pyproject.toml") for change in params.changes):
        ls.settings_changed()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GradguardServer, params: types.DidOpenTextDocumentParams) -> None:
    _schedule_uri(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GradguardServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule_uri(ls, params.text_document.uri, None)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GradguardServer, params: types.DidSaveTextDocumentParams) -> None:
    if params.text_document.uri.endswith("pyproject.toml"):
        ls.settings_changed()
    _schedule_uri(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GradguardServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    if documents.key_of(ls.workspace, uri) is None:
        ls.forget(uri, [uri])


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: GradguardServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: GradguardServer, params: types.DidChangeNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, None)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: GradguardServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: GradguardServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.forget(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: GradguardServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    found = ls.result_for(uri)
    if found is None:
        return None
    _, result = found
    where = result.snapshot.locator.to_program(uri, params.position)
    if where is None:
        return None
    return hover_for(result, uri, *where)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=actions.KINDS, resolve_provider=True),
)
async def code_action(ls: GradguardServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    key = documents.key_of(ls.workspace, uri)
    if key is None:
        return None
    result = ls.results.get(key)
    fixable = result is not None and any(finding.fixes for finding in result.findings)
    found = actions.code_actions(uri, params.context, ls.editor, fixable, key)
    if not ls.resolves_edits:
        # A client that cannot resolve gets the edits now.
        found = [await _resolve(ls, action) for action in found]
        found = [action for action in found if action.edit is not None]
    return found or None


async def _resolve(ls: GradguardServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data
    if not isinstance(data, dict) or not isinstance(data.get("key"), str):
        return action
    snap = documents.snapshot(ls.workspace, data["key"])
    if snap is None:
        return action
    edit = await ls.run(actions.resolve, snap, data, ls.settings_for(snap), ls.document_changes)
    if edit is not None:
        action.edit = edit
    return action


@server.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: GradguardServer, params: types.CodeAction) -> types.CodeAction:
    return await _resolve(ls, params)


@server.feature(types.SHUTDOWN)
def shutdown(ls: GradguardServer, params: None) -> None:
    for timer in ls.timers.values():
        timer.cancel()
    ls.timers.clear()
    ls.executor.shutdown(wait=False, cancel_futures=True)


def main(tcp: int | None = None, host: str = "127.0.0.1") -> int:
    # Logs go to stderr (the client's output channel); stdout is the protocol. GRADGUARD_LOG_LEVEL=debug
    # adds gradguard's own timings without pygls' per-message chatter.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("gradguard").setLevel(os.environ.get("GRADGUARD_LOG_LEVEL", "WARNING").upper())
    # Everything imported so far lives as long as the server: keep it out of every later collection,
    # which would otherwise walk it on each analysis's many allocations.
    gc.collect()
    gc.freeze()
    if tcp is not None:
        # pygls says "Serving on (host, port)" once it listens: whoever started us knows when to connect.
        logging.getLogger("pygls.server").setLevel(logging.INFO)
        server.start_tcp(host, tcp)
    else:
        server.start_io()
    return 0
