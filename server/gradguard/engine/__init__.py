"""The analysis engine: abstract interpretation of autograd graphs over ``ast``."""

from __future__ import annotations

import ast
import gc
import logging
import sys

from ..findings import Finding
from .interp import Interpreter
from .report import BackwardInfo, Reporter

logger = logging.getLogger(__name__)


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


def _annotate_blocks(body: list[ast.stmt], blocks: dict[int, list[ast.stmt]]) -> None:
    """Map every statement to its enclosing statement list (used to place fixes).

    Kept beside the tree, not on its nodes: a node pointing at the list that holds it is a
    reference cycle, and would leave the whole AST to the cyclic garbage collector."""
    for stmt in body:
        blocks[id(stmt)] = body
        if not isinstance(stmt, _COMPOUND):
            continue
        for inner in (
            getattr(stmt, "body", None),
            getattr(stmt, "orelse", None),
            getattr(stmt, "finalbody", None),
        ):
            if inner and isinstance(inner, list) and isinstance(inner[0], ast.stmt):
                _annotate_blocks(inner, blocks)
        for handler in getattr(stmt, "handlers", ()) or ():
            _annotate_blocks(handler.body, blocks)
        for case in getattr(stmt, "cases", ()) or ():
            _annotate_blocks(case.body, blocks)


class Analysis:
    """Findings, and on demand what each backward call frees (only hovers need that)."""

    def __init__(self, findings: list[Finding], reporter: Reporter | None = None) -> None:
        self.findings = findings
        self._reporter = reporter
        self._backwards: list[BackwardInfo] | None = None

    def with_findings(self, findings: list[Finding]) -> Analysis:
        """The same analysis with other findings (e.g. after suppressions), backward facts still lazy."""
        other = Analysis(findings, self._reporter)
        other._backwards = self._backwards
        return other

    @property
    def backwards(self) -> list[BackwardInfo]:
        if self._backwards is None:
            self._backwards = self._reporter.backward_summaries() if self._reporter is not None else []
            self._reporter = None
        return self._backwards


def analyze(source: str, filename: str = "<string>") -> list[Finding]:
    """Every finding of every rule in one source text, unfiltered (no noqa, no settings)."""
    return inspect(source, filename).findings


def inspect(source: str, filename: str = "<string>") -> Analysis:
    """Findings plus what each backward call frees (the language server's hovers use both)."""
    if "torch" not in source:
        return Analysis([])
    # Parsing and analysis make many objects that live until the end; cyclic GC passes over them
    # cost 10-15% and free nothing (refcounting frees what is dropped).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            tree = ast.parse(source, filename=filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Analysis([])
        return analyze_tree(tree, source)
    finally:
        if gc_was_enabled:
            gc.enable()


def analyze_tree(tree: ast.Module, source: str) -> Analysis:
    reporter = Reporter(source)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 4000))
        _annotate_blocks(tree.body, reporter.blocks)
        Interpreter(tree, reporter).run()
    except RecursionError:
        return Analysis(reporter.results())
    except Exception:  # an engine bug must not take the editor down; it is logged, not shown
        logger.exception("gradguard: analysis failed")
        return Analysis([])
    finally:
        sys.setrecursionlimit(limit)
    return Analysis(reporter.results(), reporter)
