"""The graph view's request (``gradguard/autogradGraph``) and code lenses, in editor coordinates.

The engine draws nothing and knows no editor: it gives the graph of one backward call in program
spans (``engine.graph``); this turns it into the JSON of docs/graph-view.md, with cell URIs for
notebooks. Runs in a worker thread; never raises.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

from ..api import GraphAnswer, autograd_graph, fix_id
from ..engine.graph import graph_fields
from ..engine.incremental import Memo
from ..engine.modules import Loader
from ..findings import Span
from ..settings import Settings
from .documents import MAX_SOURCE_CHARS, Result, Snapshot

logger = logging.getLogger(__name__)

METHOD = "gradguard/autogradGraph"
COMMAND = "gradguard.showGraph"


def graph_json(
    snap: Snapshot,
    uri: str,
    position: types.Position,
    settings: Settings,
    loader: Loader | None,
    fix: str | None,
    memo: Memo | None = None,
) -> dict[str, Any] | None:
    """The answer to one request: the graph of the backward call at ``position`` of ``uri`` (a
    document, or a cell of the notebook ``snap`` holds), or None. ``memo``: the document's last
    analysis's, so the view following the user's typing analyses only what changed."""
    if len(snap.source) > MAX_SOURCE_CHARS:
        return None  # not analysed at all (see documents.MAX_SOURCE_CHARS)
    where = snap.locator.to_program(uri, position)
    if where is None:
        return None
    try:
        answer = autograd_graph(snap.source, where[0], snap.filename, settings, loader, fix, memo)
    except Exception:  # the view shows "no graph" rather than the server failing the request
        logger.exception("gradguard: the autograd graph of %s failed", uri)
        return None
    if answer is None:
        return None
    return _to_json(answer, snap)


def _place(snap: Snapshot, span: Span | None) -> dict[str, Any]:
    placed = snap.locator.to_client(span) if span is not None else None
    if placed is None:
        return {"uri": None, "range": None}
    uri, range_ = placed
    return {"uri": uri, "range": _range(range_)}


def _range(range_: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": range_.start.line, "character": range_.start.character},
        "end": {"line": range_.end.line, "character": range_.end.character},
    }


def _to_json(answer: GraphAnswer, snap: Snapshot) -> dict[str, Any]:
    graph = answer.graph
    finding = answer.finding
    backward = {"label": graph.backward_label, **_place(snap, graph.backward_span)}
    uri = backward["uri"] or snap.key

    def describe(text: str) -> str:
        return snap.locator.describe(text, uri)  # "line 7 of cell 2" in a notebook

    return {
        "version": snap.token,
        "backward": backward,
        **graph_fields(graph, lambda span: _place(snap, span), describe),
        "finding": (
            None
            if finding is None
            else {
                "code": finding.code,
                "message": describe(finding.message),
                "reach": None if graph.reach is None else {"from": graph.reach[0], "to": graph.reach[1]},
            }
        ),
        "fixes": (
            []
            if finding is None or answer.applied is not None
            else [
                {"id": fix_id(finding, i), "title": ref.title, "tradeoff": ref.tradeoff, "preferred": i == 0}
                for i, ref in enumerate(finding.fixes)
            ]
        ),
        "appliedFix": (
            None if answer.applied is None else {"id": answer.applied_id, "title": answer.applied.title}
        ),
    }


def code_lenses(result: Result, uri: str) -> list[types.CodeLens]:
    """A "Show autograd graph" lens above each backward call the analysis ran, in ``uri``."""
    lenses = []
    for info in result.backwards:
        placed = result.snapshot.locator.to_client(info.span)
        if placed is None or placed[0] != uri:
            continue
        range_ = placed[1]
        lenses.append(
            types.CodeLens(
                range=range_,
                command=types.Command(
                    title="Show autograd graph",
                    command=COMMAND,
                    arguments=[uri, {"line": range_.start.line, "character": range_.start.character}],
                ),
            )
        )
    return lenses
