"""Code actions: each finding's fixes (ranked, the first preferred), "Disable GGnnn for this line",
and ``source.fixAll.gradguard``.

Listing actions is cheap: it reads the diagnostics' ``data`` and computes no edit. The edits are
computed in ``codeAction/resolve`` (libcst, in a worker thread) against the document as it is then,
so moving the cursor costs nothing.

A finding's fix and its "disable" comment are tied to the version of the document the finding was
computed on (``data["version"]``): once the document has moved on, the target may have moved or
changed, so they are neither offered nor resolved (the fresh diagnostics bring fresh actions). The
edits of a resolved action name the document version they were computed against
(``VersionedTextDocumentIdentifier``, when the client takes ``documentChanges``), so a client whose
document changed between the resolve and the apply rejects them rather than edit the wrong text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from ..api import compute_fix, fix_notebook, fix_source
from ..findings import FixRef, Span, TextEdit
from ..noqa import is_suppressed, suppressions
from ..notebook import Notebook, NotebookError
from ..settings import Settings
from .diagnostics import SOURCE
from .documents import Snapshot
from .settings import EditorSettings

FIX_ALL = "source.fixAll.gradguard"
# What VS Code asks notebook cells for on save ("notebook.codeActionsOnSave").
NOTEBOOK_FIX_ALL = "notebook.source.fixAll.gradguard"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL, NOTEBOOK_FIX_ALL]

# A noqa comment with codes ending the line: new codes join it rather than start a second comment.
_NOQA_TAIL = re.compile(r"#\s*noqa\s*:\s*[A-Za-z]+\d+(?:[\s,]+[A-Za-z]+\d+)*\s*$", re.I)


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Does ``kind`` fall under the requested kinds (hierarchical: "source" covers "source.x.y")?"""
    if not only:
        return True
    return any(kind == item or kind.startswith(item + ".") for item in only)


def _data(diagnostic: types.Diagnostic) -> dict[str, Any] | None:
    data = diagnostic.data
    if diagnostic.source != SOURCE or not isinstance(data, dict) or "span" not in data:
        return None
    return data


def code_actions(
    uri: str,
    context: types.CodeActionContext,
    editor: EditorSettings,
    fixable: bool,
    key: str,
    current: Any = None,
) -> list[types.CodeAction]:
    """Unresolved actions for the diagnostics in ``context``; ``fixable``: the document has at least
    one finding whose preferred fix is safe (fix-all applies those only); ``current``: the
    document's version token now (diagnostics of another version get no action)."""
    only = context.only
    actions: list[types.CodeAction] = []
    quick = wanted(types.CodeActionKind.QuickFix, only)
    for diagnostic in context.diagnostics:
        data = _data(diagnostic)
        if data is None or not quick or data.get("version") != current:
            continue
        code = str(data.get("code", diagnostic.code))
        common = {
            "uri": uri,
            "key": data.get("key", key),
            "version": data.get("version"),
            "code": code,
            "span": data["span"],
        }
        if editor.fix_violation:
            for rank, ref in enumerate(data.get("fixes") or []):
                title = f"gradguard ({code}): {ref.get('title', 'Fix')}"
                if ref.get("applicability") != "safe":
                    # Changes what is computed or what trains: the hover gives the trade-off.
                    title += " (unsafe)"
                actions.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=rank == 0,
                        data={**common, "action": "fix", "fix": ref},
                    )
                )
        if editor.disable_rule_comment:
            actions.append(
                types.CodeAction(
                    title=f"Disable {code} for this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    data={**common, "action": "noqa"},
                )
            )
    kinds = [FIX_ALL] + ([NOTEBOOK_FIX_ALL] if key != uri else [])
    for kind in kinds:
        if editor.fix_all and fixable and only and any(wanted(kind, [item]) for item in only):
            actions.append(
                types.CodeAction(
                    title="gradguard: Fix all auto-fixable problems (safe fixes)",
                    kind=kind,
                    data={"uri": uri, "key": key, "action": "fixAll"},
                )
            )
    return actions


# ---- resolve (in a worker thread) ---------------------------------------------------------------


def _versions(snap: Snapshot) -> dict[str, int]:
    if snap.notebook is not None:
        return {cell.uri: cell.version for cell in snap.notebook.cells}
    return {snap.key: int(snap.version) if isinstance(snap.version, int) else 0}


