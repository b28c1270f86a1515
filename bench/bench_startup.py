"""Start-up cost of `gradguard check` on one small file, against the bare interpreter's start.

Runs `python -c pass` and `python -m gradguard check small.py` alternately (so both see the same
machine load), with bytecode compiled once beforehand as an installed package has it, and prints
the medians and their ratios (goal: at most 3x). The check is timed twice: repeated (the file
unchanged since the last check, answered by the quick lane) and first (an empty cache folder each
time: the engine is loaded and the file analysed). With --importtime it also prints the imports
that cost most (`python -X importtime`). A benchmark, not a test: the machines are shared and noisy.

    python bench/bench_startup.py [--runs 30] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = """import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for step in range(10):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
"""
# What a check without fixes must not import (the language server, the fix engine, the pool).
HEAVY = ("pygls", "lsprotocol", "libcst", "jedi", "multiprocessing", "concurrent.futures.process")


def _env(cache: str, results: str) -> dict[str, str]:
    env = dict(os.environ)
    env["GRADGUARD_CACHE_DIR"] = results
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode compiled
    env["PYTHONPYCACHEPREFIX"] = cache
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "server"), env.get("PYTHONPATH")]))
    return env


def _time(command: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--importtime", action="store_true", help="list the slowest imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        cache = os.path.join(work, "pycache")
        env = _env(cache, os.path.join(work, "results"))
        Path(work, "small.py").write_text(SMALL)
        bare = [sys.executable, "-c", "pass"]
        check = [sys.executable, "-m", "gradguard", "check", "small.py"]
        for _ in range(2):  # compile the bytecode, warm the file cache
            _time(check, env, work)
        times: dict[str, list[float]] = {"bare": [], "check": [], "first": []}
        for run in range(args.runs):
            times["bare"].append(_time(bare, env, work))
            times["check"].append(_time(check, env, work))
            first = _env(cache, os.path.join(work, f"empty{run}"))
            times["first"].append(_time(check, first, work))
        bare_ms, check_ms, first_ms = (statistics.median(times[k]) * 1000 for k in ("bare", "check", "first"))
        print(f"python -c pass:                          {bare_ms:7.1f} ms (median of {args.runs})")
        print(f"gradguard check small.py, repeated:      {check_ms:7.1f} ms  {check_ms / bare_ms:5.2f}x")
        print(f"gradguard check small.py, first time:    {first_ms:7.1f} ms  {first_ms / bare_ms:5.2f}x")
        print("goal: at most 3x")
        probe = (
            "import sys; from gradguard.cli import main; main(['check', 'small.py']); "
            f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})), file=sys.stderr)"
        )
        loaded = subprocess.run(
            [sys.executable, "-c", probe], env=env, cwd=work, capture_output=True, text=True
        ).stderr.strip()
        print(f"heavy modules imported by the check: {loaded or 'none'}")
        if args.importtime:
            trace = subprocess.run(
                [sys.executable, "-X", "importtime", *check[1:]],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
            ).stderr
            rows = []
            for line in trace.splitlines():
                parts = line.split("|")
                if len(parts) == 3 and parts[1].strip().isdigit():
                    rows.append((int(parts[1]), parts[2].rstrip()))
            print("slowest imports (cumulative microseconds):")
            for cumulative, name in sorted(rows, reverse=True)[:15]:
                print(f"  {cumulative:8d} {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
