"""The closing lines of ``gradguard check``'s text report, from counts alone.

Kept apart from the output formats (and their records) so that the quick lane (``quick.py``) can
write the same words without loading them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the quick lane imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

# Severity -> (singular, plural), in the order the summary lists them.
_KINDS = {
    "error": ("error", "errors"),
    "warning": ("warning", "warnings"),
    "information": ("info", "info"),
    "hint": ("hint", "hints"),
}


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def breakdown(severities: Mapping[str, int]) -> str:
    """``2 errors, 4 warnings, 1 info``: the findings counted by severity, most severe first."""
    counts = {severity: n for severity, n in severities.items() if n}
    parts = [_count(counts.pop(sev), *words) for sev, words in _KINDS.items() if counts.get(sev)]
    parts += [_count(n, "other", "others") for n in counts.values()]
    return ", ".join(parts)


def summary(
    severities: Mapping[str, int],
    fixable: int = 0,
    fixed: int = 0,
    unreadable: int = 0,
    missing: int = 0,
    hidden: int = 0,
    unsafe: bool = False,
) -> str:
    """The closing lines: what was found by severity, what can be or was fixed, and what could not
    be checked. "All checks passed!" only when every path given was checked and nothing was found.
    ``severities``: how many findings remain per severity. ``hidden``: findings whose fix only
    ``--unsafe-fixes`` applies (``unsafe``: it was given)."""
    remaining = sum(severities.values())
    lines = []
    option = "`--fix --unsafe-fixes`" if unsafe else "`--fix`"
    more = f"{hidden} more with `--unsafe-fixes`" if hidden else ""
    if fixed:
        left = f": {breakdown(severities)}" if remaining else ""
        total = _count(remaining + fixed, "finding", "findings")
        lines.append(f"Found {total} ({fixed} fixed, {remaining} remaining{left}).")
        if more:
            them = "it" if hidden == 1 else "them"
            unsafe_fixes = _count(hidden, "more fix is", "more fixes are")
            lines.append(f"{unsafe_fixes} unsafe: `--unsafe-fixes` applies {them}.")
    elif remaining:
        counts = [f"{fixable} fixable with {option}"] if fixable else []
        if hidden:
            counts.append(more if fixable else f"{hidden} fixable with `--fix --unsafe-fixes`")
        tail = f" ({'; '.join(counts)})" if counts else ""
        lines.append(f"Found {breakdown(severities)}{tail}.")
    if unreadable:
        lines.append(f"{_count(unreadable, 'file', 'files')} could not be checked.")
    if missing:
        lines.append(f"{_count(missing, 'path does', 'paths do')} not exist.")
    if not lines:
        return "All checks passed!\n"
    if not remaining and not fixed:
        lines.insert(0, "No findings in the files checked, but not everything was checked:")
    return "\n".join(lines) + "\n"
