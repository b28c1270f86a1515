"""Spans from ``ast`` nodes, with columns converted from UTF-8 bytes to code points."""

from __future__ import annotations

import ast

from gradguard.findings import Span


def _col(lines: list[str], line: int, byte_col: int) -> int:
    # ast counts columns in UTF-8 bytes; Span (and libcst) count code points.
    if not 1 <= line <= len(lines):
        return byte_col
    return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


def node_span(node: ast.AST, lines: list[str]) -> Span:
    """The code-point Span of an ``ast`` statement or expression node.

    ``lines`` are the source lines (with or without their line endings), as split
    by the tokenizer: on ``\\n``, ``\\r\\n`` or ``\\r`` (``str.splitlines`` also splits on
    form feeds and other separators, so use :func:`split_lines`).
    """
    line: int = node.lineno  # type: ignore[attr-defined]
    end_line: int = getattr(node, "end_lineno", None) or line
    col: int = node.col_offset  # type: ignore[attr-defined]
    end_col: int = getattr(node, "end_col_offset", None) or col
    return Span(line, _col(lines, line, col), end_line, _col(lines, end_line, end_col))
