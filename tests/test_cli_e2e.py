"""The real command in a subprocess, and the real engine on the shipped examples."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def gradguard(*argv: str, cwd: Path = REPO, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "gradguard", *argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_subprocess_clean_file(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import torch\n\nx = torch.ones(3)\nprint(x.sum().item())\n")
    result = gradguard("check", ".", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "All checks passed!\n", "")


def test_subprocess_usage_errors(tmp_path: Path) -> None:
    assert gradguard("check", "--format", "yaml", cwd=tmp_path).returncode == 2
    assert gradguard("rule", "GG000", cwd=tmp_path).returncode == 2
    result = gradguard("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "gradguard 0.1.0"


def test_subprocess_rule_doc() -> None:
    result = gradguard("rule", "GG103")
    assert result.returncode == 0 and "GG103" in result.stdout


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci and "make test" in ci
    readme = (REPO / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^test: install$", makefile, re.MULTILINE)
    assert 'pip install "torch==2.13.0"' in makefile


# ---- the real engine (these pass once it has landed) -------------------------------------------------


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("gg*.py"))


def test_every_rule_has_an_example() -> None:
    from gradguard.rules import RULES

    shipped = {path.name[:5].upper() for path in example_files()}
    assert shipped == set(RULES)


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.stem)
def test_example_gets_its_rule(path: Path) -> None:
    from gradguard.api import check_source

    code = path.name[:5].upper()
    found = {finding.code for finding in check_source(path.read_text(), str(path))}
    assert code in found


def test_demo_command_in_a_subprocess() -> None:
    result = gradguard("check", "examples/", "--format", "json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    by_file = {(Path(d["filename"]).name, d["code"]) for d in data}
    for path in example_files():
        assert (path.name, path.name[:5].upper()) in by_file
    notebook = [d for d in data if d["filename"].endswith(".ipynb")]
    assert any(d["code"] == "GG103" and d["cell"] == 3 for d in notebook)  # where `feats` is built
    demo = gradguard("check", "examples/", "--exit-zero")
    assert demo.returncode == 0 and "Found" in demo.stdout
