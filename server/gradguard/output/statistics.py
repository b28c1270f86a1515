"""``--statistics``: how many findings of each rule, as ruff prints them."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .. import registry
from .records import Diagnostic


def statistics(diagnostics: Sequence[Diagnostic], as_json: bool = False) -> str:
    """One row per rule with findings, most frequent first: count, code, ``[*]`` when every one has
    a fix, the rule's name. JSON: a list of ``{"code", "name", "count", "fixable"}``."""
    names = {
        str(getattr(rule, "code", rule)): str(getattr(rule, "name", "")) for rule in registry.all_rules()
    }
    counts: dict[str, list[int]] = {}
    for d in diagnostics:
        row = counts.setdefault(d.code, [0, 0])
        row[0] += 1
        row[1] += d.fixable
    rows = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    if as_json:
        data = [
            {"code": code, "name": names.get(code, ""), "count": count, "fixable": fixable == count}
            for code, (count, fixable) in rows
        ]
        return json.dumps(data, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(count)) for _, (count, _) in rows)
    lines = []
    for code, (count, fixable) in rows:
        mark = "[*]" if fixable == count else "[-]" if fixable else "[ ]"
        lines.append(f"{count:>{width}}\t{code}\t{mark} {names.get(code, '')}".rstrip())
    return "\n".join(lines) + "\n"
