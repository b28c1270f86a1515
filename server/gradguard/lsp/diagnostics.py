"""Findings as LSP diagnostics.

A diagnostic carries everything the code actions need in ``data`` (the ranked FixRefs and the
finding's program span), so moving the cursor never re-analyses.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls import uris

from .. import registry
from ..findings import Finding, Span
from ..settings import Settings
from .positions import Locator

SOURCE = "gradguard"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

_ROLE_ORDER = {"built": 0, "freed": 1, "reused": 2}


def _elsewhere(path: str, span: Span) -> tuple[str, types.Range] | None:
    """A place in another file of the project (its columns in code points: that file's text is not
    at hand, and the places named there are in its ASCII code in practice)."""
    uri = uris.from_fs_path(path)
    if uri is None:
        return None
    start = types.Position(max(span.line - 1, 0), span.col)
    return uri, types.Range(start, types.Position(max(span.end_line - 1, 0), span.end_col))


def finding_data(finding: Finding, key: str, version: Any = None) -> dict[str, Any]:
    """What the code actions need; ``version`` is the document version the finding was computed on
    (``documents.version_token``): a fix is refused once the document has moved on."""
    return {
        "key": key,
        "version": version,
        "code": finding.code,
        "span": finding.span.to_json(),
        "fixes": [ref.to_json() for ref in finding.fixes],
    }


def to_diagnostic(
    finding: Finding, settings: Settings, locator: Locator, key: str, version: Any = None
) -> tuple[str, types.Diagnostic] | None:
    """(cell or document URI, diagnostic) of one finding; None when it cannot be placed."""
    placed = locator.to_client(finding.span)
    if placed is None:
        return None
    uri, range_ = placed
    related = []
    # The story in order: where the graph was built, what freed it, where it is needed again.
    for item in sorted(finding.related, key=lambda r: _ROLE_ORDER.get(r.role, len(_ROLE_ORDER))):
        where = locator.to_client(item.span) if item.path is None else _elsewhere(item.path, item.span)
        if where is not None:
            message = locator.describe(item.message, uri)
            related.append(types.DiagnosticRelatedInformation(types.Location(where[0], where[1]), message))
    href = registry.docs_url(finding.code)
    diagnostic = types.Diagnostic(
        range=range_,
        message=locator.describe(finding.message, uri),
        severity=_SEVERITY.get(settings.severity_for(finding.code), types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href) if href else None,
        source=SOURCE,
        related_information=related or None,
        data=finding_data(finding, key, version),
    )
    return uri, diagnostic
