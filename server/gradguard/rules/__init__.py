"""The rule registry: every ``ggNNN_*.py`` module in this package is a rule.

Modules are discovered, not listed, so adding a rule is adding a file. Each
module defines ``RULE`` (a :class:`~gradguard.rules.base.Rule`), ``VALID`` and
``INVALID`` (its executable examples) and a Markdown docstring that is the rule's
documentation page.
"""

from __future__ import annotations

import importlib
import os
import re
from types import ModuleType

from ..observations import Check
from .base import Invalid, Rule, Valid

__all__ = [
    "DOCS_BASE_URL",
    "RULES",
    "Invalid",
    "Rule",
    "Valid",
    "docs_url",
    "examples",
    "checks",
    "render_doc",
    "rule_module",
    "severity_default",
]

DOCS_BASE_URL = "https://gradguard.dev/rules/"

_MODULE_NAME = re.compile(r"gg(\d{3})_\w+")


def _discover() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    # A listing of the package's folder, not pkgutil.iter_modules: that imports inspect, a tenth of
    # a check's start.
    names = sorted(
        {entry[:-3] for folder in __path__ for entry in os.listdir(folder) if entry.endswith(".py")}
    )
    for name in names:
        match = _MODULE_NAME.fullmatch(name)
        if match is None:
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            raise TypeError(f"{module.__name__} defines no RULE")
        code = f"GG{match.group(1)}"
        if rule.code != code:
            raise ValueError(f"{module.__name__} declares {rule.code}, expected {code} from its file name")
        if code in found:
            raise ValueError(f"two modules for {code}: {found[code].__name__} and {module.__name__}")
        found[code] = module
    return dict(sorted(found.items()))


_MODULES: dict[str, ModuleType] = _discover()

RULES: dict[str, Rule] = {code: module.RULE for code, module in _MODULES.items()}


def checks() -> dict[type, list[Check]]:
    """Each observation type -> the checks of the rules that judge it, in rule order. A rule
    module declares its checks in ``CHECKS`` (observation type -> function)."""
    table: dict[type, list[Check]] = {}
    for code in sorted(_MODULES):
        for kind, check in getattr(_MODULES[code], "CHECKS", {}).items():
            table.setdefault(kind, []).append(check)
    return table


def rule_module(code: str) -> ModuleType:
    """The module that defines rule ``code`` (KeyError for unknown codes)."""
    return _MODULES[code]


def examples(code: str) -> tuple[list[Valid], list[Invalid]]:
    module = _MODULES[code]
    return list(getattr(module, "VALID", [])), list(getattr(module, "INVALID", []))


def docs_url(code: str) -> str:
    return f"{DOCS_BASE_URL}{code}"


def severity_default(code: str) -> str:
    """LSP-style default severity by family: GG000 does not parse, GG1xx raise, GG2xx train
    wrong, GG3xx waste."""
    return {"0": "error", "1": "error", "2": "warning", "3": "information"}[code[2]]


def _docstring(code: str) -> str:
    import inspect  # only the documentation pages need it; a check should not pay for it

    text = inspect.cleandoc(_MODULES[code].__doc__ or "")
    lines = text.splitlines()
    # Some modules open with a "GG103: title" line; the page title replaces it.
    if lines and lines[0].startswith(code):
        lines = lines[1:]
    return "\n".join(lines).strip()


def _outcome(code: str, example: Invalid) -> str:
    where = f"gradguard reports {code} on line {example.line}."
    if example.error is not None:
        return f"Raises `{example.error}...`; {where}"
    return f"Runs without an error, but afterwards `{example.effect}` is true; {where}"


_APPLIED_BY = {
    "safe": "safe: `--fix`, fix-all",
    "unsafe": "unsafe: `--unsafe-fixes`, the editor's quick fix",
    "display": "shown only",
}


def _fix_table(rule: Rule) -> str:
    """Which fixes gradguard applies unasked, and why (from the rule's ``safety`` table)."""
    rows = ["## Automatic fixes", "", "| Fix | Applied by | Why |", "|---|---|---|"]
    for fix_id, (title, _) in rule.fixes.items():
        applicability, why = rule.safety.get(fix_id, ("unsafe", ""))
        preferred = " (preferred)" if fix_id == next(iter(rule.fixes)) else ""
        rows.append(f"| {title}{preferred} | {_APPLIED_BY[applicability]} | {why} |")
    return "\n".join(rows)


def render_doc(code: str) -> str:
    """The rule's documentation page, in Markdown."""
    rule = RULES[code]
    valid, invalid = examples(code)
    parts = [
        f"# {code} {rule.name}",
        rule.summary,
        f"Default severity: {severity_default(code)}.",
        _docstring(code),
    ]
    if rule.fixes:
        parts.append(_fix_table(rule))
    parts.append("## Examples that get this finding")
    for i, bad in enumerate(invalid, 1):
        parts.append(f"### Invalid {i}")
        parts.append(f"```python\n{bad.source.rstrip()}\n```")
        parts.append(_outcome(code, bad))
    parts.append("## Near misses that do not")
    for i, good in enumerate(valid, 1):
        parts.append(f"### Valid {i}")
        parts.append(f"```python\n{good.source.rstrip()}\n```")
    return "\n\n".join(parts) + "\n"
