"""Suppression comments: ``# noqa``, ``# noqa: GG103, GG104``, ``# gradguard: ignore[GG103]``.

Comments are found with ``tokenize``, so ``"# noqa"`` inside a string does not count. A bare
``# noqa`` or ``# gradguard: ignore`` suppresses every finding on its line; ``# noqa: E501``
(codes of other tools only) suppresses none of ours, as in ruff.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Mapping

from .findings import Finding

# None in a line's entry means "everything".
Suppressions = Mapping[int, frozenset[str] | None]

_NOQA_RE = re.compile(
    r"#\s*noqa(?![\w-])(?P<colon>\s*:\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?",
    re.IGNORECASE,
)
_GG_RE = re.compile(r"#\s*gradguard\s*:\s*ignore(?P<bracket>\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_SPLIT_RE = re.compile(r"[\s,]+")


def parse_comment(comment: str) -> frozenset[str] | bool | None:
    """What one comment suppresses: None for everything, a set of codes, or False for nothing."""
    codes: set[str] = set()
    found = False
    for match in _NOQA_RE.finditer(comment):
        found = True
        if match.group("codes") is None:
            return None
        codes.update(code.upper() for code in _SPLIT_RE.split(match.group("codes")) if code)
    for match in _GG_RE.finditer(comment):
        found = True
        if match.group("bracket") is None:
            return None
        codes.update(code.strip().upper() for code in _SPLIT_RE.split(match.group("codes")) if code.strip())
    return frozenset(codes) if found else False


def _comments(source: str) -> Iterable[tuple[int, str]]:
    """(line, text) of every comment; after a tokenize error, a plain scan of the remaining lines
    (the engine reports nothing for unparsable code anyway, so precision matters little there)."""
    last_line = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.string
            last_line = token.start[0]
    except (tokenize.TokenError, SyntaxError):
        for number, line in enumerate(source.splitlines()[last_line:], start=last_line + 1):
            index = line.find("#")
            if index >= 0:
                yield number, line[index:]


def suppressions(source: str) -> dict[int, frozenset[str] | None]:
    """Map from line number to what the comments on that line suppress."""
    result: dict[int, frozenset[str] | None] = {}
    for line, comment in _comments(source):
        parsed = parse_comment(comment)
        if parsed is False:
            continue
        previous = result.get(line, frozenset())
        if parsed is None or previous is None:
            result[line] = None
        else:
            assert isinstance(parsed, frozenset)
            result[line] = previous | parsed
    return result


def is_suppressed(code: str, line: int, table: Suppressions) -> bool:
    if line not in table:
        return False
    codes = table[line]
    # A prefix written in the comment (GG1) suppresses the whole family, as selectors do.
    return codes is None or any(code.startswith(entry) for entry in codes)


def suppressed(finding: Finding, source: str) -> bool:
    """Is ``finding`` suppressed by a comment on its first line? (Use ``suppressions`` for many.)"""
    return is_suppressed(finding.code, finding.span.line, suppressions(source))


_MARKER_RE = re.compile(r"#.*(?:noqa|gradguard)", re.IGNORECASE)
_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")


def filter_findings(findings: Iterable[Finding], source: str) -> list[Finding]:
    findings = list(findings)
    if not findings:
        return findings
    # Tokenizing a 3,000-line file costs ~45 ms on every keystroke; only a line that mentions a
    # marker can hold a suppression, so look at the findings' lines first.
    lines = _LINE_BREAK_RE.split(source)
    if not any(0 < f.span.line <= len(lines) and _MARKER_RE.search(lines[f.span.line - 1]) for f in findings):
        return findings
    table = suppressions(source)
    return [f for f in findings if not is_suppressed(f.code, f.span.line, table)]
