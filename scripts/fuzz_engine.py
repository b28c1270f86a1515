"""Coverage-guided fuzzing (atheris) of the analysis, the fixes and the notebook reader.

Each input is decoded as UTF-8 (bad bytes replaced) and run through

* ``gradguard.check_source`` and ``gradguard.engine.inspect``;
* the graph view's model (``Analysis.graph``) of every backward call the analysis ran, and
  ``api.autograd_graph`` with each fix of the finding told there;
* ``gradguard.fixes.compute`` on every fix of every finding (the result must parse, or be None);
* ``gradguard.api.fix_source`` (the result must parse whenever the input did);
* incremental analysis (``engine.inspect`` with the input's memo) of the fixed text and of the text
  without its middle line: the findings must be a whole analysis's;
* ``gradguard.api.check_notebook`` / ``fix_notebook`` on the raw text (only ``NotebookError`` may
  come out) and on a notebook whose code cells are the input split at blank lines.

Seeds are the shipped examples and the evaluation corpus. Anything that escapes, breaks an
invariant or takes longer than ``--slow`` seconds is saved with its traceback under ``--out``;
errors the engine caught and logged itself are saved too (as ``logged-*``) but do not fail the run.
The run stops after ``--seconds`` and exits 1 if anything escaped.

    python scripts/fuzz_engine.py --seconds 60 [--out fuzz-out] [--slow 10]
"""

from __future__ import annotations

import json
from pathlib import Path

import atheris
from fuzzkit import ROOT, SEED_DIRS, Invariant, parses, run

with atheris.instrument_imports(include=["gradguard"]):
    import gradguard
    from gradguard import api, engine, fixes
    from gradguard.notebook import NotebookError


def _as_notebook(text: str) -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": chunk.splitlines(keepends=True), "outputs": []}
        for chunk in text.split("\n\n")
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def exercise(data: bytes) -> None:
    """Everything one input goes through; raises on an escaped exception or a broken invariant."""
    text = data.decode("utf-8", errors="replace")
    findings = gradguard.check_source(text, "fuzz.py")
    analysis = engine.inspect(text, "fuzz.py")
    reporter = analysis._reporter
    if reporter is not None:
        from gradguard.engine.graph import backward_lines

        for line in backward_lines(reporter)[:5]:
            analysis.graph(line)
        for line in backward_lines(reporter)[:1]:
            answer = api.autograd_graph(text, line, "fuzz.py")
            if answer is not None and answer.finding is not None:
                for index in range(len(answer.finding.fixes)):
                    api.autograd_graph(text, line, "fuzz.py", fix=api.fix_id(answer.finding, index))
    for finding in findings:
        for ref in finding.fixes:
            fix = fixes.compute(text, ref)
            if fix is not None:
                new = fixes.apply_edits(text, fix.edits)
                if not parses(new):
                    raise Invariant(f"fix {ref.kind} of {finding.code} gives code that does not parse")
    new_text, _ = api.fix_source(text, "fuzz.py")
    if parses(text) and not parses(new_text):
        raise Invariant("fix_source broke code that parsed")
    # Incremental analysis: the fixed text, and the text without its middle line, analysed from the
    # input's memo find what a whole analysis finds.
    memo = analysis.memo
    lines = text.split("\n")
    for edited in (new_text, "\n".join(lines[: len(lines) // 2] + lines[len(lines) // 2 + 1 :])):
        if memo is None:
            break
        again = engine.inspect(edited, "fuzz.py", memo=memo)
        if again.findings != engine.inspect(edited, "fuzz.py").findings:
            raise Invariant("an edit analysed incrementally finds other findings than a whole analysis")
        memo = again.memo
    for notebook_text in (text, _as_notebook(text)):
        try:
            api.check_notebook(notebook_text, "fuzz.ipynb")
            api.fix_notebook(notebook_text, "fuzz.ipynb")
        except NotebookError:
            pass


def write_seeds(seeds: Path) -> None:
    for directory in SEED_DIRS:
        for path in sorted(directory.glob("*.py")) + sorted(directory.glob("*.ipynb")):
            (seeds / path.name).write_bytes(path.read_bytes())


if __name__ == "__main__":
    run("fuzz_engine", __doc__, exercise, ROOT / "fuzz-out", write_seeds)
