"""What every robustness test checks: the engine, the API and the fixes answer, in time, without
raising, and every fix they offer leaves code that parses."""

from __future__ import annotations

import ast
import logging
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import gradguard
from gradguard import api, engine, fixes
from gradguard.findings import Finding

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT / "tests" / "corpus"

# Real training scripts of several shapes: loops, RNN state, GANs, penalties, classes, notebooks style.
SCRIPTS = [
    EXAMPLES / "gg103_graph_before_loop.py",
    EXAMPLES / "gg104_carried_state.py",
    EXAMPLES / "gg105_gan_fake_not_detached.py",
    EXAMPLES / "gg107_inplace_saved.py",
    EXAMPLES / "gg302_retain_graph_masks.py",
    CORPUS / "char_lstm_hidden_carried.py",
    CORPUS / "wgan_gp_missing_create_graph.py",
    CORPUS / "trainer_class_history.py",
    CORPUS / "resnet_basic_block.py",
    CORPUS / "validation_loss_accumulated_with_graph.py",
]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # A leading byte-order mark is no part of the code (gradguard keeps it, ast rejects it).
            ast.parse(source.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# Checking a fix parses the whole text again; beyond this many fixes per input, a spread sample is checked.
CHECKED_FIXES = 50


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def engine_errors() -> Iterator[list[str]]:
    """Errors the engine caught and logged: nothing escapes, but each one is a bug to report."""
    handler = _Errors()
    logger = logging.getLogger("gradguard")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


@dataclass
class Answer:
    findings: list[Finding]
    seconds: float
    fixes_offered: int = 0
    fixes_computed: int = 0
    logged: list[str] = field(default_factory=list)


def survive(source: str, budget: float = 10.0, fix_all: bool = False, filename: str = "input.py") -> Answer:
    """Run the whole pipeline on ``source`` and check the contract; return what it found.

    Nothing may raise; computed fixes must apply and parse (up to ``CHECKED_FIXES`` of them, spread
    over the file: each check is a parse of the whole text); gradguard's own work (analysis, every
    fix, ``fix_source``) must take less than ``budget`` seconds. ``fix_all`` also runs
    ``api.fix_source``, which must keep parsable code parsable.
    """
    spent = 0.0
    with engine_errors() as logged:
        started = time.perf_counter()
        findings = gradguard.check_source(source, filename)
        engine.inspect(source, filename)
        computed = []
        for finding in findings:
            for ref in finding.fixes:
                computed.append((finding, ref, fixes.compute(source, ref)))
        new = api.fix_source(source, filename, unsafe=True)[0] if fix_all else source
        spent = time.perf_counter() - started
        answer = Answer(findings, spent, len(computed), sum(fix is not None for *_, fix in computed))
        offered = [item for item in computed if item[2] is not None]
        for finding, ref, fix in offered[:: max(1, len(offered) // CHECKED_FIXES)]:
            assert fix is not None
            fixed = fixes.apply_edits(source, fix.edits)
            assert parses(fixed), f"{finding.code} fix {ref.kind} gives code that does not parse:\n{fixed}"
        if fix_all:
            assert not parses(source) or parses(new), "fix_source broke code that parsed"
    answer.logged = list(logged)
    assert spent < budget, f"took {spent:.1f} s (budget {budget} s)"
    return answer
