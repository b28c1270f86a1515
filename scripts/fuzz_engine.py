"""Coverage-guided fuzzing (atheris) of the analysis, the fixes and the notebook reader.

Each input is decoded as UTF-8 (bad bytes replaced) and run through

* ``gradguard.check_source`` and ``gradguard.engine.inspect``;
* ``gradguard.fixes.compute`` on every fix of every finding (the result must parse, or be None);
* ``gradguard.api.fix_source`` (the result must parse whenever the input did);
* ``gradguard.api.check_notebook`` / ``fix_notebook`` on the raw text (only ``NotebookError`` may
  come out) and on a notebook whose code cells are the input split at blank lines.

Seeds are the shipped examples and the evaluation corpus. Anything that escapes, breaks an
invariant or takes longer than ``--slow`` seconds is saved with its traceback under ``--out``;
errors the engine caught and logged itself are saved too (as ``logged-*``) but do not fail the run.
The run stops after ``--seconds`` and exits 1 if anything escaped.

    python scripts/fuzz_engine.py --seconds 60 [--out fuzz-out] [--slow 10]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import logging
import os
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "examples", ROOT / "tests" / "corpus")

with atheris.instrument_imports(include=["gradguard"]):
    import gradguard
    from gradguard import api, engine, fixes
    from gradguard.notebook import NotebookError


class _Counter(logging.Handler):
    """Collects errors the engine catches and logs (they are bugs even though nothing escapes)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class Invariant(AssertionError):
    pass


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # A leading byte-order mark is no part of the code (gradguard keeps it, ast rejects it).
            ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _as_notebook(text: str) -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": chunk.splitlines(keepends=True), "outputs": []}
        for chunk in text.split("\n\n")
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def exercise(text: str) -> None:
    """Everything one input goes through; raises on an escaped exception or a broken invariant."""
    findings = gradguard.check_source(text, "fuzz.py")
    engine.inspect(text, "fuzz.py")
    for finding in findings:
        for ref in finding.fixes:
            fix = fixes.compute(text, ref)
            if fix is not None:
                new = fixes.apply_edits(text, fix.edits)
                if not _parses(new):
                    raise Invariant(f"fix {ref.kind} of {finding.code} gives code that does not parse")
    new_text, _ = api.fix_source(text, "fuzz.py")
    if _parses(text) and not _parses(new_text):
        raise Invariant("fix_source broke code that parsed")
    for notebook_text in (text, _as_notebook(text)):
        try:
            api.check_notebook(notebook_text, "fuzz.ipynb")
            api.fix_notebook(notebook_text, "fuzz.ipynb")
        except NotebookError:
            pass


class Fuzzer:
    def __init__(self, seconds: float, out: Path, slow: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.started = time.monotonic()
        self.out = out
        self.slow = slow
        self.executions = 0
        self.escaped = 0
        self.slow_inputs = 0
        self.logged = 0
        self.slowest = 0.0
        self.counter = _Counter()
        logging.getLogger("gradguard").addHandler(self.counter)
        logging.getLogger("gradguard").propagate = False  # keep the fuzzer's output readable

    def save(self, prefix: str, data: bytes, report: str) -> None:
        digest = hashlib.sha1(data).hexdigest()[:16]
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / f"{prefix}-{digest}.input").write_bytes(data)
        (self.out / f"{prefix}-{digest}.txt").write_text(report, encoding="utf-8")

    def one(self, data: bytes) -> None:
        if time.monotonic() > self.deadline:
            self.finish()
        text = data.decode("utf-8", errors="replace")
        self.counter.records.clear()
        started = time.monotonic()
        try:
            exercise(text)
        except Exception:  # the point of the run: record it and go on fuzzing
            self.escaped += 1
            self.save("escaped", data, traceback.format_exc())
        elapsed = time.monotonic() - started
        self.slowest = max(self.slowest, elapsed)
        if elapsed > self.slow:
            self.slow_inputs += 1
            self.save("slow", data, f"{elapsed:.2f} s\n")
        if self.counter.records:
            self.logged += 1
            logs = "\n".join(
                f"{r.getMessage()}\n{''.join(traceback.format_exception(*r.exc_info)) if r.exc_info else ''}"
                for r in self.counter.records
            )
            self.save("logged", data, logs)
        self.executions += 1

    def finish(self) -> None:
        elapsed = time.monotonic() - self.started
        rate = self.executions / elapsed if elapsed else 0.0
        print(
            f"\nfuzz_engine: {self.executions} executions in {elapsed:.0f} s ({rate:.1f}/s); "
            f"escaped: {self.escaped}; slower than {self.slow:g} s: {self.slow_inputs} "
            f"(slowest {self.slowest:.2f} s); errors the engine logged: {self.logged}; "
            f"saved under {self.out}",
            flush=True,
        )
        # libFuzzer owns the process: leave without unwinding through it.
        os._exit(1 if self.escaped or self.slow_inputs else 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the run (default 60)")
    parser.add_argument("--out", type=Path, default=ROOT / "fuzz-out", help="where failing inputs go")
    parser.add_argument(
        "--slow", type=float, default=10.0, help="seconds after which an input counts as a hang"
    )
    parser.add_argument("--max-len", type=int, default=8192, help="longest input libFuzzer makes (bytes)")
    args, rest = parser.parse_known_args()

    fuzzer = Fuzzer(args.seconds, args.out, args.slow)
    seeds = Path(tempfile.mkdtemp(prefix="gradguard-fuzz-seeds-"))
    for directory in SEED_DIRS:
        for path in sorted(directory.glob("*.py")) + sorted(directory.glob("*.ipynb")):
            (seeds / path.name).write_bytes(path.read_bytes())
    libfuzzer_args = [
        sys.argv[0],
        f"-max_len={args.max_len}",
        f"-timeout={max(60, int(args.slow * 6))}",  # a real hang: libFuzzer stops and saves it
        "-rss_limit_mb=4096",
        f"-artifact_prefix={args.out}/",
        *rest,
        str(seeds),
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    atheris.Setup(libfuzzer_args, fuzzer.one)
    atheris.Fuzz()
    fuzzer.finish()  # only reached when libFuzzer stops on its own (-runs=N)


if __name__ == "__main__":
    main()
