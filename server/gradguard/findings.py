"""The data gradguard reports: findings, their related places, and fixes.

Positions are 1-based lines and 0-based columns counted in Unicode code points
(what libcst reports and what a Python ``str`` index is). The LSP layer converts
columns to UTF-16; the CLI prints ``col + 1`` as ruff does.
"""

from __future__ import annotations

from typing import Any

from .record import field, record


@record(frozen=True, slots=True, order=True)
class Span:
    line: int
    col: int
    end_line: int
    end_col: int

    def to_json(self) -> list[int]:
        return [self.line, self.col, self.end_line, self.end_col]

    @classmethod
    def from_json(cls, data: list[int] | tuple[int, ...]) -> Span:
        line, col, end_line, end_col = (int(v) for v in data)
        return cls(line, col, end_line, end_col)


@record(frozen=True, slots=True)
class Related:
    """Another place in the story of a finding."""

    span: Span
    message: str
    # "built" (forward expression that made the graph), "freed" (backward that
    # freed its buffers), "reused" (where it is used again), or "note".
    role: str = "note"
    # In another file of the project (its absolute path); None: the finding's own file.
    path: str | None = None


@record(frozen=True, slots=True)
class FixRef:
    """A fix that can be computed later, with libcst, from the source text.

    ``kind`` names a fix recipe in ``gradguard.fixes``; ``params`` holds only JSON
    values (spans as ``[line, col, end_line, end_col]`` lists), so a FixRef can
    travel in an LSP diagnostic's ``data`` and come back in ``codeAction/resolve``.
    """

    kind: str
    title: str
    tradeoff: str
    params: dict[str, Any] = field(default_factory=dict)
    # "safe" (removes the bug and nothing else: --fix and fix-all apply it), "unsafe" (changes what
    # is computed or what trains: applied only when asked) or "display" (never applied).
    applicability: str = "unsafe"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "tradeoff": self.tradeoff,
            "params": self.params,
            "applicability": self.applicability,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FixRef:
        params = dict(data.get("params") or {})
        applicability = data.get("applicability")
        if applicability not in ("safe", "unsafe", "display"):
            applicability = "unsafe"  # what a client sends back is never trusted to be safe
        return cls(str(data["kind"]), str(data["title"]), str(data["tradeoff"]), params, applicability)


@record(frozen=True, slots=True)
class Finding:
    code: str
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    # Ranked, the preferred fix first. Empty when no safe fix exists.
    fixes: tuple[FixRef, ...] = ()
    # Markdown-free plain text: the graph's chain in the user's own names and
    # lines, e.g. "loss (line 9) <- x_out (line 8) <- y (line 6, before the loop)".
    chain: str = ""


@record(frozen=True, slots=True)
class TextEdit:
    span: Span
    new_text: str


@record(frozen=True, slots=True)
class Fix:
    title: str
    tradeoff: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    applicability: str = "unsafe"
