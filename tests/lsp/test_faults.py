"""Faults the server must survive, over a real stdio connection: the editor dying without
``shutdown``, requests about documents that were never opened, a fix whose target changed since its
diagnostic, and garbage on the wire."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, apply_text_edits, open_doc, replace_all, start
from lsprotocol import types
from wire import SERVER, Wire, frame, gone, wait_gone

from gradguard.rules import examples

ROOT = Path(__file__).resolve().parents[2]
SEED = examples("GG103")[1][0].source  # `y = t @ a` before the loop: one GG103 with a fix
EXIT_BOUND = 10.0  # seconds for the server to notice the editor is gone and exit

sys.path.insert(0, str(ROOT / "bench"))
from gen_training_script import generate  # noqa: E402


@pytest.fixture
def wire():
    connection = Wire()
    yield connection
    connection.stop()


# ---- (a) the editor dies without shutdown/exit -----------------------------------------------------


def test_end_of_input_without_shutdown_ends_the_server(wire: Wire) -> None:
    """stdin closes (the editor's end of the pipe is gone) while analyses are under way."""
    wire.initialize()
    for i in range(4):
        wire.open(f"file:///faults/big{i}.py", generate(2000, seed=i))
    wire.call(
        "textDocument/hover",
        {"textDocument": {"uri": "file:///faults/big0.py"}, "position": {"line": 0, "character": 0}},
    )
    wire.close_input()
    wire.process.wait(timeout=EXIT_BOUND)
    assert gone(wire.pid)
    assert "Traceback" not in wire.stderr()


EDITOR = textwrap.dedent(
    """
    import json, subprocess, sys
    server = subprocess.Popen([sys.executable, "-m", "gradguard", "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "capabilities": {}}}).encode()
    server.stdin.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
    server.stdin.flush()
    server.stdout.readline()  # the answer's first header line: the server is up
    print(server.pid, flush=True)
    sys.stdin.read()  # until killed
    """
)


def test_editor_killed_leaves_no_orphan() -> None:
    """An "editor" process starts the server, then is SIGKILLed (no shutdown, no exit): the server,
    now an orphan, exits on its own."""
    editor = subprocess.Popen(
        [sys.executable, "-c", EDITOR], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert editor.stdout is not None
        server_pid = int(editor.stdout.readline())
        assert not gone(server_pid)
        os.kill(editor.pid, signal.SIGKILL)
        editor.wait(timeout=EXIT_BOUND)
        assert wait_gone(server_pid, EXIT_BOUND), "the server outlived its editor"
    finally:
        if editor.poll() is None:
            editor.kill()
            editor.wait()


def test_parent_process_gone_with_the_pipe_still_open(wire: Wire) -> None:
    """The client named in ``processId`` dies but something still holds the server's input open:
    the server notices (it polls the process) and exits."""
    client = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        wire.initialize(process_id=client.pid)
        assert (
            wire.call(
                "textDocument/hover",
                {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}},
            )["result"]
            is None
        )
        client.kill()
        client.wait()
        wire.process.wait(timeout=EXIT_BOUND)  # stdin is still open: only the process watch ends it
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


# ---- (b) requests about a document that was never opened --------------------------------------------

NEVER = "file:///faults/never-opened.py"
WHERE = {"line": 3, "character": 4}
RANGE = {"start": WHERE, "end": WHERE}


def test_requests_for_a_document_never_opened(wire: Wire) -> None:
    wire.initialize()
    doc = {"uri": NEVER}
    # What VS Code expects of each: hover and codeAction answer null (nothing to show); a resolve
    # answers the action back without an edit; a method gradguard does not offer is MethodNotFound.
    reply = wire.call("textDocument/hover", {"textDocument": doc, "position": WHERE})
    assert "error" not in reply and reply["result"] is None
    assert (
        wire.call(
            "textDocument/codeAction", {"textDocument": doc, "range": RANGE, "context": {"diagnostics": []}}
        )["result"]
        is None
    )
    action = {
        "title": "gradguard (GG103): Move the computation into the loop (unsafe)",
        "data": {
            "uri": NEVER,
            "key": NEVER,
            "version": 1,
            "action": "fix",
            "code": "GG103",
            "span": [10, 21, 10, 22],
            "fix": {},
        },
    }
    resolved = wire.call("codeAction/resolve", action)["result"]
    assert resolved["title"] == action["title"] and "edit" not in resolved
    fix_all = {"title": "fix all", "data": {"uri": NEVER, "key": NEVER, "action": "fixAll"}}
    assert "edit" not in wire.call("codeAction/resolve", fix_all)["result"]
    for method in ("textDocument/documentSymbol", "textDocument/definition", "textDocument/formatting"):
        params = {"textDocument": doc, "position": WHERE, "options": {"tabSize": 4, "insertSpaces": True}}
        assert wire.call(method, params)["error"]["code"] == -32601  # MethodNotFound
    # Notifications about it are ignored quietly: no "Error in server" message for the user.
    mark = len(wire.messages)
    wire.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": NEVER, "version": 2}, "contentChanges": [{"range": RANGE, "text": "x"}]},
    )
    wire.notify("textDocument/didSave", {"textDocument": doc})
    wire.notify("textDocument/didClose", {"textDocument": doc})
    # ... and the server still answers, and analyses what is opened.
    assert wire.call("textDocument/hover", {"textDocument": doc, "position": WHERE})["result"] is None
    wire.open("file:///faults/a.py", SEED)
    push = wire.wait_for_push("file:///faults/a.py", 1)
    assert [d["code"] for d in push["params"]["diagnostics"]] == ["GG103"]
    assert not [m for m in wire.messages[mark:] if m.get("method") == "window/showMessage"]


