"""The gradguard language server (pygls 2): diagnostics while typing, hovers, code actions.

Concurrency: handlers run on the asyncio event loop and only read cached results or take snapshots;
analyses and fix edits run in a small thread pool of our own (pygls' pool also reads stdin, so it
must never be busy). Per document, a change restarts a debounce timer; when it fires, the latest
text is analysed under a per-document lock, and a result whose document moved on meanwhile is
dropped (the change that moved it has scheduled its own analysis).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import gc
import logging
import os
import stat
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls import uris
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__
from ..api import applies
from ..config import ConfigError, Resolver
from ..project import ProjectLoader, file_stamp, imports_own_code, project_root
from ..settings import Settings
from . import actions, documents, graphview
from .diagnostics import SOURCE, to_diagnostic
from .documents import Result, Snapshot
from .hover import hover as hover_for
from .positions import apply_change
from .settings import EditorSettings, parse

if TYPE_CHECKING:
    from ..engine.incremental import Memo

logger = logging.getLogger(__name__)
T = TypeVar("T")

# At most one full garbage collection per this many seconds while documents change.
COLLECT_EVERY_SECONDS = 2.0
# Quiet time after the last document closed before its memory is given back.
RECLAIM_AFTER_SECONDS = 1.0
# How often the server checks that the editor which started it (``processId``) is still alive.
PARENT_POLL_SECONDS = 1.0

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            # Markdown cells too: they are not analysed, but without them the cell numbers in
            # messages ("line 3 of cell 2") would not match the ones the editor shows.
            cells=[types.NotebookCellLanguage("python"), types.NotebookCellLanguage("markdown")],
            notebook=notebook_type,
        )
        for notebook_type in ("jupyter-notebook", "interactive")
    ],
    save=True,
)


def _release_memory() -> None:
    gc.collect()
    if sys.platform.startswith("linux"):
        # Python frees large blocks (document texts, line lists) to the C heap, which keeps the
        # pages; glibc's malloc_trim hands them back. Other C libraries have no such call.
        try:
            ctypes.CDLL(None).malloc_trim(0)
        except (OSError, AttributeError):
            pass


class _LoopReader:
    """Standard input read on the event loop itself. pygls reads each header line and each body in
    a thread of its pool: four thread hand-offs per message, each waiting for the GIL while an
    analysis runs, so under 200 edits a second the messages queued in the pipe and a hover waited
    behind them (up to 230 ms)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        while True:
            try:
                return await self.stream.readline()
            except ValueError:  # a "line" longer than the limit: garbage, dropped
                continue

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:  # the input ended mid-message
            return exc.partial


# Exit codes of `gradguard serve` on stdio besides LSP's own (0, or 1 for `exit` without
# `shutdown`): 2 when it was started where it cannot talk LSP (as the CLI's usage errors), 1 when the
# connection broke mid-session.
EXIT_LOST, EXIT_NO_LSP = 1, 2
_HINT = "start it from an editor, or use --tcp PORT"
_CANNOT_READ = (
    "the language server reads LSP messages on standard input, which cannot be read here ({}); " + _HINT
)
_CANNOT_WRITE = (
    "the language server writes LSP messages on standard output, which cannot be written here ({}); " + _HINT
)
_HELD_NONE = "the language server reads LSP messages on standard input, which held none ({}); " + _HINT
_LOST = "the connection to the client is lost: {} failed ({}); exiting"


def _descriptor(stream: Any) -> int | None:
    """The descriptor behind a stream, or None for one without (a buffer handed in by a test)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) else None


def _named(fd: int) -> str:
    """What a descriptor is open on, for messages: its path where /proc tells (``/dev/null``)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "a device"


