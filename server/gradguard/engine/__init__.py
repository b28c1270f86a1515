"""The analysis engine: abstract interpretation of autograd graphs over ``ast``."""

from __future__ import annotations

import ast
import logging
import sys

from ..findings import Finding
from .interp import Interpreter
from .report import Reporter

logger = logging.getLogger(__name__)


def _annotate_blocks(body: list[ast.stmt]) -> None:
    """Give every statement its enclosing statement list (used to place fixes)."""
    for stmt in body:
        stmt._gg_block = body  # type: ignore[attr-defined]
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _annotate_blocks(inner)
        for handler in getattr(stmt, "handlers", ()) or ():
            _annotate_blocks(handler.body)
        for case in getattr(stmt, "cases", ()) or ():
            _annotate_blocks(case.body)


def analyze(source: str, filename: str = "<string>") -> list[Finding]:
    """Every finding of every rule in one source text, unfiltered (no noqa, no settings)."""
    if "torch" not in source:
        return []
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return analyze_tree(tree, source)


def analyze_tree(tree: ast.Module, source: str) -> list[Finding]:
    reporter = Reporter(source)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 4000))
        _annotate_blocks(tree.body)
        reporter.tree_body = tree.body
        Interpreter(tree, reporter).run()
    except RecursionError:
        return reporter.results()
    except Exception:  # an engine bug must not take the editor down; it is logged, not shown
        logger.exception("gradguard: analysis failed")
        return []
    finally:
        sys.setrecursionlimit(limit)
    return reporter.results()
