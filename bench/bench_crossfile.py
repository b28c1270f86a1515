"""Cost of cross-file analysis: ratios against the per-file scan, measured in the same run.

Two measurements (medians of N runs after one warm-up; wall time of fresh processes for the CLI):

1. **Whole-repository scan** of a folder (the largest fetched repository when given, else a generated
   20-file project): ``gradguard check`` with ``--no-follow-imports --no-cache`` (the per-file scan,
   the baseline), cross-file with an empty cache (cold), and cross-file again on that cache (warm).
   Goals: cold ≤ 1.5x the per-file scan, warm ≤ 0.5x.
   Each cold run starts with empty caches (gradguard's and jedi's parse cache); notebooks are
   analysed again on warm runs (their findings are not cached).
2. **Editor**: the generated project's ``train.py`` analysed as the language server does after an
   edit (``documents.analyse`` plus diagnostics), with its project loader warm, against the same file
   analysed alone. Goal: ≤ 2x.

Usage: ``PYTHONPATH=server python bench/bench_crossfile.py [--repeat N] [--json] [REPO_FOLDER]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GOALS = {"cold": 1.5, "warm": 0.5, "editor": 2.0}


def generate_project(root: Path, n_models: int = 14) -> Path:
    """A 20-file training project: models in a package, losses, a meter, data, a trainer, train.py."""
    pkg = root / "models"
    pkg.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("")
    names = []
    for i in range(n_models):
        name = f"Block{i}"
        names.append((f"block{i}", name))
        (pkg / f"block{i}.py").write_text(
            textwrap.dedent(
                f"""\
                import torch
                import torch.nn as nn
                import torch.nn.functional as F


                class {name}(nn.Module):
                    def __init__(self, width=16):
                        super().__init__()
                        self.fc1 = nn.Linear(width, width)
                        self.fc2 = nn.Linear(width, width)
                        self.norm = nn.LayerNorm(width)

                    def forward(self, x):
                        h = F.relu(self.fc1(x))
                        h = self.norm(h + self.fc2(h))
                        return torch.tanh(h) * {i + 1}
                """
            )
        )
    (pkg / "__init__.py").write_text("".join(f"from .{m} import {c}\n" for m, c in names))
    (root / "losses.py").write_text(
        "import torch.nn.functional as F\n\n\ndef compute_loss(out, y):\n    return F.mse_loss(out, y)\n"
    )
    (root / "utils.py").write_text(
        textwrap.dedent(
            """\
            class AverageMeter:
                def __init__(self):
                    self.sum = 0.0
                    self.count = 0

                def update(self, value, n=1):
                    self.sum += value * n
                    self.count += n
            """
        )
    )
    (root / "data.py").write_text(
        "import torch\n\n\ndef batches(n=4):\n"
        "    return [(torch.randn(8, 16), torch.randn(8, 16)) for _ in range(n)]\n"
    )
    (root / "trainer.py").write_text(
        textwrap.dedent(
            """\
            from losses import compute_loss
            from utils import AverageMeter


            class Trainer:
                def __init__(self, model, optimizer):
                    self.model = model
                    self.optimizer = optimizer
                    self.meter = AverageMeter()

                def step(self, x, y):
                    self.optimizer.zero_grad()
                    loss = compute_loss(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                    self.meter.update(loss.item(), x.shape[0])
            """
        )
    )
    chain = ", ".join(f"{c}()" for _, c in names)
    (root / "train.py").write_text(
        textwrap.dedent(
            f"""\
            import torch
            import torch.nn as nn

            from data import batches
            from models import {", ".join(c for _, c in names)}
            from trainer import Trainer


            def main():
                model = nn.Sequential({chain})
                trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.01))
                for epoch in range(2):
                    for x, y in batches():
                        trainer.step(x, y)


            if __name__ == "__main__":
                main()
            """
        )
    )
    return root


def _cli(folder: Path, cache: Path, *flags: str) -> float:
    # Everything cold in a cold run: gradguard's cache and jedi's parse cache (under XDG_CACHE_HOME).
    env = {
        **os.environ,
        "GRADGUARD_CACHE_DIR": str(cache / "gradguard"),
        "XDG_CACHE_HOME": str(cache),
        "PYTHONPATH": str(REPO / "server"),
        # Bytecode compiled once and kept (outside the repository), as an installed package has it;
        # the first round, which compiles it, is dropped.
        "PYTHONPYCACHEPREFIX": str(cache.parent / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "gradguard", "check", str(folder), "--isolated", "--exit-zero", "-q", *flags],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def scan(folder: Path, repeat: int) -> dict[str, float]:
    per_file, cold, warm = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(repeat + 1):  # the first round warms the OS file cache and is dropped
            cache = Path(tmp) / f"cache{k}"
            a = _cli(folder, cache, "--no-follow-imports", "--no-cache")
            b = _cli(folder, cache)
            c = _cli(folder, cache)
            if k:
                per_file.append(a)
                cold.append(b)
                warm.append(c)
    base = statistics.median(per_file)
    return {
        "per_file_s": base,
        "cold_s": statistics.median(cold),
        "warm_s": statistics.median(warm),
        "cold": statistics.median(cold) / base,
        "warm": statistics.median(warm) / base,
    }


def editor(project: Path, repeat: int) -> dict[str, float]:
    sys.path.insert(0, str(REPO / "server"))
    from gradguard.lsp import documents
    from gradguard.lsp.positions import TextLocator
    from gradguard.lsp.settings import EditorSettings
    from gradguard.project import ProjectLoader
    from gradguard.settings import Settings

    path = project / "train.py"
    original = path.read_text()
    loader = ProjectLoader(str(project))
    alone, followed = [], []
    memo_alone = memo_followed = None
    for k in range(repeat * 5 + 1):
        # An edit in the training loop, analysed as the server does: from the last analysis's memo.
        source = original.replace("trainer.step(x, y)", f"trainer.step(x, y)  # edit {k}")
        snap = documents.Snapshot(
            path.as_uri(), k, source, str(path), TextLocator(path.as_uri(), source, "utf-16")
        )
        t0 = time.perf_counter()
        memo_alone = documents.analyse(snap, Settings(), EditorSettings(), False, None, memo_alone).memo
        t1 = time.perf_counter()
        result = documents.analyse(snap, Settings(), EditorSettings(), False, loader, memo_followed)
        memo_followed = result.memo
        t2 = time.perf_counter()
        if k:  # the first round loads jedi and parses the project: the background work
            alone.append(t1 - t0)
            followed.append(t2 - t1)
    base = statistics.median(alone)
    return {
        "alone_ms": base * 1000,
        "followed_ms": statistics.median(followed) * 1000,
        "editor": statistics.median(followed) / base,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?", help="a repository to scan (default: the generated project)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = generate_project(Path(tmp) / "proj")
        folder = Path(args.folder).resolve() if args.folder else project
        results["folder"] = str(folder) if args.folder else "generated 20-file project"
        results["scan"] = scan(folder, args.repeat)
        results["editor"] = editor(project, args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    s, e = results["scan"], results["editor"]
    print(f"scan of {results['folder']}:")
    print(f"  per-file scan (baseline)   {s['per_file_s']:.2f} s")
    print(f"  cross-file, empty cache    {s['cold_s']:.2f} s  = {s['cold']:.2f}x  (goal <= {GOALS['cold']}x)")
    print(f"  cross-file, warm cache     {s['warm_s']:.2f} s  = {s['warm']:.2f}x  (goal <= {GOALS['warm']}x)")
    print(
        "editor, train.py of the generated project after an edit in its training loop (from the last memo):"
    )
    print(
        f"  alone {e['alone_ms']:.1f} ms, following its imports {e['followed_ms']:.1f} ms"
        f" = {e['editor']:.2f}x  (goal <= {GOALS['editor']}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
