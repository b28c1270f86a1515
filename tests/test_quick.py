"""The quick lane: a repeated plain ``gradguard check FILE...`` answered from its last run.

Each test runs the full command first, then the same check again and tells which path answered it
(the full command is wrapped to count its calls). The quick answer must be the full command's
answer, byte for byte; anything changed, any option and any damaged index must go the full way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradguard import command, quick
from gradguard.cli import main

SERVER = Path(__file__).resolve().parents[1] / "server"
FINDINGS = "import torch\n\nx = gg103\ny = gg301\n"
CLEAN = "import torch\n\nx = 1\n"


@pytest.fixture
def full_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The argument lists the full command ran on (the quick lane answered the others)."""
    calls: list[list[str]] = []
    real = command.main

    def counted(argv: list[str] | None = None) -> int:
        calls.append(list(argv or []))
        return real(argv)

    monkeypatch.setattr(command, "main", counted)
    return calls


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": []} for c in cells],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.mark.usefixtures("fake_engine")
def test_a_repeated_check_is_answered_quickly_with_the_same_report(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]]
) -> None:
    (in_tmp / "pkg").mkdir()
    (in_tmp / "pkg" / "train.py").write_text(FINDINGS)
    (in_tmp / "clean.py").write_text(CLEAN)
    (in_tmp / "nb.ipynb").write_text(notebook("import torch\n", "z = gg103\n"))
    argv = ("check", "pkg/train.py", "nb.ipynb", "clean.py")
    first = run(capsys, *argv)
    assert first[0] == 1 and "pkg/train.py:3:5: GG103" in first[1] and "nb.ipynb:cell 2:1:5" in first[1]
    assert len(full_runs) == 1
    assert run(capsys, *argv) == first
    # The same files in another order, one named twice: still the same report, still quick.
    assert run(capsys, "check", "clean.py", "nb.ipynb", "pkg/train.py", "clean.py") == first
    assert len(full_runs) == 1
    # A clean file alone: exit 0 and "All checks passed!", as the full command says it.
    clean = run(capsys, "check", "clean.py")
    assert clean == (0, "All checks passed!\n", "")
    assert len(full_runs) == 1


@pytest.mark.usefixtures("fake_engine")
def test_a_changed_file_or_configuration_goes_the_full_way(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]]
) -> None:
    train = in_tmp / "train.py"
    train.write_text(FINDINGS)
    run(capsys, "check", "train.py")
    train.write_text(FINDINGS + "z = gg101\n")
    code, out, _ = run(capsys, "check", "train.py")
    assert len(full_runs) == 2 and "GG101" in out
    # A pyproject.toml appears in the folder (without a table for us: settings unchanged, but the
    # lane cannot know without reading it as the full command does).
    (in_tmp / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    run(capsys, "check", "train.py")
    assert len(full_runs) == 3
    run(capsys, "check", "train.py")
    assert len(full_runs) == 3
    (in_tmp / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG103"]\n')
    code, out, _ = run(capsys, "check", "train.py")
    assert len(full_runs) == 4 and "GG103" not in out and "GG301" in out
    assert run(capsys, "check", "train.py") == (code, out, "")
    assert len(full_runs) == 4


@pytest.mark.usefixtures("fake_engine")
@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--quiet", "train.py"],
        ["check", "train.py", "--format", "json"],
        ["check", "."],
        ["check"],
        ["check", "./train.py"],
        ["check", "sub/../train.py"],
        ["check", "train.py", "other.py"],  # other.py was never checked
    ],
)
def test_options_folders_and_unseen_files_go_the_full_way(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]], argv: list[str]
) -> None:
    (in_tmp / "sub").mkdir()
    (in_tmp / "train.py").write_text(FINDINGS)
    (in_tmp / "other.py").write_text(CLEAN)
    run(capsys, "check", "train.py")
    run(capsys, *argv)
    assert full_runs == [["check", "train.py"], argv]


@pytest.mark.usefixtures("fake_engine")
def test_a_damaged_or_foreign_index_is_ignored(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]]
) -> None:
    (in_tmp / "train.py").write_text(FINDINGS)
    first = run(capsys, "check", "train.py")
    index = Path(quick._index_file())
    data = bytearray(index.read_bytes())
    data[-3] ^= 0x55
    index.write_bytes(bytes(data))
    assert run(capsys, "check", "train.py") == first
    assert len(full_runs) == 2
    # Written by another version: well formed, but not trusted.
    entries = quick._read_index()
    assert entries
    payload = quick.marshal.dumps(("0.0.0:1.0", entries))
    index.write_bytes(quick.MAGIC + quick.digest_bytes(payload).encode() + b"\n" + payload)
    assert run(capsys, "check", "train.py") == first
    assert len(full_runs) == 3
    index.write_bytes(b"")
    assert run(capsys, "check", "train.py") == first
    assert len(full_runs) == 4


@pytest.mark.usefixtures("fake_engine")
def test_runs_with_errors_are_not_remembered(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]]
) -> None:
    (in_tmp / "train.py").write_text(FINDINGS)
    (in_tmp / "latin.py").write_bytes(b"import torch\nx = '\xe9'\n")  # not UTF-8, no cookie
    for _ in range(2):
        assert run(capsys, "check", "train.py", "missing.py")[0] == 2
        assert run(capsys, "check", "train.py", "latin.py")[0] == 1
    assert len(full_runs) == 4


def test_a_changed_imported_module_goes_the_full_way(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], full_runs: list[list[str]]
) -> None:
    (in_tmp / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (in_tmp / "model.py").write_text("import torch\n\n\ndef make():\n    return torch.nn.Linear(4, 1)\n")
    (in_tmp / "train.py").write_text(
        "import torch\nfrom model import make\n\nnet = make()\nx = torch.randn(8, 4)\n"
        "total = 0\nfor _ in range(3):\n    loss = net(x).sum()\n    total += loss\n"
    )
    first = run(capsys, "check", "train.py")
    assert first[0] == 1 and "GG301" in first[1]
    assert run(capsys, "check", "train.py") == first
    assert len(full_runs) == 1
    # The model changes: the finding it carried may change with it, so the lane must not answer.
    (in_tmp / "model.py").write_text(
        "import torch\n\n\ndef make():\n    return torch.nn.Linear(4, 1).requires_grad_(False)\n"
    )
    run(capsys, "check", "train.py")
    assert len(full_runs) == 2


def test_the_quick_lane_loads_almost_nothing(in_tmp: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    (in_tmp / "train.py").write_text("import torch\n\nx = torch.ones(2)\n")
    env = dict(os.environ, PYTHONPATH=str(SERVER))
    subprocess.run([sys.executable, "-m", "gradguard", "check", "train.py"], env=env, check=True)
    probe = (
        "import sys; before = set(sys.modules); from gradguard.cli import main; "
        "code = main(['check', 'train.py']); print(code, sorted(set(sys.modules) - before))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    code, loaded = result.stdout.splitlines()[-1].split(" ", 1)
    assert code == "0", result.stdout
    allowed = {"gradguard", "gradguard.cli", "gradguard.quick", "gradguard.store", "gradguard.summary"}
    assert set(eval(loaded)) <= allowed | {"__future__", "marshal", "_sha1"}, loaded
