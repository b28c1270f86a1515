"""A raw JSON-RPC client over a real ``gradguard serve`` subprocess: it can send what no LSP library
would (broken JSON, wrong types, unknown methods) and die without ``shutdown``. Every wait has a
deadline and returns as soon as the awaited message arrives (no sleeping)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "gradguard", "serve"]
TIMEOUT = 20.0


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Wire:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.log = tempfile.TemporaryFile()  # a file, not a pipe: a chatty log can never block the server
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env={**os.environ, **(env or {})},
        )
        self.buffer = b""
        self.messages: list[dict[str, Any]] = []  # everything received, in order
        self.next_id = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    # ---- sending ---------------------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(frame(json.dumps(message).encode()))

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    # ---- receiving -------------------------------------------------------------------------------
    def _read_some(self, deadline: float) -> None:
        assert self.process.stdout is not None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer from the server in time")
        ready, _, _ = select.select([self.process.stdout], [], [], remaining)
        if not ready:
            raise TimeoutError("no answer from the server in time")
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise EOFError(f"the server closed its output (exit code {self.process.poll()})")
        self.buffer += chunk
        while b"\r\n\r\n" in self.buffer:
            header, rest = self.buffer.split(b"\r\n\r\n", 1)
            length = next(
                int(line.split(b":")[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            if len(rest) < length:
                break
            self.messages.append(json.loads(rest[:length]))
            self.buffer = rest[length:]

    def wait_for(self, predicate: Any, timeout: float = TIMEOUT, start: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.messages[start:]:
                if predicate(message):
                    return message
            self._read_some(deadline)

    def response(self, msg_id: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def call(self, method: str, params: Any) -> dict[str, Any]:
        return self.response(self.request(method, params))

    def wait_for_push(self, uri: str, version: int, start: int = 0) -> dict[str, Any]:
        return self.wait_for(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version") == version
            ),
            start=start,
        )

    def answer_server_requests(self) -> None:
        """Answer what the server asked (workspace/configuration, client/registerCapability)."""
        for message in self.messages:
            if "method" in message and "id" in message and not message.get("_answered"):
                message["_answered"] = True
                result = (
                    [None] * len(message["params"].get("items", []))
                    if message["method"] == ("workspace/configuration")
                    else None
                )
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # ---- session -----------------------------------------------------------------------------------
    def initialize(self, capabilities: dict[str, Any] | None = None, process_id: int | None = None) -> None:
        reply = self.call(
            "initialize",
            {
                "processId": process_id,
                "capabilities": capabilities or {},
                "initializationOptions": {"debounce": 20},
            },
        )
        assert "result" in reply, reply
        self.notify("initialized", {})

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )

    def close_input(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        self.log.close()


def gone(pid: int) -> bool:
    """Is process ``pid`` gone (or a zombie: it has exited and only waits to be reaped)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, timeout: float) -> bool:
    """Poll (every 20 ms) until ``pid`` is gone; False if it is still there after ``timeout`` s. A
    process that is not our child cannot be waited for any other way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.02)
    return gone(pid)
