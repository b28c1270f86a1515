"""The language-server fuzz script runs, reports its figures and exits 0 when nothing escapes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from robust_util import ROOT

pytest.importorskip("atheris")


def test_fuzz_lsp_script_short_run(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fuzz_lsp.py"), "--seconds", "3", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    pattern = r"fuzz_lsp: (\d+) executions in \d+ s \(([\d.]+)/s\); escaped: (\d+)"
    summary = re.search(pattern, result.stdout)
    assert summary, result.stdout[-2000:] + result.stderr[-2000:]
    assert int(summary.group(1)) > 0 and summary.group(3) == "0"
    assert result.returncode == 0
    assert not list(tmp_path.glob("escaped-*"))
