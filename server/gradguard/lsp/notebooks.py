"""Notebooks from ``notebookDocument/*`` sync, analysed as one program in cell order.

The cells are handed to ``gradguard.notebook.Notebook`` (the same code the CLI uses for ``.ipynb``
files), which skips IPython magics and shell escapes and keeps the line maps both ways. Markup cells
and code cells in another language stay in the cell list, so cell numbers match what the user sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from ..findings import Span
from ..notebook import Notebook, renumber_lines
from ..record import record
from .positions import Codec, from_position, split_lines, to_range

PYTHON_LANGUAGES = frozenset({"python", "jupyter-python"})


@record(frozen=True)
class CellText:
    uri: str
    text: str
    version: int
    code: bool  # a Python code cell (markup and other languages are not analysed)


def cell_texts(
    notebook: types.NotebookDocument, lookup: Callable[[str], tuple[str, int, str | None] | None]
) -> list[CellText]:
    """The cells of ``notebook`` in order; ``lookup(uri)`` gives a cell's (text, version, language)."""
    cells = []
    for cell in notebook.cells:
        found = lookup(cell.document)
        text, version, language = found if found is not None else ("", 0, None)
        code = cell.kind == types.NotebookCellKind.Code and (language or "python") in PYTHON_LANGUAGES
        cells.append(CellText(cell.document, text, version, code))
    return cells


def program_of(cells: list[CellText]) -> Notebook:
    data: dict[str, Any] = {
        "cells": [
            {"cell_type": "code" if cell.code else "markdown", "source": cell.text, "metadata": {}}
            for cell in cells
        ],
        "metadata": {},
    }
    return Notebook.parse(json.dumps(data))


class NotebookLocator:
    """Maps program spans to cells and cell positions to the program."""

    def __init__(self, cells: list[CellText], codec: Codec) -> None:
        self.cells = cells
        self.notebook = program_of(cells)
        self.codec = codec
        self._index = {cell.uri: i for i, cell in enumerate(cells)}
        self._lines = {cell.uri: split_lines(cell.text) for cell in cells if cell.code}

    @property
    def program(self) -> str:
        return self.notebook.program

    def code_cell_uris(self) -> list[str]:
        return [cell.uri for cell in self.cells if cell.code]

    def to_cell_span(self, span: Span) -> tuple[str, Span] | None:
        located = self.notebook.to_cell_span(span)
        if located is None:
            return None
        cell, cell_span = located
        return self.cells[cell.index].uri, cell_span

    def to_client(self, span: Span) -> tuple[str, types.Range] | None:
        located = self.to_cell_span(span)
        if located is None:
            return None
        uri, cell_span = located
        return uri, to_range(self._lines[uri], cell_span, self.codec)

    def to_program(self, uri: str, position: types.Position) -> tuple[int, int] | None:
        index = self._index.get(uri)
        if index is None or uri not in self._lines:
            return None
        line, col = from_position(self._lines[uri], position, self.codec)
        try:
            return self.notebook.program_line(index, line), col
        except KeyError:
            return None

    def line_text(self, uri: str, line: int) -> str | None:
        located = self.notebook.locate(line)
        if located is None:
            return None
        cell, cell_line = located
        lines = self._lines.get(self.cells[cell.index].uri, [])
        return lines[cell_line - 1] if cell_line <= len(lines) else None

    def describe(self, text: str, uri: str) -> str:
        index = self._index.get(uri)
        return renumber_lines(text, self.notebook, None if index is None else index + 1)

    def replaced(self, line: int) -> bool:
        """Is program line ``line`` a rewritten IPython line (code the user never wrote as Python)?"""
        located = self.notebook.locate(line)
        return located is None or located[1] in located[0].replaced
