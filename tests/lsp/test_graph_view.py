"""The graph view's request (``gradguard/autogradGraph``) and code lenses, over stdio: the graph of
a backward call in the user's names, its passes, the edge that reaches freed buffers, and the graph
after each fix (docs/graph-view.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, open_doc, start
from lsprotocol import types

from gradguard.rules import examples

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEED = examples("GG103")[1][0].source  # `y = t @ a` before the loop, reused by every iteration
METHOD = "gradguard/autogradGraph"


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: RecordingClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("graph")
    await start(lsp_client, root)
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _uri(client: RecordingClient, name: str) -> str:
    return (Path(client.root) / name).as_uri()  # type: ignore[attr-defined]


def _plain(obj: Any) -> Any:
    """The answer as JSON: pygls' client hands unknown results over as namedtuples, which rename
    the keyword `from` to `_0`."""
    if hasattr(obj, "_asdict"):
        return {("from" if k == "_0" else k): _plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


async def _graph(client: RecordingClient, uri: str, line: int, fix: str | None = None) -> Any:
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 4}, "fix": fix}
    return _plain(await client.protocol.send_request_async(METHOD, params))


def _get(obj: Any, name: str) -> Any:
    return obj[name]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


async def test_the_seed_graph_shows_the_reused_node_and_the_edge_into_it(client: RecordingClient) -> None:
    uri = _uri(client, "seed.py")
    open_doc(client, uri, SEED)
    await client.wait_for_version(uri, 1)
    backward = _line_of(SEED, "loss.backward()")
    graph = await _graph(client, uri, backward)
    assert graph is not None
    lanes = {_get(lane, "id"): _get(lane, "label") for lane in _get(graph, "lanes")}
    assert list(lanes.values())[0] == "before the loop"
    assert [label.split(" of ")[0] for label in list(lanes.values())[1:]] == ["iteration 1", "iteration 2"]
    nodes = {_get(n, "id"): n for n in _get(graph, "nodes")}
    [y] = [n for n in nodes.values() if _get(n, "name") == "y"]
    assert _get(y, "label") == "t @ a" and lanes[_get(y, "lane")] == "before the loop"
    assert _get(y, "saves") and _get(y, "freedBy") == "p1"
    line = _line_of(SEED, "y = t @ a")
    assert y["range"] == {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}}
    assert y["uri"] == uri
    leaves = sorted(_get(n, "label") for n in nodes.values() if _get(n, "kind") == "leaf")
    assert leaves == ["a", "t"]
    passes = _get(graph, "passes")
    assert [_get(p, "raises") for p in passes] == [False, True]
    assert _get(y, "id") in _get(passes[0], "frees")
    # The finding's edge: iteration 2's `x + y` reads y, whose buffers pass 1 freed.
    [reach] = [e for e in _get(graph, "edges") if _get(e, "reach")]
    assert _get(reach, "from") == _get(y, "id")
    target = nodes[_get(reach, "to")]
    assert _get(target, "label") == "x + y" and "iteration 2" in lanes[_get(target, "lane")]
    finding = _get(graph, "finding")
    assert _get(finding, "code") == "GG103"
    assert _get(_get(finding, "reach"), "from") == _get(y, "id")
    fixes = _get(graph, "fixes")
    assert fixes and _get(fixes[0], "preferred") and "loop" in _get(fixes[0], "title")

    # The fix's effect: y is computed in each iteration, so no pass meets freed buffers.
    after = await _graph(client, uri, backward, _get(fixes[0], "id"))
    assert after is not None and _get(_get(after, "appliedFix"), "title") == _get(fixes[0], "title")
    assert not any(_get(p, "raises") for p in _get(after, "passes"))
    assert not any(_get(e, "reach") for e in _get(after, "edges"))
    assert _get(after, "finding") is None
    lanes_after = {lane["id"]: lane["label"] for lane in after["lanes"]}
    moved = [n for n in after["nodes"] if n["name"] == "y"]
    assert [lanes_after[n["lane"]].split(" of ")[0] for n in moved] == ["iteration 1", "iteration 2"]


async def test_code_lens_on_each_backward(client: RecordingClient) -> None:
    uri = _uri(client, "lens.py")
    open_doc(client, uri, SEED)
    await client.wait_for_version(uri, 1)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert lenses is not None and len(lenses) == 1
    [lens] = lenses
    assert lens.range.start.line == _line_of(SEED, "loss.backward()")
    assert lens.command is not None and lens.command.command == "gradguard.showGraph"
    assert lens.command.arguments is not None and lens.command.arguments[0] == uri


async def test_no_backward_no_graph_and_bad_params_no_crash(client: RecordingClient) -> None:
    uri = _uri(client, "plain.py")
    open_doc(client, uri, "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n")
    await client.wait_for_version(uri, 1)
    assert await _graph(client, uri, 2) is None
    assert await _graph(client, _uri(client, "not_open.py"), 0) is None
    for bad in (
        {},
        {"textDocument": {"uri": uri}},
        {"textDocument": {"uri": uri}, "position": {"line": "x", "character": 0}},
    ):
        assert _plain(await client.protocol.send_request_async(METHOD, bad)) is None
    seed = _uri(client, "seed2.py")
    open_doc(client, seed, SEED)
    await client.wait_for_version(seed, 1)
    assert await _graph(client, seed, 0, fix="GG999:1:0") is None  # a fix that does not exist
    # The server is still there.
    assert await _graph(client, seed, 0) is not None


async def test_in_a_notebook_nodes_point_into_their_own_cells(client: RecordingClient) -> None:
    root = Path(client.root)  # type: ignore[attr-defined]
    path = root / "train.ipynb"
    cells = [SEED.split("for ", 1)[0], "for " + SEED.split("for ", 1)[1]]
    cell_uris = [f"vscode-notebook-cell:{path.as_posix()}#C{i}" for i in range(2)]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=path.as_uri(),
                notebook_type="jupyter-notebook",
                version=0,
                cells=[types.NotebookCell(types.NotebookCellKind.Code, uri) for uri in cell_uris],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri, "python", 1, text)
                for uri, text in zip(cell_uris, cells, strict=True)
            ],
        )
    )
    await client.wait_for_version(cell_uris[0], 1)
    graph = await _graph(client, cell_uris[1], _line_of(cells[1], "backward("))
    assert graph is not None and graph["backward"]["uri"] == cell_uris[1]
    [y] = [n for n in graph["nodes"] if n["name"] == "y"]
    assert y["uri"] == cell_uris[0] and y["range"]["start"]["line"] == _line_of(cells[0], "y = t @ a")
    assert [e for e in graph["edges"] if e["reach"]][0]["from"] == y["id"]
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(cell_uris[1]))
    )
    assert lenses is not None and [lens.range.start.line for lens in lenses] == [
        _line_of(cells[1], "backward(")
    ]
    assert not await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(cell_uris[0]))
    )
