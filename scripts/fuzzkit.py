"""What the atheris fuzz scripts share: the bounded run, saving failing inputs, the libFuzzer setup.

A script defines ``exercise(data: bytes)`` (raise on an escaped exception or a broken invariant)
and calls ``run(...)``. The run stops after ``--seconds`` and exits 1 if anything escaped or was
slower than ``--slow`` seconds; inputs that did are saved with their report under ``--out``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import logging
import os
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "examples", ROOT / "tests" / "corpus")


class Invariant(AssertionError):
    pass


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # A leading byte-order mark is no part of the code (gradguard keeps it, ast rejects it).
            ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


class _Logged(logging.Handler):
    """Errors gradguard caught and logged itself: bugs even though nothing escaped."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class Fuzzer:
    def __init__(
        self, name: str, exercise: Callable[[bytes], None], seconds: float, out: Path, slow: float
    ) -> None:
        self.name = name
        self.exercise = exercise
        self.deadline = time.monotonic() + seconds
        self.started = time.monotonic()
        self.out = out
        self.slow = slow
        self.executions = self.escaped = self.slow_inputs = self.logged = 0
        self.slowest = 0.0
        self.log = _Logged()
        logging.getLogger("gradguard").addHandler(self.log)
        logging.getLogger("gradguard").propagate = False  # keep the fuzzer's output readable

    def save(self, prefix: str, data: bytes, report: str) -> None:
        digest = hashlib.sha1(data).hexdigest()[:16]
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / f"{prefix}-{digest}.input").write_bytes(data)
        (self.out / f"{prefix}-{digest}.txt").write_text(report, encoding="utf-8")

    def one(self, data: bytes) -> None:
        if time.monotonic() > self.deadline:
            self.finish()
        self.log.records.clear()
        started = time.monotonic()
        try:
            self.exercise(data)
        except Exception:  # the point of the run: record it and go on fuzzing
            self.escaped += 1
            self.save("escaped", data, traceback.format_exc())
        elapsed = time.monotonic() - started
        self.slowest = max(self.slowest, elapsed)
        if elapsed > self.slow:
            self.slow_inputs += 1
            self.save("slow", data, f"{elapsed:.2f} s\n")
        if self.log.records:
            self.logged += 1
            self.save(
                "logged",
                data,
                "\n".join(
                    r.getMessage()
                    + "\n"
                    + ("".join(traceback.format_exception(*r.exc_info)) if r.exc_info else "")
                    for r in self.log.records
                ),
            )
        self.executions += 1

    def finish(self) -> None:
        elapsed = time.monotonic() - self.started
        rate = self.executions / elapsed if elapsed else 0.0
        print(
            f"\n{self.name}: {self.executions} executions in {elapsed:.0f} s ({rate:.1f}/s); "
            f"escaped: {self.escaped}; slower than {self.slow:g} s: {self.slow_inputs} "
            f"(slowest {self.slowest:.2f} s); errors gradguard logged: {self.logged}; saved under {self.out}",
            flush=True,
        )
        # libFuzzer owns the process: leave without unwinding through it.
        os._exit(1 if self.escaped or self.slow_inputs else 0)


def run(
    name: str,
    doc: str | None,
    exercise: Callable[[bytes], None],
    default_out: Path,
    write_seeds: Callable[[Path], None],
) -> None:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the run (default 60)")
    parser.add_argument("--out", type=Path, default=default_out, help="where failing inputs go")
    parser.add_argument(
        "--slow", type=float, default=10.0, help="seconds after which an input counts as a hang"
    )
    parser.add_argument("--max-len", type=int, default=8192, help="longest input libFuzzer makes (bytes)")
    args, rest = parser.parse_known_args()

    fuzzer = Fuzzer(name, exercise, args.seconds, args.out, args.slow)
    seeds = Path(tempfile.mkdtemp(prefix=f"gradguard-{name}-seeds-"))
    write_seeds(seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    atheris.Setup(
        [
            sys.argv[0],
            f"-max_len={args.max_len}",
            f"-timeout={max(60, int(args.slow * 6))}",  # a real hang: libFuzzer stops and saves it
            "-rss_limit_mb=4096",
            f"-artifact_prefix={args.out}/",
            *rest,
            str(seeds),
        ],
        fuzzer.one,
    )
    atheris.Fuzz()
    fuzzer.finish()  # only reached when libFuzzer stops on its own (-runs=N)
