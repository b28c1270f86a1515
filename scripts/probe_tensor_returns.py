"""Ask torch which of its ops always return one tensor; write the table gradguard reads.

An op the engine does not model (``x.arcsin()``, ``torch.hypot(a, b)``, ``F.normalize(x)``) still
has a fact the engine can use: when no input requires grad, its result does not either. That fact
is only worth something if the result is known to be a tensor (a backward on it raises "does not
require grad", not an AttributeError). This script reads the type stubs torch ships with its own
build (``torch/_C/__init__.pyi`` for ``Tensor`` methods, ``torch/_C/_VariableFunctions.pyi`` for
``torch.*`` functions, ``torch/nn/functional.py`` and its ``.pyi`` for ``F.*``) and records each
public name whose every overload is annotated ``-> Tensor``. Nothing is written by hand.

    python3 scripts/probe_tensor_returns.py          # (re)write engine/data/tensor_returns.json
    python3 scripts/probe_tensor_returns.py --check  # exit 1 with a diff if that file is stale
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "server" / "gradguard" / "engine" / "data" / "tensor_returns.json"
GENERATED_BY = "scripts/probe_tensor_returns.py"
TORCH = Path(torch.__file__).resolve().parent


def _defs(body: Iterable[ast.stmt]) -> Iterable[ast.FunctionDef]:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            yield stmt


def _always_tensor(defs: Iterable[ast.FunctionDef]) -> list[str]:
    """Public names whose every definition (overload) is annotated to return exactly ``Tensor``."""
    returns: dict[str, set[str]] = defaultdict(set)
    for d in defs:
        if d.name.startswith("_"):
            continue
        returns[d.name].add(ast.unparse(d.returns) if d.returns is not None else "")
    return sorted(name for name, kinds in returns.items() if kinds == {"Tensor"})


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def build_table() -> dict[str, object]:
    stub = _parse(TORCH / "_C" / "__init__.pyi")
    base = next(s for s in stub.body if isinstance(s, ast.ClassDef) and s.name == "TensorBase")
    functional = [*_defs(_parse(TORCH / "nn" / "functional.py").body)]
    functional += [*_defs(_parse(TORCH / "nn" / "functional.pyi").body)]
    return {
        "header": {"generated_by": GENERATED_BY, "torch": torch.__version__.split("+")[0]},
        "methods": _always_tensor(_defs(base.body)),
        "torch": _always_tensor(_defs(_parse(TORCH / "_C" / "_VariableFunctions.pyi").body)),
        "functional": _always_tensor(functional),
    }


def render(table: dict[str, object]) -> str:
    return json.dumps(table, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed table is stale")
    args = parser.parse_args(argv)
    text = render(build_table())
    if args.check:
        old = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if old == text:
            return 0
        diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True), "committed", "torch")
        sys.stdout.writelines(diff)
        return 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