def test_pull_diagnostics_for_a_document_never_opened(wire: Wire) -> None:
    wire.initialize({"textDocument": {"diagnostic": {}}})
    reply = wire.call("textDocument/diagnostic", {"textDocument": {"uri": NEVER}})
    assert reply["result"] == {"kind": "full", "items": []}


# ---- (c) a fix whose target changed since its diagnostic -------------------------------------------


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: RecordingClient, tmp_path: Path):
    await start(lsp_client, tmp_path)
    lsp_client.root = tmp_path  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _actions(client: RecordingClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio
async def test_a_stale_fix_is_refused(client: RecordingClient) -> None:
    uri = (Path(client.root) / "stale.py").as_uri()  # type: ignore[attr-defined]
    open_doc(client, uri, SEED)
    [diagnostic] = await client.wait_for_version(uri, 1)
    listed = await _actions(client, uri, diagnostic)
    assert [a.title for a in listed] == [
        "gradguard (GG103): Move the computation into the loop (unsafe)",
        "Disable GG103 for this line",
    ]
    # The user types three lines above the finding: its target moves down by three lines.
    moved = "import os\nimport sys\nimport math\n" + SEED
    mark = len(client.pushes)
    replace_all(client, uri, SEED, moved, 2)
    # Resolving the actions listed for version 1 now gives no edit (it would land three lines off).
    for action in listed:
        resolved = await client.code_action_resolve_async(action)
        assert resolved.edit is None, action.title
    # The version-1 diagnostic gets no action on version 2 either (a client may still hold it).
    assert await _actions(client, uri, diagnostic) == []
    # The fresh diagnostic's fix applies, at the new place, and names the version it was made for.
    [fresh] = await client.wait_for_version(uri, 2, start=mark)
    assert fresh.range.start.line == diagnostic.range.start.line + 3
    [fix, _] = await _actions(client, uri, fresh)
    resolved = await client.code_action_resolve_async(fix)
    assert resolved.edit is not None and resolved.edit.document_changes
    [change] = resolved.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == 2
    fixed = apply_text_edits(moved, [e for e in change.edits if isinstance(e, types.TextEdit)])
    assert "for _ in range(2):\n    y = t @ a\n" in fixed and fixed.startswith("import os\n")
    # A change between the resolve and the apply: the edit still says version 2, so the client
    # (which is at version 3) refuses it rather than apply it to the wrong text.
    replace_all(client, uri, moved, moved + "# typed\n", 3)
    assert change.text_document.version != 3


@pytest.mark.asyncio
async def test_a_fix_whose_target_text_changed_is_refused(client: RecordingClient) -> None:
    """Same lines, different text: the flagged expression was rewritten by hand."""
    uri = (Path(client.root) / "rewritten.py").as_uri()  # type: ignore[attr-defined]
    open_doc(client, uri, SEED)
    [diagnostic] = await client.wait_for_version(uri, 1)
    listed = await _actions(client, uri, diagnostic)
    rewritten = SEED.replace("y = t @ a\n", "y = (t @ a).detach()\n")
    mark = len(client.pushes)
    replace_all(client, uri, SEED, rewritten, 2)
    for action in listed:
        assert (await client.code_action_resolve_async(action)).edit is None
    assert await client.wait_for_version(uri, 2, start=mark) == []


# ---- (d) garbage on the wire ---------------------------------------------------------------------------

HOVER = {"textDocument": {"uri": "file:///faults/g.py"}, "position": {"line": 0, "character": 0}}


def test_garbage_on_the_wire_gets_errors_not_death(wire: Wire) -> None:
    wire.initialize()
    wire.open("file:///faults/g.py", SEED)
    wire.wait_for_push("file:///faults/g.py", 1)

    def still_answers() -> None:
        assert wire.call("textDocument/hover", HOVER)["result"] is None
        assert wire.process.poll() is None

    # Requests with an id get an error response, whatever is wrong with them.
    assert wire.call("gradguard/noSuchMethod", {})["error"]["code"] == -32601
    for params in (
        {"textDocument": 5, "position": "x"},
        {"textDocument": {"uri": "file:///faults/g.py"}, "position": {"line": -1, "character": 0}},
        {"textDocument": {"uri": "file:///faults/g.py"}},
        [1, 2, 3],
        None,
    ):
        reply = wire.call("textDocument/hover", params)
        assert reply["error"]["code"] == -32602, (params, reply)  # InvalidParams
    reply = wire.call("codeAction/resolve", {"kind": "quickfix"})  # no title
    assert reply["error"]["code"] == -32602
    for data in (
        None,
        [1, 2],
        {"key": 5},
        {"key": "file:///faults/g.py", "action": "fix", "fix": "x"},
        {"key": "file:///faults/g.py", "action": "noqa", "span": "bad", "version": 1},
        {
            "key": "file:///faults/g.py",
            "action": "fix",
            "version": 1,
            "fix": {"kind": "nope", "title": "", "tradeoff": ""},
        },
    ):
        resolved = wire.call("codeAction/resolve", {"title": "t", "data": data})["result"]
        assert "edit" not in resolved, data
    still_answers()
    # Notifications and broken messages: nothing to answer, but nothing may stop the server.
    for raw in (
        b"{not json",
        b"[1, 2, 3]",
        b'{"jsonrpc": "2.0", "id": 99}',
        b'{"jsonrpc": "1.0", "method": "initialized"}',
        b"\xff\xfe\x00garbage",
        b'"a string"',
        b"null",
    ):
        wire.send_raw(frame(raw))
        still_answers()
    wire.send_raw(b"Content-Length: abc\r\n\r\nnot a header at all\r\n")
    wire.send_raw(b"X-Unknown: 1\r\n")
    still_answers()
    wire.notify("gradguard/noSuchNotification", {"x": 1})
    wire.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})
    wire.notify(
        "textDocument/didChange", {"textDocument": {"uri": "file:///faults/g.py"}, "contentChanges": "x"}
    )
    wire.notify("$/cancelRequest", {"id": 12345})
    # A change whose range is past the end of the document.
    far = {"start": {"line": 10_000, "character": 5}, "end": {"line": 10_001, "character": 0}}
    wire.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": "file:///faults/g.py", "version": 2},
            "contentChanges": [{"range": far, "text": "\n# tail\n"}],
        },
    )
    still_answers()
    # Diagnostics still come, for the document's latest version.
    mark = len(wire.messages)
    wire.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": "file:///faults/g.py", "version": 3}, "contentChanges": [{"text": SEED}]},
    )
    push = wire.wait_for_push("file:///faults/g.py", 3, start=mark)
    assert [d["code"] for d in push["params"]["diagnostics"]] == ["GG103"]
    reply = wire.call("shutdown", None)
    assert reply["result"] is None
    wire.notify("exit", None)
    assert wire.process.wait(timeout=EXIT_BOUND) == 0


