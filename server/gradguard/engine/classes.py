"""Classes and functions defined in the analysed file, found without running anything."""

from __future__ import annotations

import ast
from typing import Any

from ..record import field, record


@record(slots=True, eq=False)
class ClassInfo:
    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    # A @dataclass or NamedTuple record: its fields in order, with their default (None: required).
    fields: list[tuple[str, ast.expr | None]] = field(default_factory=list)
    properties: set[str] = field(default_factory=set)  # methods read as attributes (@property)
    # A torch layer it extends (`class NoisyLinear(nn.Linear)`): it has that layer's `weight` and
    # `bias` parameters, made by `super().__init__(...)`.
    torch_base: str | None = None
    # Its base classes defined in the project, in order: what `super()` calls reach.
    bases: tuple[ClassInfo, ...] = ()
    consts: dict[str, ast.Constant] = field(default_factory=dict)  # `export = False` in its body
    autograd_function: bool = False  # a `torch.autograd.Function`: called through `.apply`
    # It extends `nn.Sequential` (`class ConvLayer(nn.Sequential)`): without a forward of its own,
    # calling it runs its modules in order.
    sequential: bool = False

    def inherit(self) -> None:
        """Take what the bases define and it does not (methods, properties, record fields)."""
        for base in self.bases:
            for name, method in base.methods.items():
                self.methods.setdefault(name, method)
            self.properties |= base.properties - set(self.methods.keys() - base.methods.keys())
        for base in self.bases:
            for name, value in base.consts.items():
                self.consts.setdefault(name, value)
        inherited = [f for base in self.bases for f in base.fields]
        if inherited:
            own = {name for name, _ in self.fields}
            self.fields = [f for f in inherited if f[0] not in own] + self.fields

    def after(self, cls: ClassInfo, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The method ``name`` that `super()` in a method of ``cls`` finds, on an instance of this
        class: the first class after ``cls`` in its method order that defines it."""
        order = mro(self)
        start = order.index(cls) + 1 if cls in order else len(order)
        for base in order[start:]:
            found = base.own.get(name)
            if found is not None:
                return found
        return None

    @property
    def own(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """The methods its own body defines."""
        return {
            item.name: item
            for item in self.node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        }


def mro(cls: ClassInfo) -> list[ClassInfo]:
    """Depth-first, left to right, each class once (Python's order for the usual single chains)."""
    out: list[ClassInfo] = []
    todo = [cls]
    while todo:
        c = todo.pop(0)
        if c not in out:
            out.append(c)
            todo[:0] = list(c.bases)
    return out


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


def namedtuple_class(node: ast.Assign) -> ast.ClassDef | None:
    """``Rec = namedtuple("Rec", ["a", "b"])`` (or ``"a b"``, ``"a, b"``) as the class it makes,
    written as the equivalent ``class Rec(NamedTuple)`` with one field per name."""
    call = node.value
    if not (
        len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(call, ast.Call)
        and _base_name(call.func).split(".")[-1] == "namedtuple"
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == node.targets[0].id
    ):
        return None
    spec = call.args[1]
    names: list[object]
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        names = list(spec.value.replace(",", " ").split())
    elif isinstance(spec, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in spec.elts):
        names = [e.value for e in spec.elts]  # type: ignore[attr-defined]
    else:
        return None
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        return None
    fields: list[ast.stmt] = [
        ast.copy_location(
            ast.AnnAssign(ast.Name(str(n), ast.Store()), ast.Name("object", ast.Load()), None, 1), node
        )
        for n in names
    ]
    record = ast.ClassDef(
        name=node.targets[0].id,
        bases=[ast.Name("NamedTuple", ast.Load())],
        keywords=[],
        body=fields,
        decorator_list=[],
    )
    return ast.fix_missing_locations(ast.copy_location(record, node))


def _base_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return _base_name(expr.value) + "." + expr.attr
    return ""


def torch_layer_base(base: str, module_aliases: set[str], layers: frozenset[str]) -> str | None:
    """The torch layer a class extends (`nn.Linear`, `torch.nn.Conv2d`), if it is one with parameters."""
    parts = base.split(".")
    if parts[-1] in layers and len(parts) > 1 and ".".join(parts[:-1]) in module_aliases:
        return parts[-1]
    return None


def is_module_base(base: str, module_classes: set[str], module_aliases: set[str]) -> bool:
    if base in module_classes:
        return True
    parts = base.split(".")
    if parts[-1] != "Module":
        return False
    # nn.Module, torch.nn.Module, or a bare Module imported from torch.nn
    return len(parts) == 1 and "Module" in module_aliases or ".".join(parts[:-1]) in module_aliases


@record(slots=True, eq=False)
class SuperRef:
    """`super()` in a method of ``cls``, on the instance ``inst`` (a ModuleInst)."""

    cls: ClassInfo
    inst: Any


def sequential_base(base: str, module_aliases: set[str]) -> bool:
    """Does this base class name `nn.Sequential` (through an alias of `torch.nn`)?"""
    parts = base.split(".")
    return parts[-1] == "Sequential" and ".".join(parts[:-1]) in module_aliases


def autograd_function_base(base: str, function_imported: bool) -> bool:
    """Does this base class name `torch.autograd.Function` (``Function`` imported from there)?"""
    return base in ("torch.autograd.Function", "autograd.Function") or (
        base == "Function" and function_imported
    )


def saved_by_forward(cls: ClassInfo) -> tuple[frozenset[int], bool] | None:
    """What a custom Function's ``forward`` keeps with ``ctx.save_for_backward``: the positions of
    its own arguments among them (after ``ctx``), and whether it keeps the tensor it returns. None
    when that is not plain to see (no single returned name, a saved expression, several returns)."""
    forward = cls.methods.get("forward")
    if forward is None:
        return None
    params = [a.arg for a in forward.args.posonlyargs + forward.args.args][1:]  # after ctx
    returns = [n for n in ast.walk(forward) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Name):
        return None
    returned = returns[0].value.id
    saved: set[int] = set()
    keeps_output = False
    for n in ast.walk(forward):
        if not (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "save_for_backward"
        ):
            continue
        for arg in n.args:
            if not isinstance(arg, ast.Name):
                return None
            if arg.id == returned:
                keeps_output = True
            elif arg.id in params:
                saved.add(params.index(arg.id))
    return frozenset(saved), keeps_output
