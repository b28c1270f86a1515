"""Random edits of real training scripts (hypothesis): deletions, insertions of tokens and odd
characters, duplicated and swapped lines. Whatever the text, the pipeline answers without raising,
in time, and every fix it offers parses."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robust_util import SCRIPTS, parses, read, survive

import gradguard
from gradguard import fixes
from gradguard.api import fix_source

SOURCES = [read(path) for path in SCRIPTS]

TOKENS = [
    "torch", ".backward()", ".backward(retain_graph=True)", ".detach()", ".item()", ".numpy()",
    "requires_grad=True", "with torch.no_grad():", "for i in range(3):", "while True:", "def f(x):",
    "class M(nn.Module):", "return", "yield", "lambda x:", "async ", "await ", "global x", "del ",
    "loss", "=", "+=", "*=", ".add_(1)", ".relu_()", "[0]", "[:, -1]", "(", ")", "[", "]", "{", "}",
    ":", ",", ";", ".", "@", "*", "**", "\\", "#", "# noqa", "# noqa: GG103", "'", '"', '"""', "f'{",
    "\n", "\r\n", "\r", "\t", "    ", "\x00", "\x0c", "\ufeff", "é", "😀", "变量", "\u2028", "\udcff",
    "match x:", "case _:", "try:", "except:", "finally:", "if", "else:", "elif", "not", "pass",
    "opt.step()", "opt.zero_grad()", "h = h.detach()", "x = x + 1", "...", "0x", "1e", "_",
]  # fmt: skip

edit = st.one_of(
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 40)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(TOKENS)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.text(max_size=8)),
    st.tuples(st.just("duplicate-line"), st.floats(0, 1), st.integers(1, 3)),
    st.tuples(st.just("swap-lines"), st.floats(0, 1), st.integers(1, 5)),
    st.tuples(st.just("indent-line"), st.floats(0, 1), st.sampled_from(["    ", "\t", " "])),
)


def apply(source: str, edits: list[tuple[str, float, object]]) -> str:
    for kind, where, arg in edits:
        at = int(where * len(source))
        if kind == "delete":
            assert isinstance(arg, int)
            source = source[:at] + source[at + arg :]
        elif kind == "insert":
            assert isinstance(arg, str)
            source = source[:at] + arg + source[at:]
        else:
            lines = source.splitlines(keepends=True) or [""]
            i = min(int(where * len(lines)), len(lines) - 1)
            if kind == "duplicate-line":
                assert isinstance(arg, int)
                lines[i:i] = [lines[i]] * arg
            elif kind == "swap-lines":
                assert isinstance(arg, int)
                j = min(i + arg, len(lines) - 1)
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines[i] = str(arg) + lines[i]
            source = "".join(lines)
    return source


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), st.lists(edit, min_size=1, max_size=6))
def test_random_edits(source: str, edits: list[tuple[str, float, object]]) -> None:
    survive(apply(source, edits), budget=10.0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), st.lists(edit, min_size=1, max_size=3))
def test_random_edits_fix_all(source: str, edits: list[tuple[str, float, object]]) -> None:
    """``fix_source`` keeps parsable code parsable, and a second run finds nothing more to fix that
    the first could have fixed (it reached a fixed point or its round limit)."""
    edited = apply(source, edits)
    fixed, applied = fix_source(edited, unsafe=True)
    assert not parses(edited) or parses(fixed)
    if applied == 0:
        assert fixed == edited


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(SOURCES), st.lists(edit, min_size=1, max_size=4))
def test_stale_fixes_never_raise(source: str, edits: list[tuple[str, float, object]]) -> None:
    """A fix computed against an edited text (the editor moved on) is None or still parses."""
    edited = apply(source, edits)
    for finding in gradguard.check_source(source):
        for ref in finding.fixes:
            fix = fixes.compute(edited, ref)
            if fix is not None:
                assert parses(fixes.apply_edits(edited, fix.edits))