# ---- (e) line ends the client does not count ------------------------------------------------------------


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c", "\x85"])
def test_incremental_changes_after_a_form_feed_land_where_the_client_put_them(
    wire: Wire, separator: str
) -> None:
    """A form feed (or U+2028, ...) is no line end for an LSP client, but is one for
    ``str.splitlines``: the server must count lines as the client does, or every later change lands
    on the wrong line and its copy of the text drifts from the editor's."""
    import gradguard

    wire.initialize()
    uri = "file:///faults/formfeed.py"
    text = f"# section one {separator} and two\n" + SEED
    wire.open(uri, text)
    assert [d["code"] for d in wire.wait_for_push(uri, 1)["params"]["diagnostics"]] == ["GG103"]
    lines = text.split("\n")
    line = lines.index("y = t @ a")
    change = {
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 9}},
        "text": "y = (t @ a).detach()",
    }
    mark = len(wire.messages)
    wire.notify(
        "textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]}
    )
    fixed = text.replace("y = t @ a\n", "y = (t @ a).detach()\n")
    push = wire.wait_for_push(uri, 2, start=mark)
    assert gradguard.check_source(fixed) == []
    assert push["params"]["diagnostics"] == []


def test_closed_and_reopened_at_version_1_gets_the_new_text_s_diagnostics(wire: Wire) -> None:
    """Versions start again at 1 when a document is reopened: an analysis of the closed text still
    running must not be published for the new one (nor stand for its analysis)."""
    wire.initialize()
    uri = "file:///faults/reopened.py"
    big = generate(3000, seed=5) + "\n" + SEED  # still being analysed when it is closed
    clean = examples("GG103")[0][0].source
    for _ in range(3):
        wire.open(uri, big)
        wire.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        wire.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": WHERE})  # read all before
        mark = len(wire.messages)
        wire.open(uri, clean)
        push = wire.wait_for_push(uri, 1, start=mark)
        assert push["params"]["diagnostics"] == []
        wire.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


