"""Fixes computed on demand from a FixRef, with libcst, as minimal text edits.

``compute(source, ref)`` parses the file once, locates the nodes the FixRef's spans
name, applies the primitive(s) and diffs old against new text. It returns None,
never raises, when the spans no longer match (stale) or the fix does not apply.
"""

from __future__ import annotations

import ast
import functools
import gc
import warnings

from gradguard.engine.positions import first_line
from gradguard.findings import Fix, FixRef, Span, TextEdit
from gradguard.fixes.edits import apply_edits, diff_edits
from gradguard.fixes.locate import Index
from gradguard.fixes.plan import Plan
from gradguard.fixes.primitives import PRIMITIVES, build
from gradguard.fixes.spans import node_span
from gradguard.fixes.text import split_lines

__all__ = ["KINDS", "apply_edits", "compute", "new_source", "node_span", "split_lines"]

KINDS = frozenset(PRIMITIVES)


@functools.lru_cache(maxsize=2)
def _index(source: str) -> Index:
    # Fixes of one file come in runs (every finding, fix-all, resolve after resolve): parse it once.
    # An Index is read-only: plans build new trees from it.
    return Index(source)


def new_source(source: str, ref: FixRef) -> str | None:
    """The whole file after the fix, or None when it does not apply."""
    edits = _edits(source, ref)
    if edits is None:
        return None
    try:
        new = apply_edits(source, edits)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new)
    except Exception:
        return None
    return new


def _edits(source: str, ref: FixRef) -> tuple[TextEdit, ...] | None:
    """The fix's edits, or None when it does not apply.

    libcst transforms and prints a whole module per fix (about 0.6 s for 3,000 lines), so only the
    top-level statements the fix's spans touch go through it; the rest of the file is kept as is.
    Those statements are parsed, checked and diffed on their own: whole statements replaced by
    statements that parse leave a file that parses, and a diff or a parse of the whole file per fix
    costs seconds on 50,000 lines (``--fix`` computes one fix per finding)."""
    try:
        window = _window(source, ref.params)
    except Exception:  # the window is an optimisation: on any doubt, fix the whole file
        window = None
    lines = split_lines(source)
    if window is None or (window[0] == 1 and window[1] >= len(lines)):
        new = _new_source(source, ref)
        return None if new is None else diff_edits(source, new)
    start, end = window
    shifted = FixRef(
        ref.kind, ref.title, ref.tradeoff, {k: _shift(v, start - 1) for k, v in ref.params.items()}
    )
    before = "".join(lines[start - 1 : end])
    piece = _new_source(before, shifted)
    if piece is None:
        return None
    return tuple(_shift_edit(edit, start - 1) for edit in diff_edits(before, piece))


def _shift_edit(edit: TextEdit, lines: int) -> TextEdit:
    s = edit.span
    return TextEdit(Span(s.line + lines, s.col, s.end_line + lines, s.end_col), edit.new_text)


@functools.lru_cache(maxsize=2)
def _top_level(source: str) -> tuple[tuple[int, int], ...]:
    """(first line, last line) of every top-level statement, decorators included."""
    # The tree is thrown away at once: cyclic GC passes during the parse of a big file cost
    # seconds and free nothing (as in the engine).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    finally:
        if gc_was_enabled:
            gc.enable()
    out = []
    for stmt in tree.body:
        out.append((first_line(stmt), stmt.end_lineno or stmt.lineno))
    return tuple(out)


def _spans(params: object) -> list[list[int]]:
    if isinstance(params, dict):
        return [s for v in params.values() for s in _spans(v)]
    if isinstance(params, list):
        if len(params) == 4 and all(type(v) is int for v in params):
            return [params]
        return [s for v in params for s in _spans(v)]
    return []


def _shift(params: object, lines: int) -> object:
    """The same params with every span moved up by ``lines``."""
    if isinstance(params, dict):
        return {k: _shift(v, lines) for k, v in params.items()}
    if isinstance(params, list):
        if len(params) == 4 and all(type(v) is int for v in params):
            return [params[0] - lines, params[1], params[2] - lines, params[3]]
        return [_shift(v, lines) for v in params]
    return params


def _window(source: str, params: object) -> tuple[int, int] | None:
    """The lines of the top-level statements that hold every span of the fix."""
    spans = _spans(params)
    if not spans:
        return None
    lo = min(s[0] for s in spans)
    hi = max(s[2] for s in spans)
    start, end = lo, hi
    for first, last in _top_level(source):
        if last >= lo and first <= hi:
            start, end = min(start, first), max(end, last)
    return start, end


def _new_source(source: str, ref: FixRef) -> str | None:
    try:
        plan = Plan(_index(source))
        build(plan, ref.kind, ref.params)
        new = plan.apply().code
        if source.endswith("\r") and not new.endswith(("\r", "\n")):
            # libcst 1.5 drops the last line ending of a file with CR-only line endings; on a
            # window that would join its last line to the next statement of the file.
            new += "\r"
        if new == source:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new)
    except Exception:  # bad input (stale spans, odd params, unparsable code) means no fix
        return None
    return new


def compute(source: str, ref: FixRef) -> Fix | None:
    # A byte-order mark is not part of the text that spans count (editors hide it, and
    # `ast` rejects it); libcst would drop it, so work after it and keep it.
    bom = source.startswith("\ufeff")
    body = source[1:] if bom else source
    edits = _edits(body, ref)
    if not edits:
        return None
    if bom:
        edits = tuple(_shift_first_line(edit) for edit in edits)
    return Fix(ref.title, ref.tradeoff, edits, applicability=ref.applicability)


def _shift_first_line(edit: TextEdit) -> TextEdit:
    s = edit.span
    span = Span(s.line, s.col + (s.line == 1), s.end_line, s.end_col + (s.end_line == 1))
    return TextEdit(span, edit.new_text)
