"""The committed autograd-ops table is what torch says now, and torchapi's sets follow it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gradguard.engine import torchapi

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "probe_autograd_ops.py"
TABLE = REPO / "server" / "gradguard" / "engine" / "data" / "autograd_ops.json"


def test_table_is_current() -> None:
    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, (
        f"stale table; rerun python3 scripts/probe_autograd_ops.py\n{proc.stdout}{proc.stderr}"
    )


def test_torchapi_sets_follow_the_table() -> None:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    assert table["header"]["generated_by"] == "scripts/probe_autograd_ops.py"
    for name, row in table["ops"].items():
        if row["kind"] == "inplace":
            assert (name in torchapi.INPLACE_SAVES_OUTPUT) == row["saves_output"], name
            assert (name in torchapi.INPLACE_SAVES_OTHER) == row["saves_other"], name
            assert name not in torchapi.SAVES_SELF | torchapi.SAVES_OTHER | torchapi.SAVES_OUTPUT, name
            continue
        assert (name in torchapi.SAVES_OUTPUT) == row["saves_output"], name
        assert (name in torchapi.NO_SAVE) == (not row["saves_any"]), name
        assert name in torchapi.GRAPH_OPS, name
    # spot checks of what torch 2.13 says (and the old hand-written sets had wrong)
    assert "tan" in torchapi.SAVES_OUTPUT and "tan" not in torchapi.SAVES_SELF
    assert "mul" in torchapi.SAVES_OTHER and "mul" not in torchapi.SAVES_SELF
    assert "masked_fill" in torchapi.SAVES_OTHER and "masked_fill" not in torchapi.SAVES_SELF
    assert "dropout" in torchapi.SAVES_HIDDEN
    assert "relu_" in torchapi.INPLACE_SAVES_OUTPUT and "abs_" not in torchapi.INPLACE_SAVES_OUTPUT
    # names the table does not cover keep their hand-written entry
    assert "cuda" in table["unprobed"] and "cuda" in torchapi.NO_SAVE
