"""Classes and functions defined in the analysed file, found without running anything."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass(slots=True)
class ClassInfo:
    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)


def _base_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return _base_name(expr.value) + "." + expr.attr
    return ""


def is_module_base(base: str, module_classes: set[str], module_aliases: set[str]) -> bool:
    if base in module_classes:
        return True
    parts = base.split(".")
    if parts[-1] != "Module":
        return False
    # nn.Module, torch.nn.Module, or a bare Module imported from torch.nn
    return len(parts) == 1 and "Module" in module_aliases or ".".join(parts[:-1]) in module_aliases
