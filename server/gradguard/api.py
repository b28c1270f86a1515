"""The Python API: the same analysis as ``gradguard check``, on source text."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from . import engine, noqa
from .engine.modules import Loader
from .findings import Finding, Fix, FixRef, Span, TextEdit
from .notebook import Notebook
from .record import field, record, replace
from .settings import Settings

if TYPE_CHECKING:
    from .engine.graph import AutogradGraph
    from .engine.incremental import Memo

MAX_FIX_ROUNDS = 10


def _fixes_module() -> ModuleType:
    # Imported lazily: libcst is only needed when fixes are computed.
    return importlib.import_module("gradguard.fixes")


def _sort_key(finding: Finding) -> tuple[int, int, int, int, str]:
    span = finding.span
    return (span.line, span.col, span.end_line, span.end_col, finding.code)


def _without_bom(source: str) -> str:
    # A byte-order mark is no part of the code (``ast`` rejects it, editors hide it): columns count
    # from after it, which is what ``fixes.compute`` expects of the spans it is given.
    return source[1:] if source.startswith("\ufeff") else source


def check_source(
    source: str, filename: str = "<string>", settings: Settings | None = None, loader: Loader | None = None
) -> list[Finding]:
    """The findings of one Python source text, after suppression comments and settings, by position.

    Never raises on bad input: code that does not parse gets one finding, GG000, where the parser
    stopped (a source that never mentions torch gets none: it is not read further).
    """
    settings = settings if settings is not None else Settings()
    source = _without_bom(source)
    try:
        findings = engine.analyze(source, filename, loader)
    except (SyntaxError, RecursionError, ValueError):
        return []
    return _filtered(findings, source, filename, settings)


def _filtered(findings: list[Finding], source: str, filename: str, settings: Settings) -> list[Finding]:
    name = None if filename.startswith("<") else filename
    findings = [f for f in findings if settings.enabled(f.code, name)]
    return sorted(noqa.filter_findings(findings, source), key=_sort_key)


def inspect_source(
    source: str,
    filename: str = "<string>",
    settings: Settings | None = None,
    loader: Loader | None = None,
    memo: Memo | None = None,
) -> engine.Analysis:
    """``check_source``'s findings plus what each backward call frees, from one analysis (the language
    server's hovers need both; running the engine twice would double the latency). ``memo``: the
    last analysis's of the same document (``Analysis.memo``), to analyse only what an edit changed."""
    settings = settings if settings is not None else Settings()
    source = _without_bom(source)
    try:
        analysis = engine.inspect(source, filename, loader, memo)
    except (SyntaxError, RecursionError, ValueError):
        return engine.Analysis([])
    return analysis.with_findings(_filtered(analysis.findings, source, filename, settings))


def compute_fix(source: str, ref: FixRef) -> Fix | None:
    """The edits of one fix, or None when it no longer applies or cannot be computed."""
    try:
        fix: Fix | None = _fixes_module().compute(source, ref)
    except Exception:  # a fix that cannot be computed is skipped, never fatal
        return None
    if fix is None or not fix.edits:
        return None
    return fix


@record(frozen=True, slots=True)
class GraphAnswer:
    """The graph view's answer: the graph of one backward call, the finding told at that call (with
    its fixes), and, when asked for a fix's effect, the fix applied before the graph was drawn."""

    graph: AutogradGraph
    finding: Finding | None
    applied: FixRef | None = None
    applied_id: str | None = None


def fix_id(finding: Finding, index: int) -> str:
    return f"{finding.code}:{finding.span.line}:{index}"


def autograd_graph(
    source: str,
    line: int,
    filename: str = "<string>",
    settings: Settings | None = None,
    loader: Loader | None = None,
    fix: str | None = None,
    memo: Memo | None = None,
) -> GraphAnswer | None:
    """The abstract graph of the backward call on ``line`` (else the nearest one the analysis ran);
    with ``fix`` (an id from :func:`fix_id` of this answer's finding), the graph of the same call
    after that fix is applied to the source. None when there is no such call or fix. ``memo``: an
    earlier analysis's of the same document (see ``inspect_source``)."""
    source = _without_bom(source)
    analysis = inspect_source(source, filename, settings, loader, memo)
    graph = analysis.graph(line)
    if graph is None:
        return None
    finding = _finding_at(analysis.findings, graph.backward_span.line)
    if fix is None:
        return GraphAnswer(graph, finding)
    ref = (
        next((r for i, r in enumerate(finding.fixes) if fix_id(finding, i) == fix), None)
        if finding is not None
        else None
    )
    computed = compute_fix(source, ref) if ref is not None else None
    if ref is None or computed is None:
        return None
    try:
        fixed = _fixes_module().apply_edits(source, computed.edits)
    except Exception:  # a fix that cannot be applied has no effect to show
        return None
    # The same call in the fixed text: lines the fix inserted or removed above it move it.
    moved = graph.backward_span.line
    for edit in computed.edits:
        if edit.span.end_line < graph.backward_span.line:
            moved += edit.new_text.count("\n") - (edit.span.end_line - edit.span.line)
    after = inspect_source(fixed, filename, settings, loader, analysis.memo)
    graph_after = after.graph(moved)
    if graph_after is None:
        return None
    return GraphAnswer(graph_after, _finding_at(after.findings, graph_after.backward_span.line), ref, fix)


