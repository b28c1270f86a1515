"""The CLI in-process, on the fake engine: output formats, exit codes, options, configuration."""

from __future__ import annotations

import concurrent.futures
import io
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from gradguard import runner
from gradguard.cli import main

pytestmark = pytest.mark.usefixtures("fake_engine")

SOURCE = "import torch\n\nx = gg103\ny = gg301 + gg101  # noqa: GG101\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_summary_and_exit_code(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "pkg" / "train.py", SOURCE)
    code, out, err = run(capsys, "check")
    assert code == 1, err
    assert out == (
        "pkg/train.py:3:5: GG103 fake finding 103\n"
        "pkg/train.py:4:5: GG301 fake finding 301\n"
        "Found 1 error, 1 info (2 fixable with `--fix`).\n"
    )


def test_clean_tree_passes(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "ok.py", "import torch\nx = 1\n")
    assert run(capsys, "check", ".") == (0, "All checks passed!\n", "")


def test_exit_zero_and_quiet(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "--exit-zero", "-q", "t.py")
    assert code == 0 and out.count("\n") == 2 and "Found" not in out


def test_select_and_ignore(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    _, out, _ = run(capsys, "check", "--select", "GG3", "t.py")
    assert "GG301" in out and "GG103" not in out
    _, out, _ = run(capsys, "check", "--ignore", "GG301,GG1", "t.py")
    assert out == "All checks passed!\n"
    code, _, err = run(capsys, "check", "--select", "GG999", "t.py")
    assert code == 2 and "GG999" in err
    code, _, err = run(capsys, "check", "--ignore", "E501", "t.py")
    assert code == 2 and "E501" in err


def test_json_is_ruff_shaped(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "--format", "json", "t.py")
    assert code == 1
    data = json.loads(out)
    assert [d["code"] for d in data] == ["GG103", "GG301"]
    first = data[0]
    assert set(first) == {
        "cell",
        "code",
        "end_location",
        "filename",
        "fix",
        "location",
        "message",
        "noqa_row",
        "url",
    }
    assert first["filename"] == str(in_tmp / "t.py")
    assert first["location"] == {"column": 5, "row": 3}
    assert first["end_location"] == {"column": 10, "row": 3}
    assert first["cell"] is None and first["noqa_row"] == 3
    assert first["url"].endswith("GG103")
    assert first["fix"] == {
        "applicability": "safe",
        "edits": [
            {"content": "_ok", "end_location": {"column": 10, "row": 3}, "location": {"column": 10, "row": 3}}
        ],
        "message": "Rename it",
    }


def test_json_empty_list(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "ok.py", "import torch\n")
    assert run(capsys, "check", "--format", "json") == (0, "[]\n", "")


def test_sarif(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "--format", "sarif", "t.py")
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    assert {"GG101", "GG103", "GG302"} <= {rule["id"] for rule in rules}
    result = run0["results"][0]
    assert result["ruleId"] == "GG103"
    assert rules[result["ruleIndex"]]["id"] == "GG103"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "t.py"
    assert location["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 10}
    assert result["relatedLocations"][0]["message"]["text"] == "built here"
    assert result["level"] == "error"


def test_github(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    _, out, _ = run(capsys, "check", "--format", "github", "t.py")
    assert out.splitlines()[0] == (
        "::error title=gradguard (GG103),file=t.py,line=3,col=5,endLine=3,endColumn=10::"
        "t.py:3:5: GG103 fake finding 103"
    )
    assert out.splitlines()[1].startswith("::notice title=gradguard (GG301)")


def test_fix_writes_in_place_atomically(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = write(in_tmp / "t.py", SOURCE.replace("\n", "\r\n"))
    os.chmod(target, 0o640)
    other = write(in_tmp / "other" / "u.py", SOURCE)
    code, out, _ = run(capsys, "check", "--fix", "t.py")
    assert code == 0
    assert out == "Found 2 findings (2 fixed, 0 remaining).\n"
    assert (
        target.read_bytes()
        == SOURCE.replace("gg103", "gg103_ok").replace("gg301", "gg301_ok").replace("\n", "\r\n").encode()
    )
    assert target.stat().st_mode & 0o777 == 0o640
    assert other.read_text() == SOURCE  # outside the given paths: untouched
    assert sorted(p.name for p in in_tmp.iterdir()) == ["other", "t.py"]  # no temp files left


def test_fix_reports_remaining(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gradguard.api

    fake = gradguard.api._fixes_module()
    original = fake.compute
    monkeypatch.setattr(
        fake, "compute", lambda src, ref: None if ref.params["expr"][0] == 4 else original(src, ref)
    )
    write(in_tmp / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "--fix", "t.py")
    assert code == 1
    assert out == "t.py:4:5: GG301 fake finding 301\nFound 2 findings (1 fixed, 1 remaining: 1 info).\n"


def test_diff_does_not_write(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = write(in_tmp / "t.py", SOURCE)
    code, out, err = run(capsys, "check", "--diff", "t.py")
    assert code == 1
    assert out.startswith("--- t.py\n+++ t.py\n")
    assert "-x = gg103\n" in out and "+x = gg103_ok\n" in out
    assert "Would fix 2 findings." in err
    assert target.read_text() == SOURCE
    write(in_tmp / "t.py", "import torch\n")
    assert run(capsys, "check", "--diff", "t.py")[0] == 0


def test_stdin(in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(SOURCE))
    code, out, _ = run(capsys, "check", "-", "--stdin-filename", "src/model.py")
    assert code == 1 and out.startswith("src/model.py:3:5: GG103")
    monkeypatch.setattr("sys.stdin", io.StringIO(SOURCE))
    code, out, _ = run(capsys, "check", "-")
    assert code == 1 and out.startswith("-:3:5: GG103")


def test_stdin_fix_prints_source(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(SOURCE))
    code, out, err = run(capsys, "check", "--fix", "-")
    assert code == 0
    assert out == SOURCE.replace("gg103", "gg103_ok").replace("gg301", "gg301_ok")
    assert "2 fixed" in err


def test_unreadable_files_are_reported_and_scan_goes_on(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "latin.py").write_bytes(b"import torch\nx = '\xe9'\n")
    write(in_tmp / "t.py", SOURCE)
    code, out, err = run(capsys, "check")
    assert code == 1
    assert "latin.py: not valid UTF-8: byte 0xe9 at offset 18; file skipped" in err
    assert "t.py:3:5: GG103" in out
    assert out.endswith("Found 1 error, 1 info (2 fixable with `--fix`).\n1 file could not be checked.\n")
    (in_tmp / "t.py").unlink()
    assert run(capsys, "check")[:2] == (
        1,
        "No findings in the files checked, but not everything was checked:\n1 file could not be checked.\n",
    )


def test_pep263_cookie_is_honoured(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\nx = '\xe9' + gg103\n")
    code, _, err = run(capsys, "check", "--fix")
    assert code == 0 and err == ""
    assert (
        in_tmp / "latin.py"
    ).read_bytes() == b"# -*- coding: latin-1 -*-\nimport torch\nx = '\xe9' + gg103_ok\n"


def test_missing_path_is_a_usage_error(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "nope.py")
    assert code == 2 and "nope.py: no such file" in err
    # Never "All checks passed!" after a path that could not be checked.
    assert (
        out == "No findings in the files checked, but not everything was checked:\n1 path does not exist.\n"
    )
    write(in_tmp / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "t.py", "nope.py", "gone/")
    assert code == 2 and out.endswith("(2 fixable with `--fix`).\n2 paths do not exist.\n")


def test_summary_counts_by_severity(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "t.py", SOURCE)
    # Information-level findings alone are not called errors.
    assert run(capsys, "check", "--select", "GG301", "t.py")[1].endswith(
        "Found 1 info (1 fixable with `--fix`).\n"
    )
    write(in_tmp / "pyproject.toml", '[tool.gradguard.severity]\nGG301 = "warning"\nGG103 = "hint"\n')
    assert run(capsys, "check", "t.py")[1].endswith("Found 1 warning, 1 hint (2 fixable with `--fix`).\n")
    write(in_tmp / "pyproject.toml", '[tool.gradguard.severity]\nGG301 = "error"\n')
    assert run(capsys, "check", "t.py")[1].endswith("Found 2 errors (2 fixable with `--fix`).\n")


def test_skipped_directories_and_fast_path(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for folder in (".venv", "venv", ".git", "node_modules", "build", "dist", "__pycache__", ".hidden"):
        write(in_tmp / folder / "x.py", SOURCE)
    write(in_tmp / "no_torch.py", "x = gg101\n")  # never mentions torch: not analysed
    write(in_tmp / "notes.txt", SOURCE)
    assert run(capsys, "check") == (0, "All checks passed!\n", "")
    # Named explicitly, a file in a skipped folder is checked.
    assert run(capsys, "check", "build/x.py")[0] == 1


def test_configuration(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        in_tmp / "pyproject.toml",
        '[tool.gradguard]\nignore = ["GG301"]\nexclude = ["generated"]\n'
        '[tool.gradguard.per-file-ignores]\n"tests/*" = ["GG1"]\n[tool.gradguard.severity]\nGG103 = "hint"\n',
    )
    write(in_tmp / "src" / "t.py", SOURCE)
    write(in_tmp / "tests" / "t.py", SOURCE)
    write(in_tmp / "generated" / "t.py", SOURCE)
    code, out, _ = run(capsys, "check", "--format", "github")
    assert code == 1
    assert out == (
        "::notice title=gradguard (GG103),file=src/t.py,line=3,col=5,endLine=3,endColumn=10::"
        "src/t.py:3:5: GG103 fake finding 103\n"
    )
    # --select replaces the configured selection (and its ignores).
    _, out, _ = run(capsys, "check", "--select", "GG3", "src")
    assert "GG301" in out
    # --isolated ignores the file.
    _, out, _ = run(capsys, "check", "--isolated", "tests")
    assert "GG103" in out


@pytest.mark.parametrize(
    "config",
    [
        "[tool.gradguard]\nselect = [\n",
        '[tool.gradguard]\nselec = ["GG1"]\n',
        '[tool.gradguard]\nseverity = {GG103 = "loud"}\n',
    ],
)
def test_bad_configuration_exits_2(in_tmp: Path, capsys: pytest.CaptureFixture[str], config: str) -> None:
    write(in_tmp / "pyproject.toml", config)
    write(in_tmp / "t.py", SOURCE)
    code, out, err = run(capsys, "check")
    assert code == 2 and out == ""
    assert "pyproject.toml" in err


def test_explicit_config(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "conf" / "pyproject.toml", '[tool.gradguard]\nselect = ["GG3"]\n')
    write(in_tmp / "t.py", SOURCE)
    _, out, _ = run(capsys, "check", "--config", "conf/pyproject.toml", "t.py")
    assert "GG301" in out and "GG103" not in out
    assert run(capsys, "check", "--config", "missing.toml")[0] == 2


def test_notebook_output_uses_cells(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["import torch\n", "a = 1"],
        },
        {"cell_type": "markdown", "metadata": {}, "source": ["words"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["%time f()\n", "b = gg103"],
        },
    ]
    write(
        in_tmp / "nb.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    code, out, _ = run(capsys, "check")
    assert code == 1
    assert out.startswith("nb.ipynb:cell 3:2:5: GG103 fake finding 103\n")
    _, out, _ = run(capsys, "check", "--format", "json")
    entry = json.loads(out)[0]
    assert entry["cell"] == 3 and entry["location"] == {"column": 5, "row": 2}
    code, out, _ = run(capsys, "check", "--fix")
    assert code == 0
    assert json.loads((in_tmp / "nb.ipynb").read_text())["cells"][2]["source"] == [
        "%time f()\n",
        "b = gg103_ok",
    ]


def test_broken_notebook_is_reported(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "nb.ipynb", "{ not json")
    write(in_tmp / "t.py", SOURCE)
    code, out, err = run(capsys, "check")
    assert code == 1 and "nb.ipynb: not valid notebook JSON" in err and "t.py:3:5" in out


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="workers see the fake engine only when forked"
)
def test_parallel_scan_matches_serial(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    count = runner.PARALLEL_THRESHOLD + 8
    for i in range(count):
        write(in_tmp / f"m{i:02}.py", SOURCE)
    pools: list[int] = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    def spy(*args: object, **kwargs: object) -> object:
        pools.append(1)
        return real_pool(*args, **kwargs)  # type: ignore[arg-type]

    # The runner imports the pool when it needs one (it is not loaded for small checks).
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", spy)
    parallel = run(capsys, "check", "--jobs", "4")
    assert pools == [1]
    monkeypatch.setattr(runner, "PARALLEL_THRESHOLD", 10_000)
    serial = run(capsys, "check")
    assert pools == [1]
    assert parallel == serial
    assert parallel[1].count("GG103") == count


def test_rule_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rule", "GG103")
    assert code == 0 and out.startswith("# GG103")
    code, out, _ = run(capsys, "rule", "gg103")
    assert code == 0
    code, _, err = run(capsys, "rule", "GG999")
    assert code == 2 and "GG999" in err
    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0 and out.splitlines()[0].startswith("GG000") and len(out.splitlines()) >= 18
    assert run(capsys, "rule")[0] == 2


def test_serve_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    # `serve` itself is tested end to end in tests/lsp; here only its argument checking.
    code, _, err = run(capsys, "serve", "--tcp", "not-a-port")
    assert code == 2 and "--tcp" in err
    assert run(capsys)[0] == 2
    assert run(capsys, "check", "--format", "xml")[0] == 2
    code, out, _ = run(capsys, "--version")
    assert code == 0 and "0.1.0" in out


def test_internal_error_in_one_file_does_not_end_the_scan(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gradguard.engine
    from conftest import fake_analyze

    def flaky(source: str, filename: str = "<string>", loader: object = None) -> list[object]:
        if "boom" in source:
            raise KeyError("boom")
        return fake_analyze(source, filename)  # type: ignore[return-value]

    monkeypatch.setattr(gradguard.engine, "analyze", flaky)
    write(in_tmp / "a.py", "import torch\nboom = 1\n")
    write(in_tmp / "b.py", SOURCE)
    code, out, err = run(capsys, "check")
    assert code == 1
    assert "a.py: internal error (KeyError: 'boom'" in err
    assert "b.py:3:5: GG103" in out


def test_write_failure_is_reported(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: Path, text: str, encoding: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(runner, "write_atomic", refuse)
    write(in_tmp / "t.py", SOURCE)
    code, _, err = run(capsys, "check", "--fix", "t.py")
    assert code == 1 and "t.py: cannot write the fixes" in err


def test_notebook_diff_is_per_cell(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["words"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": 1,
            "source": ["import torch\n", "b = gg103"],
        },
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    write(in_tmp / "nb.ipynb", text)
    code, out, _ = run(capsys, "check", "--diff", "nb.ipynb")
    assert code == 1
    assert out == (
        "--- nb.ipynb:cell 2\n+++ nb.ipynb:cell 2\n@@ -1,2 +1,2 @@\n import torch\n"
        "-b = gg103\n\\ No newline at end of file\n+b = gg103_ok\n\\ No newline at end of file\n"
    )
    assert (in_tmp / "nb.ipynb").read_text() == text


def test_statistics(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "a.py", SOURCE)
    write(in_tmp / "b.py", "import torch\ny = gg103\n")
    code, out, _ = run(capsys, "check", "--statistics", "a.py", "b.py")
    assert code == 1
    rows = [line.split("\t") for line in out.splitlines()[:2]]
    assert [row[:2] for row in rows] == [["2", "GG103"], ["1", "GG301"]]
    assert rows[0][2].startswith("[*] ") and "fake finding" not in out
    assert out.splitlines()[2].startswith("Found ")
    code, out, _ = run(capsys, "check", "--statistics", "--format", "json", "a.py", "b.py")
    data = json.loads(out)
    assert [(d["code"], d["count"], d["fixable"]) for d in data] == [("GG103", 2, True), ("GG301", 1, True)]
    assert run(capsys, "check", "--statistics", "--format", "sarif", "a.py")[0] == 2
    write(in_tmp / "c.py", "import torch\n")
    assert run(capsys, "check", "--statistics", "c.py") == (0, "All checks passed!\n", "")


def test_unsafe_fixes_are_applied_only_when_asked(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The fake engine gives GG2xx names an unsafe fix, the others a safe one.
    source = "import torch\nx = gg103\ny = gg201\n"
    target = write(in_tmp / "t.py", source)
    code, out, _ = run(capsys, "check", "t.py")
    assert out.endswith("Found 1 error, 1 warning (1 fixable with `--fix`; 1 more with `--unsafe-fixes`).\n")
    data = json.loads(run(capsys, "check", "--format", "json", "t.py")[1])
    assert [(d["code"], d["fix"]["applicability"]) for d in data] == [("GG103", "safe"), ("GG201", "unsafe")]
    code, out, _ = run(capsys, "check", "--fix", "t.py")
    assert code == 1 and target.read_text() == source.replace("gg103", "gg103_ok")
    assert out.endswith(
        "Found 2 findings (1 fixed, 1 remaining: 1 warning).\n"
        "1 more fix is unsafe: `--unsafe-fixes` applies it.\n"
    )
    code, out, _ = run(capsys, "check", "--fix", "--unsafe-fixes", "t.py")
    assert code == 0 and target.read_text() == source.replace("gg103", "gg103_ok").replace(
        "gg201", "gg201_ok"
    )
    write(in_tmp / "t.py", source)
    assert "+y = gg201_ok" not in run(capsys, "check", "--diff", "t.py")[1]
    assert "+y = gg201_ok" in run(capsys, "check", "--diff", "--unsafe-fixes", "t.py")[1]
    statistics = run(capsys, "check", "--statistics", "t.py")[1].splitlines()
    assert [row.split("\t")[1] + " " + row.split("\t")[2][:3] for row in statistics[:2]] == [
        "GG103 [*]",
        "GG201 [ ]",  # its fix is unsafe: not what --fix applies
    ]
