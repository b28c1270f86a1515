"""The editor's ``gradguard.*`` settings, validated at the border.

They arrive in ``initializationOptions`` and from ``workspace/configuration``. Every bad value gives
one clear message (shown once by the server) and the default for that value; keys the extension
owns but the server does not use (``interpreter``, ``trace``, ...) are ignored. Rule selection and
severities are validated by ``gradguard.settings.Settings.from_mapping``, like ``[tool.gradguard]``,
and applied on top of the nearest ``pyproject.toml``: the editor's ``select`` replaces the file's,
its ``ignore`` adds to it, its ``severity`` entries win.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..record import record, replace
from ..settings import Settings

DEFAULT_DEBOUNCE_MS = 150
_DEBOUNCE_RANGE = (0, 5000)


@record(frozen=True)
class EditorSettings:
    enable: bool = True
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    severity: tuple[tuple[str, str], ...] = ()
    fix_violation: bool = True  # codeAction.fixViolation.enable: the quick fixes
    disable_rule_comment: bool = True  # codeAction.disableRuleComment.enable: "Disable GGnnn for this line"
    fix_all: bool = True  # source.fixAll.gradguard
    use_config_file: bool = True  # read [tool.gradguard] from the nearest pyproject.toml
    debounce_ms: int = DEFAULT_DEBOUNCE_MS

    def apply(self, base: Settings) -> Settings:
        """The rule settings for one file: the pyproject ones with the editor's on top."""
        if not self.use_config_file:
            base = Settings(root=base.root)
        result = base.with_cli(self.select, self.ignore)
        if self.severity:
            # Settings.severity_for keeps the first of equally long prefixes, so ours go first.
            result = replace(result, severity=self.severity + result.severity)
        return result


def _unwrap(raw: Any) -> Any:
    """Accept ``{"gradguard": {...}}``, the template's ``{"settings": {...}}`` and the plain section."""
    if isinstance(raw, Mapping):
        for key in ("gradguard", "settings", "globalSettings"):
            inner = raw.get(key)
            if isinstance(inner, Mapping):
                return inner
    return raw


def _flag(data: Mapping[str, Any], path: str, default: bool, messages: list[str]) -> bool:
    """A boolean at a dotted ``path``; VS Code sends ``a.b.c`` keys as nested objects, other clients
    may send them flat."""
    value: Any = data.get(path)
    if value is None:
        node: Any = data
        for part in path.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        value = node
    if value is None:
        return default
    if not isinstance(value, bool):
        messages.append(
            f"gradguard.{path}: expected true or false, got {value!r}; using {str(default).lower()}"
        )
        return default
    return value


def parse(raw: Any) -> tuple[EditorSettings, list[str]]:
    """Validated editor settings and one message per problem."""
    data = _unwrap(raw)
    if data is None:
        return EditorSettings(), []
    if not isinstance(data, Mapping):
        return EditorSettings(), [f"gradguard settings: expected an object, got {data!r}; using the defaults"]
    messages: list[str] = []
    rules: dict[str, Any] = {}
    for key in ("select", "ignore", "severity"):
        value = data.get(key)
        # An empty list/object is VS Code's "not set" for array and object settings.
        if value is not None and value != [] and value != {}:
            rules[key] = value
    parsed, problems = Settings.from_mapping(rules)
    messages += [f"gradguard.{problem}; ignoring that value" for problem in problems]
    debounce = data.get("debounce", DEFAULT_DEBOUNCE_MS)
    low, high = _DEBOUNCE_RANGE
    if isinstance(debounce, bool) or not isinstance(debounce, int | float) or not low <= debounce <= high:
        messages.append(
            f"gradguard.debounce: expected milliseconds from {low} to {high}, got {debounce!r}; "
            f"using {DEFAULT_DEBOUNCE_MS}"
        )
        debounce = DEFAULT_DEBOUNCE_MS
    settings = EditorSettings(
        enable=_flag(data, "enable", True, messages),
        # A selection whose every entry was bad falls back to the default, not to "nothing".
        select=parsed.select if isinstance(rules.get("select"), list) and parsed.select else None,
        ignore=parsed.ignore if isinstance(rules.get("ignore"), list) else None,
        severity=parsed.severity,
        fix_violation=_flag(data, "codeAction.fixViolation.enable", True, messages),
        disable_rule_comment=_flag(data, "codeAction.disableRuleComment.enable", True, messages),
        fix_all=_flag(data, "fixAll", True, messages),
        use_config_file=_flag(data, "useConfigFile", True, messages),
        debounce_ms=int(debounce),
    )
    return settings, messages
