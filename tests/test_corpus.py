"""Ground truth for the evaluation corpus: every script really does what its header says.

Each ``tests/corpus/*.py`` script is run under real torch, in worker subprocesses (never
in the pytest process): a script with a ``# raises: <prefix>`` header must raise, as its
first error, an exception whose ``f"{type(e).__name__}: {e}"`` starts with that prefix;
a script without one must run clean. This checks the labels, not the engine's precision
(``scripts/corpus_eval.py`` reports that).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).parent / "corpus"
SCRIPTS = sorted(CORPUS.glob("*.py"))
# The blind corpus (scripts/blind_eval.py): written from public reports by people who had not read
# the engine; its labels are checked the same way, plus `# also:` lines and a `# source:` line.
BLIND = Path(__file__).parent / "corpus_blind"
BLIND_SCRIPTS = sorted(BLIND.glob("*/*.py"))
# The shapes corpus: each rule's documented bug rewritten the way projects organise code (trainer
# classes, helpers called with real arguments, dicts and records, state on objects), by people who
# had not read the engine, with correct look-alikes. Labelled and checked like the blind corpus.
SHAPES = Path(__file__).parent / "corpus_shapes"
SHAPE_SCRIPTS = sorted(SHAPES.glob("*.py"))
ALL_SCRIPTS = SCRIPTS + BLIND_SCRIPTS + SHAPE_SCRIPTS
CODES = {
    *(f"GG1{n:02d}" for n in range(1, 13)),
    "GG201",
    "GG202",
    "GG203",
    "GG301",
    "GG302",
}
EXPECT_RE = re.compile(r"#\s*expect:\s*(GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
ALSO_RE = re.compile(r"#\s*also:\s*(GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
SOURCE_RE = re.compile(r"^#\s*source:\s*\S", re.MULTILINE)
RAISES_RE = re.compile(r"^#\s*raises:\s*(.+?)\s*$", re.MULTILINE)
CORPUS_RE = re.compile(r"^#\s*corpus:\s*\S", re.MULTILINE)
# Generous, so a loaded machine does not flake; scripts take ~0.01-0.3 s each.
PER_SCRIPT_SECONDS = 10.0
# Codes whose squiggle sits on the very statement that raises: for these the labels are
# checked against the line of the innermost traceback frame in the script.
RAISE_AT_SQUIGGLE = {"GG101", "GG102", "GG106", "GG108", "GG109", "GG110"}

# One worker imports torch once, then runs its share of scripts one after another with
# runpy. Global torch state a script could leave behind is reset between scripts; each
# script seeds its own RNG. Script output is swallowed; results come back as JSON.
WORKER = r"""
import contextlib, io, json, os, runpy, sys, time, traceback, warnings
import torch

# Warm up lazy imports and first-op setup so they are not charged to the first script.
import numpy, torch.nn, torch.nn.functional, torch.optim, torch.distributions
_m = torch.nn.Linear(2, 2)
torch.optim.Adam(_m.parameters()).zero_grad()
_m(torch.randn(1, 2)).sum().backward()

results = []
for path in sys.argv[1:]:
    sys.argv = [path]  # as `python script.py` runs it (a script's argparse reads sys.argv)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    torch.set_default_dtype(torch.float32)
    sink = io.StringIO()
    error = None
    line = None
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            runpy.run_path(path, run_name="__main__")
    except BaseException as e:  # the ground truth we are after
        error = f"{type(e).__name__}: {e}"
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
        line = frames[-1].lineno if frames else None
        lines = [f.lineno for f in frames]
    else:
        lines = []
    results.append(
        {"path": path, "error": error, "line": line, "lines": lines, "seconds": time.perf_counter() - start}
    )
