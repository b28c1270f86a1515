"""Property: whatever sequence of opens, edits, hovers, code actions, resolves and closes a client sends
over three documents, the server keeps answering, and each open document's last published
diagnostics are for its last version and, when its text parses, are what ``check_source`` finds on
the text the client holds (so the server's copy of the text never drifted from the client's).

One server (a real subprocess over stdio) serves every example; each example uses its own URIs.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wire import Wire

import gradguard

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from gen_training_script import generate  # noqa: E402

SCRIPTS = [
    (ROOT / "examples" / name).read_text(encoding="utf-8")
    for name in ("gg103_graph_before_loop.py", "gg104_carried_state.py", "gg105_gan_fake_not_detached.py")
] + [generate(200, seed=7)]
SNIPPETS = [
    "",
    "\n",
    "(",
    "def (",
    "\x00",
    "x" * 20_000,  # a huge line
    "😀漢字",
    "\r\n",
    "\r",
    "\x0c",  # a form feed: a line break for str.splitlines, not for LSP
    "\u2028",
    "    loss.backward()\n",
    "y = t @ a\n",
    "# noqa: GG103",
    "'''",
    "\t",
    "\ufeff",
]
_BREAK = re.compile(r"\r\n|\r|\n")


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def lines_of(text: str) -> list[str]:
    return _BREAK.split(text)


def offset(text: str, line: int, character: int) -> int:
    """What an editor does with an LSP position (UTF-16): lines end at \\n, \\r\\n or \\r; past the
    end of a line or of the text is clamped."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    lines = lines_of(text)
    if line >= len(lines):
        return len(text)
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= character:
            return starts[line] + index
        units += utf16(char)
    return starts[line] + len(lines[line])


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def expected(text: str) -> list[tuple[str, int, int, int, int]]:
    lines = lines_of(text)

    def col(line: int, code_points: int) -> int:
        return utf16(lines[line - 1][:code_points]) if 1 <= line <= len(lines) else 0

    return sorted(
        (
            f.code,
            f.span.line - 1,
            col(f.span.line, f.span.col),
            f.span.end_line - 1,
            col(f.span.end_line, f.span.end_col),
        )
        for f in gradguard.check_source(text)
    )


def published(push: dict[str, Any]) -> list[tuple[str, int, int, int, int]]:
    return sorted(
        (
            d["code"],
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
        )
        for d in push["params"]["diagnostics"]
    )


position = st.tuples(st.integers(0, 80), st.integers(0, 120))
edit = st.tuples(
    position,
    st.integers(0, 3),
    st.integers(0, 60),
    st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=12)),
)
doc = st.integers(0, 2)
operation = st.one_of(
    st.tuples(st.just("open"), doc, st.integers(0, len(SCRIPTS) - 1)),
    st.tuples(st.just("change"), doc, edit),
    st.tuples(st.just("change"), doc, edit),
    st.tuples(st.just("change"), doc, edit),
    st.tuples(st.just("hover"), doc, position),
    st.tuples(st.just("action"), doc, position),
    st.tuples(st.just("close"), doc),
)


@pytest.fixture(scope="module")
def server():
    connection = Wire()
    connection.initialize(
        {
            "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}},
            "workspace": {"workspaceEdit": {"documentChanges": True}},
        }
    )
    yield connection
    connection.stop()


examples = itertools.count()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.integers(0, len(SCRIPTS) - 1), st.lists(operation, min_size=1, max_size=14))
def test_any_sequence_keeps_the_server_answering_and_in_sync(
    server: Wire, first: int, ops: list[Any]
) -> None:
    ops = [("open", 0, first), *ops]
    run = next(examples)
    uris = [f"file:///prop/run{run}/doc{i}.py" for i in range(3)]
    texts: dict[str, str] = {}
    versions: dict[str, int] = {}
    marks: dict[str, int] = {}  # index of the first message that may carry the latest push
    for op in ops:
        kind, uri = op[0], uris[op[1]]
        if kind == "open":
            if uri in texts:
                continue
            texts[uri], versions[uri] = SCRIPTS[op[2]], 1
            marks[uri] = len(server.messages)
            server.open(uri, texts[uri])
        elif kind == "change" and uri in texts:
            ((line, character), lines_down, end_character, new) = op[2]
            text = texts[uri]
            start = offset(text, line, character)
            end = max(start, offset(text, line + lines_down, end_character))
            texts[uri] = text[:start] + new + text[end:]
            versions[uri] += 1
            # The editor's positions of what it replaced (any position made from the op is clamped
            # to the text first, as an editor's selection always is).
            change = {"range": {"start": _position(text, start), "end": _position(text, end)}, "text": new}
            marks[uri] = len(server.messages)
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": versions[uri]}, "contentChanges": [change]},
            )
        elif kind == "hover":
            reply = server.call(
                "textDocument/hover",
                {"textDocument": {"uri": uri}, "position": {"line": op[2][0], "character": op[2][1]}},
            )
            assert "result" in reply, reply
        elif kind == "action":
            where = {"line": op[2][0], "character": op[2][1]}
            diagnostics = _last_diagnostics(server, uri)
            reply = server.call(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": where, "end": where},
                    "context": {"diagnostics": diagnostics},
                },
            )
            assert "result" in reply, reply
            for action in (reply["result"] or [])[:2]:
                resolved = server.call("codeAction/resolve", action)
                assert "result" in resolved, resolved
                for change in (resolved["result"].get("edit") or {}).get("documentChanges", []):
                    # An edit is for the version the document is at now.
                    assert change["textDocument"]["version"] == versions.get(uri), change
        elif kind == "close" and uri in texts:
            server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            del texts[uri], versions[uri]
            # A round trip, so every push sent before the close has been read: a reopened document
            # starts again at version 1, and an old push for version 1 must not pass for a new one.
            server.call(
                "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
            )
    # The server still answers, and every open document's final state is published and right.
    assert server.call(
        "textDocument/hover", {"textDocument": {"uri": uris[0]}, "position": {"line": 0, "character": 0}}
    )
    for uri, text in texts.items():
        push = server.wait_for_push(uri, versions[uri], start=marks[uri])
        # While the text does not parse, the server keeps the last findings on purpose (the
        # squiggles do not flicker while typing), at their old places: only the push is checked.
        if parses(text):
            assert published(push) == expected(text), (uri, text[:2000])
    for uri in texts:
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert server.process.poll() is None


def _position(text: str, index: int) -> dict[str, int]:
    before = text[:index]
    breaks = list(_BREAK.finditer(before))
    line_start = breaks[-1].end() if breaks else 0
    # A \r at the very end of `before` may be the first half of a \r\n: then index is inside a
    # line break, which an editor never produces; the offsets above never land there.
    return {"line": len(breaks), "character": utf16(before[line_start:])}


def _last_diagnostics(server: Wire, uri: str) -> list[Any]:
    for message in reversed(server.messages):
        if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            return list(message["params"]["diagnostics"])
    return []
