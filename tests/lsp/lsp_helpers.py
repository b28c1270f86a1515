"""pytest-lsp plumbing: a client with VS Code's capabilities that records every publishDiagnostics,
so a test can wait for the one it expects (by URI and version) without sleeping."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import client as lsp_client_module
from pytest_lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "gradguard", "serve"]
TIMEOUT = 20.0


class RecordingClient(LanguageClient):
    """Keeps every push (not just the last per URI) and wakes waiters when one arrives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pushes: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []
        self.arrived = asyncio.Condition()

    async def wait_for_push(
        self,
        uri: str,
        predicate: Callable[[types.PublishDiagnosticsParams], bool] = lambda p: True,
        start: int = 0,
    ) -> types.PublishDiagnosticsParams:
        """The first push for ``uri`` at index >= ``start`` that satisfies ``predicate``."""

        def found() -> types.PublishDiagnosticsParams | None:
            for params in self.pushes[start:]:
                if params.uri == uri and predicate(params):
                    return params
            return None

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: found() is not None), TIMEOUT)
        result = found()
        assert result is not None
        return result

    async def wait_for_version(self, uri: str, version: int, start: int = 0) -> list[types.Diagnostic]:
        params = await self.wait_for_push(uri, lambda p: p.version == version, start)
        return list(params.diagnostics)

    async def wait_for_message(self, needle: str) -> types.ShowMessageParams:
        def found() -> types.ShowMessageParams | None:
            return next((m for m in self.messages if needle in m.message), None)

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: found() is not None), TIMEOUT)
        message = found()
        assert message is not None
        return message


async def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.pushes.append(params)
    async with client.arrived:
        client.arrived.notify_all()


async def _show(client: RecordingClient, params: types.ShowMessageParams) -> None:
    client.messages.append(params)
    async with client.arrived:
        client.arrived.notify_all()


async def _register(client: RecordingClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=lsp_client_module.default_converter)
    features = dict(lsp_client_module.DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record
    features[types.WINDOW_SHOW_MESSAGE] = _show
    features[types.CLIENT_REGISTER_CAPABILITY] = _register
    lsp_client_module.register_lsp_features(client, features)
    return client


CONFIG = pytest_lsp.ClientServerConfig(server_command=SERVER, client_factory=make_client)


def vscode_capabilities(
    *, pull: bool = False, encodings: Sequence[str] | None = None
) -> types.ClientCapabilities:
    """VS Code's recorded capabilities, plus notebook sync (VS Code has had it since 1.67) and, on
    request, pull diagnostics and position encodings."""
    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(execution_summary_support=True)
    )
    if pull:
        assert capabilities.text_document is not None
        capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(
            related_document_support=False
        )
        assert capabilities.workspace is not None
        capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    if encodings is not None:
        capabilities.general = types.GeneralClientCapabilities(position_encodings=list(encodings))
    return capabilities


async def start(
    client: RecordingClient,
    root: Path,
    options: dict[str, Any] | None = None,
    **caps: Any,
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=vscode_capabilities(**caps),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
            initialization_options=options if options is not None else {"debounce": 20},
        )
    )


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )


def replace_all(client: LanguageClient, uri: str, old: str, new: str, version: int) -> None:
    """An incremental change that replaces the whole of ``old`` with ``new``, as VS Code sends them."""
    lines = old.split("\n")
    end = types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(types.Position(0, 0), end), text=new)],
        )
    )


def apply_text_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 columns) to ``text`` the way an editor does."""
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        before = sum(len(line) + 1 for line in lines[: position.line])
        units, col = 0, 0
        line = lines[position.line]
        while col < len(line) and units < position.character:
            units += 2 if ord(line[col]) > 0xFFFF else 1
            col += 1
        return before + col

    located = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in located:
        text = text[:start] + new + text[end:]
    return text


def edits_by_uri(edit: types.WorkspaceEdit | None) -> dict[str, list[types.TextEdit]]:
    assert edit is not None
    result: dict[str, list[types.TextEdit]] = {}
    for uri, items in (edit.changes or {}).items():
        result.setdefault(uri, []).extend(items)
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        result.setdefault(change.text_document.uri, []).extend(
            e for e in change.edits if isinstance(e, types.TextEdit)
        )
    return result
