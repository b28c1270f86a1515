"""Lazy, tolerant access to the rule registry (``gradguard.rules``).

The CLI, settings and output formats need rule metadata but must keep working (with plain
fallbacks) if the registry cannot be imported, and must not pay for importing it when unused.
"""

from __future__ import annotations

from typing import Any


def _module() -> Any | None:
    try:
        from . import rules
    except ImportError:
        return None
    return rules


def all_rules() -> list[Any]:
    """Rule objects (with ``code``, ``name``, ``summary``), sorted by code."""
    rules = _module()
    registry: Any = getattr(rules, "RULES", ()) if rules is not None else ()
    values = list(registry.values()) if isinstance(registry, dict) else list(registry)
    return sorted(values, key=lambda rule: str(getattr(rule, "code", rule)))


def codes() -> tuple[str, ...]:
    return tuple(str(getattr(rule, "code", rule)) for rule in all_rules())


def docs_url(code: str) -> str | None:
    rules = _module()
    try:
        return str(rules.docs_url(code)) if rules is not None else None
    except (AttributeError, KeyError, LookupError, ValueError):
        return None


def severity_default(code: str) -> str | None:
    rules = _module()
    try:
        return str(rules.severity_default(code)) if rules is not None else None
    except (AttributeError, KeyError, LookupError, ValueError):
        return None


def render_doc(code: str) -> str | None:
    """The rule's documentation, or None for an unknown code."""
    rules = _module()
    if rules is None or code not in codes():
        return None
    return str(rules.render_doc(code))
