"""Odd files on disk for ``gradguard check``: bad encodings, byte-order marks, cookies, line endings,
null bytes, empty files and broken notebooks. Each gets a clear per-file message or its findings;
the scan goes on; exit codes as the README says (1 for findings or a file that could not be read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from robust_util import EXAMPLES, read

from gradguard.cli import main

GG103 = read(EXAMPLES / "gg103_graph_before_loop.py")
FIXED_LINE = "    y = t @ a\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", "-j", "1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def notebook(*cells: dict[str, object], metadata: object = None) -> str:
    data = {"cells": list(cells), "metadata": {} if metadata is None else metadata, "nbformat": 4}
    return json.dumps(data, indent=1) + "\n"


def code_cell(source: str | list[str]) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


def test_undecodable_files_are_named_and_the_scan_goes_on(in_tmp: Path, capsys) -> None:
    (in_tmp / "a_good.py").write_text(GG103)
    (in_tmp / "b_bad.py").write_bytes(b"import torch\nx = '\xff\xfe'\n")
    (in_tmp / "c_cookie.py").write_bytes(b"# -*- coding: klingon -*-\nimport torch\n")
    (in_tmp / "d_latin1_without_cookie.py").write_bytes(b"import torch\ns = 'caf\xe9'\n")
    (in_tmp / "e_bad.ipynb").write_bytes(b'{"cells": ["\xff torch"]}')
    (in_tmp / "f_good.py").write_text(GG103)
    code, out, err = run(capsys)
    assert code == 1
    assert out.count("GG103") == 2 and "a_good.py:8:1: GG103" in out and "f_good.py:8:1" in out
    assert "4 files could not be checked." in out
    lines = err.splitlines()
    assert "gradguard: error: b_bad.py: not valid UTF-8: byte 0xff at offset 18; file skipped" in lines
    assert "gradguard: error: c_cookie.py: unknown encoding: klingon; file skipped" in lines
    assert any(
        line.startswith("gradguard: error: d_latin1_without_cookie.py: not valid UTF-8") for line in lines
    )
    assert any(line.startswith("gradguard: error: e_bad.ipynb: not valid UTF-8") for line in lines)
    assert len(lines) == 4


def test_fix_skips_undecodable_files_untouched(in_tmp: Path, capsys) -> None:
    good, bad = in_tmp / "good.py", in_tmp / "bad.py"
    good.write_text(GG103)
    bad_bytes = b"import torch\nx = '\xff'\n" + GG103.encode()
    bad.write_bytes(bad_bytes)
    code, _, err = run(capsys, "--fix", "--unsafe-fixes")
    assert code == 1 and "bad.py: not valid UTF-8" in err
    assert FIXED_LINE in good.read_text() and bad.read_bytes() == bad_bytes


def test_encoding_cookie_file_is_read_and_written_in_its_encoding(in_tmp: Path, capsys) -> None:
    path = in_tmp / "latin.py"
    source = "# -*- coding: latin-1 -*-\n" + GG103.replace("measure = ", "note = 'café'\nmeasure = ")
    path.write_bytes(source.encode("latin-1"))
    code, out, _ = run(capsys, "latin.py")
    assert code == 1 and "latin.py:10:1: GG103" in out
    assert run(capsys, "--fix", "--unsafe-fixes", "latin.py")[0] == 0
    data = path.read_bytes()
    assert b"caf\xe9" in data and FIXED_LINE.encode() in data


def test_byte_order_mark_file_keeps_its_mark(in_tmp: Path, capsys) -> None:
    path = in_tmp / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + GG103.encode())
    code, out, _ = run(capsys, "bom.py")
    assert code == 1 and "bom.py:8:1: GG103" in out
    assert run(capsys, "--fix", "--unsafe-fixes", "bom.py")[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and not data.startswith(b"\xef\xbb\xbf\xef\xbb\xbf")
    assert FIXED_LINE.encode() in data


@pytest.mark.parametrize("ending", ["\r\n", "\r", "mixed"])
def test_fix_keeps_line_endings(in_tmp: Path, capsys, ending: str) -> None:
    if ending == "mixed":
        # Windows line endings with a few Unix ones pasted in: each line keeps its own.
        source = GG103.replace("\n", "\r\n").replace(
            "measure = torch.nn.MSELoss()\r\n", "measure = torch.nn.MSELoss()\n"
        )
    else:
        source = GG103.replace("\n", ending)
    path = in_tmp / "t.py"
    path.write_bytes(source.encode())
    code, out, _ = run(capsys, "t.py")
    assert code == 1 and "t.py:8:1: GG103" in out
    assert run(capsys, "--fix", "--unsafe-fixes", "t.py")[0] == 0
    data = path.read_bytes().decode()
    if ending == "mixed":
        assert "measure = torch.nn.MSELoss()\n" in data and data.count("\n") - data.count("\r\n") == 1
    elif ending == "\r\n":
        assert "\n" not in data.replace("\r\n", "")
    else:
        assert "\n" not in data
    assert FIXED_LINE.replace("\n", "") in data


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"   \n\t\n",
        b"\n" * 100,
        b"import torch\x00\n",
        b"\x00" * 10,
        b"torch",
        b"\xef\xbb\xbf",
        b"\r\r\r",
    ],
    ids=repr,
)
def test_empty_and_degenerate_files_pass(in_tmp: Path, capsys, content: bytes) -> None:
    (in_tmp / "t.py").write_bytes(content)
    if b"torch\x00" in content:
        # Not Python (a null byte): the one honest answer is GG000, never "All checks passed!".
        code, out, err = run(capsys, "t.py")
        assert (code, err) == (1, "") and out.startswith("t.py:1:13: GG000 ") and "passed" not in out
        assert run(capsys, "--fix", "--unsafe-fixes", "t.py")[0] == 1
    else:
        assert run(capsys, "t.py") == (0, "All checks passed!\n", "")
        assert run(capsys, "--fix", "--unsafe-fixes", "t.py")[0] == 0
    assert (in_tmp / "t.py").read_bytes() == content


BROKEN_NOTEBOOKS = {
    "truncated.ipynb": ('{"cells": [', "not valid notebook JSON"),
    "empty.ipynb": ("", "not valid notebook JSON"),
    "list.ipynb": ("[1, 2]", "not a Jupyter notebook (no 'cells' list)"),
    "no_cells.ipynb": ('{"metadata": {}}', "not a Jupyter notebook (no 'cells' list)"),
    "cells_not_list.ipynb": ('{"cells": {"a": 1}}', "not a Jupyter notebook (no 'cells' list)"),
    "torch_text.ipynb": ("import torch  # a Python file named .ipynb", "not valid notebook JSON"),
}


def test_broken_notebooks_are_named_and_the_scan_goes_on(in_tmp: Path, capsys) -> None:
    for name, (text, _) in BROKEN_NOTEBOOKS.items():
        (in_tmp / name).write_text(text)
    (in_tmp / "z_good.py").write_text(GG103)
    code, out, err = run(capsys)
    assert code == 1 and "z_good.py:8:1: GG103" in out
    for name, (_, message) in BROKEN_NOTEBOOKS.items():
        assert any(line.startswith(f"gradguard: error: {name}: {message}") for line in err.splitlines()), name
    assert run(capsys, "--fix", "--unsafe-fixes")[0] == 1
    for name, (text, _) in BROKEN_NOTEBOOKS.items():
        assert (in_tmp / name).read_text() == text


ODD_NOTEBOOKS = {
    "no_cells": notebook(),
    "markdown_only": notebook(
        {"cell_type": "markdown", "metadata": {}, "source": "import torch\nx.backward()"}
    ),
    "raw_only": notebook({"cell_type": "raw", "metadata": {}, "source": ["import torch\n"]}),
    "only_magics": notebook(code_cell(["%pip install torch\n", "!nvidia-smi\n", "%matplotlib inline"])),
    "cell_magic": notebook(code_cell("%%bash\nimport torch\nloss.backward()\nloss.backward()\n")),
    "syntax_error_cell": notebook(code_cell("import torch\ndef (:\n")),
    "null_byte_cell": notebook(code_cell("import torch\x00\n")),
    "empty_code_cells": notebook(code_cell(""), code_cell([]), code_cell("\n\n")),
    "odd_cells": notebook(
        1,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        {"cell_type": "code"},
        code_cell(5),  # type: ignore[arg-type]
        code_cell([1, None]),  # type: ignore[list-item]
        code_cell("import torch\n"),
    ),
    "odd_metadata": notebook(
        code_cell("import torch\n"), metadata={"language_info": "python", "kernelspec": 3}
    ),
    "metadata_list": notebook(code_cell("import torch\n"), metadata=[1]),
    "other_language": notebook(code_cell("import torch\n"), metadata={"kernelspec": {"language": "R"}}),
}


# The cell (1-based, all cells counted) that does not parse: `def (:`, a null byte, and the
# list [1, None] read as "1None".
UNPARSABLE_CELLS = {"syntax_error_cell": 1, "null_byte_cell": 1, "odd_cells": 5}


@pytest.mark.parametrize("name", list(ODD_NOTEBOOKS))
def test_odd_notebooks_pass(in_tmp: Path, capsys, name: str) -> None:
    path = in_tmp / f"{name}.ipynb"
    path.write_text(ODD_NOTEBOOKS[name])
    if name in UNPARSABLE_CELLS:
        # A code cell that is neither Python nor IPython: GG000 on it, and nothing else.
        code, out, err = run(capsys, path.name)
        assert (code, err) == (1, "")
        assert [line.split()[2] for line in out.splitlines()[:-1]] == ["GG000"], out
        assert f"{path.name}:cell {UNPARSABLE_CELLS[name]}:" in out
        assert run(capsys, "--diff", "--unsafe-fixes", path.name)[0] == 0  # nothing to fix
    else:
        assert run(capsys, path.name) == (0, "All checks passed!\n", "")
        for mode in ("--fix", "--diff"):
            assert run(capsys, mode, "--unsafe-fixes", path.name)[0] == 0
    assert path.read_text() == ODD_NOTEBOOKS[name]


@pytest.mark.parametrize("as_list", [False, True], ids=["source-string", "source-list"])
def test_notebook_source_string_or_list(in_tmp: Path, capsys, as_list: bool) -> None:
    source: str | list[str] = GG103.splitlines(keepends=True) if as_list else GG103
    path = in_tmp / "nb.ipynb"
    path.write_text(
        notebook({"cell_type": "markdown", "metadata": {}, "source": "# title"}, code_cell(source))
    )
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1 and "nb.ipynb:cell 2:8:1: GG103" in out
    assert run(capsys, "--fix", "--unsafe-fixes", "nb.ipynb")[0] == 0
    cell = json.loads(path.read_text())["cells"][1]
    assert isinstance(cell["source"], list) == as_list
    assert FIXED_LINE in "".join(cell["source"])


def test_notebook_with_byte_order_mark(in_tmp: Path, capsys) -> None:
    path = in_tmp / "nb.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + notebook(code_cell(GG103)).encode())
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1 and "nb.ipynb:cell 1:8:1: GG103" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_special_files_in_a_folder_do_not_block_the_scan(in_tmp: Path, capsys) -> None:
    os.mkfifo(in_tmp / "pipe.py")  # reading it would wait for a writer forever
    (in_tmp / "broken_link.py").symlink_to(in_tmp / "nowhere.py")
    (in_tmp / "good.py").write_text(GG103)
    code, out, err = run(capsys, ".")
    assert code == 1 and "good.py:8:1: GG103" in out and "pipe.py" not in out + err
    assert err.startswith("gradguard: error: broken_link.py: cannot read: No such file or directory")
