"""Source positions: ``ast`` gives UTF-8 byte columns; findings use code points."""

from __future__ import annotations

import ast
import re

from ..findings import Span

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A line with its ending, as the tokenizer ends lines; and the other marks str.splitlines ends at.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ODD_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python's tokenizer counts them (at \\r\\n, \\r or \\n only), each
    with its line ending."""
    if _ODD_BREAKS.search(text) is None:
        return text.splitlines(keepends=True)  # the same lines here, several times faster
    return _LINE.findall(text)


def first_line(stmt: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


class Positions:
    def __init__(self, source: str) -> None:
        # Python ends lines at \r\n, \r or \n only; str.splitlines() also breaks at form feeds,
        # \x85, \u2028 and others, which would shift every line after them.
        self.lines = source.split("\n") if "\r" not in source else _LINE_BREAK.split(source)

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
        """The node's source, on one line, shortened for messages: the arguments of its largest
        calls become ``...`` (``torch.autograd.grad(...)[0]``) before anything is cut mid-word."""
        try:
            text = _one_line(node)
            if len(text) <= limit:
                return text
            short = _collapse_calls(node, limit)
        except Exception:  # unparse of odd nodes must never break analysis
            return "expression"
        if short is not None:
            return short
        return text[: limit - 1] + "…"

    def shortened(self, node: ast.AST, text: str) -> bool:
        """Is ``text`` (from ``text(node)``) an abbreviation of the node's source?"""
        try:
            return text != _one_line(node)
        except Exception:  # as in `text`
            return True


def _one_line(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


def _collapse_calls(node: ast.AST, limit: int) -> str | None:
    """``node``'s text with the arguments of its calls, largest first, written ``...`` until it
    fits in ``limit``; None if it never does. Works on a copy: the tree stays as analysed."""
    copy = _copy_tree(node)
    calls = [n for n in ast.walk(copy) if isinstance(n, ast.Call) and (n.args or n.keywords)]
    # Outer calls are longer than the calls inside them, so they collapse first.
    calls.sort(key=lambda c: len(_one_line(c)), reverse=True)
    gone: set[int] = set()  # calls inside arguments already collapsed
    for call in calls:
        if id(call) in gone:
            continue
        for arg in [*call.args, *call.keywords]:
            gone.update(id(n) for n in ast.walk(arg))
        call.args = [ast.Constant(value=...)]
        call.keywords = []
        text = _one_line(copy)
        if len(text) <= limit:
            return text
    return None


def _copy_tree(node: ast.AST) -> ast.AST:
    """A copy of the AST fields only (positions and anything else on the nodes stay behind)."""
    fields: dict[str, object] = {}
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            fields[name] = _copy_tree(value)
        elif isinstance(value, list):
            fields[name] = [_copy_tree(v) if isinstance(v, ast.AST) else v for v in value]
        else:
            fields[name] = value
    return type(node)(**fields)
