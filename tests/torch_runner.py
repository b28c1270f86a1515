"""Run code snippets under real torch, all in one child process.

The test process never executes analysed code: a child interpreter imports
torch once (the slow part, about a second) and then ``exec``s every snippet in a
fresh ``__main__`` namespace, seeded, with a time limit and captured output.
Results come back as JSON through a temporary file, so nothing a snippet prints
can corrupt them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

# The child's program. Kept as a string so it runs in a clean interpreter that
# has imported nothing of gradguard or pytest.
_CHILD = r"""
import contextlib, io, json, random, signal, sys, warnings

import torch

try:
    import numpy
except ImportError:  # numpy is optional for the snippets that need it
    numpy = None


class SnippetTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise SnippetTimeout("snippet exceeded its time limit")


def main(in_path, out_path):
    with open(in_path, encoding="utf-8") as f:
        job = json.load(f)
    limit = float(job["time_limit"])
    signal.signal(signal.SIGALRM, _alarm)
    torch.set_num_threads(1)
    results = []
    for i, snip in enumerate(job["snippets"]):
        torch.manual_seed(0)
        random.seed(0)
        if numpy is not None:
            numpy.random.seed(0)
        ns = {"__name__": "__main__", "__builtins__": __builtins__}
        out = io.StringIO()
        error = None
        timed_out = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    exec(compile(snip["source"], snip["name"], "exec"), ns)
            except SnippetTimeout as e:
                timed_out = True
                error = f"{type(e).__name__}: {e}"
            except BaseException as e:  # SystemExit too: a snippet must not stop the batch
                error = f"{type(e).__name__}: {e}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        effects = {}
        effect_errors = {}
        for expr in snip["effects"]:
            try:
                effects[expr] = bool(eval(expr, ns))
            except BaseException as e:
                effects[expr] = None
                effect_errors[expr] = f"{type(e).__name__}: {e}"
        results.append({
            "error": error,
            "timed_out": timed_out,
            "stdout": out.getvalue()[-4000:],
            "effects": effects,
            "effect_errors": effect_errors,
        })
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f)


main(sys.argv[1], sys.argv[2])
"""


@dataclass(frozen=True, slots=True)
class Snippet:
    source: str
    # Expressions evaluated in the snippet's namespace after it ran.
    effects: tuple[str, ...] = ()
    # Shown in tracebacks, e.g. "<GG103-invalid-0>".
    name: str = "<snippet>"


@dataclass(frozen=True, slots=True)
class Result:
    # f"{type(e).__name__}: {e}" of what the snippet raised, or None.
    error: str | None
    timed_out: bool = False
    stdout: str = ""
    # expression -> its truth value, or None when evaluating it raised.
    effects: dict[str, bool | None] = field(default_factory=dict)
    effect_errors: dict[str, str] = field(default_factory=dict)


def run_snippets(snippets: list[Snippet], time_limit: float = 10.0) -> list[Result]:
    """Run every snippet in one fresh interpreter; one Result per snippet, in order."""
    if not snippets:
        return []
    job = {
        "time_limit": time_limit,
        "snippets": [{"source": s.source, "effects": list(s.effects), "name": s.name} for s in snippets],
    }
    with tempfile.TemporaryDirectory(prefix="gg-torch-") as tmp:
        in_path = os.path.join(tmp, "job.json")
        out_path = os.path.join(tmp, "results.json")
        with open(in_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        # Run from the temporary directory so snippets cannot shadow-import the repo.
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, in_path, out_path],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=60 + time_limit * len(snippets),
            env={**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"},
        )
        if proc.returncode != 0 or not os.path.exists(out_path):
            raise RuntimeError(f"torch runner failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        with open(out_path, encoding="utf-8") as f:
            raw = json.load(f)
    return [
        Result(r["error"], r["timed_out"], r["stdout"], dict(r["effects"]), dict(r["effect_errors"]))
        for r in raw
    ]
