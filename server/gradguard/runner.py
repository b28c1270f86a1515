"""Checking and fixing files, serially or on all cores, into output records."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import api, projects, registry
from .files import write_atomic  # noqa: F401 (the CLI writes fixed files with it)
from .findings import Finding, Span
from .notebook import Notebook, NotebookError, StoredPositions, renumber_lines
from .output import Diagnostic, EditRecord, FixRecord, Location, RelatedRecord
from .record import field, record
from .settings import Settings

PARALLEL_THRESHOLD = 16


@record(frozen=True)
class Job:
    path: str  # absolute path; for standard input, the --stdin-filename or "-"
    display: str
    settings: Settings
    mode: str = "check"  # "check", "fix" or "diff"
    text: str | None = None  # the source, when it comes from standard input
    notebook: bool = False
    # Compute the edits of each preferred fix for the report (JSON, SARIF). Costly (a libcst parse
    # per fix), so text output only counts the fixes the engine offers.
    with_fixes: bool = True
    # --unsafe-fixes: unsafe fixes are applied and counted as fixable too.
    unsafe_fixes: bool = False
    # Follow imports of the project's own modules (off: --no-follow-imports); resolutions cached on
    # disk unless --no-cache.
    follow_imports: bool = True
    cache: bool = True


@record
class Outcome:
    job: Job
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None
    original: str | None = None  # as read, newlines untouched
    fixed: str | None = None  # the new text when fixes changed it
    applied: int = 0
    encoding: str = "utf-8"
    cache_updates: dict[str, Any] | None = None  # from a worker process, for the parent's cache


def read_text(path: Path, notebook: bool) -> tuple[str, str]:
    """The decoded text and its encoding (PEP 263 cookie or BOM for Python; UTF-8 for notebooks)."""
    data = path.read_bytes()
    encoding = "utf-8"
    if not notebook:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:  # an unknown encoding in the cookie
            raise UnicodeError(str(exc)) from exc
    elif data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex()
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise UnicodeError(f"not valid {name}: byte 0x{bad} at offset {exc.start}") from exc


def _diagnostics(
    findings: Sequence[Finding],
    source: str,
    job: Job,
    notebook: Notebook | None = None,
    stored: StoredPositions | None = None,
) -> list[Diagnostic]:
    def in_file(span: Span) -> tuple[Location | None, Location | None]:
        """A notebook span's place in the .ipynb file as stored (None, None elsewhere)."""
        located = notebook.to_cell_span(span) if notebook is not None and stored is not None else None
        if located is None or stored is None:
            return None, None
        cell, local = located
        start = stored.locate(cell.index, local.line, local.col)
        end = stored.locate(cell.index, local.end_line, local.end_col)
        if start is None:
            return None, None
        if end is None or end < start:
            end = start
        return Location(start[0], start[1] + 1), Location(end[0], end[1] + 1)

    def place(span: Span) -> tuple[Location, Location, int | None]:
        """1-based positions, relative to the cell for notebooks, and the cell number."""
        if notebook is not None:
            located = notebook.to_cell_span(span)
            if located is not None:
                cell, local = located
                return (
                    Location(local.line, local.col + 1),
                    Location(local.end_line, local.end_col + 1),
                    cell.number,
                )
        return Location(span.line, span.col + 1), Location(span.end_line, span.end_col + 1), None

    def text(message: str, home: int | None) -> str:
        return message if notebook is None else renumber_lines(message, notebook, home)

    result = []
    for finding in findings:
        start, end, cell = place(finding.span)
        fix_record = None
        fixable = bool(finding.fixes)
        if (job.with_fixes or notebook is not None) and finding.fixes:
            fix = api.compute_fix(source, finding.fixes[0])
            if fix is not None and (notebook is None or notebook.fix_fits(fix)):
                edits = []
                cells = set()
                for edit in fix.edits:
                    edit_start, edit_end, edit_cell = place(edit.span)
                    edits.append(EditRecord(edit.new_text, edit_start, edit_end))
                    cells.add(edit_cell)
                fixable = True
                # Edits carry no cell of their own (as in ruff), so a report can only hold a fix
                # whose edits are all in the finding's cell; --fix applies the others too.
                if cells <= {cell}:
                    fix_record = FixRecord(fix.title, tuple(edits), fix.applicability)
            else:
                fixable = False
        # Fixable means applied by this run's --fix: an unsafe fix only counts with --unsafe-fixes.
        hidden = fixable and not api.applies(finding.fixes[0], job.unsafe_fixes)
        fixable = fixable and not hidden
        related = []
        for item in finding.related:
            r_start, r_end, r_cell = place(item.span)
            if item.path is not None:  # in another file of the project: its own lines
                own = item.span
                where = (Location(own.line, own.col + 1), Location(own.end_line, own.end_col + 1))
                related.append(RelatedRecord(item.message, *where, None, item.role, path=item.path))
                continue
            related.append(
                RelatedRecord(
                    text(item.message, cell), r_start, r_end, r_cell, item.role, *in_file(item.span)
                )
            )
        file_start, file_end = in_file(finding.span)
        result.append(
            Diagnostic(
                code=finding.code,
                message=text(finding.message, cell),
                path=job.path,
                display=job.display,
                location=start,
                end_location=end,
                severity=job.settings.severity_for(finding.code),
                cell=cell,
                fix=fix_record,
                url=registry.docs_url(finding.code),
                noqa_row=start.row,
                related=tuple(related),
                chain=text(finding.chain, cell),
                fixable=fixable,
                unsafe_fixable=hidden and finding.fixes[0].applicability == "unsafe",
                file_location=file_start,
                file_end_location=file_end,
            )
        )
    return result


