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
        props = ",".join(
            [
                f"title={_property(f'gradguard ({d.code})')}",
                f"file={_property(d.display)}",
                f"line={d.location.row}",
                f"col={d.location.column}",
                f"endLine={d.end_location.row}",
                f"endColumn={d.end_location.column}",
            ]
        )
        lines.append(f"::{level} {props}::{_data(f'{position(d)}: {d.code} {d.message}')}\n")
    return "".join(lines)
