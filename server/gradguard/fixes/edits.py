"""Minimal TextEdits between two versions of a file, and applying them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from gradguard.findings import TextEdit
from gradguard.fixes.text import line_starts, offset_of, span_of_offsets, split_lines


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def diff_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """One edit per changed hunk of a line diff, trimmed to the characters that differ."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    old_offsets = [0]
    for line in old_lines:
        old_offsets.append(old_offsets[-1] + len(line))
    starts = line_starts(old)
    edits: list[TextEdit] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = old_offsets[i1], old_offsets[i2]
        before, after = old[start:end], "".join(new_lines[j1:j2])
        prefix = _common_prefix(before, after)
        # Never split a \r\n pair: an LSP position cannot sit between them.
        if prefix and before[prefix - 1 : prefix + 1] == "\r\n":
            prefix -= 1
        limit = min(len(before), len(after)) - prefix
        suffix = _common_prefix(before[::-1], after[::-1])
        suffix = min(suffix, limit)
        if suffix and before[len(before) - suffix - 1 : len(before) - suffix + 1] == "\r\n":
            suffix -= 1
        text = after[prefix : len(after) - suffix]
        span = span_of_offsets(starts, start + prefix, end - suffix)
        edits.append(TextEdit(span, text))
    return tuple(edits)


def apply_edits(source: str, edits: Sequence[TextEdit]) -> str:
    """Apply non-overlapping edits (spans refer to ``source``); raises ValueError on overlap."""
    starts = line_starts(source)
    located = []
    for index, edit in enumerate(edits):
        s = edit.span
        start = offset_of(source, starts, s.line, s.col)
        end = offset_of(source, starts, s.end_line, s.end_col)
        if end < start:
            raise ValueError(f"edit {index} ends before it starts")
        located.append((start, end, index, edit.new_text))
    located.sort()
    out: list[str] = []
    cursor = 0
    for start, end, _, text in located:
        if start < cursor:
            raise ValueError("overlapping edits")
        out.append(source[cursor:start])
        out.append(text)
        cursor = end
    out.append(source[cursor:])
    return "".join(out)
