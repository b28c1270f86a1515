"""Fixes computed on demand from a FixRef, with libcst, as minimal text edits.

``compute(source, ref)`` parses the file once, locates the nodes the FixRef's spans
name, applies the primitive(s) and diffs old against new text. It returns None,
never raises, when the spans no longer match (stale) or the fix does not apply.
"""

from __future__ import annotations

import ast
import warnings

from gradguard.findings import Fix, FixRef, Span, TextEdit
from gradguard.fixes.edits import apply_edits, diff_edits
from gradguard.fixes.locate import Index
from gradguard.fixes.plan import Plan
from gradguard.fixes.primitives import PRIMITIVES, build
from gradguard.fixes.spans import node_span
from gradguard.fixes.text import split_lines

__all__ = ["KINDS", "apply_edits", "compute", "new_source", "node_span", "split_lines"]

KINDS = frozenset(PRIMITIVES)


def new_source(source: str, ref: FixRef) -> str | None:
    """The whole file after the fix, or None when it does not apply."""
    try:
        plan = Plan(Index(source))
        build(plan, ref.kind, ref.params)
        new = plan.apply().code
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
    new = new_source(body, ref)
    if new is None:
        return None
    edits = diff_edits(body, new)
    if bom:
        edits = tuple(_shift_first_line(edit) for edit in edits)
    return Fix(ref.title, ref.tradeoff, edits)


def _shift_first_line(edit: TextEdit) -> TextEdit:
    s = edit.span
    span = Span(s.line, s.col + (s.line == 1), s.end_line, s.end_col + (s.end_line == 1))
    return TextEdit(span, edit.new_text)
