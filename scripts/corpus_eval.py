"""Report gradguard's precision and recall on the evaluation corpus (tests/corpus).

Every ``# expect: GG103`` comment marks one expected finding on its line. A finding
matches an expectation when code and first line agree. The report is per rule (TP,
FP, FN, precision, recall), with totals and every FP and FN as ``file:line``.
It is a report, not a gate: the exit status is always 0.

    python scripts/corpus_eval.py [--json] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / "tests" / "corpus"
EXPECT_RE = re.compile(r"#\s*expect:\s*(GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
CODES = [*(f"GG1{n:02d}" for n in range(1, 13)), "GG201", "GG202", "GG203", "GG301", "GG302"]

Analyzer = Callable[[str, str], Sequence[Any]]


def load_analyzer() -> tuple[Analyzer | None, str]:
    """gradguard.check_source if it exists yet, else the bare engine."""
    if str(ROOT / "server") not in sys.path:
        sys.path.insert(0, str(ROOT / "server"))
    try:
        from gradguard import check_source

        return check_source, "gradguard.check_source"
    except ImportError:
        pass
    try:
        from gradguard.engine import analyze

        return analyze, "gradguard.engine.analyze"
    except ImportError as e:
        return None, f"gradguard not importable: {e}"


def expectations(source: str) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for lineno, line in enumerate(source.splitlines(), start=1):
        m = EXPECT_RE.search(line)
        if m:
            found.update((code.strip(), lineno) for code in m.group(1).split(","))
    return found


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def to_json(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
        }


@dataclass
class Report:
    analyzer: str
    files: int = 0
    buggy_files: int = 0
    per_rule: dict[str, Tally] = field(default_factory=dict)
    false_positives: list[dict[str, Any]] = field(default_factory=list)
    false_negatives: list[dict[str, Any]] = field(default_factory=list)
    crashes: list[dict[str, str]] = field(default_factory=list)
    # Clean files (no expectation) on which anything at all was reported.
    noisy_clean_files: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def tally(self, code: str) -> Tally:
        return self.per_rule.setdefault(code, Tally())

    @property
    def total(self) -> Tally:
        t = Tally()
        for r in self.per_rule.values():
            t.tp, t.fp, t.fn = t.tp + r.tp, t.fp + r.fp, t.fn + r.fn
        return t

    def to_json(self) -> dict[str, Any]:
        return {
            "analyzer": self.analyzer,
            "files": self.files,
            "buggy_files": self.buggy_files,
            "clean_files": self.files - self.buggy_files,
            "per_rule": {code: self.per_rule[code].to_json() for code in sorted(self.per_rule)},
            "total": self.total.to_json(),
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "noisy_clean_files": self.noisy_clean_files,
            "crashes": self.crashes,
            "seconds": round(self.seconds, 3),
        }


def evaluate(corpus: Path, analyzer: Analyzer | None, analyzer_name: str) -> Report:
    report = Report(analyzer=analyzer_name)
    for code in CODES:
        report.tally(code)
    start = time.perf_counter()
    for path in sorted(corpus.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        expected = expectations(source)
        report.files += 1
        report.buggy_files += bool(expected)
        got: set[tuple[str, int]] = set()
        messages: dict[tuple[str, int], str] = {}
        if analyzer is not None:
            try:
                for f in analyzer(source, str(path)):
                    key = (str(f.code), int(f.span.line))
                    got.add(key)
                    messages.setdefault(key, str(getattr(f, "message", "")))
            except Exception:  # a crash is part of the report, not the end of it
                report.crashes.append({"file": path.name, "error": traceback.format_exc(limit=3)})
        if not expected and got:
            report.noisy_clean_files.append(path.name)
        for code, _line in sorted(expected & got):
            report.tally(code).tp += 1
        for code, line in sorted(got - expected):
            report.tally(code).fp += 1
            near = sorted(ln for c, ln in expected - got if c == code)
            report.false_positives.append(
                {
                    "file": path.name,
                    "line": line,
                    "code": code,
                    "message": messages.get((code, line), ""),
                    "expected_same_code_at": near,
                }
            )
        for code, line in sorted(expected - got):
            report.tally(code).fn += 1
            text = source.splitlines()[line - 1].split("# expect:")[0].strip()
            report.false_negatives.append({"file": path.name, "line": line, "code": code, "source": text})
    report.seconds = time.perf_counter() - start
    return report


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_table(report: Report) -> None:
    print(f"analyzer: {report.analyzer}")
    print(
        f"files: {report.files} ({report.buggy_files} buggy, {report.files - report.buggy_files} clean), "
        f"{report.seconds:.2f}s\n"
    )
    print(f"{'rule':<8}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>7}{'recall':>8}")
    for code in sorted(report.per_rule):
        t = report.per_rule[code]
        print(f"{code:<8}{t.tp:>5}{t.fp:>5}{t.fn:>5}{fmt(t.precision):>7}{fmt(t.recall):>8}")
    t = report.total
    print(f"{'total':<8}{t.tp:>5}{t.fp:>5}{t.fn:>5}{fmt(t.precision):>7}{fmt(t.recall):>8}")
    print(
        f"\nclean files with any finding: {len(report.noisy_clean_files)}"
        + (f" ({', '.join(report.noisy_clean_files)})" if report.noisy_clean_files else "")
    )
    print(f"\nfalse positives ({len(report.false_positives)}):")
    for fp in report.false_positives:
        near = fp["expected_same_code_at"]
        hint = f"  [expected {fp['code']} at line {', '.join(map(str, near))}]" if near else ""
        print(f"  {fp['file']}:{fp['line']}: {fp['code']} {fp['message']}{hint}")
    print(f"\nfalse negatives ({len(report.false_negatives)}):")
    for fn in report.false_negatives:
        print(f"  {fn['file']}:{fn['line']}: {fn['code']}  {fn['source']}")
    if report.crashes:
        print(f"\ncrashes ({len(report.crashes)}):")
        for c in report.crashes:
            print(f"  {c['file']}:\n{c['error']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="directory of corpus scripts")
    args = parser.parse_args(argv)
    analyzer, name = load_analyzer()
    report = evaluate(args.corpus, analyzer, name)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
