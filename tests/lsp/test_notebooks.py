"""Notebooks over notebookDocument sync: one program in cell order, magics skipped, everything
mapped back to the right cell."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, apply_text_edits, edits_by_uri, start
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

CELL1 = """\
import torch

measure = torch.nn.MSELoss()
x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a"""
MARKDOWN = "# Training\nThe loop below reuses `y`."
CELL3 = """\
%matplotlib inline
!nvidia-smi
for _ in range(2):
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()"""


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: RecordingClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("nb")
    await start(lsp_client, root)
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def _open(
    client: RecordingClient, name: str, cells: list[tuple[str, types.NotebookCellKind, str]]
) -> list[str]:
    root = Path(client.root)  # type: ignore[attr-defined]
    uri = (root / name).as_uri()
    cell_uris = [f"vscode-notebook-cell:{(root / name).as_posix()}#C{i}" for i in range(len(cells))]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=uri,
                notebook_type="jupyter-notebook",
                version=0,
                cells=[
                    types.NotebookCell(kind, cell_uri)
                    for cell_uri, (_, kind, _) in zip(cell_uris, cells, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(cell_uri, language, 1, text)
                for cell_uri, (language, _, text) in zip(cell_uris, cells, strict=True)
            ],
        )
    )
    return [uri, *cell_uris]


CODE, MARKUP = types.NotebookCellKind.Code, types.NotebookCellKind.Markup


async def test_cross_cell_graph_reuse_lands_in_the_right_cell(client: RecordingClient) -> None:
    # The squiggle is on the statement to change: `y`, bound in cell 1 and reused by the loop of cell 3.
    nb, c1, c2, c3 = _open(
        client,
        "train.ipynb",
        [("python", CODE, CELL1), ("markdown", MARKUP, MARKDOWN), ("python", CODE, CELL3)],
    )
    [diagnostic] = await client.wait_for_version(c1, 1)
    assert diagnostic.code == "GG103"
    assert diagnostic.range == types.Range(types.Position(6, 0), types.Position(6, 1))
    assert "computed on line 7, before the loop" in diagnostic.message  # its own cell's line
    assert "backward on line 6 of cell 3" in diagnostic.message
    related = diagnostic.related_information or []
    assert related[0].location.uri == c1 and related[0].location.range.start.line == 6
    assert related[1].location.uri == c3 and related[1].location.range.start.line == 5
    # `y` read in `    x_out = t @ (x + y)`, the 4th line of cell 3, after two magic lines.
    assert related[2].location.uri == c3 and related[2].location.range.start == types.Position(3, 21)
    assert await client.wait_for_version(c3, 1) == []

    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(c1), types.Position(6, 0))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "y (line 7, before the loop)" in hover.contents.value
    assert "Trying to backward through the graph a second time" in hover.contents.value

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(c1),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    preferred = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.is_preferred)
    resolved = await client.code_action_resolve_async(preferred)
    edits = edits_by_uri(resolved.edit)
    assert set(edits) == {c1, c3}
    new1, new3 = apply_text_edits(CELL1, edits[c1]), apply_text_edits(CELL3, edits[c3])
    assert "y = t @ a" not in new1
    assert new3.startswith("%matplotlib inline\n!nvidia-smi\nfor _ in range(2):\n    y = t @ a\n")

    mark = len(client.pushes)
    changes = []
    for cell_uri, old, new in ((c1, CELL1, new1), (c3, CELL3, new3)):
        lines = old.split("\n")
        whole = types.Range(types.Position(0, 0), types.Position(len(lines) - 1, len(lines[-1])))
        changes.append(
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell_uri, version=2),
                changes=[types.TextDocumentContentChangePartial(range=whole, text=new)],
            )
        )
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb, version=1),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(text_content=changes)
            ),
        )
    )
    assert await client.wait_for_version(c1, 2, start=mark) == []


async def test_magics_alone_give_no_findings_and_close_clears(client: RecordingClient) -> None:
    nb, c1 = _open(
        client, "magic.ipynb", [("python", CODE, "%%time\nimport torch\n!ls\n%pip install torch\n")]
    )
    assert await client.wait_for_version(c1, 1) == []
    mark = len(client.pushes)
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(nb),
            cell_text_documents=[types.TextDocumentIdentifier(c1)],
        )
    )
    assert list((await client.wait_for_push(c1, start=mark)).diagnostics) == []


async def test_a_cell_that_does_not_parse_gets_gg000_and_the_others_are_still_checked(
    client: RecordingClient,
) -> None:
    broken = "print 'epoch', 1\nawait_me = 2"
    nb, c1, c2, c3 = _open(
        client,
        "broken.ipynb",
        [("python", CODE, CELL1), ("python", CODE, broken), ("python", CODE, CELL3)],
    )
    [finding] = await client.wait_for_version(c1, 1)
    assert finding.code == "GG103"  # the graph reuse across cells 1 and 3 is still found
    [error] = await client.wait_for_version(c2, 1)
    assert error.code == "GG000" and error.severity == types.DiagnosticSeverity.Error
    assert "cannot parse this cell" in error.message and "Missing parentheses" in error.message
    assert error.range.start == types.Position(0, 0)


async def test_fix_all_in_a_notebook_edits_each_cell(client: RecordingClient) -> None:
    loop = CELL3.split("\n", 2)[2]  # without the magics
    # GG103's fix (move `y` into the loop) is unsafe and left to the user; GG110's (`.detach().cpu()`
    # before `.numpy()`) is safe: fix-all applies it, in its cell.
    shown = "print((t @ a).numpy())"
    nb, c1, c2, c3 = _open(
        client,
        "fixall.ipynb",
        [("python", CODE, CELL1), ("python", CODE, shown + "\n" + loop), ("python", CODE, shown)],
    )
    assert [d.code for d in await client.wait_for_version(c2, 1)] == ["GG110"]
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(c3),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=["source.fixAll.gradguard"]),
        )
    )
    [fix_all] = [a for a in result or [] if isinstance(a, types.CodeAction)]
    resolved = await client.code_action_resolve_async(fix_all)
    edits = edits_by_uri(resolved.edit)
    fixed = "print((t @ a).detach().cpu().numpy())"
    assert apply_text_edits(shown + "\n" + loop, edits[c2]) == fixed + "\n" + loop
    assert apply_text_edits(shown, edits[c3]) == fixed  # found once the first is fixed
    assert c1 not in edits  # `y`, which the loop reuses, stays: GG103's fix is unsafe
    # What VS Code asks cells for on save (notebook.codeActionsOnSave).
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(c1),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=["notebook.source.fixAll"]),
        )
    )
    assert [a.kind for a in result or [] if isinstance(a, types.CodeAction)] == [
        "notebook.source.fixAll.gradguard"
    ]