# ---- (f) standard input or output that cannot carry LSP (issue 12) ---------------------------------------
# `gradguard serve < /dev/null` used to wait for ever: asyncio registers standard input with epoll
# in a callback whose failure (EPERM: /dev/null cannot be polled) it only logs, so the read never
# returned. Each case below must end within seconds with one message, a non-zero code, and little
# CPU time: start-up (the imports) costs about 0.7 s, a busy loop until the deadline would cost 5 s.

QUICK_EXIT = 5.0  # seconds
CPU_BOUND = 3.0  # seconds of CPU, start-up included
CANNOT_READ = (
    "gradguard: error: the language server reads LSP messages on standard input, which cannot be read here"
)
HELD_NONE = "gradguard: error: the language server reads LSP messages on standard input, which held none"
HINT = "; start it from an editor, or use --tcp PORT"
# Linux's epoll refuses devices such as /dev/null (EPERM), the case of issue 12; kqueue and poll
# may accept them, and /dev/null then reads as empty input (see the tests of files below).
EPOLL = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="epoll")


@dataclass
class Ended:
    """How a server process ended: exit code, output, wall-clock and CPU time (its rusage)."""

    code: int
    out: bytes
    err: str
    seconds: float
    cpu: float

    def single_line(self) -> str:
        lines = self.err.splitlines()
        assert len(lines) == 1, self.err
        return lines[0]


def _serve_until_exit(tmp_path: Path, stdin: Any = subprocess.DEVNULL, redirect: str = "") -> Ended:
    """Runs `python -m gradguard serve` (with a shell ``redirect`` such as ``0<&-`` if given) and
    waits for its exit; a server still running after QUICK_EXIT is killed and the test fails."""
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    command = (
        [*SERVER]
        if not redirect
        else ["sh", "-c", f'exec "$0" -m gradguard serve {redirect}', sys.executable]
    )
    with out_path.open("wb") as out, err_path.open("wb") as err:
        started = time.monotonic()
        process = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=err)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > QUICK_EXIT:
                process.kill()
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = -9
                pytest.fail(f"the server still ran after {QUICK_EXIT} s: {err_path.read_text()!r}")
            time.sleep(0.02)
    seconds = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return Ended(
        process.returncode,
        out_path.read_bytes(),
        err_path.read_text(errors="replace"),
        seconds,
        usage.ru_utime + usage.ru_stime,
    )


def _quick_and_idle(ended: Ended) -> None:
    assert ended.seconds < QUICK_EXIT
    assert ended.cpu < CPU_BOUND, f"{ended.cpu:.2f} s of CPU: a busy loop?"
    assert "Traceback" not in ended.err


