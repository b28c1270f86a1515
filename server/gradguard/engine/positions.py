"""Source positions: ``ast`` gives UTF-8 byte columns; findings use code points."""

from __future__ import annotations

import ast
import re

from ..findings import Span

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Positions:
    def __init__(self, source: str) -> None:
        # Python ends lines at \r\n, \r or \n only; str.splitlines() also breaks at form feeds,
        # \x85, \u2028 and others, which would shift every line after them.
        self.lines = _LINE_BREAK.split(source)

    def col(self, line: int, byte_col: int) -> int:
        if not 0 < line <= len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self.col(line, getattr(node, "col_offset", 0))
        end_byte = getattr(node, "end_col_offset", None)
        end_col = self.col(end_line, end_byte) if end_byte is not None else col
        return Span(line, col, end_line, end_col)

    def text(self, node: ast.AST, limit: int = 60) -> str:
        """The node's source, on one line, shortened for messages."""
        try:
            text = ast.unparse(node)
        except Exception:  # unparse of odd nodes must never break analysis
            return "expression"
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 1] + "…"
