"""Where each statement sits: the statement list that holds it and the function around it."""

from __future__ import annotations

import ast

_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
    getattr(ast, "TryStar", ast.Try),
)


def annotate_blocks(
    body: list[ast.stmt],
    blocks: dict[int, list[ast.stmt]],
    scopes: dict[int, int],
    scope: int = 0,
) -> None:
    """Map every statement to its enclosing statement list and to the id of its function (0 for
    module code): fixes are placed by the first and kept inside the second.

    Kept beside the tree, not on its nodes: a node pointing at the list that holds it is a
    reference cycle, and would leave the whole AST to the cyclic garbage collector."""
    for stmt in body:
        blocks[id(stmt)] = body
        scopes[id(stmt)] = scope
        if not isinstance(stmt, _COMPOUND):
            continue
        inside = id(stmt) if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) else scope
        for inner in (
            getattr(stmt, "body", None),
            getattr(stmt, "orelse", None),
            getattr(stmt, "finalbody", None),
        ):
            if inner and isinstance(inner, list) and isinstance(inner[0], ast.stmt):
                annotate_blocks(inner, blocks, scopes, inside)
        for handler in getattr(stmt, "handlers", ()) or ():
            annotate_blocks(handler.body, blocks, scopes, inside)
        for case in getattr(stmt, "cases", ()) or ():
            annotate_blocks(case.body, blocks, scopes, inside)
