"""What is analysed: snapshots of open documents and notebooks, and their analysis results.

A snapshot is taken on the event loop (cheap: the text and its version); the analysis runs in a
worker thread. A text document's key is its URI; a notebook's key is the notebook URI, and every
cell URI maps to it, so one edit in any cell re-analyses the whole notebook as one program.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Hashable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls import uris
from pygls.workspace import TextDocument, Workspace

from ..api import cell_syntax_errors, inspect_source
from ..engine.incremental import Memo
from ..engine.modules import Loader
from ..engine.report import BackwardInfo
from ..findings import Finding
from ..record import field, record, replace
from ..settings import Settings
from .notebooks import CellText, NotebookLocator, cell_texts
from .positions import Codec, Locator, TextLocator
from .settings import EditorSettings

# Beyond this (about 40,000 lines) a document is not analysed: it is a generated or data file opened
# by accident, the analysis would take seconds per keystroke and its findings would go unread.
MAX_SOURCE_CHARS = 1_500_000


@record(frozen=True)
class Snapshot:
    key: str  # the text document's URI, or the notebook's
    version: Hashable  # the document version; for notebooks the cells' (uri, version) pairs
    source: str  # the program: the document text, or the notebook's code cells in order
    path: str | None  # on disk, for pyproject.toml discovery and per-file-ignores
    locator: Locator
    notebook: NotebookLocator | None = None

    @property
    def filename(self) -> str:
        return self.path or f"<{self.key}>"

    @property
    def token(self) -> int | list[list[Any]] | None:
        """The version as JSON, for a diagnostic's ``data``: the document version, or a notebook's
        ``[[cell uri, cell version], ...]`` (a cell added, removed, moved or edited changes it)."""
        if self.notebook is not None:
            return [[cell.uri, cell.version] for cell in self.notebook.cells]
        return self.version if isinstance(self.version, int) else None

    def uris(self) -> list[str]:
        """The documents this snapshot's diagnostics go to."""
        return self.notebook.code_cell_uris() if self.notebook is not None else [self.key]


@record
class Result:
    snapshot: Snapshot
    settings: Settings
    editor: EditorSettings
    findings: list[Finding] = field(default_factory=list)
    backwards: list[BackwardInfo] = field(default_factory=list)
    parsed: bool = True
    # When this text does not parse: the last result that did, whose findings stay shown beside
    # the syntax error (so they do not flicker away mid-typing).
    good: Result | None = None
    # Diagnostics by document URI (cell URIs for notebooks), computed once per analysis.
    diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    # What the next analysis of this document may reuse (engine.incremental), and the state of the
    # document's session and project it is valid for (see Server._analyse_locked).
    memo: Memo | None = None
    memo_stamp: Hashable = None


def text_document(workspace: Workspace, uri: str) -> TextDocument | None:
    """An open document (pygls keys them by unquoted URI); never one read from disk."""
    document: TextDocument | None = workspace.text_documents.get(unquote(uri))
    return document


def notebook_of(workspace: Workspace, uri: str) -> types.NotebookDocument | None:
    return workspace.get_notebook_document(cell_uri=uri) or workspace.get_notebook_document(notebook_uri=uri)


def key_of(workspace: Workspace, uri: str) -> str | None:
    """The analysis key of a document or cell URI; None when it is not open."""
    notebook = workspace.get_notebook_document(cell_uri=uri)
    if notebook is not None:
        return str(notebook.uri)
    if workspace.get_notebook_document(notebook_uri=uri) is not None:
        return uri
    return uri if text_document(workspace, uri) is not None else None


def _path(uri: str) -> str | None:
    try:
        return uris.to_fs_path(uri)
    except Exception:  # an odd URI is only a document without a path
        return None


def _cells_version(cells: list[CellText]) -> Hashable:
    return tuple((cell.uri, cell.version, cell.code) for cell in cells)


def version_of(workspace: Workspace, key: str) -> Hashable | None:
    """The version ``snapshot`` would give, without building the program; None when closed."""
    notebook = workspace.get_notebook_document(notebook_uri=key)
    if notebook is not None:

        def lookup(uri: str) -> tuple[str, int, str | None] | None:
            document = text_document(workspace, uri)
            return None if document is None else ("", document.version or 0, document.language_id)

        return _cells_version(cell_texts(notebook, lookup))
    document = text_document(workspace, key)
    return None if document is None else document.version


