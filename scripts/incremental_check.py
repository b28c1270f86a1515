"""Differential check of incremental analysis: random edits of real files, each analysed twice.

For every file, a chain of random edits (lines deleted, duplicated, commented out, moved, indented;
tokens such as `.detach()` or `retain_graph=True` inserted; module-level statements added) is
analysed with the previous analysis's memo (``engine.inspect(..., memo=...)``) and again from
scratch. Findings and backward facts must be identical, and every tree the incremental parse
builds must equal the whole parse's, positions included. Prints each difference and a summary;
exits 1 on any difference.

Usage: ``python scripts/incremental_check.py [--edits 20] [--seed 0] [--project] PATH...`` (files or
folders; ``--project`` follows each file's imports of its own project, as the editor does).
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gradguard import engine
from gradguard.engine import incremental
from gradguard.project import ProjectLoader, project_root

TOKENS = [
    ".detach()",
    ".item()",
    ".backward()",
    ", retain_graph=True",
    ".add_(1)",
    ".relu_()",
    " + 1",
    "(",
    ")",
    ":",
    "torch.no_grad()",
    "opt.zero_grad()",
]
MODULE_LINES = [
    "_edit = 1",
    "loss = None",
    "print(model)",
    "model = None",
    "import torch",
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
    "def helper(x):\n    return x * 2",
    "class Extra:\n    pass",
]


def edit(source: str, rng: random.Random) -> str:
    """One random edit of ``source``."""
    lines = source.split("\n")
    if not lines:
        return source
    i = rng.randrange(len(lines))
    line = lines[i]
    indent = line[: len(line) - len(line.lstrip())]
    kind = rng.randrange(9)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, line)
    elif kind == 2 and line.strip():
        lines[i] = f"{indent}# {line.lstrip()}"
    elif kind == 3:
        lines.insert(i, "")
    elif kind == 4:
        other = rng.choice(lines)
        lines[i] = indent + other.lstrip()
    elif kind == 5 and line.strip():
        at = rng.randrange(len(indent), len(line) + 1)
        lines[i] = line[:at] + rng.choice(TOKENS) + line[at:]
    elif kind == 6:
        # A statement of module code, between two top-level statements.
        tops = [k for k, text in enumerate(lines) if text and not text[0].isspace() and text[0] != "#"]
        at = rng.choice(tops) if tops else 0
        lines[at:at] = rng.choice(MODULE_LINES).split("\n")
    elif kind == 7 and line.strip():
        lines[i] = ("    " + line) if rng.random() < 0.5 else line[min(4, len(indent)) :]
    else:
        lines[i] = line.replace("detach()", "clone()").replace("zero_grad()", "train()")
    return "\n".join(lines)


DUMP = ""  # --dump DIR: the texts before and after each edit whose analyses differ


def tree_dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


def check(
    source: str, edits: int, rng: random.Random, name: str, loader: Any = None
) -> tuple[int, int, float, float]:
    """Differences found over a chain of edits of ``source``; also the time of each way. With a
    project ``loader``, the file's imports of its project are followed (both ways)."""
    differences = analysed = 0
    memo = engine.inspect(source, name, loader).memo
    inc_time = full_time = 0.0
    for _ in range(edits):
        new = edit(source, rng)
        if memo is not None:
            spliced = incremental.splice(memo.source, memo.tree, new)
            if spliced is not None:
                try:
                    whole = ast.parse(new)
                except (SyntaxError, ValueError):
                    print(f"{name}: spliced a text that does not parse")
                    differences += 1
                else:
                    if tree_dump(spliced.tree) != tree_dump(whole):
                        print(f"{name}: spliced tree differs from the whole parse")
                        differences += 1
        start = time.perf_counter()
        inc = engine.inspect(new, name, loader, memo)
        middle = time.perf_counter()
        full = engine.inspect(new, name, loader)
        full_time += time.perf_counter() - middle
        inc_time += middle - start
        analysed += 1
        if inc.findings != full.findings or inc.backwards != full.backwards:
            differences += 1
            print(f"{name}: findings differ after an edit")
            if DUMP:
                Path(DUMP, f"diff{differences}_before.py").write_text(memo.source if memo else "")
                Path(DUMP, f"diff{differences}_after.py").write_text(new)
            for f in inc.findings:
                if f not in full.findings:
                    print(f"  only incremental: {f.code} {f.span.line}: {f.message[:100]}")
            for f in full.findings:
                if f not in inc.findings:
                    print(f"  only whole: {f.code} {f.span.line}: {f.message[:100]}")
        source, memo = new, inc.memo
    return differences, analysed, inc_time, full_time


def files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.py") if p.is_file())
        elif path.is_file():
            yield path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-chars", type=int, default=200_000)
    parser.add_argument("--dump", default="", help="write the texts of each difference to this folder")
    parser.add_argument("--project", action="store_true", help="follow imports of each file's project")
    args = parser.parse_args()
    global DUMP
    DUMP = args.dump
    loaders: dict[str, ProjectLoader] = {}
    total = count = analysed = 0
    inc_time = full_time = 0.0
    for path in files(args.paths):
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "torch" not in source or len(source) > args.max_chars:
            continue
        rng = random.Random(f"{args.seed}:{path.name}")
        loader = None
        if args.project:
            root = project_root(str(path.parent.resolve()))
            loader = loaders.get(root) or loaders.setdefault(root, ProjectLoader(root))
        found, runs, inc, full = check(source, args.edits, rng, str(path.resolve()), loader)
        total += found
        analysed += runs
        inc_time += inc
        full_time += full
        count += 1
    ratio = inc_time / full_time if full_time else 0.0
    print(
        f"{count} files, {analysed} edits analysed, {total} differences; incremental/whole time {ratio:.2f}"
    )
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
