"""Diagnostics, hovers and code actions on plain files, over stdio with VS Code's capabilities."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import (
    CONFIG,
    RecordingClient,
    apply_text_edits,
    edits_by_uri,
    open_doc,
    replace_all,
    start,
)
from lsprotocol import types

from gradguard.rules import examples

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEED = examples("GG103")[1][0].source  # the seed case: `y = t @ a` before the loop


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: RecordingClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("ws")
    await start(lsp_client, root)
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _uri(client: RecordingClient, name: str) -> str:
    return (Path(client.root) / name).as_uri()  # type: ignore[attr-defined]


async def test_open_publishes_the_finding_with_its_story(client: RecordingClient) -> None:
    uri = _uri(client, "seed.py")
    open_doc(client, uri, SEED)
    diagnostics = await client.wait_for_version(uri, 1)
    assert [d.code for d in diagnostics] == ["GG103"]
    d = diagnostics[0]
    assert d.source == "gradguard"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.code_description is not None and d.code_description.href.endswith("/GG103")
    # On the statement to change: `y`, bound before the loop.
    assert d.range == types.Range(types.Position(6, 0), types.Position(6, 1))
    related = d.related_information or []
    assert [r.message.split(":")[0] for r in related][:1] == ["graph built here"]
    assert [r.location.range.start.line for r in related] == [6, 11, 9, 11]  # built, freed, reused
    assert "freed" in related[1].message
    assert "read in the loop" in related[2].message and "raises" in related[3].message
    assert isinstance(d.data, dict) and d.data["fixes"][0]["kind"] == "move-into-loop"


async def test_a_burst_of_changes_gives_one_analysis_of_the_last_version(client: RecordingClient) -> None:
    uri = _uri(client, "burst.py")
    clean = examples("GG103")[0][0].source
    open_doc(client, uri, clean)
    assert await client.wait_for_version(uri, 1) == []
    mark = len(client.pushes)
    text = clean
    for version in range(2, 7):
        new = SEED if version == 6 else clean + f"# edit {version}\n"
        replace_all(client, uri, text, new, version)
        text = new
    diagnostics = await client.wait_for_version(uri, 6, start=mark)
    assert [d.code for d in diagnostics] == ["GG103"]
    assert [p.version for p in client.pushes[mark:] if p.uri == uri] == [6]


async def test_syntax_error_mid_typing_keeps_the_findings_until_it_parses_again(
    client: RecordingClient,
) -> None:
    uri = _uri(client, "typing.py")
    open_doc(client, uri, SEED)
    assert [d.code for d in await client.wait_for_version(uri, 1)] == ["GG103"]
    broken = SEED.replace("loss = measure(x_out, x)", "loss = measure(x_out, ")
    replace_all(client, uri, SEED, broken, 2)
    # The last good finding stays, and the syntax error is shown beside it, saying so.
    kept = await client.wait_for_version(uri, 2)
    assert sorted(d.code for d in kept) == ["GG000", "GG103"]
    error = next(d for d in kept if d.code == "GG000")
    assert (
        "cannot parse this file" in error.message and "last version of the file that parsed" in error.message
    )
    assert error.severity == types.DiagnosticSeverity.Error
    half = broken + "    def (\n"
    replace_all(client, uri, broken, half, 3)
    assert sorted(d.code for d in await client.wait_for_version(uri, 3)) == ["GG000", "GG103"]
    fixed = SEED.replace("y = t @ a\n", "y = (t @ a).detach()\n")
    replace_all(client, uri, half, fixed, 4)
    assert await client.wait_for_version(uri, 4) == []
    replace_all(client, uri, fixed, SEED, 5)
    assert [d.code for d in await client.wait_for_version(uri, 5)] == ["GG103"]


async def test_hover_explains_the_finding(client: RecordingClient) -> None:
    uri = _uri(client, "hover.py")
    open_doc(client, uri, SEED)
    await client.wait_for_version(uri, 1)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, 0))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "loss (line 11) <- x_out (line 10) <- y (line 7, before the loop) <- t, a" in text
    assert "Move the computation into the loop" in text and "re-run every iteration" in text
    assert "**Why**" in text
    outside = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(2, 0))
    )
    assert outside is None


async def test_hover_on_a_backward_call_without_a_finding(client: RecordingClient) -> None:
    uri = _uri(client, "backward.py")
    clean = examples("GG103")[0][0].source  # the seed with the forward inside the loop
    open_doc(client, uri, clean)
    assert await client.wait_for_version(uri, 1) == []
    line = clean.split("\n").index("    loss.backward()")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 10))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "`loss.backward()` frees the saved buffers of" in hover.contents.value
    assert "`t @ a` (line 8)" in hover.contents.value
    assert "Nothing later needs them." in hover.contents.value


async def _actions(client: RecordingClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic], only=None),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_code_actions_are_ranked_and_resolved_lazily(client: RecordingClient) -> None:
    uri = _uri(client, "actions.py")
    open_doc(client, uri, SEED)
    [diagnostic] = await client.wait_for_version(uri, 1)
    found = await _actions(client, uri, diagnostic)
    titles = [a.title for a in found]
    assert titles == [
        "gradguard (GG103): Move the computation into the loop (unsafe)",
        "Disable GG103 for this line",
    ]
    assert found[0].is_preferred and not found[1].is_preferred
    assert all(a.edit is None for a in found), "edits are computed in codeAction/resolve"
    assert all(a.kind == types.CodeActionKind.QuickFix for a in found)

    resolved = await client.code_action_resolve_async(found[0])
    [(target, edits)] = edits_by_uri(resolved.edit).items()
    assert target == uri
    fixed = apply_text_edits(SEED, edits)
    assert "for _ in range(2):\n    y = t @ a\n" in fixed
    replace_all(client, uri, SEED, fixed, 2)
    assert await client.wait_for_version(uri, 2) == []


async def test_disable_for_this_line(client: RecordingClient) -> None:
    uri = _uri(client, "noqa.py")
    open_doc(client, uri, SEED)
    [diagnostic] = await client.wait_for_version(uri, 1)
    found = await _actions(client, uri, diagnostic)
    noqa = next(a for a in found if a.title == "Disable GG103 for this line")
    resolved = await client.code_action_resolve_async(noqa)
    fixed = apply_text_edits(SEED, edits_by_uri(resolved.edit)[uri])
    assert "\ny = t @ a  # noqa: GG103\n" in fixed
    replace_all(client, uri, SEED, fixed, 2)
    assert await client.wait_for_version(uri, 2) == []


async def test_fix_all_applies_the_safe_fixes_only(client: RecordingClient) -> None:
    uri = _uri(client, "fixall.py")
    # GG201's fix changes what trains (unsafe); GG110's and GG301's only remove the bug (safe):
    # fix-all applies those, as `gradguard check --fix` does. (GG110 raises, so it comes last.)
    parts = [examples("GG201")[1][0].source, examples("GG301")[1][0].source, examples("GG110")[1][0].source]
    text = "\n".join(parts)
    open_doc(client, uri, text)
    diagnostics = await client.wait_for_version(uri, 1)
    assert sorted(d.code for d in diagnostics) == ["GG110", "GG201", "GG301"]
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    assert result is not None
    [fix_all] = [a for a in result if isinstance(a, types.CodeAction)]
    assert fix_all.kind == "source.fixAll.gradguard" and fix_all.edit is None
    resolved = await client.code_action_resolve_async(fix_all)
    fixed = apply_text_edits(text, edits_by_uri(resolved.edit)[uri])
    replace_all(client, uri, text, fixed, 2)
    assert [d.code for d in await client.wait_for_version(uri, 2)] == ["GG201"]
    # Only unsafe fixes left: fix-all is not offered.
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    assert not [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_utf16_columns_after_emoji_and_cjk(client: RecordingClient) -> None:
    uri = _uri(client, "unicode.py")
    text = SEED.replace("\ny = t @ a", '\ns = "😀漢字"; y = t @ a')
    open_doc(client, uri, text)
    [diagnostic] = await client.wait_for_version(uri, 1)
    # 11 code points before `y`; the emoji is two UTF-16 units.
    assert diagnostic.range == types.Range(types.Position(6, 12), types.Position(6, 13))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, 12))
    )
    assert hover is not None
    found = await _actions(client, uri, diagnostic)
    resolved = await client.code_action_resolve_async(found[-1])
    fixed = apply_text_edits(text, edits_by_uri(resolved.edit)[uri])
    assert '\ns = "😀漢字"; y = t @ a  # noqa: GG103\n' in fixed


async def test_close_clears_the_diagnostics(client: RecordingClient) -> None:
    uri = _uri(client, "close.py")
    open_doc(client, uri, SEED)
    await client.wait_for_version(uri, 1)
    mark = len(client.pushes)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    params = await client.wait_for_push(uri, start=mark)
    assert list(params.diagnostics) == []


@pytest.mark.parametrize(
    "text",
    [
        "import torch\nx = 1\x00\n",  # a NUL byte: not Python, must not crash
        "import torch\n" + "y = " + "(" * 5000 + "1" + ")" * 5000 + "\n",  # deeper than the parser goes
        "import torch\ns = '" + "\U0001f600" * 50_000 + "'\n",  # a very long non-ASCII line
        "import torch\r\nx = torch.ones(2, requires_grad=True)\rlosses = [x]\u2028\x0c\n",  # odd line ends
        "",
        "import torch\n" + "x = torch.ones(1)\n" * 100_000,  # 1.8 MB: too large to analyse per keystroke
    ],
    ids=["nul", "deep", "long-line", "line-ends", "empty", "huge"],
)
async def test_bad_input_never_crashes_the_server(client: RecordingClient, text: str) -> None:
    uri = _uri(client, "odd.py")
    mark = len(client.pushes)
    open_doc(client, uri, text)
    # Code that does not parse gets an honest answer: one GG000 where the parser stopped.
    unparsable = "\x00" in text or "((((" in text or "\u2028" in text
    codes = [d.code for d in await client.wait_for_version(uri, 1, start=mark)]
    assert codes == (["GG000"] if unparsable else [])
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, 3))
    )
    assert hover is None or "GG000" in str(hover.contents)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
