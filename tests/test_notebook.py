from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fake_apply_edits
from gradguard.api import check_notebook, fix_notebook
from gradguard.findings import Span, TextEdit
from gradguard.notebook import Notebook, NotebookError, python_of_cell


def notebook(*cells: tuple[str, str], as_list: bool = True, **metadata: Any) -> str:
    data = {
        "cells": [
            {
                "cell_type": kind,
                "metadata": {"keep": i},
                "source": text.splitlines(keepends=True) if as_list else text,
                **(
                    {"outputs": [{"output_type": "stream", "text": ["hi\n"]}], "execution_count": 3}
                    if kind == "code"
                    else {}
                ),
            }
            for i, (kind, text) in enumerate(cells)
        ],
        "metadata": metadata,
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(data, indent=1) + "\n"


def test_cells_concatenate_with_line_maps() -> None:
    nb = Notebook.parse(
        notebook(("code", "import torch\na = 1"), ("markdown", "# hi"), ("code", "b = 2\nc = 3\n"))
    )
    assert nb.program == "import torch\na = 1\nb = 2\nc = 3\n"
    cell, line = nb.locate(3) or (None, 0)
    assert cell is not None and (cell.index, cell.number, line) == (2, 3, 1)
    assert nb.program_line(2, 2) == 4
    assert nb.locate(99) is None


@pytest.mark.parametrize(
    "magic",
    [
        "%matplotlib inline",
        "!pip install torch",
        "?torch.randn",
        "torch.randn?",
        "files = !ls",
        "t = %time f()",
    ],
)
def test_line_magics_become_pass_keeping_lines(magic: str) -> None:
    text, replaced = python_of_cell(f"import torch\n{magic}\nx = 1")
    assert text.split("\n") == ["import torch", "pass", "x = 1"]
    assert replaced == [2]


def test_indented_magic_keeps_block_valid() -> None:
    text, replaced = python_of_cell("for i in range(2):\n    %time f(i)\n")
    assert text == "for i in range(2):\n    pass\n" and replaced == [2]


def test_cell_magics() -> None:
    text, replaced = python_of_cell("%%time\nx = 1\n")
    assert text == "pass\nx = 1\n" and replaced == [1]
    text, replaced = python_of_cell("%%bash\necho hi\nls")
    assert text.strip() == "" and text.count("\n") == 2 and replaced == [1, 2, 3]


def test_continued_shell_command() -> None:
    text, _ = python_of_cell("!pip install \\\n    torch\nx = 1")
    assert text.split("\n") == ["pass", "", "x = 1"]


def test_unparsable_cell_is_blanked_not_fatal() -> None:
    nb = Notebook.parse(notebook(("code", "def broken(:\n  pass"), ("code", "import torch")))
    # Blanked, its lines kept; what it seems to bind becomes unknown for the cells after it.
    assert nb.program == "broken = __gradguard_skipped_cell__()\n\nimport torch\n"
    assert Notebook.parse(notebook(("code", "print(:"), ("code", "x = 1"))).program == "\nx = 1\n"


def test_a_name_an_unparsable_cell_rebinds_is_not_the_older_value() -> None:
    # An exercise notebook: `loss =  # YOUR CODE` is where the student computes a new loss, so the
    # backward in a later cell is not the earlier cell's second backward.
    cells = (
        ("code", "import torch\nw = torch.ones(3, requires_grad=True)\n"),
        ("code", "loss = (w * w).sum()\nloss.backward()"),
        ("code", "loss =  # YOUR CODE"),
        ("code", "loss.backward()"),
    )
    assert [f.code for f in check_notebook(notebook(*cells)).findings] == ["GG000"]
    replaced = (*cells[:2], ("code", "print(:"), cells[3])
    assert [f.code for f in check_notebook(notebook(*replaced)).findings] == ["GG000", "GG101"]


def test_broken_json_and_non_notebooks() -> None:
    with pytest.raises(NotebookError, match="not valid notebook JSON"):
        Notebook.parse("{ nope")
    with pytest.raises(NotebookError, match="no 'cells'"):
        Notebook.parse("[1, 2]")


def test_no_code_cells_and_other_languages() -> None:
    assert Notebook.parse(notebook(("markdown", "# only words"))).program == ""
    other = notebook(("code", "library(torch)"), language_info={"name": "R"})
    assert Notebook.parse(other).program == ""


def test_apply_program_edits_writes_cells_and_keeps_everything_else() -> None:
    text = notebook(("code", "import torch\nx = gg103"), ("markdown", "words"), ("code", "y = gg110"))
    nb = Notebook.parse(text)
    edits = [TextEdit(Span(2, 9, 2, 9), "_ok"), TextEdit(Span(3, 9, 3, 9), "_ok")]
    assert nb.apply_program_edits(edits, fake_apply_edits)
    out = json.loads(nb.dumps())
    original = json.loads(text)
    assert out["cells"][0]["source"] == ["import torch\n", "x = gg103_ok"]
    assert out["cells"][2]["source"] == ["y = gg110_ok"]
    for new, old in zip(out["cells"], original["cells"], strict=True):
        assert {k: v for k, v in new.items() if k != "source"} == {
            k: v for k, v in old.items() if k != "source"
        }
    assert nb.dumps().endswith("}\n") and nb.dumps().startswith('{\n "cells"')
    assert nb.program == "import torch\nx = gg103_ok\ny = gg110_ok\n"


def test_edits_across_cells_or_on_magic_lines_are_refused() -> None:
    nb = Notebook.parse(notebook(("code", "%time x = 1\nimport torch"), ("code", "y = 2")))
    assert not nb.apply_program_edits([TextEdit(Span(1, 0, 1, 4), "z")], fake_apply_edits)
    assert not nb.apply_program_edits([TextEdit(Span(2, 0, 3, 1), "z")], fake_apply_edits)
    # Whole last line of a cell (ending at column 0 of the next cell) stays inside the cell.
    assert nb.apply_program_edits([TextEdit(Span(2, 0, 3, 0), "import torch as t\n")], fake_apply_edits)
    assert nb.cell_source(0) == "%time x = 1\nimport torch as t"


def test_string_sources_stay_strings() -> None:
    nb = Notebook.parse(notebook(("code", "x = gg101"), as_list=False))
    assert nb.apply_program_edits([TextEdit(Span(1, 9, 1, 9), "_ok")], fake_apply_edits)
    assert json.loads(nb.dumps())["cells"][0]["source"] == "x = gg101_ok"


@pytest.mark.usefixtures("fake_engine")
def test_check_notebook_sees_across_cells_and_drops_magic_lines() -> None:
    text = notebook(("code", "import torch\n%time gg101"), ("markdown", "m"), ("code", "z = gg103"))
    checked = check_notebook(text, "nb.ipynb")
    assert [(f.code, f.span.line) for f in checked.findings] == [("GG103", 3)]


@pytest.mark.usefixtures("fake_engine")
def test_fix_notebook() -> None:
    text = notebook(("code", "import torch\nx = gg101  # keep"), ("code", "y = gg103"))
    fixed, count = fix_notebook(text, "nb.ipynb")
    assert count == 2
    cells = json.loads(fixed)["cells"]
    assert "".join(cells[0]["source"]) == "import torch\nx = gg101_ok  # keep"
    assert "".join(cells[1]["source"]) == "y = gg103_ok"
    assert fix_notebook(fixed, "nb.ipynb") == (fixed, 0)


def test_engine_line_numbers_become_cell_lines() -> None:
    from gradguard.notebook import renumber_lines

    nb = Notebook.parse(
        notebook(("code", "import torch\na = 1"), ("markdown", "m"), ("code", "b = 2\nc = 3"))
    )
    message = "built on line 2, used on line 4 (see line 99); offline 3"
    assert (
        renumber_lines(message, nb, 3) == "built on line 2 of cell 1, used on line 2 (see line 99); offline 3"
    )


_CELL_TEXT = st.lists(
    st.sampled_from(
        [
            "import torch",
            "x = 1",
            "%time x",
            "!ls \\",
            "  y",
            "for i in r:",
            "    %time f()",
            "def f(:",
            "'''",
            "",
            "a?",
        ]
    ),
    max_size=8,
).map("\n".join)


@given(st.lists(_CELL_TEXT, max_size=5))
def test_program_keeps_every_cell_line(cells: list[str]) -> None:
    nb = Notebook.parse(notebook(*[("code", text) for text in cells]))
    compile(nb.program, "<nb>", "exec")  # the program always parses
    for cell, text in zip(nb.cells, cells, strict=True):
        expected = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        assert cell.line_count == max(expected, 1)
        for line in range(1, cell.line_count + 1):
            assert nb.locate(nb.program_line(cell.index, line)) == (cell, line)
