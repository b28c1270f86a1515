"""Jupyter notebooks as one program.

The code cells are concatenated in order, so a graph built in cell 1 and backpropagated in a loop in
cell 3 is found. IPython syntax (``%magic``, ``%%cell`` magics, ``!shell``, ``?obj``, ``obj?``) is
replaced by ``pass`` at the same indentation, keeping line counts, and a cell that still does not parse
is blanked so one broken cell does not hide findings in the others. Line maps go both ways, fixes are
applied back into the cells, and the JSON is written back with everything else untouched.
The language server reuses this module.
"""

from __future__ import annotations

import ast
import json
import keyword
import re
from collections.abc import Callable, Sequence
from typing import Any

from .findings import Fix, Span, TextEdit
from .record import field, record

# Cell magics whose body is ordinary Python; any other cell magic makes the cell foreign.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "pypy", "python", "python3"}
_HELP_RE = re.compile(r"^\s*(\?{1,2}[\w.]|[\w.\[\]()]+\?{1,2}\s*$)")
_ASSIGN_MAGIC_RE = re.compile(r"^\s*[\w.,\s()\[\]]+=\s*[!%]")


class NotebookError(ValueError):
    """A notebook file that is not valid notebook JSON."""


@record(frozen=True)
class CellSlice:
    """Where one code cell sits in the program."""

    index: int  # position in the notebook's ``cells`` list (0-based)
    number: int  # 1-based position among all cells (markdown too), as ruff reports ``cell``
    start: int  # first program line of the cell (1-based)
    line_count: int  # lines the cell occupies in the program (at least 1)
    replaced: frozenset[int] = frozenset()  # cell lines (1-based) rewritten from IPython syntax
    # Why the cell was left out (blanked), in the cell's own coordinates: it is neither Python nor
    # IPython syntax. None for cells analysed, and for cells in another language (%%bash).
    syntax_error: SyntaxError | None = field(default=None, compare=False)


@record
class Notebook:
    data: dict[str, Any]
    cells: list[CellSlice] = field(default_factory=list)
    program: str = ""
    source_is_list: dict[int, bool] = field(default_factory=dict)
    indent: int | None = 1
    trailing_newline: bool = True

    # ---- reading ---------------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Notebook:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"not valid notebook JSON: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise NotebookError("not a Jupyter notebook (no 'cells' list)")
        notebook = cls(data=data, indent=_detect_indent(text), trailing_newline=text.endswith("\n"))
        if notebook.is_python():
            notebook._build()
        return notebook

    def is_python(self) -> bool:
        # Hand-edited or foreign JSON may put anything here: read only what has the expected shape.
        metadata = _mapping(self.data.get("metadata"))
        language = _mapping(metadata.get("language_info")).get("name") or _mapping(
            metadata.get("kernelspec")
        ).get("language")
        return language is None or str(language).lower() == "python"

    def cell_source(self, index: int) -> str:
        source = self.data["cells"][index].get("source", "")
        if isinstance(source, list):
            return "".join(str(part) for part in source)
        return str(source)

    def _build(self) -> None:
        parts: list[str] = []
        line = 1
        for index, cell in enumerate(self.data["cells"]):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            self.source_is_list[index] = isinstance(cell.get("source"), list)
            source = self.cell_source(index)
            text, replaced, error = _cell_python(source)
            # Count lines on the original: a blanked cell is all empty lines and must keep its count.
            count = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
            lines = text.split("\n")[:count] or [""]
            parts.append("\n".join(lines) + "\n")
            self.cells.append(CellSlice(index, index + 1, line, len(lines), frozenset(replaced), error))
            line += len(lines)
        self.program = "".join(parts)

    # ---- line maps -------------------------------------------------------------------------------
    def locate(self, line: int) -> tuple[CellSlice, int] | None:
        """(cell, line within the cell, 1-based) of a program line."""
        for cell in self.cells:
            if cell.start <= line < cell.start + cell.line_count:
                return cell, line - cell.start + 1
        return None

    def program_line(self, cell_index: int, cell_line: int) -> int:
        """The program line of ``cell_line`` (1-based) in the cell at ``cells[cell_index]`` of the JSON."""
        for cell in self.cells:
            if cell.index == cell_index:
                return cell.start + cell_line - 1
        raise KeyError(cell_index)

    def to_cell_span(self, span: Span) -> tuple[CellSlice, Span] | None:
        """A program span in its cell's coordinates; None when it crosses cells.

        An end at column 0 of the next cell's first line (a whole-line edit of a cell's last line)
        counts as the end of this cell.
        """
        start = self.locate(span.line)
        if start is None:
            return None
        cell, line = start
        end_line = span.end_line - cell.start + 1
        if not 1 <= end_line <= cell.line_count + (1 if span.end_col == 0 else 0):
            return None
        return cell, Span(line, span.col, end_line, span.end_col)

    # ---- writing ---------------------------------------------------------------------------------
    def fix_fits(self, fix: Fix) -> bool:
        """Does every edit of ``fix`` stay inside one cell, away from rewritten IPython lines?"""
        for edit in fix.edits:
            located = self.to_cell_span(edit.span)
            if located is None:
                return False
            cell, span = located
            if any(span.line <= line <= span.end_line for line in cell.replaced):
                return False
        return True

    def apply_program_edits(
        self, edits: Sequence[TextEdit], apply_edits: Callable[[str, Sequence[TextEdit]], str]
    ) -> bool:
        """Apply program edits to the cells they fall in (rebuilding the program). All or nothing:
        False, with nothing changed, when an edit crosses cells or touches rewritten IPython lines."""
        by_cell: dict[int, list[TextEdit]] = {}
        for edit in edits:
            located = self.to_cell_span(edit.span)
            if located is None or not self.fix_fits(Fix("", "", (edit,))):
                return False
            cell, span = located
            by_cell.setdefault(cell.index, []).append(TextEdit(span, edit.new_text))
        new_sources: dict[int, str] = {}
        for index, cell_edits in by_cell.items():
            original = self.cell_source(index)
            padded = original if original.endswith("\n") else original + "\n"
            changed = apply_edits(padded, cell_edits)
            if not original.endswith("\n") and changed.endswith("\n"):
                changed = changed[:-1]
            if _broken(changed) and not _broken(original):
                return False
            new_sources[index] = changed
        for index, text in new_sources.items():
            self.set_cell_source(index, text)
        self.cells.clear()
        self.source_is_list.clear()
        self._build()
        return True

    def set_cell_source(self, index: int, text: str) -> None:
        cell = self.data["cells"][index]
        if isinstance(cell.get("source"), list):
            cell["source"] = text.splitlines(keepends=True)
        else:
            cell["source"] = text

    def dumps(self) -> str:
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        return text + "\n" if self.trailing_newline else text


