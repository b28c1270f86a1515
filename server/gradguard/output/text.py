"""ruff's concise text format: ``path:line:col: CODE message``, one line per finding."""

from __future__ import annotations

from collections.abc import Sequence

from .records import Diagnostic


def position(diagnostic: Diagnostic) -> str:
    cell = f"cell {diagnostic.cell}:" if diagnostic.cell is not None else ""
    return f"{diagnostic.display}:{cell}{diagnostic.location.row}:{diagnostic.location.column}"


def render_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{position(d)}: {d.code} {d.message}\n" for d in diagnostics)


def _errors(count: int) -> str:
    return f"{count} error" if count == 1 else f"{count} errors"


def summary(remaining: int, fixable: int, fixed: int = 0, unreadable: int = 0) -> str:
    """The closing lines, as ruff words them (plus a count of files that could not be checked)."""
    skipped = ""
    if unreadable:
        skipped = (
            f"{unreadable} file could not be checked.\n"
            if unreadable == 1
            else (f"{unreadable} files could not be checked.\n")
        )
    if remaining == 0 and fixed == 0:
        return skipped or "All checks passed!\n"
    if fixed:
        if remaining == 0:
            return f"Found {_errors(fixed)} ({fixed} fixed, 0 remaining).\n"
        text = f"Found {_errors(remaining + fixed)} ({fixed} fixed, {remaining} remaining).\n"
    else:
        text = f"Found {_errors(remaining)}.\n"
    if fixable:
        text += f"[*] {fixable} fixable with `--fix`.\n"
    return text + skipped