def _check_python(text: str, job: Job, outcome: Outcome) -> None:
    # The text goes to the engine and the fixes as read: both count lines as Python does (\n, \r\n
    # or \r), and fixes keep each line's ending, so a file with mixed endings keeps them all.
    source = text
    if never_analysed(source, job):
        return
    if job.mode in ("fix", "diff"):
        fixed, outcome.applied = api.fix_source(source, job.path, job.settings, job.unsafe_fixes)
        if fixed != source:
            outcome.fixed = source = fixed
    loader = projects.loader_for(job.path, job.cache) if job.follow_imports and job.path != "-" else None
    use_cache = loader is not None and job.cache and job.mode == "check" and job.text is None
    settings_key = repr(job.settings) if use_cache else ""
    findings = projects.cached_findings(job.path, source, settings_key) if use_cache else None
    if findings is None:
        if loader is not None:
            loader.begin()
        findings = api.check_source(source, job.path, job.settings, loader)
        if use_cache:
            projects.store_findings(job.path, source, settings_key, findings)
    outcome.diagnostics = _diagnostics(findings, source, job)


def never_analysed(text: str, job: Job) -> bool:
    """A file the engine is not run on: it never mentions torch (nor, for a script whose imports
    are followed, imports what might), so it builds no graph we see."""
    if job.notebook:
        return "torch" not in text
    return "torch" not in text and ("import" not in text or not job.follow_imports)


