"""Speed benchmark: gradguard's analysis vs ``ast.parse`` vs TorchFix, on two real-sized files.

Files: (a) torch's installed ``torch/nn/modules/module.py`` (located without importing torch),
(b) a generated 3,000-line training script (``gen_training_script.generate``), plus any paths
given on the command line. For each file, in the same run:

* ``ast.parse(source, filename)``;
* ``gradguard.engine.analyze(source, filename)`` (includes gradguard's own parse);
* TorchFix in process, through its flake8 plugin class ``torchfix.torchfix.TorchChecker``
  (the stable in-process entry point: libcst parse + one batched visit with every visitor);
* TorchFix's ``torchfix`` CLI as a subprocess (wall time, interpreter start-up included).

Each figure is the median of N runs after one warm-up (``time.perf_counter``, ``gc.collect()``
before each run, gc left enabled). Nothing is subtracted from any figure. Slow measurements are
capped by ``--budget`` seconds each (the run count actually used is reported).

Goal: gradguard's time ≤ 2× ``ast.parse`` of the same file.

Usage: ``PYTHONPATH=server python bench/bench_engine.py [--repeat N] [--json] [FILE ...]``.
"""

from __future__ import annotations

import argparse
import ast
import gc
import importlib
import importlib.metadata
import importlib.util
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

GOAL_RATIO = 2.0
BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
# What a half-built engine (or TorchFix on odd input) may raise: record it and keep benchmarking.
TOOL_ERRORS = (
    ArithmeticError,
    AssertionError,
    AttributeError,
    LookupError,
    NotImplementedError,
    RecursionError,
    RuntimeError,
    TypeError,
    ValueError,
)


@dataclass
class Timing:
    median_ms: float
    min_ms: float
    runs: int
    samples_ms: list[float] = field(default_factory=list)


@dataclass
class FileResult:
    file: str
    path: str
    lines: int
    ast_parse: Timing
    gradguard: Timing | None = None
    gradguard_findings: int | None = None
    gradguard_error: str | None = None
    torchfix_inproc: Timing | None = None
    torchfix_violations: int | None = None
    torchfix_codes: dict[str, int] = field(default_factory=dict)
    torchfix_error: str | None = None
    torchfix_cli: Timing | None = None
    torchfix_cli_returncode: int | None = None
    torchfix_cli_error: str | None = None
    ratio_gradguard_ast: float | None = None
    ratio_torchfix_gradguard: float | None = None
    ratio_torchfix_cli_gradguard: float | None = None
    goal_met: bool | None = None


def measure(fn: Callable[[], object], repeat: int, budget_s: float) -> Timing:
    """Median of up to ``repeat`` runs after one warm-up; fewer runs if the budget would overflow."""
    gc.collect()
    t0 = time.perf_counter()
    fn()
    warm = time.perf_counter() - t0
    runs = (
        repeat
        if warm * repeat <= budget_s
        else max(1, min(repeat, int(budget_s / max(warm, 1e-9))))
    )
    samples: list[float] = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000.0)
    return Timing(
        statistics.median(samples), min(samples), runs, [round(s, 3) for s in samples]
    )


