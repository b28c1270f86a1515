"""Lines, offsets and code-point positions in source text."""

from __future__ import annotations

import bisect
import re

from gradguard.engine.positions import split_lines
from gradguard.findings import Span


def line_starts(text: str) -> list[int]:
    """Offset of the first character of every line; a final newline opens an empty last line."""
    starts = [0]
    for line in split_lines(text):
        if line.endswith(("\n", "\r")):
            starts.append(starts[-1] + len(line))
    return starts


def position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and 0-based code-point column of ``offset``."""
    index = bisect.bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index]


def offset_of(text: str, starts: list[int], line: int, col: int) -> int:
    if not 1 <= line <= len(starts) or col < 0:
        raise ValueError(f"position {line}:{col} is outside the text")
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    if start + col > end:
        raise ValueError(f"position {line}:{col} is past the end of its line")
    return start + col


def span_of_offsets(starts: list[int], start: int, end: int) -> Span:
    line, col = position(starts, start)
    end_line, end_col = position(starts, end)
    return Span(line, col, end_line, end_col)


def newline_of(text: str) -> str:
    """The file's line ending (the first one found; ``\\n`` when there is none)."""
    match = re.search(r"\r\n|\r|\n", text)
    return match.group(0) if match else "\n"
