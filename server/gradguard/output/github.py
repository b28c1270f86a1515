"""GitHub Actions workflow commands, one annotation per finding."""

from __future__ import annotations

from collections.abc import Sequence

from .records import Diagnostic
from .text import position

_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        level = _LEVEL.get(d.severity, "warning")
        # A notebook's annotation goes on the line of the .ipynb file (its JSON) that holds the code;
        # the message names the cell and the line within it.
        start = d.file_location or d.location
        end = d.file_end_location or start if d.file_location is not None else d.end_location
        props = ",".join(
            [
                f"title={_property(f'gradguard ({d.code})')}",
                f"file={_property(d.display)}",
                f"line={start.row}",
                f"col={start.column}",
                f"endLine={end.row}",
                f"endColumn={end.column}",
            ]
        )
        lines.append(f"::{level} {props}::{_data(f'{position(d)}: {d.code} {d.message}')}\n")
    return "".join(lines)
