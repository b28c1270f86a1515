"""Security: what is analysed is never executed or imported, configuration is data, and ``--fix``
writes atomically and only inside the paths given."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from robust_util import EXAMPLES, read

import gradguard
from gradguard import fixes
from gradguard.api import check_notebook, fix_notebook, fix_source
from gradguard.cli import main
from gradguard.config import load_config

GG103 = read(EXAMPLES / "gg103_graph_before_loop.py")
FIXED_LINE = "    y = t @ a\n"

# Every way top-level code could run something: each would create a marker file if executed.
HOSTILE = """\
import os, subprocess, importlib
import gg_side_effect_module
from gg_side_effect_module import thing
__import__("gg_side_effect_dunder")
importlib.import_module("gg_side_effect_importlib")
open("MARKER_open", "w").write("ran")
os.system("touch MARKER_system")
subprocess.run(["touch", "MARKER_subprocess"])
exec("open('MARKER_exec', 'w')")
eval("open('MARKER_eval', 'w')")
compile("open('MARKER_compile', 'w')", "x", "exec")
class Meta(type):
    def __new__(mcs, *a):
        open("MARKER_metaclass", "w")
        return super().__new__(mcs, *a)
class C(metaclass=Meta):
    open("MARKER_class_body", "w")
@(lambda f: open("MARKER_decorator", "w"))
def f(x=open("MARKER_default", "w")) -> open("MARKER_annotation", "w"):
    pass
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", "-j", "1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def hostile_tree(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("gg_side_effect_module", "gg_side_effect_dunder", "gg_side_effect_importlib"):
        (in_tmp / f"{name}.py").write_text(f"open('MARKER_{name}', 'w').write('imported')\nthing = 1\n")
    source = HOSTILE + GG103  # a real finding too, so the fixes run
    (in_tmp / "hostile.py").write_text(source)
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    (in_tmp / "hostile.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}}))
    monkeypatch.syspath_prepend(str(in_tmp))  # importable, were anything to import it
    return in_tmp


def _warm_up(capsys: pytest.CaptureFixture[str], tmp: Path) -> None:
    """Import whatever gradguard itself imports lazily, so only the analysed code could add modules."""
    (tmp / "warm").mkdir()
    (tmp / "warm" / "w.py").write_text(GG103)
    (tmp / "warm" / "w.ipynb").write_text((tmp / "hostile.ipynb").read_text())
    for mode in ((), ("--fix", "--unsafe-fixes"), ("--diff", "--unsafe-fixes"), ("--format", "json")):
        run(capsys, *mode, "warm")


def test_analysis_never_executes_or_imports(hostile_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _warm_up(capsys, hostile_tree)
    before = set(sys.modules)
    source = (hostile_tree / "hostile.py").read_text()

    findings = gradguard.check_source(source, "hostile.py")
    assert [f.code for f in findings] == ["GG103"]
    for finding in findings:
        for ref in finding.fixes:
            fixes.compute(source, ref)
    fix_source(source, "hostile.py", unsafe=True)
    notebook_text = (hostile_tree / "hostile.ipynb").read_text()
    check_notebook(notebook_text)
    fix_notebook(notebook_text, unsafe=True)
    for mode in (
        (),
        ("--format", "json"),
        ("--format", "sarif"),
        ("--diff", "--unsafe-fixes"),
        ("--fix", "--unsafe-fixes"),
    ):
        run(capsys, *mode, "hostile.py", "hostile.ipynb")

    assert sorted(p.name for p in hostile_tree.glob("MARKER*")) == []
    assert set(sys.modules) - before == set()
    assert FIXED_LINE in (hostile_tree / "hostile.py").read_text()  # --fix did run


ODD_CONFIGS = {
    "code in a string": "select = [\"__import__('os').system('touch MARKER_config')\"]",
    "string not list": 'select = "GG1"',
    "number": "select = 5",
    "numbers in list": "ignore = [1, 2]",
    "table for list": "exclude = { a = 1 }",
    "nested list": 'select = [["GG1"]]',
    "severity list": 'severity = { GG101 = ["error"] }',
    "severity unknown": 'severity = { GG101 = "fatal" }',
    "severity number": "severity = { GG101 = 3 }",
    "severity bad code": 'severity = { "rm -rf" = "error" }',
    "per-file list": 'per-file-ignores = ["GG1"]',
    "per-file bad codes": 'per-file-ignores = { "*.py" = "GG1" }',
    "unknown key": 'selekt = ["GG1"]',
    "python key": '"__class__" = 1',
    "null byte": 'select = ["GG1\\u0000"]',
    "huge": 'select = ["' + "G" * 100_000 + '"]',
    "dates": "select = 1979-05-27T07:32:00Z",
    "inline table": 'select = [{ code = "GG1" }]',
}


@pytest.mark.parametrize("name", list(ODD_CONFIGS))
def test_configuration_is_data(in_tmp: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    (in_tmp / "pyproject.toml").write_text(f"[tool.gradguard]\n{ODD_CONFIGS[name]}\n")
    (in_tmp / "t.py").write_text(GG103)
    code, _, err = run(capsys, "t.py")
    assert code == 2
    assert err.startswith("gradguard: error: ") and "pyproject.toml" in err and "Traceback" not in err
    settings, messages = load_config(in_tmp / "pyproject.toml")
    assert messages and hash(settings) is not None
    assert list(in_tmp.glob("MARKER*")) == []


@pytest.mark.parametrize(
    "text",
    [
        "[tool.gradguard",
        "[tool]\ngradguard = 1",
        "[tool.gradguard]\nselect = [",
        "\x00gradguard",
        "gradguard = \xff",
    ],
    ids=repr,
)
def test_broken_configuration_files(in_tmp: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    (in_tmp / "pyproject.toml").write_bytes(text.encode("utf-8", "surrogateescape"))
    (in_tmp / "t.py").write_text(GG103)
    code, _, err = run(capsys, "t.py")
    assert code == 2 and err.startswith("gradguard: error: ") and "Traceback" not in err


def _stamp(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_fix_crash_at_rename_keeps_the_original(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = in_tmp / "t.py"
    path.write_text(GG103)

    def crash(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    code, _, err = run(capsys, "--fix", "--unsafe-fixes", "t.py")
    assert code == 1 and "t.py: cannot write the fixes: [Errno 28] No space left on device" in err
    assert path.read_text() == GG103
    assert sorted(p.name for p in in_tmp.iterdir()) == ["t.py"]


@pytest.mark.parametrize("where", ["fsync", "chmod"])
def test_fix_interrupted_mid_write_keeps_the_original(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Killed (KeyboardInterrupt) after the new text is written to the temporary file, before the rename."""
    path = in_tmp / "t.py"
    path.write_text(GG103)

    def interrupt(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, where, interrupt)
    with pytest.raises(KeyboardInterrupt):
        main(["check", "-j", "1", "--fix", "--unsafe-fixes", "t.py"])
    assert path.read_text() == GG103
    assert sorted(p.name for p in in_tmp.iterdir()) == ["t.py"]


def test_fix_keeps_permissions(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = in_tmp / "t.py"
    path.write_text(GG103)
    path.chmod(0o640)
    assert run(capsys, "--fix", "--unsafe-fixes", "t.py")[0] == 0
    assert FIXED_LINE in path.read_text() and path.stat().st_mode & 0o777 == 0o640


def test_fix_touches_only_the_file_given(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.py", "b.py", "c.ipynb"):
        (in_tmp / name).write_text(GG103 if name.endswith(".py") else json.dumps({"cells": []}))
        os.utime(in_tmp / name, ns=(1_000_000_000, 1_000_000_000))
    neighbours = {name: _stamp(in_tmp / name) for name in ("b.py", "c.ipynb")}
    assert run(capsys, "--fix", "--unsafe-fixes", "a.py")[0] == 0
    assert FIXED_LINE in (in_tmp / "a.py").read_text()
    assert {name: _stamp(in_tmp / name) for name in neighbours} == neighbours
    assert sorted(p.name for p in in_tmp.iterdir()) == ["a.py", "b.py", "c.ipynb"]


def test_diff_and_check_write_nothing(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = in_tmp / "t.py"
    path.write_text(GG103)
    before = _stamp(path)
    assert run(capsys, "--diff", "--unsafe-fixes", "t.py")[0] == 1
    assert run(capsys, "t.py")[0] == 1
    assert _stamp(path) == before


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    victim_dir = tmp_path / "outside"
    victim_dir.mkdir()
    (victim_dir / "victim.py").write_text(GG103)
    (victim_dir / "pkg").mkdir()
    (victim_dir / "pkg" / "deep.py").write_text(GG103)
    return victim_dir


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_fix_never_writes_through_links_out_of_a_folder(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "own.py").write_text(GG103)
    (project / "link.py").symlink_to(outside / "victim.py")
    (project / "linked_dir").symlink_to(outside / "pkg", target_is_directory=True)
    monkeypatch.chdir(project)
    victims = {p: _stamp(p) for p in (outside / "victim.py", outside / "pkg" / "deep.py")}

    code, out, err = run(capsys, "--fix", "--unsafe-fixes", ".")
    assert FIXED_LINE in (project / "own.py").read_text()
    assert {p: _stamp(p) for p in victims} == victims
    assert (project / "link.py").is_symlink() and (project / "linked_dir").is_symlink()
    assert "link.py: not fixed: it links to" in err and "outside the paths given" in err
    assert code == 1 and "link.py:8:1: GG103" in out  # still checked and reported
    assert "deep.py" not in out  # linked folders are not followed
    assert sorted(p.name for p in project.iterdir()) == ["link.py", "linked_dir", "own.py"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_fix_of_a_named_link_rewrites_its_target_and_keeps_the_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "real.py").write_text(GG103)
    (project / "alias.py").symlink_to(project / "src" / "real.py")
    monkeypatch.chdir(project)
    assert run(capsys, "--fix", "--unsafe-fixes", "alias.py")[0] == 0
    assert (project / "alias.py").is_symlink()
    assert FIXED_LINE in (project / "src" / "real.py").read_text()
    # Inside a folder that holds its target too, a link is fine to follow.
    (project / "src" / "real.py").write_text(GG103)
    assert run(capsys, "--fix", "--unsafe-fixes", ".")[0] == 0
    assert (project / "alias.py").is_symlink() and FIXED_LINE in (project / "src" / "real.py").read_text()


def test_fix_from_standard_input_writes_no_file(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    (in_tmp / "t.py").write_text(GG103)
    before = _stamp(in_tmp / "t.py")
    monkeypatch.setattr(sys, "stdin", io.StringIO(GG103))
    code, out, _ = run(capsys, "--fix", "--unsafe-fixes", "--stdin-filename", "t.py")
    assert code == 0 and FIXED_LINE in out
    assert _stamp(in_tmp / "t.py") == before and sorted(p.name for p in in_tmp.iterdir()) == ["t.py"]
