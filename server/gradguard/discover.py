"""Which files a scan covers: Python files and notebooks under the given paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .config import Resolver
from .store import display_path as _display

SKIP_DIRS = frozenset(
    {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist", "site-packages"}
)
SUFFIXES = (".py", ".ipynb")


def display_path(path: Path) -> str:
    return _display(str(path))


def _skipped_dir(name: str) -> bool:
    return name in SKIP_DIRS or name.startswith(".") or name.endswith(".egg-info")


def _special(path: Path) -> bool:
    """Something that exists but is no regular file (broken links stay: reading them says why)."""
    return path.exists() and not path.is_file()


def discover(paths: Iterable[str], resolver: Resolver) -> tuple[list[Path], list[str]]:
    """Absolute files to check, sorted, and the paths that do not exist.

    Files named explicitly are always checked (like ruff without ``--force-exclude``); inside
    directories only ``*.py`` and ``*.ipynb`` are, outside hidden, virtualenv and build folders and
    the configured ``exclude`` patterns.
    """
    found: dict[Path, None] = {}
    missing: list[str] = []
    for raw in paths:
        path = Path(raw).absolute()
        if path.is_file():
            found[path] = None
        elif path.is_dir():
            for directory, dirnames, filenames in os.walk(path):
                here = Path(directory)
                settings = resolver.for_path(here)
                dirnames[:] = sorted(
                    name
                    for name in dirnames
                    if not _skipped_dir(name) and not settings.excluded(str(here / name))
                )
                for name in filenames:
                    if name.endswith(SUFFIXES) and not settings.excluded(str(here / name)):
                        if _special(here / name):
                            continue  # a FIFO or device named *.py: reading it could block forever
                        found[here / name] = None
        else:
            missing.append(raw)
    return sorted(found), missing
