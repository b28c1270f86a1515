"""Between gradguard's positions and the client's.

gradguard counts lines from 1 and columns in code points (what ``ast`` and libcst report); LSP counts
lines from 0 and columns in the negotiated encoding's code units (UTF-16 unless the client offered
another in ``general.positionEncodings``). Lines are split the way both Python's tokenizer and LSP
split them (``\\n``, ``\\r\\n``, ``\\r``), not with ``str.splitlines``, which also breaks at form feeds
and U+2028 and would shift every later line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from lsprotocol import types

from ..findings import Span

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(source: str) -> list[str]:
    """The lines of ``source`` without their line breaks (a final break gives a last empty line)."""
    return _LINE_BREAK.split(source)


class Codec(Protocol):
    """What is needed of pygls' ``PositionCodec``: the length of a string in client code units."""

    def client_num_units(self, string: str) -> int: ...


def _units(codec: Codec, text: str) -> int:
    # Pure ASCII is the common case and is one unit per character in every encoding.
    return len(text) if text.isascii() else int(codec.client_num_units(text))


def to_position(lines: Sequence[str], line: int, col: int, codec: Codec) -> types.Position:
    """A 1-based line and code-point column as an LSP position."""
    index = line - 1
    if index < 0:
        return types.Position(0, 0)
    if index >= len(lines):
        return types.Position(len(lines), 0)
    text = lines[index]
    return types.Position(index, _units(codec, text[: max(col, 0)]))


def to_range(lines: Sequence[str], span: Span, codec: Codec) -> types.Range:
    return types.Range(
        to_position(lines, span.line, span.col, codec), to_position(lines, span.end_line, span.end_col, codec)
    )


def from_position(lines: Sequence[str], position: types.Position, codec: Codec) -> tuple[int, int]:
    """An LSP position as (1-based line, code-point column), clamped to the text."""
    if position.line >= len(lines):
        return len(lines) + 1, 0
    text = lines[position.line]
    if text.isascii():
        return position.line + 1, min(position.character, len(text))
    units = 0
    for index, char in enumerate(text):
        if units >= position.character:
            return position.line + 1, index
        units += _units(codec, char)
    return position.line + 1, len(text)


def contains(span: Span, line: int, col: int) -> bool:
    """Is (line, col) inside ``span``, ends included (a cursor right after the squiggle counts)?"""
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


class Locator(Protocol):
    """Maps program spans of one analysed document (a file, or a notebook as one program) to the
    client's documents, and back."""

    def to_client(self, span: Span) -> tuple[str, types.Range] | None:
        """(document URI, range) of a program span; None when it cannot be shown (crosses cells)."""
        ...

    def to_program(self, uri: str, position: types.Position) -> tuple[int, int] | None:
        """(1-based program line, code-point column) of a client position in document ``uri``."""
        ...

    def line_text(self, uri: str, line: int) -> str | None:
        """The text of a 1-based program line, for the noqa edit."""
        ...

    def describe(self, text: str, uri: str) -> str:
        """``text`` with program line numbers as the user sees them from document ``uri``."""
        ...


class TextLocator:
    """A plain file: the program is the document."""

    def __init__(self, uri: str, source: str, codec: Codec) -> None:
        self.uri = uri
        self.lines = split_lines(source)
        self.codec = codec

    def to_client(self, span: Span) -> tuple[str, types.Range] | None:
        return self.uri, to_range(self.lines, span, self.codec)

    def to_program(self, uri: str, position: types.Position) -> tuple[int, int] | None:
        if uri != self.uri:
            return None
        return from_position(self.lines, position, self.codec)

    def line_text(self, uri: str, line: int) -> str | None:
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else None

    def describe(self, text: str, uri: str) -> str:
        return text


def apply_change(source: str, range_: types.Range, text: str, codec: Codec) -> str:
    """``source`` with the client's incremental change applied: lines split as LSP splits them, and
    positions past the end of a line or of the document clamped (as editors do).

    pygls splits with ``str.splitlines``, which also breaks at form feeds, U+2028 and other
    separators that are no line end for the client: after one of them, every change landed on the
    wrong line and the server's copy of the document silently drifted from the editor's. A change
    starting past the last line was dropped."""
    lines = split_lines(source)
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(source)]

    def offset(position: types.Position) -> int:
        line, col = from_position(lines, position, codec)
        return len(source) if line > len(lines) else starts[line - 1] + col

    start, end = sorted((offset(range_.start), offset(range_.end)))
    return source[:start] + text + source[end:]
