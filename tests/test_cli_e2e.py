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
    assert gradguard("rule", "GG099", cwd=tmp_path).returncode == 2
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


PYTHON2 = "import torch\n\nx = torch.ones(2, requires_grad=True)\nprint 'loss', x.sum().item()\n"


def test_syntax_error_is_a_finding_in_every_format(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text(PYTHON2)
    text = gradguard("check", "old.py", cwd=tmp_path)
    assert text.returncode == 1 and text.stderr == ""
    first, summary = text.stdout.splitlines()
    assert first.startswith("old.py:4:1: GG000 Python 3.") and "Missing parentheses" in first
    assert summary == "Found 1 error." and "passed" not in text.stdout
    data = json.loads(gradguard("check", "old.py", "--format", "json", cwd=tmp_path).stdout)
    assert [(d["code"], d["location"]["row"], d["fix"]) for d in data] == [("GG000", 4, None)]
    sarif = json.loads(gradguard("check", "old.py", "--format", "sarif", cwd=tmp_path).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "GG000" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    github = gradguard("check", "old.py", "--format", "github", cwd=tmp_path).stdout
    assert github.startswith("::error title=gradguard (GG000),file=") and ",line=4," in github
    # Silenced like any rule.
    ignored = gradguard("check", "old.py", "--ignore", "GG000", cwd=tmp_path)
    assert (ignored.returncode, ignored.stdout) == (0, "All checks passed!\n")
    (tmp_path / "old.py").write_text(PYTHON2.replace(".item()\n", ".item()  # noqa: GG000\n"))
    assert gradguard("check", "old.py", cwd=tmp_path).returncode == 0


def test_a_notebook_cell_that_does_not_parse(tmp_path: Path) -> None:
    cells = ["import torch\n", "%%time\nx = torch.ones(2)\n", "print 'x'\n", "await thing()\n", "!ls\n"]
    notebook = {
        "cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    result = gradguard("check", "nb.ipynb", cwd=tmp_path)
    # Only the Python 2 cell: magics, shell lines and top-level await are valid IPython.
    assert result.returncode == 1
    first, summary = result.stdout.splitlines()
    assert first.startswith("nb.ipynb:cell 3:1:1: GG000 Python 3.") and "cannot parse this cell" in first
    assert summary == "Found 1 error."


@pytest.mark.parametrize("layout", ["list-indented", "string-compact", "list-ascii"])
def test_notebook_positions_in_sarif_and_github_are_lines_of_the_stored_file(
    tmp_path: Path, layout: str
) -> None:
    notebook = json.loads((EXAMPLES / "notebook_graph_before_loop.ipynb").read_text())
    if layout == "string-compact":
        for cell in notebook["cells"]:
            cell["source"] = "".join(cell["source"])
        text = json.dumps(notebook, ensure_ascii=False)
    else:
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":  # a non-ASCII comment before the code moves the columns
                cell["source"] = ['# é 😀 "q"\n', *cell["source"]]
        text = json.dumps(notebook, indent=1, ensure_ascii=layout == "list-ascii")
    (tmp_path / "nb.ipynb").write_text(text)
    stored = text.split("\n")
    found = json.loads(gradguard("check", "nb.ipynb", "--format", "json", cwd=tmp_path).stdout)
    sarif = json.loads(gradguard("check", "nb.ipynb", "--format", "sarif", cwd=tmp_path).stdout)
    github = gradguard("check", "nb.ipynb", "--format", "github", cwd=tmp_path).stdout.splitlines()
    results = sarif["runs"][0]["results"]
    assert found and len(found) == len(results) == len(github)
    for finding, result, annotation in zip(found, results, github, strict=True):
        cell = notebook["cells"][finding["cell"] - 1]
        source = "".join(cell["source"]).split("\n")
        start, end = finding["location"], finding["end_location"]
        assert start["row"] == end["row"]
        code = source[start["row"] - 1][start["column"] - 1 : end["column"] - 1]
        region = result["locations"][0]["physicalLocation"]["region"]
        line = stored[region["startLine"] - 1]
        # The region holds the flagged code as the JSON file spells it (escapes included).
        assert (
            line[region["startColumn"] - 1 : region["endColumn"] - 1]
            == json.dumps(code, ensure_ascii=layout == "list-ascii")[1:-1]
        )
        assert result["message"]["text"].startswith(f"cell {finding['cell']}: ")
        assert f",line={region['startLine']},col={region['startColumn']}," in annotation
        assert f"nb.ipynb:cell {finding['cell']}:" in annotation
        assert "fixes" not in result  # cell edits are not edits of the stored JSON


def _imported_by(args: list[str], cwd: Path) -> set[str]:
    probe = (
        "import sys\nfrom gradguard.cli import main\n"
        f"main({args!r})\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    return set(result.stderr.split())


def test_each_command_imports_only_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum()\n")
    heavy = {
        "pygls",
        "lsprotocol",
        "libcst",
        "jedi",
        "multiprocessing",
        "concurrent.futures.process",
        "tomllib",
    }
    check = _imported_by(["check", "t.py"], tmp_path)
    assert "gradguard.engine" in check  # the probe works
    assert not heavy & check
    # Made at import by the thousand-line engine: generated classes and inspect cost a third of a start.
    assert not {"dataclasses", "inspect"} & check
    for command in (["--version"], ["rule", "GG103"]):
        loaded = _imported_by(command, tmp_path)
        assert "gradguard.cli" in loaded
        assert "gradguard.engine" not in loaded and not heavy & loaded, command
