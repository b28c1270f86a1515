"""Which rules run where, and how severe they are: the ``[tool.gradguard]`` table, validated.

Selection follows ruff: codes and prefixes (``GG1`` selects GG101..GG112, ``ALL`` or ``GG``
selects everything). The most specific matching selector wins; on a tie ``ignore`` wins.
``per-file-ignores`` always wins for the files it matches.
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePath, PurePosixPath
from typing import Any

from . import registry
from .record import field, record, replace

SEVERITIES = ("error", "warning", "information", "hint")
_SEVERITY_ALIASES = {"info": "information", "warn": "warning", "note": "information"}
_CODE_RE = re.compile(r"^GG\d{0,3}$")
KEYS = ("select", "ignore", "per-file-ignores", "severity", "exclude")


def known_codes() -> tuple[str, ...]:
    """The codes of the rule registry, or () while it is unavailable."""
    return registry.codes()


def default_severity(code: str) -> str:
    value = registry.severity_default(code) or ""
    if value in SEVERITIES:
        return value
    return {"1": "error", "2": "warning", "3": "warning"}.get(code[2:3], "warning")


def _normalise_selector(value: str) -> str:
    value = value.strip().upper()
    return "GG" if value == "ALL" else value


def _selector_problem(selector: str, codes: tuple[str, ...]) -> str | None:
    if not _CODE_RE.match(selector):
        return "is not a gradguard rule code or prefix (codes look like GG103; prefixes like GG1)"
    if codes and not any(code.startswith(selector) for code in codes):
        return "matches no known rule"
    return None


def _match_length(code: str, selectors: Iterable[str]) -> int:
    """Length of the longest selector that is a prefix of ``code``; -1 when none is."""
    best = -1
    for selector in selectors:
        if code.startswith(selector) and len(selector) > best:
            best = len(selector)
    return best


@record(frozen=True)
class Settings:
    """Resolved settings. Collections are tuples so a Settings is hashable and picklable."""

    select: tuple[str, ...] = ("GG",)
    ignore: tuple[str, ...] = ()
    # (glob pattern, codes) pairs, in the order written.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (code or prefix, severity) pairs; the longest matching prefix wins.
    severity: tuple[tuple[str, str], ...] = ()
    # Glob patterns of paths that directory scans skip.
    exclude: tuple[str, ...] = ()
    # The directory of the configuration file, for matching relative patterns.
    root: str | None = field(default=None, compare=False)

    def _candidates(self, filename: str) -> list[str]:
        """The forms of a path that patterns are matched against: as given, relative to root, basename."""
        path = PurePath(filename)
        forms = [path.as_posix(), path.name]
        if self.root is not None and path.is_absolute():
            with contextlib.suppress(ValueError):  # another drive on Windows
                forms.append(PurePosixPath(os.path.relpath(path, self.root)).as_posix())
        return forms

    def _matches(self, pattern: str, filename: str) -> bool:
        pattern = pattern.rstrip("/")
        for form in self._candidates(filename):
            if fnmatch.fnmatchcase(form, pattern) or fnmatch.fnmatchcase(form, pattern + "/*"):
                return True
            # A relative pattern also matches at any depth below the root, like ruff's globs.
            if not pattern.startswith(("/", "*")) and fnmatch.fnmatchcase(form, "*/" + pattern):
                return True
        return False

    def enabled(self, code: str, filename: str | None = None) -> bool:
        if filename is not None:
            for pattern, codes in self.per_file_ignores:
                if _match_length(code, codes) >= 0 and self._matches(pattern, filename):
                    return False
        selected = _match_length(code, self.select)
        if selected < 0:
            return False
        return _match_length(code, self.ignore) < selected

    def excluded(self, path: str) -> bool:
        return any(self._matches(pattern, path) for pattern in self.exclude)

    def severity_for(self, code: str) -> str:
        best, value = -1, ""
        for prefix, severity in self.severity:
            if code.startswith(prefix) and len(prefix) > best:
                best, value = len(prefix), severity
        return value or default_severity(code)

    def with_cli(self, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> Settings:
        """Command-line selection on top: ``--select`` replaces the selection (and the configured
        ignores, so ``--select GG103`` shows GG103 even if configuration ignores it); ``--ignore`` adds."""
        result = self
        if select is not None:
            result = replace(result, select=tuple(select), ignore=())
        if ignore is not None:
            result = replace(result, ignore=result.ignore + tuple(ignore))
        return result

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], root: str | None = None) -> tuple[Settings, list[str]]:
        """Validate a ``[tool.gradguard]`` table. Bad values fall back to defaults; each problem gives
        one message (the CLI exits 2 on them, the language server shows them)."""
        messages: list[str] = []
        if not isinstance(data, Mapping):
            return cls(root=root), [f"[tool.gradguard] must be a table, not {type(data).__name__}"]
        codes = known_codes()
        values: dict[str, Any] = {}

        def selectors(key: str, raw: Any) -> tuple[str, ...] | None:
            if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
                messages.append(f"{key}: expected a list of rule codes or prefixes, got {raw!r}")
                return None
            kept = []
            for item in raw:
                selector = _normalise_selector(item)
                problem = _selector_problem(selector, codes)
                if problem:
                    messages.append(f"{key}: {item!r} {problem}")
                else:
                    kept.append(selector)
            return tuple(kept)

        for raw_key, raw in data.items():
            key = str(raw_key).replace("_", "-")
            if key not in KEYS:
                hint = difflib.get_close_matches(key, KEYS, n=1)
                suffix = f" (did you mean {hint[0]!r}?)" if hint else ""
                messages.append(f"unknown key {raw_key!r}{suffix}; known keys: {', '.join(KEYS)}")
                continue
            if key in ("select", "ignore"):
                parsed = selectors(key, raw)
                if parsed is not None:
                    values[key] = parsed
            elif key == "exclude":
                if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
                    values["exclude"] = tuple(raw)
                else:
                    messages.append(f"exclude: expected a list of glob patterns, got {raw!r}")
            elif key == "per-file-ignores":
                if not isinstance(raw, Mapping):
                    messages.append(f"per-file-ignores: expected a table of pattern = [codes], got {raw!r}")
                    continue
                pairs = []
                for pattern, raw_codes in raw.items():
                    parsed = selectors(f"per-file-ignores[{pattern!r}]", raw_codes)
                    if parsed:
                        pairs.append((str(pattern), parsed))
                values["per_file_ignores"] = tuple(pairs)
            elif key == "severity":
                if not isinstance(raw, Mapping):
                    messages.append(f"severity: expected a table of code = severity, got {raw!r}")
                    continue
                overrides = []
                for raw_code, raw_level in raw.items():
                    selector = _normalise_selector(str(raw_code))
                    problem = _selector_problem(selector, codes)
                    level = _SEVERITY_ALIASES.get(str(raw_level).lower(), str(raw_level).lower())
                    if problem:
                        messages.append(f"severity: {raw_code!r} {problem}")
                    elif not isinstance(raw_level, str) or level not in SEVERITIES:
                        messages.append(
                            f"severity: {raw_code!r} = {raw_level!r} is not one of {', '.join(SEVERITIES)}"
                        )
                    else:
                        overrides.append((selector, level))
                values["severity"] = tuple(overrides)
        return cls(root=root, **values), messages
