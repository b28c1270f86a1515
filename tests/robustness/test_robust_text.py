"""Odd text: null bytes, line endings, tabs, non-ASCII, empty files, byte-order marks, encoding cookies."""

from __future__ import annotations

import re

import pytest
from robust_util import EXAMPLES, read, survive

import gradguard
from gradguard.api import fix_source

GG103 = read(EXAMPLES / "gg103_graph_before_loop.py")  # GG103 on `y` in `y = t @ a`, line 8
GG110 = read(EXAMPLES / "gg110_numpy_requires_grad.py")


def _codes_and_spans(source: str) -> list[tuple[str, int, int, int, int]]:
    return [(f.code, *f.span.to_json()) for f in gradguard.check_source(source)]


def _flagged_text(source: str) -> str:
    (finding,) = gradguard.check_source(source)
    line = re.split(r"\r\n|\r|\n", source)[finding.span.line - 1]
    return line[finding.span.col : finding.span.end_col]


@pytest.mark.parametrize(
    "source",
    [
        "",
        " ",
        "\n",
        "\n\n\n",
        "   \n\t\n  \t  ",
        "\r\n\r\n",
        "\r",
        "# only a comment about torch\n",
        "torch",
        "import torch",
        '"""torch"""',
        "\x00",
        "import torch\x00\n",
        "\x00import torch\nx = torch.ones(2, requires_grad=True)\n",
        GG103.replace("\n", "\x00\n"),
        GG103.replace("x_out", "x_\x00out"),
        GG103[: len(GG103) // 2] + "\x00" + GG103[len(GG103) // 2 :],
        GG103.replace("measure", '"\x00"; measure', 1),
        "\ufeff",
        "\ufeff\ufeff" + GG103,
        "\t" * 1000,
        "\\\n" * 50,
        GG103 + "\\",
        GG103 + "\r\n\r",
        GG103.replace("\n", "\x0c\n"),
        GG103.replace("\n", "\u2028\n"),
        GG103.replace("\n", "\x85\n"),
        GG103.replace("    ", "\t    ", 1),  # inconsistent tabs and spaces
        "\udcff import torch",  # a lone surrogate (from a lossy decode)
    ],
    ids=repr,
)
def test_odd_text_survives(source: str) -> None:
    survive(source, fix_all=True)


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_line_endings_give_the_same_findings_and_keep_the_endings(ending: str) -> None:
    source = GG103.replace("\n", ending)
    assert _codes_and_spans(source) == _codes_and_spans(GG103)
    answer = survive(source, fix_all=True)
    assert answer.fixes_computed == answer.fixes_offered == 1
    fixed, applied = fix_source(source, unsafe=True)
    assert applied == 1
    assert fixed.replace(ending, "\n") == fix_source(GG103, unsafe=True)[0]
    assert "\n" not in fixed.replace("\r\n", "") if ending == "\r\n" else "\n" not in fixed


def test_mixed_line_endings_keep_each_line_ending() -> None:
    lines = GG103.split("\n")
    # A \r right before an empty line ending in \n would make one \r\n: never put \r there.
    endings = [
        "\r\n" if i % 3 == 0 else "\r" if i % 3 == 1 and lines[i + 1] else "\n" for i in range(len(lines) - 1)
    ]
    source = "".join(line + ending for line, ending in zip(lines[:-1], endings, strict=True)) + lines[-1]
    assert _codes_and_spans(source) == _codes_and_spans(GG103)
    fixed, applied = fix_source(source, unsafe=True)
    assert applied == 1
    assert re.sub(r"\r\n|\r", "\n", fixed) == fix_source(GG103, unsafe=True)[0]
    # Lines the fix did not touch keep their own endings.
    kept = [line for line in re.findall(r"[^\r\n]*(?:\r\n|\r|\n)", source) if "y = t @ a" not in line]
    after = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)", fixed)
    assert all(line in after for line in kept)


