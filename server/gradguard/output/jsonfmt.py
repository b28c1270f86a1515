"""ruff's JSON format, field for field, so tools that read ruff's JSON read ours."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .records import Diagnostic, Location


def _location(location: Location) -> dict[str, int]:
    return {"column": location.column, "row": location.row}


def to_json_object(d: Diagnostic) -> dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "edits": [
                {
                    "content": edit.content,
                    "end_location": _location(edit.end_location),
                    "location": _location(edit.location),
                }
                for edit in d.fix.edits
            ],
            "message": d.fix.title,
        }
    return {
        "cell": d.cell,
        "code": d.code,
        "end_location": _location(d.end_location),
        "filename": d.path,
        "fix": fix,
        "location": _location(d.location),
        "message": d.message,
        "noqa_row": d.noqa_row if d.noqa_row is not None else d.location.row,
        "url": d.url,
    }


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([to_json_object(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
