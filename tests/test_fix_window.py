"""Fixes run libcst on the top-level statements they touch only; the result must not change."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gradguard.engine import analyze
from gradguard.fixes import _new_source, new_source

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from gen_training_script import generate  # noqa: E402

SOURCES = [generate(900, seed) for seed in range(3)] + [
    p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "examples").glob("*.py"))
    if not p.name.startswith("gg000")  # does not parse: nothing to fix
]


@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_windowed_fix_equals_whole_file_fix(index: int) -> None:
    source = SOURCES[index]
    refs = [ref for finding in analyze(source) for ref in finding.fixes]
    assert refs, "every source here has fixable findings"
    for ref in refs:
        assert new_source(source, ref) == _new_source(source, ref)