print(json.dumps(results))
"""


def header_raises(source: str) -> str | None:
    head = "\n".join(line for line in source.splitlines()[:5] if line.startswith("#"))
    m = RAISES_RE.search(head)
    return m.group(1) if m else None


def expectations(source: str) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for lineno, line in enumerate(source.splitlines(), start=1):
        m = EXPECT_RE.search(line)
        if m:
            found.extend((code.strip(), lineno) for code in m.group(1).split(","))
    return found


@cache
def run_corpus() -> dict[str, dict[str, Any]]:
    """Run every script once, split over parallel workers; keyed by file name."""
    n_workers = max(1, min(len(ALL_SCRIPTS), os.cpu_count() or 1, 8))
    # Longest-first round robin would need timings; interleaving by name is good enough.
    shares = [ALL_SCRIPTS[i::n_workers] for i in range(n_workers)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, *map(str, share)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=CORPUS,
            env=env,
        )
        for share in shares
        if share
    ]
    results: dict[str, dict[str, Any]] = {}
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise
        assert proc.returncode == 0, f"corpus worker failed:\n{err[-4000:]}"
        for item in json.loads(out.strip().splitlines()[-1]):
            results[str(Path(item["path"]).resolve())] = item
    return results


def test_corpus_is_large_enough_and_covers_every_code() -> None:
    assert len(SCRIPTS) >= 44
    counts: dict[str, int] = dict.fromkeys(CODES, 0)
    buggy = 0
    for path in SCRIPTS:
        labels = expectations(path.read_text())
        buggy += bool(labels)
        for code, _ in labels:
            counts[code] += 1
    too_few = {code: n for code, n in counts.items() if n < 2}
    assert not too_few, f"codes with fewer than 2 expected findings: {too_few}"
    clean = len(SCRIPTS) - buggy
    assert buggy >= 20 and clean >= 20, (buggy, clean)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_labels_are_well_formed(path: Path) -> None:
    source = path.read_text()
    assert CORPUS_RE.search(source.splitlines()[0]), "first line must be '# corpus: <description>'"
    for code, lineno in expectations(source):
        assert code in CODES, f"line {lineno}: unknown code {code}"
    # A label typo such as "# expect GG101" would silently drop an expectation.
    for lineno, line in enumerate(source.splitlines(), start=1):
        if "expect" in line and "#" in line and not line.lstrip().startswith("#"):
            assert EXPECT_RE.search(line), f"line {lineno}: malformed expectation comment"
    compile(source, str(path), "exec")


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_behaves_as_labelled(path: Path) -> None:
    result = run_corpus()[str(path.resolve())]
    expected = header_raises(path.read_text())
    error = result["error"]
    if expected is None:
        assert error is None, f"expected a clean run, got {error}"
    else:
        assert error is not None, f"expected {expected!r}, but the script ran clean"
        assert error.startswith(expected), f"expected prefix {expected!r}, got {error!r}"
        at_raise = {line for code, line in expectations(path.read_text()) if code in RAISE_AT_SQUIGGLE}
        if at_raise:
            assert result["line"] in at_raise, (
                f"raised at line {result['line']}, labels at {sorted(at_raise)}"
            )
    assert result["seconds"] < PER_SCRIPT_SECONDS, f"too slow: {result['seconds']:.2f}s"


def also_lines(source: str) -> set[int]:
    return {n for n, line in enumerate(source.splitlines(), start=1) if ALSO_RE.search(line)}


def test_blind_corpus_is_large_enough() -> None:
    buggy = [p for p in BLIND_SCRIPTS if expectations(p.read_text())]
    assert len(BLIND_SCRIPTS) >= 150, len(BLIND_SCRIPTS)
    assert len(buggy) >= 90 and len(BLIND_SCRIPTS) - len(buggy) >= 40, (len(buggy), len(BLIND_SCRIPTS))
    parts = {"dev", "holdout", *(f"{kind}{n}" for kind in ("dev", "holdout") for n in range(2, 19))}
    assert {p.parent.name for p in BLIND_SCRIPTS} == parts


@pytest.mark.parametrize("path", BLIND_SCRIPTS + SHAPE_SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_blind_labels_are_well_formed(path: Path) -> None:
    source = path.read_text()
    lines = source.splitlines()
    assert CORPUS_RE.search(lines[0]), "first line must be '# corpus: <description>'"
    assert SOURCE_RE.search("\n".join(lines[:4])), "a '# source: <url>' line must follow the header"
    for lineno, line in enumerate(lines, start=1):
        for regex in (EXPECT_RE, ALSO_RE):
            m = regex.search(line)
            if m:
                assert all(c.strip() in CODES for c in m.group(1).split(",")), f"line {lineno}: unknown code"
        if ("expect" in line or "also:" in line) and "#" in line and not line.lstrip().startswith("#"):
            assert EXPECT_RE.search(line) or ALSO_RE.search(line), f"line {lineno}: malformed label"
    compile(source, str(path), "exec")


@pytest.mark.parametrize("path", BLIND_SCRIPTS + SHAPE_SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_blind_script_behaves_as_labelled(path: Path) -> None:
    source = path.read_text()
    result = run_corpus()[str(path.resolve())]
    expected = header_raises(source)
    error = result["error"]
    if expected is None:
        assert error is None, f"expected a clean run, got {error}"
    else:
        assert error is not None, f"expected {expected!r}, but the script ran clean"
        assert error.startswith(expected), f"expected prefix {expected!r}, got {error!r}"
        labelled = {line for _, line in expectations(source)} | also_lines(source)
        assert set(result["lines"]) & labelled, f"raised through {result['lines']}, labels at {labelled}"
    assert result["seconds"] < PER_SCRIPT_SECONDS, f"too slow: {result['seconds']:.2f}s"


# Labels of our own corpus the engine does not find yet (each a known gap, not a wrong label).
KNOWN_MISSES: set[tuple[str, int, str]] = set()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_engine_finds_exactly_the_labels(path: Path) -> None:
    """Our corpus is also the engine's regression suite: every label found, nothing else."""
    from gradguard.engine import analyze

    source = path.read_text()
    got = {(f.code, f.span.line) for f in analyze(source, str(path))}
    expected = {(code, line) for code, line in expectations(source)}
    known = {(code, line) for name, line, code in KNOWN_MISSES if name == path.name}
    missing, extra = sorted(expected - known - got), sorted(got - expected)
    assert got == expected - known, f"missing {missing}, extra {extra}"


