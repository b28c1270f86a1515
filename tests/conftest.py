"""Shared fixtures: a fake engine and fake fixes, so CLI/API plumbing is tested on its own.

The fake engine reports ``GGnnn`` for every identifier ``ggnnn`` in the source (after checking
that the source parses, as the real engine does). Its preferred fix renames ``ggnnn`` to
``ggnnn_ok`` by appending ``_ok``, which makes the finding go away.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from gradguard.findings import Finding, Fix, FixRef, Related, Span, TextEdit

_NAME = re.compile(r"\bgg(\d{3})\b")


def fake_analyze(source: str, filename: str = "<string>", loader: object = None) -> list[Finding]:
    ast.parse(source)
    findings = []
    for number, line in enumerate(source.split("\n"), start=1):
        code_part = line.split("#", 1)[0]
        for match in _NAME.finditer(code_part):
            span = Span(number, match.start(), number, match.end())
            findings.append(
                Finding(
                    code=f"GG{match.group(1)}",
                    message=f"fake finding {match.group(1)}",
                    span=span,
                    related=(Related(Span(1, 0, 1, 1), "built here", "built"),),
                    fixes=(
                        FixRef(
                            "append",
                            "Rename it",
                            "none",
                            {"expr": span.to_json(), "suffix": "_ok"},
                            # GG2xx names get an unsafe fix, the others a safe one.
                            "unsafe" if match.group(1).startswith("2") else "safe",
                        ),
                    ),
                    chain="a <- b",
                )
            )
    # Unsorted on purpose: check_source sorts.
    return list(reversed(findings))


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(text) for text in lines[: line - 1]) + col


def fake_apply_edits(source: str, edits: Sequence[TextEdit]) -> str:
    lines = source.splitlines(keepends=True) or [""]
    lines.append("")
    for edit in sorted(edits, key=lambda e: (e.span.line, e.span.col), reverse=True):
        start = _offset(lines, edit.span.line, edit.span.col)
        end = _offset(lines, edit.span.end_line, edit.span.end_col)
        source = source[:start] + edit.new_text + source[end:]
        lines = source.splitlines(keepends=True) or [""]
        lines.append("")
    return source


def fake_compute(source: str, ref: FixRef) -> Fix | None:
    line, col, end_line, end_col = ref.params["expr"]
    lines = source.split("\n")
    if line > len(lines) or not _NAME.fullmatch(lines[line - 1][col:end_col]):
        return None
    edit = TextEdit(Span(end_line, end_col, end_line, end_col), ref.params["suffix"])
    return Fix(ref.title, ref.tradeoff, (edit,), preferred=True, applicability=ref.applicability)


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import gradguard.api
    import gradguard.engine

    monkeypatch.setattr(gradguard.engine, "analyze", fake_analyze)
    fake_fixes = SimpleNamespace(compute=fake_compute, apply_edits=fake_apply_edits)
    monkeypatch.setattr(gradguard.api, "_fixes_module", lambda: fake_fixes)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty temporary directory (so no configuration from the repository applies)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's cache (import resolutions, findings) goes to a folder of the test session, never to
    the user's own cache folder."""
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "gradguard-cache"))