def _check_notebook(text: str, job: Job, outcome: Outcome) -> None:
    if never_analysed(text, job):
        try:
            Notebook.parse(text)  # still report broken JSON
        except NotebookError as exc:
            outcome.error = f"{job.display}: {exc}"
        return
    try:
        if job.mode in ("fix", "diff"):
            fixed, outcome.applied = api.fix_notebook(text, job.path, job.settings, job.unsafe_fixes)
            if fixed != text:
                outcome.fixed = fixed
                text = fixed
        loader = projects.loader_for(job.path, job.cache) if job.follow_imports else None
        use_cache = loader is not None and job.cache and job.mode == "check" and job.text is None
        settings_key = repr(job.settings) if use_cache else ""
        findings = projects.cached_findings(job.path, text, settings_key) if use_cache else None
        if findings is not None:
            notebook = Notebook.parse(text)
        else:
            if loader is not None:
                loader.begin()
            checked = api.check_notebook(text, job.path, job.settings, loader)
            notebook, findings = checked.notebook, checked.findings
            if use_cache:
                projects.store_findings(job.path, text, settings_key, findings)
    except NotebookError as exc:
        outcome.error = f"{job.display}: {exc}"
        return
    # Where each finding sits in the JSON as stored (for SARIF and GitHub annotations).
    stored = StoredPositions(text)
    outcome.diagnostics = _diagnostics(findings, notebook.program, job, notebook, stored)


def run_job(job: Job) -> Outcome:
    outcome = Outcome(job)
    try:
        if job.text is not None:
            text = job.text
        else:
            text, outcome.encoding = read_text(Path(job.path), job.notebook)
    except UnicodeError as exc:
        outcome.error = f"{job.display}: {exc}; file skipped"
        return outcome
    except OSError as exc:
        outcome.error = f"{job.display}: cannot read: {exc.strerror or exc}"
        return outcome
    outcome.original = text
    try:
        if job.notebook:
            _check_notebook(text, job, outcome)
        else:
            _check_python(text, job, outcome)
    except RecursionError:
        outcome.error = f"{job.display}: too deeply nested to analyse; file skipped"
    except Exception as exc:  # one file's internal error must not end the whole scan
        import traceback

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        outcome.error = (
            f"{job.display}: internal error ({type(exc).__name__}: {exc} at {where}); file skipped. "
            "Please report this with the file."
        )
        outcome.diagnostics = []
    return outcome


def run_jobs(jobs: Sequence[Job], workers: int | None = None) -> list[Outcome]:
    """Outcomes in job order; large batches go to a process pool over all cores. Files whose cached
    findings still hold are answered here first: only the others are worth a worker."""
    cached = {i: run_job(job) for i, job in enumerate(jobs) if _answered_by_cache(job)}
    if cached:
        rest = [job for i, job in enumerate(jobs) if i not in cached]
        done = iter(_run_all(rest, workers))
        return [cached[i] if i in cached else next(done) for i in range(len(jobs))]
    return _run_all(jobs, workers)


def _answered_by_cache(job: Job) -> bool:
    if not (job.follow_imports and job.cache and job.mode == "check" and job.text is None):
        return False
    try:
        text, _ = read_text(Path(job.path), job.notebook)
    except (OSError, UnicodeError):
        return False
    if never_analysed(text, job):
        return True  # nothing for a worker to do
    return projects.cached_findings(job.path, text, repr(job.settings)) is not None


def _run_all(jobs: Sequence[Job], workers: int | None = None) -> list[Outcome]:
    workers = workers or os.cpu_count() or 1
    if len(jobs) > PARALLEL_THRESHOLD and workers > 1:
        # Imported here: multiprocessing costs a small check a sixth of its start-up time.
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        try:
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
                chunksize = max(1, len(jobs) // (workers * 4))
                outcomes = list(pool.map(_run_job_in_worker, jobs, chunksize=chunksize))
            for outcome in outcomes:
                projects.absorb(outcome.cache_updates)
                outcome.cache_updates = None
            projects.save_caches()
            return outcomes
        except (OSError, BrokenProcessPool, NotImplementedError):
            pass  # no working process pool here (e.g. no semaphores): do it serially
    outcomes = [run_job(job) for job in jobs]
    projects.save_caches()
    return outcomes


def _run_job_in_worker(job: Job) -> Outcome:
    outcome = run_job(job)
    # A worker has no end hook: what it learnt goes back with the outcome; the parent writes it.
    outcome.cache_updates = projects.drain()
    return outcome