_LINE_RE = re.compile(r"\bline (\d+)\b")


def renumber_lines(message: str, notebook: Notebook, home: int | None) -> str:
    """Turn the engine's program line numbers into cell lines: "line 3" in the finding's own cell,
    "line 3 of cell 2" in another one."""

    def one(match: re.Match[str]) -> str:
        located = notebook.locate(int(match.group(1)))
        if located is None:
            return match.group(0)
        cell, line = located
        return f"line {line}" if cell.number == home else f"line {line} of cell {cell.number}"

    return _LINE_RE.sub(one, message)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _broken(cell_source: str) -> bool:
    """Is the cell unparsable even after rewriting IPython syntax?"""
    text, replaced = python_of_cell(cell_source)
    return bool(cell_source.strip()) and not text.strip() and bool(replaced)


def _detect_indent(text: str) -> int | None:
    lines = text.split("\n", 2)
    if len(lines) < 2:
        return None
    second = lines[1]
    return len(second) - len(second.lstrip(" ")) or None


def _is_magic(stripped: str) -> bool:
    return (
        stripped.startswith(("%", "!"))
        or bool(_HELP_RE.match(stripped))
        or bool(_ASSIGN_MAGIC_RE.match(stripped))
    )


def python_of_cell(source: str) -> tuple[str, list[int]]:
    """The cell as plain Python with the same number of lines, and the 1-based lines rewritten."""
    text, replaced, _ = _cell_python(source)
    return text, replaced


def _cell_python(source: str) -> tuple[str, list[int], SyntaxError | None]:
    """``python_of_cell``, and the syntax error that made it blank the cell (None when it did not,
    or when the cell is valid IPython that is not plain Python: another language, top-level
    ``await``)."""
    try:
        ast.parse(source)
        return source, [], None
    except (SyntaxError, ValueError):
        pass
    lines = source.split("\n")
    replaced: list[int] = []
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if len(first) > 2 else ""
        if name not in _PYTHON_CELL_MAGICS:
            # Another language (%%bash, %%writefile, ...): nothing to analyse.
            return "\n".join("" for _ in lines), list(range(1, len(lines) + 1)), None
        lines[0] = "pass"
        replaced.append(1)
    continuation = False
    for number, line in enumerate(lines, start=1):
        if number in replaced:
            continue
        stripped = line.strip()
        if continuation or (stripped and _is_magic(stripped)):
            indent = line[: len(line) - len(line.lstrip())]
            lines[number - 1] = "" if continuation else indent + "pass"
            replaced.append(number)
            continuation = line.rstrip().endswith("\\")
    text = "\n".join(lines)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        blank = ["" for _ in lines]
        names = _assigned_names(source)
        if names:
            # What later cells read from it is not the value an earlier cell left (an exercise
            # cell `loss =  # YOUR CODE` is meant to rebind `loss`): those names become unknown.
            blank[0] = " = ".join(names) + " = __gradguard_skipped_cell__()"
        return "\n".join(blank), list(range(1, len(lines) + 1)), _ipython_error(text, exc)
    return text, replaced, None


