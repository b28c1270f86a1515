"""Classes and functions defined in the analysed file, found without running anything."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass(slots=True)
class ClassInfo:
    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    # A @dataclass or NamedTuple record: its fields in order, with their default (None: required).
    fields: list[tuple[str, ast.expr | None]] = field(default_factory=list)
    properties: set[str] = field(default_factory=set)  # methods read as attributes (@property)


def record_fields(node: ast.ClassDef) -> list[tuple[str, ast.expr | None]]:
    """The generated ``__init__``'s parameters of a ``@dataclass`` or ``typing.NamedTuple`` class."""
    decorated = any(
        _base_name(d.func if isinstance(d, ast.Call) else d).split(".")[-1] == "dataclass"
        for d in node.decorator_list
    )
    named = any(_base_name(b).split(".")[-1] == "NamedTuple" for b in node.bases)
    if not (decorated or named):
        return []
    out: list[tuple[str, ast.expr | None]] = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if "ClassVar" in ast.dump(item.annotation):
                continue
            out.append((item.target.id, item.value))
    return out


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