def workspace_edit(
    snap: Snapshot, edits: Sequence[TextEdit], document_changes: bool
) -> types.WorkspaceEdit | None:
    """Program edits as a WorkspaceEdit over the documents (cells) they fall in; None if one cannot
    be placed (it would cross cells)."""
    by_uri: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        placed = snap.locator.to_client(edit.span)
        if placed is None:
            return None
        uri, range_ = placed
        by_uri.setdefault(uri, []).append(types.TextEdit(range_, edit.new_text))
    if not by_uri:
        return None
    if not document_changes:
        return types.WorkspaceEdit(changes=by_uri)
    versions = _versions(snap)
    changes: list[Any] = [
        types.TextDocumentEdit(
            types.OptionalVersionedTextDocumentIdentifier(uri, versions.get(uri)), list(items)
        )
        for uri, items in by_uri.items()
    ]
    return types.WorkspaceEdit(document_changes=changes)


def _fix_edits(snap: Snapshot, raw: dict[str, Any]) -> tuple[TextEdit, ...] | None:
    try:
        ref = FixRef.from_json(raw)
    except (KeyError, TypeError, ValueError):
        return None
    fix = compute_fix(snap.source, ref)
    if fix is None:
        return None
    if snap.notebook is not None and not snap.notebook.notebook.fix_fits(fix):
        return None
    return fix.edits


def noqa_edit(snap: Snapshot, code: str, line: int) -> TextEdit | None:
    """Add ``code`` to a ``# noqa`` comment on program line ``line``, checked by reading the comments
    back (so a line that ends inside a string is refused rather than changed)."""
    text = snap.locator.line_text("", line)
    if text is None:
        return None
    stripped = text.rstrip()
    tail = _NOQA_TAIL.search(stripped)
    if tail is not None:
        edit = TextEdit(Span(line, len(stripped), line, len(stripped)), f", {code}")
    else:
        edit = TextEdit(Span(line, len(stripped), line, len(text)), f"  # noqa: {code}")
    from ..fixes import apply_edits  # libcst is imported on the first resolve, not at start-up

    try:
        new = apply_edits(snap.source, [edit])
    except ValueError:
        return None
    if not is_suppressed(code, line, suppressions(new)):
        return None
    return edit


def _notebook_fix_all(snap: Snapshot, settings: Settings) -> list[TextEdit] | None:
    from ..fixes.edits import diff_edits

    assert snap.notebook is not None
    old = snap.notebook.notebook
    new_text, applied = fix_notebook(old.dumps(), snap.filename, settings)
    if not applied:
        return None
    try:
        new = Notebook.parse(new_text)
    except NotebookError:
        return None
    edits: list[TextEdit] = []
    for cell in old.cells:
        before, after = old.cell_source(cell.index), new.cell_source(cell.index)
        if before == after:
            continue
        # Cell edits, shifted into program lines so the locator maps them back to this cell.
        padded = before if before.endswith("\n") else before + "\n"
        after_padded = after if after.endswith("\n") or not after else after + "\n"
        for edit in diff_edits(padded, after_padded):
            span = edit.span
            shift = cell.start - 1
            edits.append(
                TextEdit(
                    Span(span.line + shift, span.col, span.end_line + shift, span.end_col), edit.new_text
                )
            )
    return edits


def resolve(
    snap: Snapshot, data: dict[str, Any], settings: Settings, document_changes: bool
) -> types.WorkspaceEdit | None:
    """The edit of an action listed by ``code_actions``, on the document as it is now; None for a
    finding's action when the document is no longer the version the finding was computed on."""
    action = data.get("action")
    if action in ("fix", "noqa") and data.get("version") != snap.token:
        return None  # stale: the target may have moved or changed since the diagnostic
    if action == "fix":
        fix = data.get("fix")
        edits = _fix_edits(snap, fix) if isinstance(fix, dict) else None
        return workspace_edit(snap, edits, document_changes) if edits else None
    if action == "noqa":
        try:
            span = Span.from_json(data["span"])
        except (KeyError, TypeError, ValueError):
            return None
        edit = noqa_edit(snap, str(data.get("code", "")), span.line)
        return workspace_edit(snap, [edit], document_changes) if edit else None
    if action == "fixAll":
        if snap.notebook is not None:
            cell_edits = _notebook_fix_all(snap, settings)
            return workspace_edit(snap, cell_edits, document_changes) if cell_edits else None
        from ..fixes.edits import diff_edits

        new, applied = fix_source(snap.source, snap.filename, settings)
        if not applied or new == snap.source:
            return None
        return workspace_edit(snap, diff_edits(snap.source, new), document_changes)
    return None
