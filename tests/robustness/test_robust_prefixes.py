"""Code as it is being typed: every prefix of real training scripts, by line and by character."""

from __future__ import annotations

import pytest
from robust_util import SCRIPTS, engine_errors, read, survive

# Per prefix: analysis plus every fix of every finding, on scripts of about 50 lines.
PREFIX_BUDGET = 5.0


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_line_prefix(path) -> None:
    source = read(path)
    lines = source.splitlines(keepends=True)
    for end in range(len(lines) + 1):
        survive("".join(lines[:end]), PREFIX_BUDGET)
    # Each example still has its finding afterwards: the prefixes left nothing behind in any cache.
    if path.parent.name == "examples":
        assert survive(source).findings


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_character_prefixes_sample(path) -> None:
    source = read(path)
    # About 60 cut points per file, including ones inside names, strings, brackets and line endings.
    step = max(1, len(source) // 60)
    for end in range(0, len(source) + 1, step):
        survive(source[:end], PREFIX_BUDGET)


@pytest.mark.parametrize("path", SCRIPTS[:4], ids=lambda p: p.name)
def test_line_prefixes_fix_all(path) -> None:
    """``fix_source`` on every line prefix keeps parsable code parsable (checked in ``survive``)."""
    lines = read(path).splitlines(keepends=True)
    for end in range(len(lines) + 1):
        survive("".join(lines[:end]), PREFIX_BUDGET, fix_all=True)


def test_prefixes_log_no_engine_errors() -> None:
    """The engine swallows its own exceptions (and logs them): on prefixes there should be none."""
    with engine_errors() as logged:
        for path in SCRIPTS:
            lines = read(path).splitlines(keepends=True)
            for end in range(len(lines) + 1):
                survive("".join(lines[:end]), PREFIX_BUDGET)
    assert logged == []