def _finding_at(findings: list[Finding], line: int) -> Finding | None:
    """The finding told at a backward call: reported on its line, else one whose story has it."""
    on_line = [f for f in findings if f.span.line <= line <= f.span.end_line]
    in_story = [f for f in findings if any(r.path is None and r.span.line == line for r in f.related)]
    ranked = [f for f in (*on_line, *in_story) if f.fixes] or [*on_line, *in_story]
    return ranked[0] if ranked else None


def _ordered(span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
    return (span.line, span.col), (span.end_line, span.end_col)


def _overlaps(a: Span, b: Span) -> bool:
    # Closed intervals: edits that merely touch are deferred to the next round too, so two
    # insertions at one point are never ordered by accident.
    (a0, a1), (b0, b1) = _ordered(a), _ordered(b)
    return a0 <= b1 and b0 <= a1


def _parses(source: str) -> bool:
    try:
        ast.parse(_without_bom(source))
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


@record
class _Round:
    edits: list[TextEdit] = field(default_factory=list)
    count: int = 0


def applies(ref: FixRef, unsafe: bool = False) -> bool:
    """Is this fix applied without being picked by hand (``--fix``, fix-all)? Safe fixes are; unsafe
    ones only when asked (``--unsafe-fixes``); display-only ones never."""
    return ref.applicability == "safe" or (unsafe and ref.applicability == "unsafe")


def _pick_fixes(
    source: str,
    findings: list[Finding],
    accept: Callable[[Fix], bool] | None = None,
    unsafe: bool = False,
) -> _Round:
    """The preferred fix of every finding whose edits overlap no fix already taken, when its
    applicability allows it."""
    chosen = _Round()
    for finding in findings:
        if not finding.fixes or not applies(finding.fixes[0], unsafe):
            continue
        fix = compute_fix(source, finding.fixes[0])
        if fix is None or (accept is not None and not accept(fix)):
            continue
        if any(_overlaps(new.span, old.span) for new in fix.edits for old in chosen.edits):
            continue
        chosen.edits.extend(fix.edits)
        chosen.count += 1
    return chosen


def fix_source(
    source: str, filename: str = "<string>", settings: Settings | None = None, unsafe: bool = False
) -> tuple[str, int]:
    """Apply the preferred fix of every finding, non-overlapping, re-analyse, repeat (at most 10
    rounds): safe fixes only, unless ``unsafe``. Returns the new source and the number of fixes
    applied. A round whose result does not parse is dropped, so a fix never leaves broken code."""
    applied = 0
    for _ in range(MAX_FIX_ROUNDS):
        chosen = _pick_fixes(source, check_source(source, filename, settings), unsafe=unsafe)
        if not chosen.edits:
            break
        try:
            new = _fixes_module().apply_edits(source, chosen.edits)
        except Exception:  # a failed round leaves the source as it was
            break
        if new == source or not _parses(new):
            break
        source, applied = new, applied + chosen.count
    return source, applied


@record
class NotebookCheck:
    """Findings of a notebook, in program coordinates, with the notebook to map them to cells."""

    notebook: Notebook
    findings: list[Finding]


def check_notebook(
    text: str, filename: str = "<notebook>", settings: Settings | None = None, loader: Loader | None = None
) -> NotebookCheck:
    """Findings of a ``.ipynb`` text. Raises ``notebook.NotebookError`` for JSON that is no notebook."""
    notebook = Notebook.parse(text)
    program = notebook.program
    findings = check_source(program, filename, settings, loader) if program.strip() else []
    # A finding on a rewritten IPython line would point at code the user never wrote.
    kept = []
    for finding in findings:
        located = notebook.locate(finding.span.line)
        if located is not None and located[1] not in located[0].replaced:
            kept.append(finding)
    kept += cell_syntax_errors(notebook, filename, settings)
    return NotebookCheck(notebook, sorted(kept, key=_sort_key))


def cell_syntax_errors(notebook: Notebook, filename: str, settings: Settings | None = None) -> list[Finding]:
    """GG000 for each code cell left out of the program because it does not parse, in program
    coordinates, after settings and the cell's own suppression comments."""
    settings = settings if settings is not None else Settings()
    broken = [cell for cell in notebook.cells if cell.syntax_error is not None]
    if not broken or not any("torch" in notebook.cell_source(c.index) for c in notebook.cells):
        return []
    found = []
    for cell in broken:
        assert cell.syntax_error is not None
        source = notebook.cell_source(cell.index)
        for finding in _filtered(
            engine.unparsable(source, cell.syntax_error, cell=True), source, filename, settings
        ):
            span, shift = finding.span, cell.start - 1
            moved = Span(span.line + shift, span.col, span.end_line + shift, span.end_col)
            found.append(replace(finding, span=moved))
    return found


def fix_notebook(
    text: str, filename: str = "<notebook>", settings: Settings | None = None, unsafe: bool = False
) -> tuple[str, int]:
    """Like ``fix_source`` for a notebook text; fixes that would cross cells are skipped."""
    notebook = Notebook.parse(text)
    applied = 0
    for _ in range(MAX_FIX_ROUNDS):
        findings = check_source(notebook.program, filename, settings) if notebook.program.strip() else []
        chosen = _pick_fixes(notebook.program, findings, notebook.fix_fits, unsafe)
        if not chosen.edits:
            break
        before = notebook.program
        try:
            ok = notebook.apply_program_edits(chosen.edits, _fixes_module().apply_edits)
        except Exception:  # a failed round leaves the notebook as it was
            break
        if not ok or notebook.program == before:
            break
        applied += chosen.count
    if applied == 0:
        return text, 0
    return notebook.dumps(), applied