def torch_module_py() -> Path | None:
    """``torch/nn/modules/module.py`` of the installed torch, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = Path(loc) / "nn" / "modules" / "module.py"
        if p.is_file():
            return p
    return None


def load_analyze() -> tuple[Callable[[str, str], Any] | None, str | None]:
    """``gradguard.engine.analyze``, imported lazily (falls back to the repo's ``server/``)."""
    try:
        mod = importlib.import_module("gradguard.engine")
    except ImportError:
        sys.path.insert(0, str(REPO / "server"))
        try:
            mod = importlib.import_module("gradguard.engine")
        except ImportError as e:
            return None, f"cannot import gradguard.engine: {e}"
    fn = getattr(mod, "analyze", None)
    if not callable(fn):
        return None, "gradguard.engine has no analyze()"
    return fn, None


def load_torchfix_checker() -> tuple[Any, str | None]:
    try:
        mod = importlib.import_module("torchfix.torchfix")
    except ImportError as e:
        return None, f"cannot import torchfix: {e}"
    return getattr(mod, "TorchChecker", None), None


def torchfix_cli_command() -> list[str]:
    # Prefer the console script next to this interpreter: a pyenv shim on PATH would add its own
    # start-up cost, which isn't TorchFix's.
    script = Path(sys.executable).parent / "torchfix"
    if script.is_file():
        return [str(script)]
    found = shutil.which("torchfix")
    return [found] if found else [sys.executable, "-m", "torchfix"]


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def bench_file(
    label: str,
    path: Path,
    args: argparse.Namespace,
    analyze: Callable[[str, str], Any] | None,
    analyze_err: str | None,
    checker: Any,
    checker_err: str | None,
    cli: list[str],
) -> FileResult:
    source = path.read_text(encoding="utf-8")
    filename = str(path)
    res = FileResult(
        file=label,
        path=filename,
        lines=len(source.splitlines()),
        ast_parse=measure(
            lambda: ast.parse(source, filename), args.repeat, args.budget
        ),
    )

    if analyze is None:
        res.gradguard_error = analyze_err
    else:
        out: list[Any] = []

        def run_gg() -> None:
            out[:] = [analyze(source, filename)]

        try:
            res.gradguard = measure(run_gg, args.repeat, args.budget)
            found = out[0] if out else None
            res.gradguard_findings = len(found) if isinstance(found, list) else None
        except TOOL_ERRORS as e:
            res.gradguard_error = f"{type(e).__name__}: {e}"

    if checker is None:
        res.torchfix_error = checker_err or "torchfix.torchfix.TorchChecker not found"
    else:
        lines = source.splitlines(keepends=True)
        viol: list[Any] = []

        def run_tf() -> None:
            viol[:] = list(checker(None, lines).run())

        try:
            res.torchfix_inproc = measure(run_tf, args.repeat, args.budget)
            res.torchfix_violations = len(viol)
            # flake8 results are (line, col, "TORnnn message", type)
            for v in viol:
                code = (
                    str(v[2]).split(" ", 1)[0]
                    if isinstance(v, tuple) and len(v) > 2
                    else "?"
                )
                res.torchfix_codes[code] = res.torchfix_codes.get(code, 0) + 1
        except TOOL_ERRORS as e:
            res.torchfix_error = f"{type(e).__name__}: {e}"

    if not args.no_cli:
        rc: list[int] = []

        def run_cli() -> None:
            p = subprocess.run(
                [*cli, filename], capture_output=True, text=True, check=False
            )
            rc[:] = [p.returncode]

        try:
            res.torchfix_cli = measure(run_cli, args.cli_repeat, args.budget)
            res.torchfix_cli_returncode = rc[0] if rc else None
        except OSError as e:
            res.torchfix_cli_error = f"{type(e).__name__}: {e}"

    gg = res.gradguard.median_ms if res.gradguard else None
    res.ratio_gradguard_ast = ratio(gg, res.ast_parse.median_ms)
    res.ratio_torchfix_gradguard = ratio(
        res.torchfix_inproc.median_ms if res.torchfix_inproc else None, gg
    )
    res.ratio_torchfix_cli_gradguard = ratio(
        res.torchfix_cli.median_ms if res.torchfix_cli else None, gg
    )
    if res.ratio_gradguard_ast is not None:
        res.goal_met = res.ratio_gradguard_ast <= GOAL_RATIO
    return res


def version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def fmt_ms(t: Timing | None) -> str:
    return "n/a" if t is None else f"{t.median_ms:.2f}"


def fmt_x(r: float | None) -> str:
    if r is None:
        return "n/a"
    return f"{r:.0f}x" if r >= 100 else f"{r:.2f}x"


def print_table(results: list[FileResult], meta: dict[str, Any]) -> None:
    print(
        f"gradguard speed benchmark — Python {meta['python']}, torch {meta['torch']}, "
        f"TorchFix {meta['torchfix']} (libcst {meta['libcst']})"
    )
    print(
        f"median of --repeat {meta['repeat']} runs (CLI: {meta['cli_repeat']}) after 1 warm-up; "
        f"per-measurement budget {meta['budget_s']}s; nothing subtracted"
    )
    print()
    headers = [
        "file",
        "lines",
        "ast.parse ms",
        "gradguard ms",
        "gg/ast",
        "TorchFix ms",
        "TF/gg",
        "TorchFix CLI ms",
        "CLI/gg",
    ]
    rows = [
        [
            r.file,
            str(r.lines),
            fmt_ms(r.ast_parse),
            fmt_ms(r.gradguard),
            fmt_x(r.ratio_gradguard_ast),
            fmt_ms(r.torchfix_inproc),
            fmt_x(r.ratio_torchfix_gradguard),
            fmt_ms(r.torchfix_cli),
            fmt_x(r.ratio_torchfix_cli_gradguard),
        ]
        for r in results
    ]
    widths = [
        max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)
    ]
    print(
        "  ".join(
            h.ljust(widths[0]) if i == 0 else h.rjust(widths[i])
            for i, h in enumerate(headers)
        )
    )
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(
            "  ".join(
                c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                for i, c in enumerate(row)
            )
        )
    print()
    print(
        "TorchFix ms  = in process: torchfix.torchfix.TorchChecker(None, lines).run()"
        " (libcst parse + all visitors)"
    )
    print(
        f"TorchFix CLI = subprocess: {' '.join(meta['torchfix_cli'])} FILE"
        " (wall time incl. interpreter start-up)"
    )
    if meta.get("torchfix_cli_startup_ms") is not None:
        print(
            "               (for reference, `torchfix --version` alone takes "
            f"{meta['torchfix_cli_startup_ms']:.0f} ms)"
        )
    print()
    for r in results:
        notes = []
        if r.gradguard_error:
            notes.append(f"gradguard: {r.gradguard_error}")
        elif r.gradguard is not None:
            notes.append(f"gradguard findings: {r.gradguard_findings}")
            if (
                r.gradguard_findings == 0
                and r.gradguard.median_ms < r.ast_parse.median_ms
            ):
                notes.append(
                    "gradguard faster than ast.parse with no findings: engine is probably still a placeholder"
                )
        if r.torchfix_error:
            notes.append(f"TorchFix: {r.torchfix_error}")
        else:
            codes = ", ".join(f"{c} x{n}" for c, n in sorted(r.torchfix_codes.items()))
            notes.append(
                f"TorchFix violations: {r.torchfix_violations}"
                + (f" ({codes})" if codes else "")
            )
        if r.torchfix_cli_error:
            notes.append(f"TorchFix CLI: {r.torchfix_cli_error}")
        elif r.torchfix_cli is not None:
            notes.append(
                f"CLI exit {r.torchfix_cli_returncode}, runs {r.torchfix_cli.runs}"
            )
        print(f"{r.file}: " + "; ".join(notes))
    print()
    print(
        f"Goal: gradguard's analysis (its own parse included) within {GOAL_RATIO:g}x of ast.parse alone."
    )
    for r in results:
        verdict = "n/a" if r.goal_met is None else ("MET" if r.goal_met else "NOT MET")
        trivial = (
            r.goal_met
            and r.gradguard_findings == 0
            and r.gradguard is not None
            and r.gradguard.median_ms < r.ast_parse.median_ms
        )
        if trivial:
            verdict += " (trivially: the engine does not parse yet)"
        print(f"  {r.file}: {fmt_x(r.ratio_gradguard_ast)} -> {verdict}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="gradguard speed benchmark (prints figures)."
    )
    p.add_argument("files", nargs="*", type=Path, help="extra files to benchmark")
    p.add_argument(
        "--repeat",
        type=int,
        default=9,
        help="timed runs per in-process measurement (default 9)",
    )
    p.add_argument(
        "--cli-repeat",
        type=int,
        default=3,
        help="timed runs of the TorchFix CLI (default 3)",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=12.0,
        help="seconds per measurement before runs are capped",
    )
    p.add_argument(
        "--lines",
        type=int,
        default=3000,
        help="size of the generated script (default 3000)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the generated script")
    p.add_argument(
        "--no-cli", action="store_true", help="skip the TorchFix CLI subprocess"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    args.repeat = max(1, args.repeat)
    args.cli_repeat = max(1, args.cli_repeat)

    analyze, analyze_err = load_analyze()
    checker, checker_err = load_torchfix_checker()
    cli = torchfix_cli_command()

    meta: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": version("torch"),
        "torchfix": version("torchfix"),
        "libcst": version("libcst"),
        "repeat": args.repeat,
        "cli_repeat": args.cli_repeat,
        "budget_s": args.budget,
        "goal": f"gradguard ms <= {GOAL_RATIO:g} x ast.parse ms",
        "torchfix_inproc": "torchfix.torchfix.TorchChecker(None, lines).run()",
        "torchfix_cli": cli,
        "torchfix_cli_startup_ms": None,
    }
    if not args.no_cli:
        try:
            startup = measure(
                lambda: subprocess.run(
                    [*cli, "--version"], capture_output=True, check=False
                ),
                args.cli_repeat,
                args.budget,
            )
            meta["torchfix_cli_startup_ms"] = startup.median_ms
        except OSError:
            pass

    sys.path.insert(0, str(BENCH))
    from gen_training_script import generate

    results: list[FileResult] = []
    with tempfile.TemporaryDirectory(prefix="gg-bench-") as tmp:
        targets: list[tuple[str, Path]] = []
        mod = torch_module_py()
        if mod is not None:
            targets.append(("torch/nn/modules/module.py", mod))
        else:
            print(
                "warning: torch is not installed; skipping module.py", file=sys.stderr
            )
        gen = Path(tmp) / f"generated_{args.lines}.py"
        gen.write_text(generate(args.lines, args.seed), encoding="utf-8")
        targets.append((f"generated training script (seed {args.seed})", gen))
        targets += [(str(f), f) for f in args.files]
        for label, path in targets:
            results.append(
                bench_file(
                    label, path, args, analyze, analyze_err, checker, checker_err, cli
                )
            )

    if args.json:
        print(
            json.dumps(
                {"meta": meta, "results": [asdict(r) for r in results]}, indent=2
            )
        )
    else:
        print_table(results, meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
