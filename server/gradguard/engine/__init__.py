"""The analysis engine: abstract interpretation of autograd graphs over ``ast``."""

from __future__ import annotations

import ast
import gc
import logging
import sys
from typing import TYPE_CHECKING

from ..findings import Finding, Span

if TYPE_CHECKING:
    from .graph import AutogradGraph
    from .incremental import Memo, Replay
    from .modules import Loader
    from .report import BackwardInfo, Reporter

# The interpreter and the reporter (and the rules they load) are imported on the first analysis:
# a run answered from the cache, or a process that only reads findings, never pays for them.

logger = logging.getLogger(__name__)


class Analysis:
    """Findings, and on demand what each backward call frees (only hovers need that)."""

    def __init__(
        self,
        findings: list[Finding],
        reporter: Reporter | None = None,
        tree: ast.Module | None = None,
        memo: Memo | None = None,
    ) -> None:
        self.findings = findings
        self._reporter = reporter
        self._tree = tree
        self._backwards: list[BackwardInfo] | None = None
        # What the next analysis of the same document may reuse (pass it to ``inspect``).
        self.memo = memo

    def with_findings(self, findings: list[Finding]) -> Analysis:
        """The same analysis with other findings (e.g. after suppressions), backward facts still lazy."""
        other = Analysis(findings, self._reporter, self._tree, self.memo)
        other._backwards = self._backwards
        return other

    def graph(self, line: int) -> AutogradGraph | None:
        """The abstract graph of the backward call on ``line`` (else the nearest one), for the graph
        view; read before ``backwards``, which lets the engine's facts go."""
        if self._reporter is None or self._tree is None:
            return None
        from .graph import build

        return build(self._reporter, self._tree, line)

    @property
    def backwards(self) -> list[BackwardInfo]:
        if self._backwards is None:
            self._backwards = self._reporter.backward_summaries() if self._reporter is not None else []
            self._reporter = None
            self._tree = None
        return self._backwards


def analyze(source: str, filename: str = "<string>", loader: Loader | None = None) -> list[Finding]:
    """Every finding of every rule in one source text, unfiltered (no noqa, no settings)."""
    return inspect(source, filename, loader, remember=False).findings


def inspect(
    source: str,
    filename: str = "<string>",
    loader: Loader | None = None,
    memo: Memo | None = None,
    remember: bool = True,
) -> Analysis:
    """Findings plus what each backward call frees (the language server's hovers use both).

    With a ``loader``, imports of the user's own modules are followed: code the file runs from them
    is analysed with the file's real arguments, and what is found there is shown in this file.
    With ``memo`` (the last analysis's of the same document), only the top-level statements the
    edit touched are parsed again, and only what they can change is analysed again: the findings
    are those of a whole analysis (see engine.incremental). ``remember``: make the memo of this
    analysis for the next (``Analysis.memo``)."""
    # A file that never mentions torch builds no graph of its own; with its project's modules it
    # may still run theirs (`from trainer import fit`), so one that imports is read.
    if "torch" not in source and (loader is None or "import" not in source):
        return Analysis([])
    # Parsing and analysis make many objects that live until the end; cyclic GC passes over them
    # cost 10-15% and free nothing (refcounting frees what is dropped).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        planned = None
        if memo is not None:
            from .incremental import replay

            planned = replay(memo, source, loader)
        if planned is not None:
            tree, plan = planned
            analysis = analyze_tree(tree, source, loader, filename, plan, remember=True)
            if analysis.memo is not None:
                return analysis
            # A unit ran another module first: the replayed ones did not see it; analyse it whole.
        try:
            tree = ast.parse(source, filename=filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return Analysis(unparsable(source, exc))
        return analyze_tree(tree, source, loader, filename, None, memo, remember)
    finally:
        if gc_was_enabled:
            gc.enable()


def syntax_span(source: str, exc: BaseException) -> Span:
    """Where the parser stopped, as a span of at least one character where the line has one."""
    lines = source.splitlines() or [""]
    line = getattr(exc, "lineno", None)
    if not isinstance(line, int) or line < 1:
        # No position (null bytes, a parser out of stack): the first null byte, else the start.
        before = source.split("\x00", 1)[0] if "\x00" in source else ""
        line, offset = before.count("\n") + 1, len(before.rsplit("\n", 1)[-1]) + 1
    else:
        offset = getattr(exc, "offset", None) or 1
    line = min(line, len(lines))
    text = lines[line - 1]
    col = max(0, min(offset - 1, len(text)))
    end_line, end_offset = getattr(exc, "end_lineno", None), getattr(exc, "end_offset", None)
    if isinstance(end_line, int) and isinstance(end_offset, int) and (end_line, end_offset - 1) > (line, col):
        end_line = min(end_line, len(lines))
        end_col = max(0, min(end_offset - 1, len(lines[end_line - 1])))
        if (end_line, end_col) > (line, col):
            return Span(line, col, end_line, end_col)
    return Span(line, col, line, min(col + 1, len(text)))


def unparsable(source: str, exc: BaseException, cell: bool = False) -> list[Finding]:
    """The finding (GG000) for a source or notebook cell that does not parse."""
    if isinstance(exc, SyntaxError):
        kind, reason = type(exc).__name__, str(exc.msg)
    elif isinstance(exc, RecursionError | MemoryError):
        kind, reason = "RecursionError", "too deeply nested for the parser"
    else:  # ValueError: null bytes in older Pythons
        kind, reason = "SyntaxError", str(exc)
    from ..observations import Unparsable
    from .report import Reporter

    reporter = Reporter(source)
    reporter.publish(Unparsable(syntax_span(source, exc), kind, reason, cell))
    return reporter.results()


def analyze_tree(
    tree: ast.Module,
    source: str,
    loader: Loader | None = None,
    filename: str = "<string>",
    plan: Replay | None = None,
    last: Memo | None = None,
    remember: bool = False,
) -> Analysis:
    from . import incremental
    from .interp import Interpreter
    from .report import Reporter

    reporter = Reporter(source)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 4000))
        reporter.annotate_later(tree.body)
        interp = Interpreter(tree, reporter, loader, filename)
        interp.run(plan, remember)
    except RecursionError:
        return Analysis(reporter.results())
    except Exception:  # an engine bug must not take the editor down; it is logged, not shown
        logger.exception("gradguard: analysis failed")
        return Analysis([])
    finally:
        sys.setrecursionlimit(limit)
    memo = None
    if remember and interp.replayable:
        last = plan.memo if plan is not None else last
        units, facts, calls, modules = interp.units, interp.file_facts(), interp.calls, interp.modules_run
        replayed, idle, lines = interp.replayed, interp.idle, plan.lines if plan is not None else None
        memo = incremental.remember(
            source, tree, units, facts, calls, modules, loader, last, replayed, idle, lines
        )
    return Analysis(reporter.results(), reporter, tree, memo)