# Labels of the shapes corpus the engine does not find yet, each a known gap (file, line, code).
SHAPE_MISSES: set[tuple[str, int, str]] = {
    ("k_gg301_5_loss_meter.py", 14, "GG301"),
}


# Findings on unlabelled lines that are true: the carried state a bare `.detach()` (GG112) fails
# to cut is also reported where the next iteration reads it (GG104), as in GG112's own docs.
SHAPE_EXTRAS: set[tuple[str, int, str]] = {
    ("k_gg112_23_lstm_tuple_state.py", 23, "GG104"),
    ("k_gg112_5_stateful_forecaster.py", 18, "GG104"),
}


def test_shapes_corpus_covers_every_rule() -> None:
    codes = {code for p in SHAPE_SCRIPTS for code, _ in expectations(p.read_text())}
    assert codes == CODES - {"GG000"}, sorted(CODES - codes)
    correct = [p for p in SHAPE_SCRIPTS if not expectations(p.read_text())]
    assert len(correct) >= 15, len(correct)


@pytest.mark.parametrize("path", SHAPE_SCRIPTS, ids=lambda p: p.name)
def test_engine_sees_the_rules_through_project_shapes(path: Path) -> None:
    """Every label found (a finding on its line or on one of its `also` lines), except the known
    gaps; nothing on a correct look-alike. Extra findings on a buggy script are allowed when they
    are on labelled lines of the same bug (GG104 beside GG112 on a carried state's bare detach)."""
    from gradguard.engine import analyze

    source = path.read_text()
    found = [(f.code, f.span.line) for f in analyze(source, str(path))]
    labels = expectations(source)
    if not labels:
        assert found == [], f"findings on a correct look-alike: {found}"
        return
    also = also_lines(source)
    for code, line in labels:
        hit = any(c == code and (at == line or at in also) for c, at in found)
        known = (path.name, line, code) in SHAPE_MISSES
        news = "now found: remove it from SHAPE_MISSES" if hit else f"missed; found {found}"
        assert hit != known, f"{code} on line {line}: {news}"
    labelled = {line for _, line in labels} | also
    off = [(c, at) for c, at in found if at not in labelled and (path.name, at, c) not in SHAPE_EXTRAS]
    assert not off, f"findings off the labelled lines: {off}"