def _open_problem(stream: Any, writing: bool) -> str | None:
    """Why standard input (or output, ``writing``) cannot carry LSP messages, known before serving:
    otherwise a closed descriptor ends in a traceback and a write-only input in a read error."""
    if stream is None:  # Python found the descriptor closed at start-up (`0<&-`, `1>&-`)
        return "it is closed"
    fd = _descriptor(stream)
    if fd is None:
        return None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        return "it is closed" if exc.errno == errno.EBADF else str(exc.strerror)
    if stat.S_ISDIR(mode):
        return "it is a directory"
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
        return f"it is {_named(fd)}, neither a pipe, a socket, a terminal nor a file"
    if os.name == "posix":
        import fcntl

        access = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        if access == (os.O_RDONLY if writing else os.O_WRONLY):
            return "it is open for reading only" if writing else "it is open for writing only"
    return None


class _CheckedInput:
    """The reader the message loop reads through. A read error ends the input instead of escaping
    from the loop as a traceback, and what arrived is counted: input that ends without one framed
    message was not an LSP client (garbage, an empty file, Ctrl-D in a terminal)."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.received = 0  # bytes
        self.messages = 0  # framed bodies, valid JSON or not
        self.error: OSError | None = None

    async def readline(self) -> bytes:
        try:
            line: bytes = await self.reader.readline()
        except OSError as exc:
            self.error = exc
            return b""
        self.received += len(line)
        return line

    async def readexactly(self, n: int) -> bytes:
        try:
            body: bytes = await self.reader.readexactly(n)
        except OSError as exc:
            self.error = exc
            return b""
        self.received += len(body)
        self.messages += bool(body)
        return body


class _ClientWriter(StdoutWriter):
    """Standard output. Once the client has stopped reading (EPIPE), every answer fails the same way
    and pygls logs each with a traceback while the server carries on: the first failure ends the
    session instead (``lost``), and later answers are dropped."""

    def __init__(self, stdout: Any, lost: Callable[[], None]) -> None:
        super().__init__(stdout)
        self.lost = lost
        self.error: OSError | None = None

    def write(self, data: bytes) -> None:
        if self.error is not None:
            return
        try:
            super().write(data)
        except BlockingIOError:  # a full pipe: not the end (pygls logs it, as before)
            raise
        except OSError as exc:
            self.error = exc
            self.lost()


class _BadRequest:
    """A request whose params could not be read: it still gets an answer (an error response)."""

    def __init__(self, msg_id: int | str, method: str, error: JsonRpcException) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class _SnapshotDict(dict[Any, Any]):
    """A dict whose ``items()`` is a copy, so entries can be removed while a loop goes over it."""

    def items(self) -> Any:
        return list(super().items())


class GradguardProtocol(LanguageServerProtocol):
    """pygls' protocol, made to answer every request and to survive any notification.

    * A request whose params do not fit its method (``"position": "x"``) gets an ``InvalidParams``
      error response: pygls drops it (the client would wait for ever) and shows an error instead.
    * A change to a document that is not open is ignored with a log line: pygls raises ``KeyError``
      and shows it to the user as "Error in server". Incremental changes are applied with LSP's
      line ends (``positions.apply_change``), not pygls' ``str.splitlines``.
    * A notification's handler future is forgotten once it is done: pygls 2.1 files it under a
      fresh UUID in ``_request_futures`` and never removes it (1.5 kB per ``didChange``: 13 MiB
      after 6,000 edits, never given back).
    * ``shutdown`` cancels the pending futures while iterating over ``_request_futures``; a thread
      future runs its done callbacks inside ``cancel()``, and those (ours and pygls' own) remove
      entries from that dict ("dictionary changed size during iteration"). Iterating over a
      snapshot makes the removal safe.
    """

    _notifying = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_futures = _SnapshotDict(self._request_futures)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        self._notifying = True
        try:
            super()._handle_notification(method_name, params)
        finally:
            self._notifying = False

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        if self._notifying:
            futures = self._request_futures
            inner = callback

            def callback(future: Any) -> None:
                if futures.get(msg_id) is future:
                    del futures[msg_id]
                inner(future)

        super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id, method = data.get("id"), data.get("method")
            if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) and isinstance(method, str):
                return _BadRequest(msg_id, method, exc)
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _BadRequest):
            logger.warning("gradguard: %s request %r has invalid params", message.method, message.id)
            error = message.error.to_response_error()
            error.message = f"{error.message}: the params do not fit {message.method}"
            self._send_response(message.id, error=error)
            return
        super().handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        document = documents.text_document(self.workspace, params.text_document.uri)
        if document is None:
            logger.warning("gradguard: ignoring a change to %s, which is not open", params.text_document.uri)
            return
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                # Applied here, with LSP's line ends (see positions.apply_change), as a whole text.
                new = apply_change(document.source, change.range, change.text, self.workspace.position_codec)
                change = types.TextDocumentContentChangeWholeDocument(text=new)
            self.workspace.update_text_document(params.text_document, change)
        handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
        if handler is not None:
            yield handler, (params,), None


class GradguardServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "gradguard",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
            protocol_cls=GradguardProtocol,
        )
        self.editor = EditorSettings()
        self.resolver = Resolver()
        self.generation = 0  # bumped when settings change: every cached result is then stale
        self.results: dict[str, Result] = {}
        self.analysed: dict[str, tuple[Hashable, int]] = {}  # key -> (stamp, generation) last done
        # Bumped by every open and close of a key: a document closed and opened again starts again
        # at version 1, so a version alone cannot tell an analysis of the old text from the new.
        self.epochs: dict[str, int] = {}
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
        self.collected = 0.0  # time.monotonic() of the last full collection
        self.reclaim: asyncio.TimerHandle | None = None
        self.stdio = False  # serving on standard input and output (not TCP)
        self.exit_code = 0  # of a stdio session; see main()
        self.stdio_error: str | None = None  # why stdio could not carry (or stopped carrying) LSP
        self._end_input: Callable[[], None] | None = None  # makes the input end now (any thread)
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gradguard")
        # Cross-file analysis: a loader per project folder (imports resolved by jedi, modules parsed
        # once), and per key a count bumped when a module of the project it read changes.
        self.loaders: dict[str, ProjectLoader] = {}
        self.roots: dict[str, str] = {}
        self.deps: dict[str, int] = {}
        self.progress_count = 0

    def shutdown(self) -> None:
        """The connection is gone (``exit``, or end of input without it): queued analyses are
        dropped, so the process ends once the one running (if any) returns."""
        self.executor.shutdown(wait=False, cancel_futures=True)
        super().shutdown()

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve on standard input and output, reading the input on the event loop (pipes, sockets
        and terminals on POSIX; a regular file, read as a recorded session, and Windows pipes
        through pygls' reader thread). Sets ``exit_code``, and ``stdio_error`` when stdio cannot
        carry LSP: main() reports it."""
        self.stdio = True
        if stdin is None:
            stdin = sys.stdin.buffer if sys.stdin is not None else None
        if stdout is None:
            stdout = sys.stdout.buffer if sys.stdout is not None else None
        problem = _open_problem(stdin, writing=False)
        if problem is not None:
            self._stdio_failed(_CANNOT_READ.format(problem), EXIT_NO_LSP)
            return
        problem = _open_problem(stdout, writing=True)
        if problem is not None:
            self._stdio_failed(_CANNOT_WRITE.format(problem), EXIT_NO_LSP)
            return
        if getattr(stdin, "isatty", lambda: False)() and sys.stderr is not None:
            # A person, not an editor: say what the server waits for (it waits, idle, all the same).
            print(
                f"gradguard: the language server reads LSP messages on standard input; {_HINT}",
                file=sys.stderr,
            )
        self._stop_event = threading.Event()
        writer = _ClientWriter(stdout, self._output_lost)
        self.protocol.set_writer(writer)
        try:
            asyncio.run(self._serve_io(stdin))
        except BrokenPipeError:
            logger.error("gradguard: the connection to the client is lost; exiting")
        except SystemExit as exc:  # pygls' `exit` handler: 0 after `shutdown`, else 1 (LSP)
            self.exit_code = exc.code if isinstance(exc.code, int) else 0
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()
        if writer.error is not None and self.stdio_error is None:
            reason = writer.error.strerror or str(writer.error)
            self._stdio_failed(_LOST.format("writing standard output", reason), EXIT_LOST)
            # Python flushes standard output once more at exit: with no reader that flush fails too
            # and turns the exit code into 120 (when output is buffered, as it is by default).
            fd = _descriptor(stdout)
            if fd is not None:
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, fd)
                    os.close(devnull)
                except OSError:
                    pass

    def _stdio_failed(self, message: str, code: int) -> None:
        self.stdio_error, self.exit_code = message, code

    def _output_lost(self) -> None:
        """Ends the session: the message loop stops after the message at hand, and a read waiting on
        the event loop returns at once (end of input)."""
        assert self._stop_event is not None
        self._stop_event.set()
        if self._end_input is not None:
            self._end_input()

    async def _serve_io(self, stdin: Any) -> None:
        reader: Any = None
        fd = _descriptor(stdin)
        if os.name == "posix" and fd is not None and not stat.S_ISREG(os.fstat(fd).st_mode):
            loop = asyncio.get_running_loop()
            # connect_read_pipe registers the descriptor with epoll in a later callback, whose
            # failure (EPERM for /dev/null and other devices that cannot be polled) is only logged:
            # the stream then waits for ever for data that cannot come. Registering it here raises.
            try:
                loop.add_reader(fd, lambda: None)
            except OSError:
                reason = f"it is {_named(fd)}, which cannot be polled"
                self._stdio_failed(_CANNOT_READ.format(reason), EXIT_NO_LSP)
                return
            except NotImplementedError:  # a loop without add_reader: pygls' reader thread
                pass
            else:
                loop.remove_reader(fd)
                if os.isatty(fd):
                    # connect_read_pipe makes the descriptor non-blocking, and a terminal's is
                    # shared with the shell (and with our stdout): read a private one instead.
                    try:
                        stdin = open(os.ttyname(fd), "rb", buffering=0)  # the transport closes it
                    except OSError:
                        pass
                stream = asyncio.StreamReader(limit=1 << 20)
                transport, _ = await loop.connect_read_pipe(
                    lambda: asyncio.StreamReaderProtocol(stream), stdin
                )

                def end_input() -> None:  # closing the transport feeds end of input to the stream
                    if not loop.is_closed():
                        loop.call_soon_threadsafe(transport.close)

                self._end_input = end_input
                reader = _LoopReader(stream)
        if reader is None:
            # Reads of a regular file return at once (at its end, empty), so the thread never blocks.
            reader = StdinAsyncReader(stdin, self.thread_pool)
        checked = _CheckedInput(reader)
        assert self._stop_event is not None
        await run_async(
            stop_event=self._stop_event,
            reader=checked,
            protocol=self.protocol,
            logger=logger,
            error_handler=self.report_server_error,
        )
        if checked.error is not None:
            reason = checked.error.strerror or str(checked.error)
            if checked.messages:
                self._stdio_failed(_LOST.format("reading standard input", reason), EXIT_LOST)
            else:
                self._stdio_failed(_CANNOT_READ.format(f"reading it failed: {reason}"), EXIT_NO_LSP)
        elif not checked.messages and not self._stop_event.is_set():
            reason = f"it ended after {checked.received} bytes" if checked.received else "it was empty"
            self._stdio_failed(_HELD_NONE.format(reason), EXIT_NO_LSP)

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
        now = time.monotonic()
        if self.garbage and delay >= 50 and now - self.collected >= COLLECT_EVERY_SECONDS:
            # An analysis leaves a few objects in reference cycles (the engine keeps almost none)
            # that only a full collection frees. The collection holds the GIL for as long as it
            # walks every object alive (about 12 ms with 20 documents of 600 lines open), so it runs
            # now, hidden in the debounce, and at most every COLLECT_EVERY_SECONDS: one per
            # analysis, under 200 edits a second, held the GIL for 4 s in 10 and hovers waited
            # up to 190 ms behind it.
            self.garbage = False
            self.collected = now
            self.executor.submit(gc.collect)

    def reclaim_soon(self) -> None:
        """Once documents are closed and the server is quiet, give their memory back (a full
        collection, then the C heap's free pages to the system)."""
        if self.reclaim is not None:
            self.reclaim.cancel()
        loop = asyncio.get_running_loop()
        self.reclaim = loop.call_later(RECLAIM_AFTER_SECONDS, self._reclaim)

    def _reclaim(self) -> None:
        self.reclaim = None
        self.garbage = False
        self.collected = time.monotonic()
        try:
            self.executor.submit(_release_memory)
        except RuntimeError:  # shutting down
            pass

    def _fire(self, key: str) -> None:
        self.timers.pop(key, None)
        task = asyncio.ensure_future(self.analyse(key))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def current_version(self, key: str) -> Hashable | None:
        """The stamp of ``key`` now: (open epoch, version, changes of the project modules it read);
        None when it is closed."""
        version = documents.version_of(self.workspace, key)
        return None if version is None else (self.epochs.get(key, 0), version, self.deps.get(key, 0))

    # ---- other files of the project --------------------------------------------------------------
    def loader_for(self, snap: Snapshot) -> ProjectLoader | None:
        """The project loader of a document on disk (None: unsaved, so no project around it)."""
        if snap.path is None:
            return None
        folder = os.path.dirname(os.path.abspath(snap.path))
        root = self.roots.get(folder)
        if root is None:
            root = self.roots[folder] = project_root(folder)
        loader = self.loaders.get(root)
        if loader is None:
            loader = self.loaders[root] = ProjectLoader(root, read=self.read_source, stamp=self.source_stamp)
        return loader

    def read_source(self, path: str) -> str | None:
        """A module's text as its importers must see it: the editor's unsaved text when it is open,
        else the file. Called from worker threads (a document's text is replaced whole on change)."""
        document = self.workspace.text_documents.get(uris.from_fs_path(path) or "")
        if document is not None:
            return str(document.source)
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError, ValueError):
            return None

    def source_stamp(self, path: str) -> Hashable | None:
        """What changes when a module's text may have: an open document's version, else the file's."""
        document = self.workspace.text_documents.get(uris.from_fs_path(path) or "")
        if document is not None:
            return ("open", document.version, id(document))
        return file_stamp(path)

    def module_changed(self, uri: str) -> None:
        """A document changed: the open documents that import it (through any depth) are analysed
        again, after their own debounce, so they see its new text."""
        path = uris.to_fs_path(uri)
        if not path:
            return
        importers: set[str] = set()
        for loader in self.loaders.values():
            importers |= loader.importers_of(path)
        if not importers:
            return
        wanted = {os.path.realpath(p) for p in importers}
        for key in documents.open_keys(self.workspace):
            snap_path = uris.to_fs_path(key)
            if key != uri and snap_path and os.path.realpath(snap_path) in wanted:
                self.deps[key] = self.deps.get(key, 0) + 1
                self.schedule(key, self.editor.debounce_ms * 2)
        if self.pull:
            self._refresh()

    def memo_for(self, key: str) -> Memo | None:
        """The memo of the last good analysis of ``key`` (engine.incremental), if made in this
        session of the document and with the project as it is now: what an edit cannot have changed
        is replayed from it."""
        good = self.last_good(key)
        stamp = (self.epochs.get(key, 0), self.deps.get(key, 0), self.generation)
        return good.memo if good is not None and good.memo_stamp == stamp else None

    def last_good(self, key: str) -> Result | None:
        """The last result of ``key`` whose text parsed (the last result, unless it kept one)."""
        previous = self.results.get(key)
        return previous.good if previous is not None and previous.good is not None else previous

    def opened(self, key: str) -> None:
        self.epochs[key] = self.epochs.get(key, 0) + 1

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
        stamp = (self.epochs.get(key, 0), snap.version, self.deps.get(key, 0))
        if self.analysed.get(key) == (stamp, generation):
            return
        good = self.last_good(key)
        settings, editor = self.settings_for(snap), self.editor
        had_findings = good is not None and good.parsed and bool(good.findings)
        started = time.perf_counter()
        loader = self.loader_for(snap)
        memo_stamp = (stamp[0], stamp[2], generation)
        memo = self.memo_for(key)
        work = (self._analyse_and_convert, snap, settings, editor, had_findings, memo, memo_stamp)
        if loader is not None and not loader.warm and imports_own_code(snap.source):
            # The project's imports are not resolved yet (jedi starts in about a second): this file's
            # own findings first, then the analysis that follows its imports, with progress shown.
            quick = await self.run(*work, None)
            if self.current_version(key) != stamp or generation != self.generation:
                return
            if quick.parsed:
                self.publish(key, quick, snap)
            async with self.reporting("gradguard: reading the project's imports"):
                result = await self.run(*work, loader)
        else:
            result = await self.run(*work, loader)
        logger.debug(
            "analysed %s (version %s) in %.0f ms (%s)",
            key,
            snap.version,
            (time.perf_counter() - started) * 1000,
            result.memo.replayed_text() if result.memo is not None else "whole",
        )
        if self.current_version(key) != stamp or generation != self.generation:
            return  # stale: a newer change or setting has scheduled its own analysis
        if not result.parsed and had_findings and good is not None and good.editor.enable and editor.enable:
            # A syntax error mid-typing: keep the last good findings rather than flicker to none,
            # and show the error beside them (its message says the others are from before).
            result = documents.keep_good(good, result)
        self.results[key] = result
        self.analysed[key] = (stamp, generation)
        self.publish(key, result, snap)
        self.garbage = True

    @staticmethod
    def _analyse_and_convert(
        snap: Snapshot,
        settings: Settings,
        editor: EditorSettings,
        had_findings: bool,
        memo: Memo | None,
        memo_stamp: Hashable,
        loader: ProjectLoader | None,
    ) -> Result:
        result = documents.analyse(snap, settings, editor, had_findings, loader, memo)
        result.memo_stamp = memo_stamp
        for finding in result.findings:
            placed = to_diagnostic(finding, settings, snap.locator, snap.key, snap.token)
            if placed is not None:
                result.diagnostics.setdefault(placed[0], []).append(placed[1])
        return result

    @contextlib.asynccontextmanager
    async def reporting(self, title: str) -> AsyncIterator[None]:
        """Work done progress (``$/progress``) around slow work, when the client shows it."""
        token = None
        if self._capability("window.work_done_progress"):
            self.progress_count += 1
            token = f"gradguard-{self.progress_count}"
            try:
                await self.work_done_progress.create_async(token)
                self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
            except Exception:  # a client that refuses the token still gets the results
                token = None
        try:
            yield
        finally:
            if token is not None:
                self.work_done_progress.end(token, types.WorkDoneProgressEnd())

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
        self.opened(key)  # an analysis still running for the closed document is now stale
        self.locks.pop(key, None)
        self.reclaim_soon()
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, under another user
        return True
    return True