def _session(*messages: dict[str, Any]) -> bytes:
    return b"".join(frame(json.dumps({"jsonrpc": "2.0", **m}).encode()) for m in messages)


INITIALIZE = {"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}


def _answers(out: bytes) -> dict[Any, dict[str, Any]]:
    """The responses in the server's output, by request id."""
    answers: dict[Any, dict[str, Any]] = {}
    while out:
        header, rest = out.split(b"\r\n\r\n", 1)
        length = int(
            next(h for h in header.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1]
        )
        message, out = json.loads(rest[:length]), rest[length:]
        if "id" in message and "method" not in message:
            answers[message["id"]] = message
    return answers


@pytest.mark.skipif(os.name != "posix", reason="shell redirections and epoll")
@pytest.mark.parametrize(
    "stdin, redirect, reason",
    [
        pytest.param(
            subprocess.DEVNULL, "", "it is /dev/null, which cannot be polled", id="dev-null", marks=EPOLL
        ),
        pytest.param(None, "0<&-", "it is closed", id="closed"),
        pytest.param(None, "0>{tmp}/written", "it is open for writing only", id="write-only"),
        pytest.param("/dev/zero", "", "it is /dev/zero, which cannot be polled", id="dev-zero", marks=EPOLL),
    ],
)
def test_input_that_cannot_be_read_ends_the_server_with_one_message(
    tmp_path: Path, stdin: Any, redirect: str, reason: str
) -> None:
    if isinstance(stdin, str):
        stdin = open(stdin, "rb")
    try:
        ended = _serve_until_exit(tmp_path, stdin, redirect.format(tmp=tmp_path))
    finally:
        if hasattr(stdin, "close"):
            stdin.close()
    _quick_and_idle(ended)
    assert ended.code == 2
    assert ended.single_line().startswith(f"{CANNOT_READ} ({reason}"), ended.err
    assert ended.single_line().endswith(HINT)
    assert ended.out == b""


GARBAGE = b"import torch\nprint('not LSP')\n\x00\xff\r\nContent-Length: 9\r\n{not json and no line end"


@pytest.mark.parametrize(
    "content, reason",
    [(b"", "it was empty"), (GARBAGE, f"it ended after {len(GARBAGE)} bytes")],
    ids=["empty", "garbage"],
)
def test_a_file_without_lsp_messages_ends_the_server_with_one_message(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    """A regular file is read (blocking reads of a file return at once, so no thread waits for
    ever), but one that holds no LSP message means the server was started by mistake."""
    path = tmp_path / "input"
    path.write_bytes(content)
    with path.open("rb") as stdin:
        ended = _serve_until_exit(tmp_path, stdin)
    _quick_and_idle(ended)
    assert ended.code == 2
    assert ended.single_line() == f"{HELD_NONE} ({reason}){HINT}"
    assert ended.out == b""


@pytest.mark.parametrize(
    "shutdown, code",
    [(True, 0), (False, 1)],  # LSP: `exit` ends with 0 after `shutdown`, 1 without
    ids=["shutdown-exit", "exit-only"],
)
def test_a_recorded_session_in_a_file_is_replayed(tmp_path: Path, shutdown: bool, code: int) -> None:
    """A file holding an LSP exchange (a recorded session) is served like a pipe: each request is
    answered on standard output, and `exit` ends the server with LSP's exit code."""
    messages = [
        INITIALIZE,
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "textDocument/hover", "params": HOVER},
    ]
    if shutdown:
        messages.append({"id": 3, "method": "shutdown"})
    messages.append({"method": "exit"})
    path = tmp_path / "session.lsp"
    path.write_bytes(_session(*messages))
    with path.open("rb") as stdin:
        ended = _serve_until_exit(tmp_path, stdin)
    _quick_and_idle(ended)
    assert ended.code == code
    assert ended.err == ""
    answers = _answers(ended.out)
    assert answers[1]["result"]["serverInfo"]["name"] == "gradguard"
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": None}
    if shutdown:
        assert answers[3]["result"] is None


def test_shutdown_while_an_analysis_runs_answers_and_exits_cleanly(tmp_path: Path) -> None:
    """A whole session piped at once: `shutdown` arrives while the didOpen's handler (a thread
    future) is pending. Cancelling it used to remove it from the dict pygls was iterating over
    ("dictionary changed size during iteration"): an error for `shutdown` and exit code 1."""
    source = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"
    opened = {"textDocument": {"uri": (tmp_path / "a.py").as_uri(), "languageId": "python", "version": 1}}
    opened["textDocument"]["text"] = source
    session = _session(
        {**INITIALIZE, "params": {"processId": None, "capabilities": {"workspace": {"configuration": True}}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": opened},
        {"id": 2, "method": "shutdown"},
        {"method": "exit"},
    )
    for _ in range(3):  # it failed every time before the fix; a few runs vary the timing
        process = subprocess.run([*SERVER], input=session, capture_output=True, timeout=QUICK_EXIT * 4)
        assert (process.returncode, process.stderr) == (0, b"")
        assert _answers(process.stdout)[2] == {"jsonrpc": "2.0", "id": 2, "result": None}


def test_a_recorded_session_without_exit_ends_at_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "session.lsp"
    path.write_bytes(_session(INITIALIZE))
    with path.open("rb") as stdin:
        ended = _serve_until_exit(tmp_path, stdin)
    _quick_and_idle(ended)
    assert ended.code == 0 and ended.err == ""
    assert 1 in _answers(ended.out)


@pytest.mark.skipif(os.name != "posix", reason="shell redirections")
def test_closed_standard_output_ends_the_server_with_one_message(tmp_path: Path) -> None:
    path = tmp_path / "session.lsp"
    path.write_bytes(_session(INITIALIZE))
    with path.open("rb") as stdin:
        ended = _serve_until_exit(tmp_path, stdin, "1>&-")
    _quick_and_idle(ended)
    assert ended.code == 2
    assert ended.single_line() == (
        "gradguard: error: the language server writes LSP messages on standard output, which cannot be "
        f"written here (it is closed){HINT}"
    )


def test_a_client_that_stops_reading_ends_the_server(tmp_path: Path) -> None:
    """The client closes its end of our output but not of our input: the first answer that cannot
    be written ends the session (pygls logged a traceback per answer and carried on)."""
    err_path = tmp_path / "stderr"
    # Output buffered, as it is by default: Python's own flush at exit must not fail (exit 120).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    with err_path.open("wb") as err:
        process = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdout.close()
        process.stdin.write(_session(INITIALIZE))
        process.stdin.flush()
        assert process.wait(timeout=QUICK_EXIT) == 1  # stdin is still open: the write failure ended it
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stdin is not None
        process.stdin.close()
    assert err_path.read_text().splitlines() == [
        "gradguard: error: the connection to the client is lost: writing standard output failed "
        "(Broken pipe); exiting"
    ]


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal and /proc")
def test_a_terminal_as_input_waits_idle_and_leaves_the_terminal_as_it_was() -> None:
    """No editor gives a terminal, but a person may try: the server says what it waits for, waits
    without using the CPU, leaves the terminal blocking (asyncio makes the descriptor it reads
    non-blocking, and a terminal's is shared with the shell), and Ctrl-D ends it."""
    import pty

    main, terminal = pty.openpty()
    process = subprocess.Popen(SERVER, stdin=terminal, stdout=terminal, stderr=terminal)
    try:
        said = b""
        deadline = time.monotonic() + QUICK_EXIT
        while b"\n" not in said and time.monotonic() < deadline:
            if select.select([main], [], [], 0.1)[0]:
                said += os.read(main, 4096)
        assert said.startswith(b"gradguard: the language server reads LSP messages on standard input")
        ticks = _cpu_ticks(process.pid)
        time.sleep(1.0)
        assert _cpu_ticks(process.pid) - ticks <= 0.2 * os.sysconf("SC_CLK_TCK")  # idle, not spinning
        assert process.poll() is None
        assert os.get_blocking(terminal)
        os.write(main, b"\x04")  # Ctrl-D: end of input, without a message
        assert process.wait(timeout=QUICK_EXIT) == 2
        said = b""
        while select.select([main], [], [], 0.2)[0]:
            try:
                said += os.read(main, 4096)
            except OSError:  # EIO: no process holds the terminal any more
                break
        assert f"{HELD_NONE} (it was empty){HINT}".encode() in said
        assert os.get_blocking(terminal)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main)
        os.close(terminal)
