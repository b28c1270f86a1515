from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradguard.findings import Finding, Span
from gradguard.noqa import filter_findings, parse_comment, suppressed, suppressions


def finding(code: str, line: int) -> Finding:
    return Finding(code, "m", Span(line, 0, line, 1))


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# noqa", None),
        ("# NOQA", None),
        ("#noqa", None),
        ("# noqa: GG103", frozenset({"GG103"})),
        ("# noqa:GG103,GG104", frozenset({"GG103", "GG104"})),
        ("# noqa: GG103 GG104  because reasons", frozenset({"GG103", "GG104"})),
        ("# noqa: gg103", frozenset({"GG103"})),
        ("# gradguard: ignore[GG103]", frozenset({"GG103"})),
        ("# gradguard: ignore[GG103, GG301]", frozenset({"GG103", "GG301"})),
        ("# gradguard: ignore", None),
        ("# type: ignore  # noqa: GG110", frozenset({"GG110"})),
        ("# a comment", False),
        ("# noqanything", False),
    ],
)
def test_parse_comment(comment: str, expected: object) -> None:
    assert parse_comment(comment) == expected


def test_codes_suppress_only_themselves() -> None:
    source = "a = 1  # noqa: GG103\nb = 2  # noqa\nc = 3  # noqa: E501\nd = 4\n"
    assert suppressed(finding("GG103", 1), source)
    assert not suppressed(finding("GG104", 1), source)
    assert suppressed(finding("GG104", 2), source)
    assert not suppressed(finding("GG103", 3), source)  # another tool's code suppresses none of ours
    assert not suppressed(finding("GG103", 4), source)


def test_prefix_suppresses_family() -> None:
    assert suppressed(finding("GG107", 1), "x = 1  # noqa: GG1\n")
    assert not suppressed(finding("GG201", 1), "x = 1  # noqa: GG1\n")


def test_noqa_inside_a_string_does_not_count() -> None:
    source = 's = "# noqa"\nt = """\n# noqa\n"""\n'
    assert suppressions(source) == {}
    assert not suppressed(finding("GG101", 1), source)
    assert not suppressed(finding("GG101", 3), source)


def test_both_conventions_on_one_line_merge() -> None:
    table = suppressions("x = 1  # noqa: GG101  # gradguard: ignore[GG102]\n")
    assert table == {1: frozenset({"GG101", "GG102"})}


def test_tokenize_error_falls_back_to_line_scan() -> None:
    source = "x = 1  # noqa: GG101\ny = (\n# noqa\n"
    table = suppressions(source)
    assert table[1] == frozenset({"GG101"})
    assert table[3] is None


def test_filter_findings_keeps_unsuppressed() -> None:
    source = "a = 1  # noqa: GG103\nb = 2\n"
    kept = filter_findings([finding("GG103", 1), finding("GG103", 2)], source)
    assert [f.span.line for f in kept] == [2]


@given(st.text())
def test_any_text_is_safe(source: str) -> None:
    table = suppressions(source)
    assert all(line >= 1 for line in table)
