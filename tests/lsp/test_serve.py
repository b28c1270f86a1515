"""`gradguard serve --tcp PORT`: the debugging transport answers like stdio does."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest
from lsp_helpers import vscode_capabilities
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from gradguard.rules import examples

pytestmark = pytest.mark.asyncio


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_serve_over_tcp() -> None:
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "gradguard", "serve", "--tcp", str(port), stderr=asyncio.subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        while b"Serving on" not in (line := await asyncio.wait_for(process.stderr.readline(), 20)):
            assert line, "the server exited before listening"
        client = LanguageClient("tcp-test", "1")
        published: asyncio.Future[types.PublishDiagnosticsParams] = asyncio.get_running_loop().create_future()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            if not published.done():
                published.set_result(params)

        await client.start_tcp("127.0.0.1", port)
        await client.initialize_async(types.InitializeParams(capabilities=vscode_capabilities()))
        client.initialized(types.InitializedParams())
        source = examples("GG103")[1][0].source
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem("file:///tcp/a.py", "python", 1, source))
        )
        params = await asyncio.wait_for(published, 20)
        assert [d.code for d in params.diagnostics] == ["GG103"]
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