def test_tabs_count_one_column() -> None:
    # The example's body in a function, indented with tabs: the squiggle (`y`) is on a tabbed line.
    body = GG103.replace("    ", "\t").splitlines(keepends=True)
    source = "def main():\n" + "".join(f"\t{line}" if line.strip() else line for line in body)
    assert _flagged_text(source) == "y"
    (finding,) = gradguard.check_source(source)
    assert finding.span.col == "\ty = t @ a".index("y")
    survive(source, fix_all=True)


@pytest.mark.parametrize(
    "before",
    ['s = "é"; ', 's = "😀😀"; ', "ñandú = 1; ", "变量 = '数据'; ", 's = "\u200b\u0301"; ', 'e = "🧑‍🔬"; '],
)
def test_columns_count_code_points_after_non_ascii(before: str) -> None:
    source = GG103.replace("\ny = t @ a", f"\n{before}y = t @ a")
    (finding,) = gradguard.check_source(source)
    line = source.split("\n")[finding.span.line - 1]
    assert line[finding.span.col : finding.span.end_col] == "y"
    assert finding.span.col == line.index("y = t @ a")
    survive(source, fix_all=True)


@pytest.mark.parametrize("name", ["ÿ", "数据", "ñ_ü", "Ωmega"])
def test_non_ascii_identifiers(name: str) -> None:
    source = GG103.replace("y = t @ a", f"{name} = t @ a").replace("(x + y)", f"(x + {name})")
    assert _flagged_text(source) == name
    fixed, applied = fix_source(source, unsafe=True)
    assert applied == 1 and f"    {name} = t @ a\n" in fixed
    survive(source, fix_all=True)


def test_non_ascii_before_a_fix_on_the_same_line() -> None:
    """GG110's fix inserts `.detach()` after a column counted in code points."""
    source = GG110.replace("scores = pred.numpy()", "é = '😀'; scores = pred.numpy()")
    fixed, applied = fix_source(source, unsafe=True)
    assert applied == 1
    assert "é = '😀'; scores = pred.detach()" in fixed


def test_byte_order_mark_in_api_text() -> None:
    source = "\ufeff" + GG103
    assert _codes_and_spans(source) == _codes_and_spans(GG103)
    fixed, applied = fix_source(source, unsafe=True)
    assert applied == 1 and fixed == "\ufeff" + fix_source(GG103, unsafe=True)[0]


def test_encoding_cookie_in_api_text() -> None:
    source = "# -*- coding: latin-1 -*-\n" + GG103
    shifted = [
        (c, line - 1, col, end - 1, end_col) for c, line, col, end, end_col in _codes_and_spans(source)
    ]
    assert shifted == _codes_and_spans(GG103)
    survive(source, fix_all=True)


@pytest.mark.parametrize("separator", ["\x0c", "\x85", "\u2028"], ids=["formfeed", "nel", "u2028"])
def test_unicode_line_separators_in_comments_and_form_feeds(separator: str) -> None:
    """The engine counts lines as Python does (\\n, \\r\\n, \\r), not as ``str.splitlines``."""
    # A form feed alone on a line (page break) is legal Python; the others are legal in comments.
    source = GG103.replace("\nfor _ in range(2):", f"\n# section{separator}two\nfor _ in range(2):")
    if separator == "\x0c":
        source = GG103.replace("\nfor _ in range(2):", "\n\x0c\nfor _ in range(2):")
    assert [code for code, *_ in _codes_and_spans(source)] == ["GG103"]


def test_column_after_a_line_separator_in_a_comment() -> None:
    source = "import torch\n# a\u2028b\nx = torch.ones(2, requires_grad=True)\ns = 'é'; n = x.numpy()\n"
    (finding,) = gradguard.check_source(source)
    assert (finding.code, finding.span.line, finding.span.col) == ("GG110", 4, len("s = 'é'; n = "))
