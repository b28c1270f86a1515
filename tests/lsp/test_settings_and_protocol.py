"""Settings (initializationOptions, workspace/configuration, pyproject.toml), pull diagnostics and
position-encoding negotiation. Each test starts its own server with its own options."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, open_doc, start
from lsprotocol import types

from gradguard.rules import examples

pytestmark = pytest.mark.asyncio

SEED = examples("GG103")[1][0].source
UNICODE = SEED.replace("\ny = t @ a", '\ns = "😀漢字"; y = t @ a')


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: RecordingClient, tmp_path: Path):
    lsp_client.root = tmp_path  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _root(client: RecordingClient) -> Path:
    return Path(client.root)  # type: ignore[attr-defined]


async def test_bad_initialization_options_get_a_message_and_the_default(client: RecordingClient) -> None:
    await start(client, _root(client), {"select": ["GG999"], "enable": "yes", "debounce": 20})
    uri = (_root(client) / "a.py").as_uri()
    open_doc(client, uri, SEED)
    assert [d.code for d in await client.wait_for_version(uri, 1)] == ["GG103"]
    message = await client.wait_for_message("gradguard.select")
    assert "'GG999' matches no known rule" in message.message
    assert (
        "gradguard.enable: expected true or false, got 'yes'; using true"
        in (await client.wait_for_message("gradguard.enable")).message
    )
    assert message.type == types.MessageType.Warning


async def test_workspace_configuration_changes_apply(client: RecordingClient) -> None:
    client.set_configuration({"severity": {"GG103": "warning"}, "debounce": 20}, section="gradguard")
    await start(client, _root(client), {})
    uri = (_root(client) / "a.py").as_uri()
    open_doc(client, uri, SEED)
    [diagnostic] = await client.wait_for_version(uri, 1)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning

    async def reconfigure(values: dict[str, object]) -> list[types.Diagnostic]:
        mark = len(client.pushes)
        client.set_configuration(values, section="gradguard")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        return list((await client.wait_for_push(uri, start=mark)).diagnostics)

    assert await reconfigure({"ignore": ["GG1"]}) == []
    assert [d.severity for d in await reconfigure({})] == [types.DiagnosticSeverity.Error]
    assert await reconfigure({"enable": False}) == []
    [diagnostic] = await reconfigure({"codeAction": {"disableRuleComment": {"enable": False}}})
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert [a.title for a in actions or []] == [
        "gradguard (GG103): Move the computation into the loop (unsafe)"
    ]
    await reconfigure({"severity": {"GG103": "loud"}})
    assert "is not one of error, warning" in (await client.wait_for_message("gradguard.severity")).message


async def test_pyproject_configuration_applies_and_is_watched(client: RecordingClient) -> None:
    root = _root(client)
    pyproject = root / "pyproject.toml"
    pyproject.write_text('[tool.gradguard]\nignore = ["GG103"]\nselect = ["GG1", "GG42"]\n')
    await start(client, root)
    uri = (root / "a.py").as_uri()
    open_doc(client, uri, SEED + "\n" + examples("GG101")[1][0].source)
    assert [d.code for d in await client.wait_for_version(uri, 1)] == ["GG101"]
    assert "'GG42' matches no known rule" in (await client.wait_for_message("GG42")).message
    assert [r.method for r in client.registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]

    mark = len(client.pushes)
    pyproject.write_text('[tool.gradguard]\nignore = ["GG101"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(pyproject.as_uri(), types.FileChangeType.Changed)])
    )
    assert [d.code for d in (await client.wait_for_push(uri, start=mark)).diagnostics] == ["GG103"]


async def test_pull_diagnostics_when_the_client_supports_them(client: RecordingClient) -> None:
    result = await start(client, _root(client), pull=True)
    assert result.capabilities.diagnostic_provider is not None
    uri = (_root(client) / "a.py").as_uri()
    open_doc(client, uri, SEED)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport | types.FullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["GG103"]
    assert not [p for p in client.pushes if p.uri == uri], "pulled documents are not pushed too"


@pytest.mark.parametrize(("encoding", "column"), [("utf-8", 18), ("utf-32", 11), ("utf-16", 12)])
async def test_position_encoding_negotiation(client: RecordingClient, encoding: str, column: int) -> None:
    result = await start(client, _root(client), encodings=[encoding])
    assert result.capabilities.position_encoding == encoding
    uri = (_root(client) / "a.py").as_uri()
    open_doc(client, uri, UNICODE)
    [diagnostic] = await client.wait_for_version(uri, 1)
    assert diagnostic.range.start == types.Position(6, column)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, column))
    )
    assert hover is not None
