"""Coverage-guided fuzzing (atheris) of the language server's pure functions.

Each input picks a position encoding (UTF-8, UTF-16 or UTF-32) and a mode from its first byte, and
the rest, decoded as UTF-8 (bad bytes replaced), is a file, or a notebook whose cells are the text
split at blank lines. It goes through what the server does with a document, without a connection:

* ``positions``: ``split_lines``; every finding's span to a client range and back; a client position
  made from the input on every line back to the program and out again (a round trip must land where
  it started; positions past the end are clamped);
* ``notebooks``: ``NotebookLocator`` over the cells: program spans to cells and back;
* ``documents.analyse`` and ``diagnostics.to_diagnostic`` on every finding (ranges inside their
  document);
* ``hover.hover`` on every finding and every backward call;
* ``actions.code_actions`` on the diagnostics, and ``actions.resolve`` of the fixes and "disable"
  comments of the first findings and of fix-all, on the current version (the edits must fall
  inside the document, and a fix must leave code that parses when the input did) and on a stale
  version (must be refused).

Seeds are the shipped examples and the evaluation corpus. Anything that escapes, breaks an
invariant or takes longer than ``--slow`` seconds is saved with its traceback under ``--out``. The
run stops after ``--seconds`` (default 60) and exits 1 if anything escaped.

    python scripts/fuzz_lsp.py --seconds 60 [--out fuzz-out/lsp] [--slow 10]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import atheris
from fuzzkit import ROOT, SEED_DIRS, Invariant, parses, run

with atheris.instrument_imports(include=["gradguard"]):
    from lsprotocol import types
    from pygls.workspace import PositionCodec

    from gradguard.findings import Span, TextEdit
    from gradguard.fixes import apply_edits
    from gradguard.lsp import actions, documents
    from gradguard.lsp.diagnostics import to_diagnostic
    from gradguard.lsp.hover import hover
    from gradguard.lsp.notebooks import CellText, NotebookLocator
    from gradguard.lsp.positions import TextLocator, from_position, split_lines, to_position
    from gradguard.lsp.settings import EditorSettings
    from gradguard.settings import Settings

CODECS = [PositionCodec(kind) for kind in types.PositionEncodingKind]
EDITOR = EditorSettings()
SETTINGS = Settings()
URI = "file:///fuzz/input.py"
NOTEBOOK = "file:///fuzz/input.ipynb"
RESOLVED_FINDINGS = 3  # findings whose actions are resolved (each is a libcst run)


def snapshot(text: str, codec: PositionCodec, notebook: bool, version: int = 1) -> documents.Snapshot:
    if not notebook:
        return documents.Snapshot(URI, version, text, None, TextLocator(URI, text, codec))
    cells = [
        CellText(f"{NOTEBOOK}#cell{i}", chunk, version, not chunk.startswith("#md"))
        for i, chunk in enumerate(text.split("\n\n"))
    ]
    locator = NotebookLocator(cells, codec)
    key = tuple((c.uri, c.version, c.code) for c in cells)
    return documents.Snapshot(NOTEBOOK, key, locator.program, None, locator, locator)


def document_lines(snap: documents.Snapshot) -> dict[str, list[str]]:
    if snap.notebook is None:
        return {URI: split_lines(snap.source)}
    return {cell.uri: split_lines(cell.text) for cell in snap.notebook.cells}


def check_range(lines: dict[str, list[str]], uri: str, range_: types.Range, what: str) -> None:
    if uri not in lines:
        raise Invariant(f"{what}: unknown document {uri}")
    for position in (range_.start, range_.end):
        if position.line > len(lines[uri]):
            raise Invariant(f"{what}: line {position.line} past the end ({len(lines[uri])} lines)")
    if (range_.start.line, range_.start.character) > (range_.end.line, range_.end.character):
        raise Invariant(f"{what}: range ends before it starts: {range_}")


def round_trip(lines: list[str], codec: PositionCodec, seed: int) -> None:
    """A code-point position to the client and back lands where it started; any client position
    maps into the text."""
    for index, text in enumerate(lines[:200]):
        col = seed % (len(text) + 1)
        position = to_position(lines, index + 1, col, codec)
        back = from_position(lines, position, codec)
        if back != (index + 1, col):
            raise Invariant(f"round trip of line {index + 1} col {col} gave {back} via {position}")
        line, col = from_position(lines, types.Position(index, seed), codec)
        if line != index + 1 or not 0 <= col <= len(text):
            raise Invariant(f"client column {seed} on line {index} gave ({line}, {col})")


def check_edit(
    snap: documents.Snapshot, edit: types.WorkspaceEdit | None, lines: dict[str, list[str]], what: str
) -> None:
    if edit is None:
        return
    changes: list[tuple[str, list[Any]]] = list((edit.changes or {}).items())
    for change in edit.document_changes or []:
        if not isinstance(change, types.TextDocumentEdit):
            raise Invariant(f"{what}: unexpected document change {change!r}")
        changes.append((change.text_document.uri, list(change.edits)))
    for uri, items in changes:
        for item in items:
            check_range(lines, uri, item.range, what)


def exercise(data: bytes) -> None:
    head, body = (data[0], data[1:]) if data else (0, b"")
    codec = CODECS[head % 3]
    notebook = bool(head & 4)
    document_changes = bool(head & 8)
    text = body.decode("utf-8", errors="replace")
    snap = snapshot(text, codec, notebook)
    lines = document_lines(snap)
    for uri, doc_lines in lines.items():
        if snap.notebook is None or uri in snap.notebook.code_cell_uris():
            round_trip(doc_lines, codec, len(text) * 7 + head)
    result = documents.analyse(snap, SETTINGS, EDITOR, had_findings=True)
    diagnostics: dict[str, list[types.Diagnostic]] = {}
    for finding in result.findings:
        placed = to_diagnostic(finding, SETTINGS, snap.locator, snap.key, snap.token)
        if placed is None:
            continue
        uri, diagnostic = placed
        check_range(lines, uri, diagnostic.range, f"{finding.code} diagnostic")
        diagnostics.setdefault(uri, []).append(diagnostic)
        # Back from the client: the diagnostic's start is inside the finding's span.
        where = snap.locator.to_program(uri, diagnostic.range.start)
        if where is None:
            raise Invariant(f"{finding.code}: the start of its diagnostic maps to no program line")
        if where[0] != finding.span.line and finding.span.line <= len(split_lines(snap.source)):
            raise Invariant(
                f"{finding.code}: diagnostic start maps to line {where[0]}, span is {finding.span}"
            )
        found = hover(result, uri, *where)
        if found is None:
            raise Invariant(f"{finding.code}: no hover at the start of its own diagnostic")
    for info in result.backwards:
        placed = snap.locator.to_client(info.span)
        if placed is not None:
            hover(result, placed[0], info.span.line, info.span.col)
    hover(result, URI, len(text) % 50, head)
    current = snap.token
    resolved = 0
    for uri, items in diagnostics.items():
        context = types.CodeActionContext(diagnostics=items, only=None)
        listed = actions.code_actions(uri, context, EDITOR, True, snap.key, current)
        stale = actions.code_actions(uri, context, EDITOR, True, snap.key, "another version")
        if stale:
            raise Invariant("actions offered for diagnostics of another version")
        fix_all = actions.code_actions(
            uri,
            types.CodeActionContext(diagnostics=[], only=[actions.FIX_ALL]),
            EDITOR,
            True,
            snap.key,
            current,
        )
        for action in listed[: RESOLVED_FINDINGS * 2] + fix_all[:1]:
            data = action.data
            assert isinstance(data, dict)
            edit = actions.resolve(snap, data, SETTINGS, document_changes)
            check_edit(snap, edit, lines, f"{action.title}")
            if edit is not None and snap.notebook is None and data["action"] == "fix" and parses(text):
                edits = (
                    [
                        TextEdit(
                            Span(
                                e.range.start.line + 1,
                                from_position(lines[URI], e.range.start, codec)[1],
                                e.range.end.line + 1,
                                from_position(lines[URI], e.range.end, codec)[1],
                            ),
                            e.new_text,
                        )
                        for _, items in ((URI, (edit.changes or {}).get(URI, [])),)
                        for e in items
                    ]
                    if edit.changes
                    else []
                )
                if edits and not parses(apply_edits(text, edits)):
                    raise Invariant(f"{action.title}: the fix leaves code that does not parse")
            if data["action"] in ("fix", "noqa"):
                moved = {**data, "version": [["elsewhere", 1]] if notebook else 2}
                if actions.resolve(snap, moved, SETTINGS, document_changes) is not None:
                    raise Invariant(f"{action.title}: resolved on a stale version")
            resolved += 1


def write_seeds(seeds: Path) -> None:
    for directory in SEED_DIRS:
        for path in sorted(directory.glob("*.py")):
            source = path.read_bytes()
            for head in (0, 1, 2, 4 | 1, 8 | 2):  # encodings, a notebook, documentChanges
                (seeds / f"{head}-{path.name}").write_bytes(bytes([head]) + source)


if __name__ == "__main__":
    run("fuzz_lsp", __doc__, exercise, ROOT / "fuzz-out" / "lsp", write_seeds)
