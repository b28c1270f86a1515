"""The fuzz scripts themselves run, report their figures and exit 0 when nothing escapes (short runs)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from robust_util import ROOT

pytest.importorskip("atheris")


@pytest.mark.parametrize("name", ["fuzz_engine", "fuzz_lsp"])
def test_fuzz_script_short_run(name: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / f"{name}.py"), "--seconds", "3", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    pattern = rf"{name}: (\d+) executions in \d+ s \(([\d.]+)/s\); escaped: (\d+)"
    summary = re.search(pattern, result.stdout)
    assert summary, result.stdout[-2000:] + result.stderr[-2000:]
    assert int(summary.group(1)) > 0 and summary.group(3) == "0"
    assert result.returncode == 0
    assert not list(tmp_path.glob("escaped-*"))
