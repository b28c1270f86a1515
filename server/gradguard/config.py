"""Finding and reading ``[tool.gradguard]`` in the nearest ``pyproject.toml``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .settings import Settings
from .store import digest_bytes

# The configuration candidates a file's settings came from: (path, digest of its bytes or None).
Sources = list[tuple[str, str | None]]


def _toml() -> Any:
    # Imported when a pyproject.toml mentions gradguard: most checks never need a TOML parser.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


class ConfigError(Exception):
    """A configuration file that cannot be read or parsed; the CLI exits 2 on it."""


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _read_table(path: Path, raw: bytes | None = None) -> dict[str, Any] | None:
    """The ``[tool.gradguard]`` table of ``path`` (its bytes ``raw`` when already read), or None
    when it has none."""
    if raw is None:
        raw = _read_bytes(path)
    # Cheap check first: most pyproject files on the way up are not ours, and a broken
    # unrelated one should not stop the scan.
    if b"gradguard" not in raw:
        return None
    tomllib = _toml()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    tool = data.get("tool")
    if not isinstance(tool, dict) or "gradguard" not in tool:
        return None
    table = tool["gradguard"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.gradguard] must be a table")
    return table


def find_config(start: str | Path, visited: Sources | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.gradguard]`` table, from ``start`` upwards.
    ``visited`` receives each candidate looked at, with the digest of its bytes (None: no file)."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if not candidate.is_file():
            if visited is not None:
                visited.append((str(candidate), None))
            continue
        raw = _read_bytes(candidate)
        if visited is not None:
            visited.append((str(candidate), digest_bytes(raw)))
        if _read_table(candidate, raw) is not None:
            return candidate
    return None


def load_config(path: str | Path) -> tuple[Settings, list[str]]:
    """Settings from one pyproject file (defaults if it has no table), plus validation messages
    prefixed with the file name. Raises ConfigError when the file is unreadable or not TOML."""
    path = Path(path)
    table = _read_table(path)
    if table is None:
        return Settings(root=str(path.resolve().parent)), []
    settings, messages = Settings.from_mapping(table, root=str(path.resolve().parent))
    return settings, [f"{path}: [tool.gradguard] {message}" for message in messages]


class Resolver:
    """Settings per file from the nearest configuration, cached per directory.

    ``fixed`` (from ``--config`` or ``--isolated``) bypasses discovery. Validation messages are
    collected in ``messages`` once per configuration file.
    """

    def __init__(self, fixed: Settings | None = None) -> None:
        self.fixed = fixed
        self.messages: list[str] = []
        self._by_dir: dict[Path, Settings] = {}
        self._by_file: dict[Path, Settings] = {}
        self._sources: dict[Path, Sources] = {}

    def for_path(self, path: str | Path) -> Settings:
        if self.fixed is not None:
            return self.fixed
        resolved = Path(path).resolve()
        directory = resolved if resolved.is_dir() else resolved.parent
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        visited: Sources = []
        config = find_config(directory, visited)
        self._sources[directory] = visited
        if config is None:
            settings = Settings()
        elif config in self._by_file:
            settings = self._by_file[config]
        else:
            settings, messages = load_config(config)
            self._by_file[config] = settings
            self.messages.extend(messages)
        self._by_dir[directory] = settings
        return settings

    def sources(self, path: str | Path) -> tuple[str, Sources] | None:
        """The resolved folder of ``path`` and the candidates its settings were read from, once
        ``for_path`` answered it from discovery (None for fixed settings or an unseen path)."""
        resolved = Path(path).resolve()
        directory = resolved if resolved.is_dir() else resolved.parent
        visited = self._sources.get(directory)
        return None if visited is None or self.fixed is not None else (str(directory), visited)
