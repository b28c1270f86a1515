"""Finding libcst nodes by the code-point spans that ``ast`` gives.

libcst 1.5.1's PositionProvider counts columns in code points and, like ``ast``,
leaves a node's own parentheses out of its range; a compound statement ends where
its last body statement ends, and a decorated ``def``/``class`` starts at the
``def``/``class`` line, as in ``ast``. (Checked on every statement and expression
of 400 torch source files: all statements match.) Two exceptions: ``ast`` puts a
tuple's parentheses inside the tuple's span, and gives a generator expression that
is a call's only argument the call's parentheses; libcst does neither. A tuple in a
subscript (``x[a, b]``) has no libcst node at all.
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradguard.findings import Span
from gradguard.fixes.text import line_starts, split_lines

# Between a parenthesis and what it encloses: whitespace, line breaks, comments.
_OPEN = re.compile(r"\((?:\s|#[^\r\n]*)*")
_INDENT = re.compile(r"[ \t\x0c]*")
_CLOSE = re.compile(r"(?:\s|#[^\r\n]*)*\)")

Key = tuple[int, int, int, int]


class Stale(Exception):
    """The span no longer matches a node of the expected shape, or the fix does not apply."""


class _Parents(cst.CSTVisitor):
    def __init__(self) -> None:
        self.parent: dict[cst.CSTNode, cst.CSTNode] = {}
        self.order: dict[cst.CSTNode, int] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parent[node] = self._stack[-1]
        self.order[node] = len(self.order)
        self._stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


class Index:
    """One parse of a file: its module, node positions and parents."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = line_starts(source)
        self.module = cst.parse_module(source)
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        parents = _Parents()
        self.module.visit(parents)
        self.parent = parents.parent
        self.order = parents.order
        shift = _form_feed_shift(source)
        self.by_span: dict[Key, list[cst.CSTNode]] = {}
        for node, where in positions.items():
            start, end = where.start, where.end
            key = (
                start.line,
                start.column + shift.get(start.line, 0),
                end.line,
                end.column + shift.get(end.line, 0),
            )
            self.by_span.setdefault(key, []).append(node)
        # Tuples and generator expressions, for spans that include their parentheses.
        self.enclosed = [
            (node, key)
            for key, nodes in self.by_span.items()
            for node in nodes
            if isinstance(node, (cst.Tuple, cst.GeneratorExp))
        ]
        for nodes in self.by_span.values():
            nodes.sort(key=lambda n: self.order.get(n, 0))  # outermost first

    def _nodes(self, key: Key, kinds: tuple[type, ...]) -> list[cst.CSTNode]:
        return [n for n in self.by_span.get(key, ()) if isinstance(n, kinds)]

    def stmt(self, raw: Any) -> cst.CSTNode:
        """The small statement (in its SimpleStatementLine/Suite) or compound statement at a span."""
        key = span_key(raw)
        for node in self._nodes(key, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            if isinstance(node, cst.BaseCompoundStatement) or isinstance(
                self.parent.get(node), (cst.SimpleStatementLine, cst.SimpleStatementSuite)
            ):
                return node
        raise Stale(f"no statement at {key}")

    def loop(self, raw: Any) -> cst.For | cst.While | cst.FunctionDef:
        """A loop, or a closure an L-BFGS step calls again and again (its body is what repeats)."""
        for node in self._nodes(span_key(raw), (cst.For, cst.While, cst.FunctionDef)):
            assert isinstance(node, (cst.For, cst.While, cst.FunctionDef))
            return node
        raise Stale("no loop at span")

    def expr(self, raw: Any, kinds: tuple[type, ...] = (cst.BaseExpression,)) -> cst.BaseExpression:
        key = span_key(raw)
        found = self._nodes(key, kinds) or self._parenthesized(key, kinds)
        for node in found:
            if isinstance(node, cst.StarredElement):
                continue  # `*x` is an element of a display in libcst, not a value to build on
            assert isinstance(node, cst.BaseExpression)
            return node
        raise Stale(f"no expression at {key}")

    def _offset(self, line: int, col: int) -> int:
        if not 1 <= line <= len(self.starts):
            return -1
        return self.starts[line - 1] + col

    def _parenthesized(self, key: Key, kinds: tuple[type, ...]) -> list[cst.CSTNode]:
        """A tuple or generator expression whose ``ast`` span includes the parentheses around it."""
        start, end = self._offset(key[0], key[1]), self._offset(key[2], key[3])
        head = _OPEN.match(self.source, start, end) if 0 <= start <= end else None
        if head is None:
            return []
        found: list[cst.CSTNode] = []
        for node, (line, col, end_line, end_col) in self.enclosed:
            inner_end = self._offset(end_line, end_col)
            if (
                isinstance(node, kinds)
                and self._offset(line, col) == head.end()
                and head.end() <= inner_end <= end
                and _CLOSE.fullmatch(self.source, inner_end, end)
            ):
                found.append(node)
        return found

    def call(self, raw: Any) -> cst.Call:
        node = self.expr(raw, (cst.Call,))
        assert isinstance(node, cst.Call)
        return node

    def inside(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        """Whether ``node`` is ``ancestor`` or lies within it."""
        current: cst.CSTNode | None = node
        while current is not None:
            if current is ancestor:
                return True
            current = self.parent.get(current)
        return False


def _form_feed_shift(source: str) -> dict[int, int]:
    """Per line, how far libcst's columns lag behind code points.

    libcst (like CPython's tokenizer for indentation) restarts the column count after
    a form feed in a line's leading whitespace; ``ast`` and Span count every character.
    """
    if "\x0c" not in source:
        return {}
    shift: dict[int, int] = {}
    for number, line in enumerate(split_lines(source), start=1):
        indent = _INDENT.match(line)
        if indent is not None and "\x0c" in indent.group(0):
            shift[number] = indent.group(0).rindex("\x0c") + 1
    return shift


def span_key(raw: Any) -> Key:
    if isinstance(raw, Span):
        return (raw.line, raw.col, raw.end_line, raw.end_col)
    if not isinstance(raw, (list, tuple)) or len(raw) != 4:
        raise Stale(f"bad span {raw!r}")
    line, col, end_line, end_col = (int(v) for v in raw)
    return (line, col, end_line, end_col)