# Names a cell that does not parse seems to bind: targets of `=` and augmented assignments (also
# `a, b = ...`), of `for`, `with ... as`, `def` and `class`. Read line by line from the text, so
# this over-approximates: a name wrongly taken only becomes unknown.
_BINDS = re.compile(
    r"^\s*(?P<targets>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)"
    r"|^\s*(?:async\s+)?for\s+(?P<loop>[\w\s,()]+?)\s+in\b"
    r"|^\s*(?:async\s+)?(?:def|class)\s+(?P<defined>[A-Za-z_]\w*)"
    r"|\bas\s+(?P<alias>[A-Za-z_]\w*)"
)


def _assigned_names(source: str) -> list[str]:
    found: dict[str, None] = {}
    for line in source.split("\n"):
        for m in _BINDS.finditer(line):
            text = m.group("targets") or m.group("loop") or m.group("defined") or m.group("alias") or ""
            for name in re.findall(r"[A-Za-z_]\w*", text):
                if not keyword.iskeyword(name):
                    found[name] = None
    return list(found)


def _ipython_error(text: str, exc: SyntaxError | ValueError) -> SyntaxError | None:
    """The error to report for a cell that does not parse, or None when IPython would run it."""
    try:
        # IPython runs top-level `await` (the program can't hold it, so the cell stays blank).
        compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        return None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    if not isinstance(exc, SyntaxError):
        return SyntaxError(str(exc))
    line = text.split("\n")[exc.lineno - 1] if exc.lineno and exc.lineno <= text.count("\n") + 1 else ""
    if line.lstrip().startswith(("/", ";", ",")):
        return None  # IPython's autocall escapes (`/f x`, `;f a b`): not ours to judge
    return exc


# ---- positions in the file as stored ----------------------------------------------------------------
# Code-scanning services (SARIF, GitHub annotations) show a finding on a line of the .ipynb file itself,
# so a cell position must become a line and column of the JSON text, which `json` does not report.

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@record(frozen=True)
class _Piece:
    """One JSON string of a cell's ``source`` as stored: where its opening quote is, and its text."""

    row: int  # 1-based line of the file
    column: int  # 0-based code-point column of the opening quote
    raw: str  # the token, quotes and escapes included
    text: str  # what it decodes to


def _source_pieces(text: str) -> dict[int, list[_Piece]]:
    """cell index -> the strings that make its ``source`` (one, or one per list element)."""
    pieces: dict[int, list[_Piece]] = {}
    # The container stack: [kind, key or index]; kind "{" or "[".
    stack: list[list[Any]] = []
    expecting_key = False
    row, counted = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        token, start = match.group(), match.start()
        if token in "{[":
            stack.append([token, None if token == "{" else 0])
            expecting_key = token == "{"
        elif token in "}]":
            if stack:
                stack.pop()
            expecting_key = False
        elif token == ":":
            expecting_key = False
        elif token == ",":
            if stack and stack[-1][0] == "[":
                stack[-1][1] += 1
            expecting_key = bool(stack) and stack[-1][0] == "{"
        elif expecting_key:
            stack[-1][1] = token
        elif token.startswith('"'):
            keys = [entry[1] for entry in stack]
            # ["cells", index, "source"] for a string source, one level deeper for a list.
            if len(keys) in (3, 4) and keys[0] == '"cells"' and len(stack) >= 3 and keys[2] == '"source"':
                if len(keys) == 3 or stack[3][0] == "[":
                    row += text.count("\n", counted, start)
                    counted = start
                    line_start = text.rfind("\n", 0, start) + 1
                    try:
                        decoded = json.loads(token)
                    except ValueError:
                        continue
                    pieces.setdefault(keys[1], []).append(_Piece(row, start - line_start, token, decoded))
    return pieces


def _raw_offset(raw: str, decoded_offset: int) -> int:
    """The index in a JSON string token (after its quote) of its ``decoded_offset``-th character."""
    i, seen = 1, 0
    while i < len(raw) - 1 and seen < decoded_offset:
        if raw[i] == "\\":
            if raw[i + 1] == "u":
                # A surrogate pair written as two escapes is one character.
                high = 0xD800 <= int(raw[i + 2 : i + 6] or "0", 16) <= 0xDBFF
                i += 12 if high and raw[i + 6 : i + 8] == "\\u" else 6
            else:
                i += 2
        else:
            i += 1
        seen += 1
    return i - 1


class StoredPositions:
    """Maps (cell index, 1-based line in the cell, 0-based column) to (1-based line, 0-based column)
    of the notebook's JSON text as stored."""

    def __init__(self, text: str) -> None:
        self._pieces = _source_pieces(text)

    def locate(self, cell_index: int, line: int, column: int) -> tuple[int, int] | None:
        pieces = self._pieces.get(cell_index)
        if not pieces:
            return None
        source = "".join(piece.text for piece in pieces)
        offset = 0
        for _ in range(line - 1):
            found = source.find("\n", offset)
            if found < 0:
                return None
            offset = found + 1
        offset += column
        for piece in pieces:
            if offset <= len(piece.text) and (offset < len(piece.text) or piece is pieces[-1]):
                return piece.row, piece.column + 1 + _raw_offset(piece.raw, offset)
            offset -= len(piece.text)
        return None