def token_of(workspace: Workspace, key: str) -> int | list[list[Any]] | None:
    """``Snapshot.token`` of the document or notebook ``key`` as it is now, without a snapshot."""
    notebook = workspace.get_notebook_document(notebook_uri=key)
    if notebook is not None:
        cells = []
        for cell in notebook.cells:
            document = text_document(workspace, cell.document)
            cells.append([cell.document, (document.version or 0) if document is not None else 0])
        return cells
    document = text_document(workspace, key)
    return None if document is None else document.version


def open_keys(workspace: Workspace) -> list[str]:
    """Every open notebook and every open text document that is not a notebook cell."""
    keys = [str(uri) for uri in workspace.notebook_documents]
    keys += [uri for uri in workspace.text_documents if workspace.get_notebook_document(cell_uri=uri) is None]
    return keys


def snapshot(workspace: Workspace, key: str) -> Snapshot | None:
    """The current text of a document or notebook; None when it is closed."""
    codec: Codec = workspace.position_codec
    notebook = workspace.get_notebook_document(notebook_uri=key)
    if notebook is not None:

        def lookup(uri: str) -> tuple[str, int, str | None] | None:
            document = text_document(workspace, uri)
            if document is None:
                return None
            return document.source, document.version or 0, document.language_id

        cells = cell_texts(notebook, lookup)
        locator = NotebookLocator(cells, codec)
        return Snapshot(key, _cells_version(cells), locator.program, _path(key), locator, locator)
    document = text_document(workspace, key)
    if document is None:
        return None
    source = document.source
    return Snapshot(key, document.version, source, _path(key), TextLocator(key, source, codec))


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            # A leading byte-order mark is no part of the code (the engine skips it; ast rejects it).
            ast.parse(source.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


KEPT_NOTE = "; the other findings shown are from the last version of the file that parsed"


def analyse(
    snap: Snapshot,
    settings: Settings,
    editor: EditorSettings,
    had_findings: bool,
    loader: Loader | None = None,
    memo: Memo | None = None,
) -> Result:
    """Run the analysis (in a worker thread). Never raises. ``had_findings``: the last version that
    parsed had findings, which stay shown if this one does not parse (its GG000 says so). With a
    ``loader``, the project's modules the document imports are followed. With ``memo`` (the last
    analysis's), what the edit cannot have changed is not analysed again."""
    result = Result(snap, settings, editor)
    if not editor.enable or len(snap.source) > MAX_SOURCE_CHARS or not snap.source.strip():
        return result
    try:
        analysis = inspect_source(snap.source, snap.filename, settings, loader, memo)
    except Exception:  # the engine promises not to raise; the server must not die if it does
        result.parsed = _parses(snap.source)
        return result
    findings = analysis.findings
    if snap.notebook is not None:
        # A finding on a rewritten IPython line would point at code the user never wrote.
        findings = [f for f in findings if not snap.notebook.replaced(f.span.line)]
        findings += cell_syntax_errors(snap.notebook.notebook, snap.filename, settings)
    if snap.notebook is None and any(f.code == "GG000" for f in findings):
        result.parsed = False
    elif not findings and had_findings:
        # GG000 may be ignored by the settings: then only an empty result after a non-empty one
        # can be a syntax error, and checking then alone keeps the extra parse off the common path.
        result.parsed = _parses(snap.source)
    if not result.parsed and had_findings:
        findings = [replace(f, message=f.message + KEPT_NOTE) if f.code == "GG000" else f for f in findings]
    result.findings, result.backwards, result.memo = findings, analysis.backwards, analysis.memo
    return result


def keep_good(good: Result, failed: Result) -> Result:
    """What to show for a text that does not parse: the last good findings, and the syntax error."""
    diagnostics = {uri: list(items) for uri, items in good.diagnostics.items()}
    for uri, items in failed.diagnostics.items():
        diagnostics.setdefault(uri, []).extend(items)
    return replace(
        good, findings=good.findings + failed.findings, parsed=False, good=good, diagnostics=diagnostics
    )
