"""Report formats: ruff-style text, ruff-compatible JSON, SARIF 2.1.0 and GitHub annotations.

Every format renders the same ``Diagnostic`` records: positions already 1-based (column in code
points), notebook rows already relative to their cell.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .github import render_github
from .jsonfmt import render_json
from .records import Diagnostic, EditRecord, FixRecord, Location, RelatedRecord
from .sarif import render_sarif
from .statistics import statistics
from .text import render_text, severities, tail

FORMATS: dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}

__all__ = [
    "FORMATS",
    "Diagnostic",
    "EditRecord",
    "FixRecord",
    "Location",
    "RelatedRecord",
    "render_github",
    "render_json",
    "render_sarif",
    "render_text",
    "severities",
    "statistics",
    "tail",
]
