"""GG201: a training loop that never zeroes gradients, or zeroes them between backward and step."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Related
from . import torchapi as api
from .values import Ty, Val

if TYPE_CHECKING:
    from .evaluate import Evaluator
    from .report import Reporter


def _statements(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a block, nested blocks included, nested functions excluded."""
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for handler in getattr(stmt, "handlers", ()) or ():
            yield from _statements(handler.body)


def _calls(loop: ast.AST) -> list[ast.Call]:
    """Calls made as statements or assigned (where backward, step and zero_grad live)."""
    out: list[ast.Call] = []
    for stmt in _statements(list(getattr(loop, "body", []))):
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)) and isinstance(
            value, ast.Call
        ):
            out.append(value)
    return out


_CLEARS = re.compile(r"zero_grad|\.grad\s*=[^=]|\.grad\.(?:data\.)?(?:zero_|fill_)\(")


def _clears_grads(rep: Reporter, loop: ast.AST) -> bool:
    """Any way of clearing gradients: zero_grad, `p.grad = None`, `p.grad.zero_()` (a text test)."""
    return rep.mentions(loop, _CLEARS)


def check_zero_grad(
    rep: Reporter, loop: ast.For | ast.While | ast.AsyncFor, env: dict[str, Val], ev: Evaluator
) -> None:
    calls = _calls(loop)
    backwards = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "backward"]
    steps = [
        c
        for c in calls
        if isinstance(c.func, ast.Attribute)
        and c.func.attr == "step"
        and isinstance(c.func.value, ast.Name)
        and env.get(c.func.value.id, Val()).ty is Ty.OPTIMIZER
    ]
    if not backwards:
        return
    _misplaced(rep, loop, env)
    if not steps or _clears_grads(rep, loop):
        return
    if _may_clear_grads(loop, env, ev):
        return
    step = steps[0]
    opt = step.func.value  # type: ignore[attr-defined]
    opt_name = rep.text(opt)
    first_backward = backwards[0]
    anchor = _stmt_of(loop, first_backward)
    fixes = []
    if anchor is not None:
        fixes.append(
            rep.fix(
                "GG201",
                "zero-grad-before-backward",
                "insert-before",
                anchor=rep.span(anchor),
                text=f"{opt_name}.zero_grad()",
            )
        )
    # The squiggle goes where the fix goes: the backward that adds onto the old gradients.
    related = [Related(rep.span(step), "the step that applies the summed gradients", "reused")]
    fields = {"optimizer": opt_name, "step_line": step.lineno}
    rep.add("GG201", anchor if anchor is not None else step, fields, related, fixes)


_HARMLESS_MODULES = ("torch", "numpy", "math", "time", "logging", "random", "builtins", "os", "sys")


def _mentions_grads(func: object) -> bool:
    return isinstance(func, ast.AST) and any(
        isinstance(n, ast.Attribute) and n.attr in ("zero_grad", "grad") for n in ast.walk(func)
    )


def _may_clear_grads(loop: ast.AST, env: dict[str, Val], ev: Evaluator) -> bool:
    """Could code the loop calls, that we cannot see into, clear gradients?"""

    def value(name: str) -> Val | None:
        return env.get(name) or ev.globals_env.get(name)

    for call in ast.walk(loop):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        root_val = value(root.id) if isinstance(root, ast.Name) else None
        trusted = (
            root_val is not None
            and root_val.ty is Ty.QUAL
            and (root_val.qual or "").split(".")[0] in (_HARMLESS_MODULES)
        )
        if isinstance(func, ast.Name):
            val = value(func.id)
            if val is None or val.ty is Ty.UNKNOWN:
                if func.id not in api.HARMLESS_BUILTINS:
                    return True
            elif val.ty is Ty.FUNC and _mentions_grads(val.info):
                return True
            elif val.ty is Ty.QUAL and not trusted:
                return True
        elif isinstance(func, ast.Attribute) and root_val is not None and root_val.module is not None:
            cls = root_val.module.user_class
            if cls is not None and _mentions_grads(cls.methods.get(func.attr)):
                return True
        if trusted:
            continue
        # Handing the optimizer or a model to code we cannot see: it may zero their gradients.
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, ast.Name):
                val = value(arg.id)
                if val is not None and val.ty in (Ty.OPTIMIZER, Ty.MODULE):
                    return True
    return False


def _stmt_of(loop: ast.AST, call: ast.Call) -> ast.stmt | None:
    for node in ast.walk(loop):
        if isinstance(node, ast.Expr) and node.value is call:
            return node
    return None


def _method_statements(block: list[ast.stmt]) -> list[tuple[int, ast.stmt, ast.expr, str]]:
    """``recv.method(...)`` expression statements of a block: (index, statement, receiver, method)."""
    out: list[tuple[int, ast.stmt, ast.expr, str]] = []
    for i, stmt in enumerate(block):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute):
                out.append((i, stmt, func.value, func.attr))
    return out


def _misplaced(rep: Reporter, loop: ast.AST, env: dict[str, Val]) -> None:
    """backward; zero_grad; step in one straight run of statements: the step sees zeros."""
    for node in [loop, *_statements(list(getattr(loop, "body", [])))]:
        for block in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(block, list):
                continue
            calls = _method_statements(block)
            for i, zstmt, zrecv, zname in calls:
                if zname != "zero_grad":
                    continue
                backward = [(j, st) for j, st, _, name in calls if j < i and name == "backward"]
                steps = [
                    (j, st, recv)
                    for j, st, recv, name in calls
                    if j > i
                    and name == "step"
                    and isinstance(recv, ast.Name)
                    # An unknown receiver (a parameter) zeroed then stepped is an optimizer too.
                    and env.get(recv.id, Val()).ty in (Ty.OPTIMIZER, Ty.UNKNOWN)
                    and _zeroes_for(zrecv, recv, env)
                ]
                if not backward or not steps:
                    continue
                step_index, step_stmt, opt = steps[0]
                # A backward between the zero_grad and the step refills the gradients.
                if any(i < j < step_index and name == "backward" for j, _, _, name in calls):
                    continue
                bstmt = backward[-1][1]
                fixes = [
                    rep.fix(
                        "GG201", "move-zero-grad", "move-before", stmt=rep.span(zstmt), anchor=rep.span(bstmt)
                    )
                ]
                rep.add(
                    "GG201",
                    zstmt,
                    {
                        "optimizer": rep.text(opt),
                        "backward_line": bstmt.lineno,
                        "step_line": step_stmt.lineno,
                    },
                    [
                        Related(rep.span(bstmt), "its gradients are thrown away", "note"),
                        Related(rep.span(step_stmt), "the step that should apply them", "reused"),
                    ],
                    fixes,
                    variant="misplaced",
                )


def _zeroes_for(zero_recv: ast.expr, opt: ast.Name, env: dict[str, Val]) -> bool:
    """Does ``zero_recv.zero_grad()`` clear the gradients ``opt.step()`` uses?"""
    if isinstance(zero_recv, ast.Name) and zero_recv.id == opt.id:
        return True
    info = env.get(opt.id, Val()).info
    zero_val = env.get(zero_recv.id) if isinstance(zero_recv, ast.Name) else None
    return bool(
        zero_val is not None
        and zero_val.module is not None
        and info is not None
        and zero_val.module in getattr(info, "modules", ())
    )
