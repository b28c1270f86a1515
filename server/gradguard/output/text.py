"""ruff's concise text format: ``path:line:col: CODE message``, one line per finding."""

from __future__ import annotations

from collections.abc import Sequence

from .records import Diagnostic


def place(diagnostic: Diagnostic) -> str:
    """``cell 2:5:1`` or ``5:1``: where the finding is in its file."""
    cell = f"cell {diagnostic.cell}:" if diagnostic.cell is not None else ""
    return f"{cell}{diagnostic.location.row}:{diagnostic.location.column}"


def position(diagnostic: Diagnostic) -> str:
    return f"{diagnostic.display}:{place(diagnostic)}"


def tail(diagnostic: Diagnostic) -> str:
    """The report line after ``path:``; the quick lane keeps it to write the line again."""
    return f"{place(diagnostic)}: {diagnostic.code} {diagnostic.message}\n"


def render_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{d.display}:{tail(d)}" for d in diagnostics)


def severities(diagnostics: Sequence[Diagnostic]) -> dict[str, int]:
    """How many findings there are of each severity (what the summary counts)."""
    counts: dict[str, int] = {}
    for d in diagnostics:
        counts[d.severity] = counts.get(d.severity, 0) + 1
    return counts
