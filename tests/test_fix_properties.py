"""Fixes compose: on every shipped example and corpus script, applying the fixes is a fixpoint (a
second pass changes nothing), the result parses, no fix reaches outside the function (or module
code) that holds its finding, and no repair is written twice."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gradguard.api import check_source, compute_fix, fix_source
from gradguard.findings import TextEdit

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [p for p in (ROOT / "examples").glob("gg*.py") if not p.name.startswith("gg000")]
    + list((ROOT / "tests" / "corpus").glob("*.py")),
    key=lambda p: (p.parent.name, p.name),
)


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("path", SOURCES, ids=_id)
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fixing_twice_equals_fixing_once_and_parses(path: Path, unsafe: bool) -> None:
    source = path.read_text(encoding="utf-8")
    once, _ = fix_source(source, path.name, unsafe=unsafe)
    ast.parse(once)
    assert fix_source(once, path.name, unsafe=unsafe) == (once, 0)


def _scopes(tree: ast.Module) -> list[tuple[int, int]]:
    """(first line, last line) of every function, innermost last when nested."""
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _home(scopes: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    """The innermost function holding ``line``; None for module code."""
    holding = [s for s in scopes if s[0] <= line <= s[1]]
    return min(holding, key=lambda s: s[1] - s[0]) if holding else None


def _lines(edit: TextEdit) -> tuple[int, int]:
    """The lines an edit changes. An indented insertion at the start of a line continues the block
    that ends on the line before (a statement added after a function's last line is in it)."""
    span = edit.span
    point = (span.line, span.col) == (span.end_line, span.end_col)
    if point and span.col == 0 and edit.new_text[:1] in (" ", "\t") and span.line > 1:
        return span.line - 1, span.line - 1
    return span.line, span.end_line


@pytest.mark.parametrize("path", SOURCES, ids=_id)
def test_every_fix_stays_in_the_function_of_its_finding(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    scopes = _scopes(ast.parse(source))
    for finding in check_source(source, path.name):
        home = _home(scopes, finding.span.line)
        for ref in finding.fixes:
            fix = compute_fix(source, ref)
            if fix is None:
                continue
            for edit in fix.edits:
                for line in _lines(edit):
                    # The same innermost function as the finding, or module code for both: an edit
                    # inside a helper would change every caller of it.
                    assert _home(scopes, line) == home, f"{finding.code} {ref.kind} edits line {line}"


def test_a_repair_is_not_written_twice() -> None:
    # GG112 (`h.detach()` thrown away) and the GG104 it causes: assigning the detach repairs both,
    # so GG104's own fix (`h = h.detach()` at the loop's top) is not offered beside it.
    source = (ROOT / "examples" / "gg112_discarded_detach.py").read_text()
    fixed, applied = fix_source(source, "gg112.py", unsafe=True)
    assert applied == 1 and fixed.count("h = h.detach()") == 1
    assert fixed == source.replace("    h.detach()\n", "    h = h.detach()\n")
    assert [f.code for f in check_source(fixed, "gg112.py")] == []


def _example_fixes() -> list[object]:
    from gradguard.rules import RULES, examples

    cases = []
    for code in RULES:
        for index, example in enumerate(examples(code)[1]):
            cases.append(pytest.param(code, example.source, id=f"{code}-{index}"))
    return cases


@pytest.mark.parametrize("code, source", _example_fixes())
def test_each_fix_does_what_its_title_says(code: str, source: str) -> None:
    """A title that quotes code (`.detach().cpu()`, `create_graph=True`) names what the fixed lines
    hold: one fix's title said `.item()` while its edit inserted `.detach()`."""
    from gradguard.fixes import apply_edits

    for finding in (f for f in check_source(source, "x.py") if f.code == code):
        for ref in finding.fixes:
            fix = compute_fix(source, ref)
            assert fix is not None, f"{ref.title}: no edit"
            new_source = apply_edits(source, list(fix.edits))
            # "Drop `inplace=True`", "drop `retain_graph=True`": what the fix removes.
            dropped = re.findall(r"(?:[Dd]rop|[Rr]emove) `([^`]+)`", ref.title)
            for snippet in dropped:
                assert new_source.count(snippet) < source.count(snippet), f"{ref.title!r} kept {snippet}"
            quoted = [q.lstrip(".") for q in re.findall(r"`([^`]+)`", ref.title) if q not in dropped]
            if not quoted or not any(edit.new_text.strip() for edit in fix.edits):
                continue
            fixed = new_source.split("\n")
            # The lines the fix wrote, in the new text.
            written: list[str] = []
            shift = 0
            for edit in sorted(fix.edits, key=lambda e: (e.span.line, e.span.col)):
                start = edit.span.line - 1 + shift
                count = edit.new_text.count("\n") + 1
                written += fixed[start : start + count]
                shift += edit.new_text.count("\n") - (edit.span.end_line - edit.span.line)
            assert any(q in "\n".join(written) for q in quoted), f"{ref.title!r} wrote {written}"
