"""SARIF 2.1.0 for code-scanning services; the rules come from the registry."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import registry
from ..settings import default_severity
from .records import Diagnostic, Location, RelatedRecord

_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def _uri(path: str) -> str:
    if path == "-":
        return "stdin"
    absolute = Path(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:
        return absolute.as_uri()
    if relative.startswith(".."):
        return absolute.as_uri() if absolute.is_absolute() else Path(relative).as_posix()
    return Path(relative).as_posix()


def _cell_prefix(cell: int | None) -> str:
    return f"cell {cell}: " if cell is not None else ""


def _region(start: Location, end: Location) -> dict[str, int]:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def _physical(path: str, start: Location, end: Location) -> dict[str, Any]:
    return {"artifactLocation": {"uri": _uri(path)}, "region": _region(start, end)}


def _stored(path: str, place: Diagnostic | RelatedRecord) -> dict[str, Any]:
    """The place in the file as stored: for a notebook, the line of its JSON that holds the code
    (SARIF viewers show the .ipynb file itself, not its cells)."""
    if place.file_location is not None:
        return _physical(path, place.file_location, place.file_end_location or place.file_location)
    return _physical(path, place.location, place.end_location)


def render_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    from .. import __version__

    rules = []
    for rule in registry.all_rules():
        code = str(getattr(rule, "code", rule))
        entry: dict[str, Any] = {
            "id": code,
            "name": str(getattr(rule, "name", code)),
            "shortDescription": {"text": str(getattr(rule, "summary", code))},
        }
        url = registry.docs_url(code)
        if url:
            entry["helpUri"] = url
        entry["defaultConfiguration"] = {"level": _LEVEL.get(default_severity(code), "warning")}
        rules.append(entry)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        prefix = _cell_prefix(d.cell)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _LEVEL.get(d.severity, "warning"),
            "message": {"text": prefix + d.message},
            "locations": [{"physicalLocation": _stored(d.path, d)}],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.related:
            result["relatedLocations"] = [
                {
                    "id": number,
                    "physicalLocation": _stored(related.path or d.path, related),
                    "message": {"text": _cell_prefix(related.cell) + related.message},
                }
                for number, related in enumerate(d.related)
            ]
        # A fix's edits are in the cell's coordinates and plain text; in the stored JSON they would
        # need escaping and new list elements, so notebooks' SARIF carries no fixes (--fix does them).
        if d.fix is not None and d.cell is None:
            result["fixes"] = [
                {
                    "description": {"text": d.fix.title},
                    # safe: removes the bug only; unsafe: changes what is computed or trains.
                    "properties": {"applicability": d.fix.applicability},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": _uri(d.path)},
                            "replacements": [
                                {
                                    "deletedRegion": _region(edit.location, edit.end_location),
                                    "insertedContent": {"text": edit.content},
                                }
                                for edit in d.fix.edits
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gradguard",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