async def _watch_parent(pid: int) -> None:
    """Exit when the editor dies without closing our input (LSP: the server exits when its parent
    process, ``processId``, is gone); its end of the pipe closing is noticed without this."""
    while _alive(pid):
        await asyncio.sleep(PARENT_POLL_SECONDS)
    logger.warning("gradguard: the client (process %d) is gone; exiting", pid)
    logging.shutdown()
    os._exit(1)


@server.feature(types.INITIALIZE)
def initialize(ls: GradguardServer, params: types.InitializeParams) -> None:
    ls.set_editor_settings(params.initialization_options)
    pid = params.process_id
    # os.kill(pid, 0) only probes on POSIX (on Windows it would end the process). Only on stdio (a
    # TCP client may be anywhere), and only a process we can see now: a client in another PID
    # namespace (the server in a container) names a process that does not exist here.
    if (
        ls.stdio
        and os.name == "posix"
        and isinstance(pid, int)
        and pid > 0
        and pid != os.getpid()
        and _alive(pid)
    ):
        watcher = asyncio.ensure_future(_watch_parent(pid))
        ls.tasks.add(watcher)
        watcher.add_done_callback(ls.tasks.discard)
    if params.capabilities.text_document is not None and params.capabilities.text_document.diagnostic:
        ls.pull = True

        @ls.feature(
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            types.DiagnosticOptions(
                identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False
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
    key = documents.key_of(ls.workspace, params.text_document.uri)
    if key is not None:
        ls.opened(key)
        ls.schedule(key, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GradguardServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule_uri(ls, params.text_document.uri, None)
    ls.module_changed(params.text_document.uri)


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
    ls.module_changed(uri)  # its importers now see the file as saved


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: GradguardServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.opened(params.notebook_document.uri)
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
    # Fix-all applies safe fixes only (as `gradguard check --fix`): offer it when one will apply.
    fixable = result is not None and any(f.fixes and applies(f.fixes[0]) for f in result.findings)
    current = documents.token_of(ls.workspace, key)
    found = actions.code_actions(uri, params.context, ls.editor, fixable, key, current)
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


def _graph_params(params: Any) -> tuple[str, types.Position, str | None] | None:
    """The graph request's params, checked at the border (a client may send anything)."""
    get = params.get if isinstance(params, dict) else lambda name: getattr(params, name, None)
    doc, pos, fix = get("textDocument"), get("position"), get("fix")
    uri = doc.get("uri") if isinstance(doc, dict) else getattr(doc, "uri", None)
    line = pos.get("line") if isinstance(pos, dict) else getattr(pos, "line", None)
    char = pos.get("character") if isinstance(pos, dict) else getattr(pos, "character", None)
    if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(char, int):
        return None
    if isinstance(line, bool) or isinstance(char, bool) or (fix is not None and not isinstance(fix, str)):
        return None
    return uri, types.Position(line=max(0, line), character=max(0, char)), fix


@server.feature(graphview.METHOD)
async def autograd_graph(ls: GradguardServer, params: Any) -> dict[str, Any] | None:
    """The abstract graph of the backward call at a position, for the graph view (docs/graph-view.md)."""
    parsed = _graph_params(params)
    if parsed is None:
        logger.warning("gradguard: %s with invalid params", graphview.METHOD)
        return None
    uri, position, fix = parsed
    key = documents.key_of(ls.workspace, uri)
    snap = documents.snapshot(ls.workspace, key) if key is not None else None
    if key is None or snap is None or not ls.editor.enable:
        return None
    lock = ls.locks.setdefault(key, asyncio.Lock())
    async with lock:  # the project loader is not shared with this document's own analysis
        settings, loader, memo = ls.settings_for(snap), ls.loader_for(snap), ls.memo_for(key)
        return await ls.run(graphview.graph_json, snap, uri, position, settings, loader, fix, memo)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def code_lens(ls: GradguardServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    uri = params.text_document.uri
    key = documents.key_of(ls.workspace, uri)
    if key is None:
        return None
    result = await ls.fresh_result(key)
    if result is None or not result.editor.enable:
        return None
    return graphview.code_lenses(result, uri) or None


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
        if server.stdio_error is not None and sys.stderr is not None:
            print(f"gradguard: error: {server.stdio_error}", file=sys.stderr)
        return server.exit_code
    return 0
