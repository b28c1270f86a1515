"""The presentation form of a finding, shared by every output format."""

from __future__ import annotations

from ..record import record


@record(frozen=True, slots=True)
class Location:
    row: int  # 1-based (within the cell for notebooks)
    column: int  # 1-based, in code points


@record(frozen=True, slots=True)
class EditRecord:
    content: str
    location: Location
    end_location: Location


@record(frozen=True, slots=True)
class FixRecord:
    title: str
    edits: tuple[EditRecord, ...]
    applicability: str = "unsafe"  # "safe", "unsafe" or "display", as ruff's JSON says it


@record(frozen=True, slots=True)
class RelatedRecord:
    message: str
    location: Location
    end_location: Location
    cell: int | None = None
    role: str = "note"
    # For notebooks: the same place in the .ipynb file as stored (its JSON text), 1-based.
    file_location: Location | None = None
    file_end_location: Location | None = None
    path: str | None = None  # in another file of the project (absolute); None: the finding's file


@record(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    path: str  # absolute path, or "-" for standard input without --stdin-filename
    display: str  # the path as printed in text output (relative to the working directory)
    location: Location
    end_location: Location
    severity: str = "warning"
    cell: int | None = None  # 1-based code-cell number for notebooks
    fix: FixRecord | None = None
    url: str | None = None
    noqa_row: int | None = None
    related: tuple[RelatedRecord, ...] = ()
    chain: str = ""
    # Has a preferred fix that this run's --fix applies: ``fix`` when the edits were computed,
    # else the engine offered one. ``unsafe_fixable``: one that --unsafe-fixes would apply.
    fixable: bool = False
    unsafe_fixable: bool = False
    # For notebooks: the place in the .ipynb file as stored (its JSON text), 1-based, for the formats
    # that code-scanning services show on the file itself (SARIF, GitHub annotations).
    file_location: Location | None = None
    file_end_location: Location | None = None
