"""Load on the language server over a real stdio connection: many edits a second across many open
documents, hovers throughout, then the final state and the memory after closing.

Starts ``python -m gradguard serve`` with VS Code's client capabilities and its default debounce
(150 ms), opens ``--docs`` documents (generated training scripts of a few hundred lines from
``gen_training_script.generate(lines, seed)``, and the shipped examples), then for ``--seconds``
sends ``--rate`` ``didChange`` a second, each to a document picked at random (seeded): the edit
rewrites one line of a small training loop appended to every document, switching it between a
version with a GG103 and one without, so the findings change as the edits go. Meanwhile a hover
goes out every ``--hover-every`` seconds on a flagged expression of a random document, and the time
to its answer is measured. Then:

* every document's last ``publishDiagnostics`` must be for its last version and hold what
  ``gradguard.check_source`` finds on its final text (code and range of each finding);
* the server's resident memory (``VmRSS`` from ``/proc``, Linux) is sampled idle before any document,
  then as the baseline after a warm-up round (the same documents opened, a second of the same
  edits and hovers, all closed: what the first analyses import and allocate once), during the
  edits, and after closing every document, each time until it settles (``--settle`` s at most).

Goals: every hover answered within 200 ms; every document's final state published, and right;
memory after closing back to the baseline (within ``--memory-slack`` MiB). Everything is bounded:
the edit loop stops after ``--seconds``, every wait has a deadline. Exit status 1 if a goal is missed.

Usage: ``python bench/load_lsp.py [--docs 20] [--rate 200] [--seconds 10] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_lsp import percentile, rss_kib, start_server  # noqa: E402
from gen_training_script import generate  # noqa: E402

import gradguard  # noqa: E402

EXAMPLES = HERE.parent / "examples"
HOVER_GOAL_MS = 200.0

# Appended to every document; the edits rewrite its second line between these two.
LOOP = (
    "\n\n_w = torch.ones(3, requires_grad=True)\n"
    "{line}\n"
    "for _step in range(3):\n"
    "    _loss = (_h * _step).sum()\n"
    "    _loss.backward()\n"
)
BUGGY = "_h = _w * 2  # edit {n}"  # built once, before the loop: GG103
FIXED = "_h = (_w * 2).detach()  # edit {n}"


class Load:
    def __init__(self) -> None:
        self.client = LanguageClient("gradguard-load", "1")
        self.pushes: dict[str, types.PublishDiagnosticsParams] = {}
        self.push_count = 0
        self.arrived = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.pushes[params.uri] = params
            self.push_count += 1
            self.arrived.set()

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

        @self.client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params: types.ShowMessageParams) -> None:
            print(f"server message: {params.message}", file=sys.stderr)

    async def wait(self, predicate: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), remaining)
            except TimeoutError:
                return bool(predicate())
        return True

    def open(self, uri: str, text: str) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
        )

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
        )


class Document:
    def __init__(self, uri: str, text: str) -> None:
        self.uri = uri
        self.lines = (text.rstrip("\n") + LOOP.format(line=BUGGY.format(n=0))).split("\n")
        self.target = len(self.lines) - 5  # the `_h = ...` line
        self.version = 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def edit(self, n: int, buggy: bool) -> types.DidChangeTextDocumentParams:
        old = self.lines[self.target]
        self.lines[self.target] = (BUGGY if buggy else FIXED).format(n=n)
        self.version += 1
        where = types.Range(types.Position(self.target, 0), types.Position(self.target, len(old)))
        return types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri),
            [types.TextDocumentContentChangePartial(range=where, text=self.lines[self.target])],
        )


def documents(count: int, root: str) -> list[Document]:
    examples = sorted(EXAMPLES.glob("*.py"))
    generated = max(count - min(6, len(examples)), count // 2)
    docs = [Document(f"{root}/train_{i}.py", generate(300 + 25 * i, seed=i)) for i in range(generated)]
    for path in examples[: count - generated]:
        docs.append(Document(f"{root}/{path.name}", path.read_text(encoding="utf-8")))
    return docs


def expected(doc: Document) -> list[tuple[str, int, int, int, int]]:
    """What the diagnostics of ``doc`` should be: check_source's findings, as LSP ranges (the texts are
    ASCII, so UTF-16 columns are code points)."""
    return sorted(
        (f.code, f.span.line - 1, f.span.col, f.span.end_line - 1, f.span.end_col)
        for f in gradguard.check_source(doc.text, doc.uri)
    )


def published(params: types.PublishDiagnosticsParams) -> list[tuple[str, int, int, int, int]]:
    return sorted(
        (str(d.code), d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
        for d in params.diagnostics
    )


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "median": round(statistics.median(values), 1),
        "p95": round(percentile(values, 95), 1),
        "max": round(max(values), 1),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    load = Load()
    pid, log, drainer = await start_server(load.client, dict(os.environ), os.getpid(), args.debounce)
    root = "file:///gradguard-load"

    async def settle(seconds: float) -> list[int]:
        """RSS every 0.5 s until two samples in a row agree within 1 MiB (or ``seconds`` pass)."""
        samples = [rss_kib(pid) or 0]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            samples.append(rss_kib(pid) or 0)
            if len(samples) >= 4 and max(samples[-3:]) - min(samples[-3:]) < 1024:
                break
        return samples

    cold = (await settle(args.settle))[-1]
    # Warm-up: one short round of the same work (every document opened, a second of edits and
    # hovers, all closed), so the baseline holds what the first analyses import and allocate once.
    warm = documents(args.docs, f"{root}/warmup")
    for doc in warm:
        load.open(doc.uri, doc.text)
    await load.wait(lambda: all(doc.uri in load.pushes for doc in warm), 60)
    warm_rng = random.Random(args.seed + 1)
    for n in range(int(args.rate)):
        doc = warm_rng.choice(warm)
        load.client.text_document_did_change(doc.edit(n + 1, warm_rng.random() < 0.5))
        if n % 20 == 0:
            pushed = load.pushes[doc.uri].diagnostics
            if pushed:
                await load.client.text_document_hover_async(
                    types.HoverParams(types.TextDocumentIdentifier(doc.uri), pushed[0].range.start)
                )
        await asyncio.sleep(1 / args.rate)
    await load.wait(lambda: all(load.pushes[doc.uri].version == doc.version for doc in warm), 60)
    for doc in warm:
        load.close(doc.uri)
    await load.wait(lambda: all(not load.pushes[doc.uri].diagnostics for doc in warm), 30)
    baseline_samples = await settle(args.settle)
    baseline = baseline_samples[-1]

    docs = documents(args.docs, root)
    opened = time.monotonic()
    for doc in docs:
        load.open(doc.uri, doc.text)
    all_open = await load.wait(lambda: all(doc.uri in load.pushes for doc in docs), 60)
    open_s = time.monotonic() - opened
    targets: dict[str, types.Position] = {}
    for doc in docs:
        params = load.pushes.get(doc.uri)
        if params is not None and params.diagnostics:
            targets[doc.uri] = params.diagnostics[0].range.start
    rss_open = rss_kib(pid) or 0

    # ---- the load: edits at a fixed rate, hovers at a fixed rate, memory sampled ------------------
    hover_ms: list[float] = []
    hover_failed = 0
    rss_during: list[int] = []
    start_pushes = load.push_count
    stop = asyncio.Event()

    async def hovers() -> None:
        nonlocal hover_failed
        uris = sorted(targets)
        while not stop.is_set():
            uri = rng.choice(uris)
            sent = time.perf_counter()
            try:
                await asyncio.wait_for(
                    load.client.text_document_hover_async(
                        types.HoverParams(types.TextDocumentIdentifier(uri), targets[uri])
                    ),
                    5.0,
                )
                hover_ms.append((time.perf_counter() - sent) * 1000)
            except Exception:  # a hover that fails or takes 5 s counts against the goal
                hover_failed += 1
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, args.hover_every - (time.perf_counter() - sent)))
            except TimeoutError:
                pass

    async def memory() -> None:
        while not stop.is_set():
            rss_during.append(rss_kib(pid) or 0)
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except TimeoutError:
                pass

    background = [asyncio.ensure_future(hovers()), asyncio.ensure_future(memory())]
    total = int(args.rate * args.seconds)
    began = time.perf_counter()
    late_ms = 0.0
    for n in range(total):
        due = began + n / args.rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            late_ms = max(late_ms, -delay * 1000)
        doc = rng.choice(docs)
        load.client.text_document_did_change(doc.edit(n + 1, rng.random() < 0.5))
    sent_s = time.perf_counter() - began
    last_edit = time.monotonic()
    pushes_during = load.push_count - start_pushes

    # ---- the final state of every document ---------------------------------------------------------
    def final_published() -> bool:
        return all(doc.uri in load.pushes and load.pushes[doc.uri].version == doc.version for doc in docs)

    all_final = await load.wait(final_published, 60)
    final_s = time.monotonic() - last_edit
    stop.set()
    await asyncio.gather(*background)
    wrong = []
    for doc in docs:
        params = load.pushes.get(doc.uri)
        if params is None or params.version != doc.version or published(params) != expected(doc):
            wrong.append(doc.uri)

    # ---- close everything; memory back to the baseline? ----------------------------------------------
    for doc in docs:
        load.close(doc.uri)
    closed = await load.wait(lambda: all(not load.pushes[doc.uri].diagnostics for doc in docs), 30)
    after_samples = await settle(args.settle)
    after = after_samples[-1]

    await load.client.shutdown_async(None)
    load.client.exit(None)
    await load.client.stop()
    drainer.cancel()
    errors = [line for line in log if " ERROR " in line or "Traceback" in line]
    result = {
        "documents": len(docs),
        "lines": sorted(len(doc.lines) for doc in docs),
        "debounce_ms": args.debounce,
        "open_to_all_diagnostics_s": round(open_s, 2) if all_open else None,
        "edits": total,
        "edit_seconds": round(sent_s, 2),
        "edits_per_second": round(total / sent_s, 1),
        "sender_late_max_ms": round(late_ms, 1),
        "pushes_during_edits": pushes_during,
        "hover_ms": summary(hover_ms),
        "hover_failed": hover_failed,
        "last_edit_to_all_final_s": round(final_s, 2) if all_final else None,
        "final_state_wrong": wrong,
        "closed_cleared": closed,
        "rss_mib": {
            "cold": round(cold / 1024, 1),
            "baseline": round(baseline / 1024, 1),
            "after_open": round(rss_open / 1024, 1),
            "during_max": round(max(rss_during, default=0) / 1024, 1),
            "after_close": round(after / 1024, 1),
            "after_close_samples": [round(s / 1024, 1) for s in after_samples],
        },
        "server_errors_logged": len(errors),
    }
    result["goals"] = {
        "hover_within_200ms": hover_failed == 0 and bool(hover_ms) and max(hover_ms) < HOVER_GOAL_MS,
        "final_state_published_and_right": all_final and not wrong,
        "memory_back_to_baseline": after - baseline <= args.memory_slack * 1024,
        "no_server_errors": not errors,
    }
    if errors:
        print("\n".join(errors[:20]), file=sys.stderr)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--rate", type=float, default=200.0, help="didChange per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the edits go on")
    parser.add_argument("--hover-every", type=float, default=0.1, help="seconds between hovers")
    parser.add_argument("--debounce", type=int, default=150, help="the server's debounce, ms")
    parser.add_argument("--settle", type=float, default=15.0, help="longest wait for memory to settle, s")
    parser.add_argument("--memory-slack", type=float, default=3.0, help="MiB above the baseline allowed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    ok = all(result["goals"].values())
    if args.json:
        print(json.dumps(result, indent=2))
        return 0 if ok else 1
    h, m = result["hover_ms"], result["rss_mib"]
    lines = result["lines"]
    rows = [
        ("documents", f"{result['documents']} ({lines[0]}-{lines[-1]} lines), debounce {args.debounce} ms"),
        ("didOpen -> all diagnostics", f"{result['open_to_all_diagnostics_s']} s"),
        (
            "didChange sent",
            f"{result['edits']} in {result['edit_seconds']} s ({result['edits_per_second']}/s; "
            f"sender at most {result['sender_late_max_ms']} ms late)",
        ),
        ("publishes during the edits", str(result["pushes_during_edits"])),
        (
            "hover latency",
            f"{h.get('count', 0)} hovers: median {h.get('median')} ms, p95 {h.get('p95')} ms, "
            f"max {h.get('max')} ms; failed {result['hover_failed']} (goal: all < {HOVER_GOAL_MS:.0f} ms)",
        ),
        ("last edit -> every final version published", f"{result['last_edit_to_all_final_s']} s"),
        (
            "final diagnostics == check_source(final text)",
            f"{result['documents'] - len(result['final_state_wrong'])}/{result['documents']}",
        ),
        (
            "server RSS (MiB)",
            f"idle, no document {m['cold']}; baseline (after a warm-up round) {m['baseline']}; "
            f"after open {m['after_open']}; max during {m['during_max']}; after close {m['after_close']}",
        ),
        ("errors in the server log", str(result["server_errors_logged"])),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    for goal, met in result["goals"].items():
        print(f"{'goal ' + goal:<{width}}  {'met' if met else 'MISSED'}")
    if result["final_state_wrong"]:
        print("wrong final state: " + ", ".join(result["final_state_wrong"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
