"""What one analysis of a document leaves for the next: the tree, to reparse only what an edit
touched, and the result of each top-level function or class, to rerun only what the edit can change.

The analysis runs module code first, then each function on its own (see ``Interpreter.run``). The
functions and classes of one top-level statement form a *unit*: its analysis starts from the module's
final names and nothing else (``Interpreter.run_unit`` resets what an earlier unit could have left),
so its result depends only on

* its own statement (reused by identity: a statement kept from the previous tree has the same text,
  at the same lines or moved with every line after an edit that added or removed lines) and the
  names that statement binds (a class is its bases' too),
* the module's names it read (``Unit.reads``),
* facts of the whole file the engine reads by text (``Interpreter.file_facts``), and
* the other modules of the project module code ran (the same loaded versions).

A unit is replayed when all of these are unchanged; which module names an edit may have changed is
decided here from the statements the edit replaced and what module code ran (``changed_names``),
conservatively. Module code itself runs again on every edit.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..record import field, record
from .modules import LINE_BLOCK
from .positions import first_line, split_lines

if TYPE_CHECKING:
    from .report import UnitFacts

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# By id of a top-level statement of module code: the lines of the functions it called (through any
# depth) and the module names they read.
Calls = dict[int, tuple[set[int], set[str]]]


@record(slots=True)
class Unit:
    """The analysis of one top-level statement's functions, as it was last run."""

    stmt: ast.stmt
    facts: UnitFacts
    reads: frozenset[str]  # the module's names it read (functions it called, objects it used)


@record(slots=True)
class Memo:
    """What the next analysis of the same document may reuse."""

    source: str
    tree: ast.Module
    units: dict[int, Unit]  # by id of the top-level statement
    facts: tuple[Any, ...]  # Interpreter.file_facts of this analysis
    calls: Calls  # what the functions module code called read and ran
    loader: int | None  # id of the project loader it ran with (None: a file alone)
    modules: dict[int, int]  # the other modules module code ran: block -> id of the module read
    # Per top-level statement (by id): the names it mentions and the names it binds where module
    # code runs it.
    names: dict[int, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    replayed: int = 0  # units this analysis took from the last one (of len(units))
    idle: set[int] = field(default_factory=set)  # top-level statements with no unit (by id)
    lines: list[str] | None = None  # the text's lines, as splice reads them (made on first use)
    # The memos of one document's analyses share their statements: moving them (see splice) for
    # one memo spends every other. ``lineage`` is the shared count of moves, ``epoch`` its value
    # when this memo was made.
    lineage: list[int] = field(default_factory=lambda: [0])
    epoch: int = 0

    def replayed_text(self) -> str:
        return f"{self.replayed} of {len(self.units)} units replayed"


@record(slots=True)
class Replay:
    """The last analysis of a document, and what an edit changed since: which units to replay."""

    memo: Memo
    tree: ast.Module  # the new tree
    kept: frozenset[int]
    replaced: list[ast.stmt]
    moved: tuple[int, int, int] | None = None  # see Splice.moved
    lines: list[str] | None = None  # the new text's lines (for the next splice)
    dirty: set[str] = field(default_factory=set)  # see settle

    def settle(self, facts: tuple[Any, ...], calls: Calls, modules: dict[int, int]) -> bool:
        """Now that module code ran (``calls``: what the functions it called read and ran, by the
        top-level statement that called them; ``modules``: the other modules of the project it
        ran): the names the edit may have changed. False when no unit can be replayed (the file's
        facts changed, or module code ran other modules, or other versions of them)."""
        memo = self.memo
        if facts != memo.facts or modules != memo.modules:
            return False
        new = [st for st in self.tree.body if id(st) not in self.kept]
        self.dirty = changed_names(
            self.tree.body, self.kept, self.replaced, memo.names, [(calls, new), (memo.calls, self.replaced)]
        )
        return True

    def idle(self, stmt: ast.stmt) -> bool:
        """Had ``stmt`` no function to analyse on its own, and is it the same statement?"""
        return id(stmt) in self.kept and id(stmt) in self.memo.idle

    def unit(self, stmt: ast.stmt) -> Unit | None:
        """The last analysis of ``stmt``'s functions, when it holds now."""
        if id(stmt) not in self.kept:
            return None
        unit = self.memo.units.get(id(stmt))
        if unit is None or unit.stmt is not stmt or unit.reads & self.dirty:
            return None
        # What it defines changed with a name it mentions: a class whose base changed (its methods
        # call the base's), a function whose decorator or default did.
        names = self.memo.names.get(id(stmt))
        if names is None:
            names = self.memo.names[id(stmt)] = statement_names(stmt)
        if names[1] & self.dirty:
            return None
        if self.moved is not None:
            facts = moved_facts(unit.facts, self.moved)
            return Unit(stmt, facts, unit.reads) if facts is not None else None
        return unit


@record(slots=True)
class Splice:
    """A tree for the new text made of the old tree's unchanged statements and a reparsed region."""

    tree: ast.Module
    kept: frozenset[int]  # ids of the statements taken over from the old tree
    replaced: list[ast.stmt]  # the old statements not taken over
    # The edit added or removed lines and the statements after it moved: the first line it changed,
    # the first old line after it, and how many lines everything from there moved.
    moved: tuple[int, int, int] | None = None
    lines: list[str] | None = None  # the new text's lines


def splice(
    old_source: str,
    old_tree: ast.Module,
    new_source: str,
    shift_ok: bool = False,
    old_lines: list[str] | None = None,
) -> Splice | None:
    """The new text's tree, reparsing only the top-level statements the edit touched; None when the
    whole text must be parsed (the region does not parse alone: the edit opened a bracket or a string,
    or the text has a syntax error, which the whole parse must place). When the edit added or removed
    lines, the statements after it are reparsed too, or, with ``shift_ok``, moved: their nodes'
    lines changed in place (the old tree is then no longer the old text's)."""
    if old_lines is None:
        old_lines = split_lines(old_source)
    new_lines = split_lines(new_source)
    limit = min(len(old_lines), len(new_lines))
    prefix = 0
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    if prefix == len(old_lines) == len(new_lines):
        return Splice(old_tree, frozenset(id(s) for s in old_tree.body), [], None, new_lines)
    suffix = 0
    while (
        suffix < limit - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    first_changed = prefix + 1  # 1-based, old and new
    last_changed_old = len(old_lines) - suffix  # may be < first_changed: a pure insertion
    delta = len(new_lines) - len(old_lines)
    body = old_tree.body
    # The region starts at the last statement that begins before the change (indented lines the
    # edit added may continue it), with every statement sharing its first line (`a = 1; b = 2`).
    start = 0
    for i, stmt in enumerate(body):
        if first_line(stmt) >= first_changed:
            break
        start = i
    while start > 0 and (body[start - 1].end_lineno or 0) >= first_line(body[start]):
        start -= 1
    # It ends before the first statement after the change that starts a line of its own (moved by
    # the lines the edit added or removed), or, when those may not move, at the end.
    end = len(body)
    if delta == 0 or shift_ok:
        for j in range(start + 1, len(body)):
            begins = first_line(body[j])
            if begins > last_changed_old and (body[j - 1].end_lineno or 0) < begins:
                end = j
                break
    region_first = first_line(body[start]) if body and start < len(body) else 1
    region_first = min(region_first, first_changed)
    region_last = first_line(body[end]) - 1 + delta if end < len(body) else len(new_lines)
    text = "".join(new_lines[region_first - 1 : region_last])
    try:
        region = ast.parse("\n" * (region_first - 1) + text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # A statement of the region whose lines read as before is the old one (the edit was next to it).
    old_by_line = {
        (first_line(st), st.end_lineno): st
        for st in body[start:end]
        if delta == 0 or (st.end_lineno or st.lineno) < first_changed
    }
    middle = []
    for stmt in region.body:
        old = old_by_line.get((first_line(stmt), stmt.end_lineno))
        first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
        if old is not None and old_lines[first - 1 : last] == new_lines[first - 1 : last]:
            middle.append(old)
        else:
            middle.append(stmt)
    taken = {id(st) for st in middle}
    kept = [*body[:start], *(st for st in body[start:end] if id(st) in taken), *body[end:]]
    replaced = [st for st in body[start:end] if id(st) not in taken]
    moved = None
    if delta and end < len(body):
        _move(body[end:], delta)
        moved = (first_changed, last_changed_old + 1, delta)
    tree = ast.Module(body=body[:start] + middle + body[end:], type_ignores=[])
    return Splice(tree, frozenset(id(s) for s in kept), replaced, moved, new_lines)


# Fields that never hold a node with a position (names, operators, contexts, constants' kinds).
_NO_NODES = frozenset(
    {"ctx", "op", "id", "attr", "arg", "name", "kind", "type_comment", "level", "module", "is_async"}
    | {"conversion", "asname"}
)
_CHILD_FIELDS: dict[type, tuple[tuple[str, ...], bool]] = {}


def _move(stmts: list[ast.stmt], delta: int) -> None:
    """Every node of these statements ``delta`` lines down (up, negative). A walk of its own: with
    ``ast.walk`` this cost about as much as the analysis it saves."""
    stack: list[ast.AST] = list(stmts)
    push = stack.append
    while stack:
        node = stack.pop()
        cls = node.__class__
        found = _CHILD_FIELDS.get(cls)
        if found is None:
            fields = tuple(f for f in cls._fields if f not in _NO_NODES)
            found = _CHILD_FIELDS[cls] = (fields, "lineno" in cls._attributes)
        fields, positioned = found
        if positioned:
            node.lineno += delta  # type: ignore[attr-defined]
            end = node.end_lineno  # type: ignore[attr-defined]
            if end is not None:
                node.end_lineno = end + delta  # type: ignore[attr-defined]
        for name in fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push(item)
            elif isinstance(value, ast.AST):
                push(value)


def statement_names(stmt: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
    """The names a top-level statement mentions where module code runs it (for a function or class:
    its decorators, defaults, bases and class-level code, not the bodies of its functions), and the
    module names it binds."""
    mentioned: set[str] = set()
    bound: set[str] = set()
    for node in _module_level_nodes(stmt):
        if isinstance(node, ast.Name):
            mentioned.add(node.id)
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    if isinstance(stmt, _DEFS):
        bound.add(stmt.name)
    return frozenset(mentioned | bound), frozenset(bound)


def _module_level_nodes(stmt: ast.stmt) -> Iterable[ast.AST]:
    """The nodes of a statement that module code runs: all of it, except the bodies of functions."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            todo.extend(d for d in (*args.defaults, *args.kw_defaults) if d is not None)
            if not isinstance(node, ast.Lambda):
                todo.extend(node.decorator_list)
            continue
        todo.extend(ast.iter_child_nodes(node))


def changed_names(
    body: list[ast.stmt],
    kept: frozenset[int],
    replaced: list[ast.stmt],
    names: dict[int, Any],
    calls: list[tuple[Calls, list[ast.stmt]]] = (),  # type: ignore[assignment]
) -> set[str]:
    """The module names whose final values the edit may have changed: those the replaced and the new
    statements bind or mention (a call may change any object it is given), closed over the kept
    statements that mention one of them or call a function that reads one (or that runs code the
    edit changed: ``calls`` pairs a module run's calls with the statements changed in its tree).
    Only the names a statement binds carry what functions did: they run in a state of their own,
    and what they return is bound by the calling statement. ``names`` caches ``statement_names``."""

    def of(stmt: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
        found = names.get(id(stmt))
        if found is None:
            found = names[id(stmt)] = statement_names(stmt)
        return found

    def ran_changed(stmt: ast.stmt) -> bool:
        for run, changed_there in calls:
            found = run.get(id(stmt))
            if found is not None and (found[1] & dirty or _holds(changed_there, found[0])):
                return True
        return False

    # A name no statement binds is a builtin (or undefined), and a module an import binds (`torch`)
    # has no state a call could change (`torch.manual_seed(0)`): a statement that only mentions
    # them changes neither.
    changed = [*replaced, *(s for s in body if id(s) not in kept)]
    imported: set[str] = set()
    rebound: set[str] = set()
    for s in [*body, *replaced]:
        (imported if isinstance(s, (ast.Import, ast.ImportFrom)) else rebound).update(of(s)[1])
    module_names = (imported | rebound) - (imported - rebound)
    dirty: set[str] = set()
    for stmt in changed:
        mentioned, bound = of(stmt)
        dirty |= bound if isinstance(stmt, _DEFS) else (mentioned & module_names) | bound
    pending = [s for s in body if id(s) in kept]
    grew = True
    while grew:
        grew = False
        rest = []
        for stmt in pending:
            mentioned, bound = of(stmt)
            if mentioned & dirty or ran_changed(stmt):
                more = bound if isinstance(stmt, _DEFS) else (mentioned & module_names) | bound
                if not more <= dirty:
                    dirty |= more
                    grew = True
            else:
                rest.append(stmt)
        pending = rest
    return dirty


def _holds(stmts: list[ast.stmt], lines: set[int]) -> bool:
    """Does any of these statements hold one of ``lines`` (functions module code ran)?"""
    if not lines:
        return False
    for stmt in stmts:
        first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
        if any(first <= line <= last for line in lines):
            return True
    return False


def replay(memo: Memo | None, source: str, loader: object | None) -> tuple[ast.Module, Replay | None] | None:
    """The tree of ``source`` made from the last analysis's where it can be, and what to replay;
    None when there is nothing to reuse (parse the text whole)."""
    if memo is None or memo.loader != (id(loader) if loader is not None else None):
        return None
    if memo.epoch != memo.lineage[0]:
        return None  # spent: a later analysis moved the statements it shares
    if memo.lines is None:
        memo.lines = split_lines(memo.source)
    spliced = splice(memo.source, memo.tree, source, True, memo.lines)
    if spliced is None:
        return None
    if spliced.moved is not None:
        memo.lineage[0] += 1
    plan = Replay(memo, spliced.tree, spliced.kept, spliced.replaced, spliced.moved, spliced.lines)
    return spliced.tree, plan


def remember(
    source: str,
    tree: ast.Module,
    units: dict[int, Unit],
    facts: tuple[Any, ...],
    calls: Calls,
    modules: dict[int, int],
    loader: object | None,
    last: Memo | None,
    replayed: int,
    idle: set[int],
    lines: list[str] | None = None,
) -> Memo:
    """The memo of this analysis for the next one (the per-statement names of the last one carried
    over for the statements still in the tree)."""
    names: dict[int, tuple[frozenset[str], frozenset[str]]] = {}
    if last is not None:  # the others are made when an edit asks (a first analysis makes none)
        for stmt in tree.body:
            found = last.names.get(id(stmt))
            if found is not None:
                names[id(stmt)] = found
    loader_id = id(loader) if loader is not None else None
    lineage = last.lineage if last is not None else [0]
    return Memo(
        source,
        tree,
        units,
        facts,
        calls,
        loader_id,
        modules,
        names,
        replayed,
        idle,
        lines,
        lineage,
        lineage[0],
    )


class _Inside(Exception):
    """A position of a replayed unit's facts inside the lines an edit changed."""


_LINE_WORD = re.compile(r"(?<![\w.])line (\d+)")


def moved_facts(facts: UnitFacts, moved: tuple[int, int, int]) -> UnitFacts | None:
    """A unit's facts with the positions after an edit moved (its nodes moved with their statements,
    see splice); None when one is inside the edit (the unit runs again)."""
    from ..findings import Finding, FixRef, Related, Span
    from .report import UnitFacts

    first_changed, after, delta = moved

    def line(n: int) -> int:
        if n < first_changed or n >= LINE_BLOCK:  # before the edit, or in another module
            return n
        if n >= after:
            return n + delta
        raise _Inside

    def span(sp: Span) -> Span:
        return Span(line(sp.line), sp.col, line(sp.end_line), sp.end_col)

    def text(words: str) -> str:
        if "line " not in words:
            return words
        parts = words.split("`")
        for i in range(0, len(parts), 2):  # outside `code`
            parts[i] = _LINE_WORD.sub(lambda m: f"line {line(int(m.group(1)))}", parts[i])
        return "`".join(parts)

    def params(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: params(v) for k, v in value.items()}
        if isinstance(value, list):
            if len(value) == 4 and all(type(v) is int for v in value):  # a span (Span.to_json)
                return [line(value[0]), value[1], line(value[2]), value[3]]
            return [params(v) for v in value]
        return value

    done: dict[int, Finding] = {}

    def finding(f: Finding) -> Finding:
        found = done.get(id(f))
        if found is None:
            related = tuple(Related(span(r.span), text(r.message), r.role, r.path) for r in f.related)
            fixes = tuple(
                FixRef(x.kind, x.title, x.tradeoff, params(x.params), x.applicability) for x in f.fixes
            )
            found = done[id(f)] = Finding(
                f.code, text(f.message), span(f.span), related, fixes, text(f.chain)
            )
        return found

    try:
        return UnitFacts(
            {(code, span(sp)): finding(f) for (code, sp), f in facts.findings.items()},
            {key: finding(f) for key, f in facts.pending_acc.items()},
            facts.exempt,
            facts.dead_kept,
            facts.backward_runs,
            facts.steps_run,
            {span(sp): step for sp, step in facts.pending_steps.items()},
            {span(sp): (finding(f), loop) for sp, (f, loop) in facts.pending_masks.items()},
            {key: [(named, finding(f)) for named, f in entries] for key, entries in facts.carried.items()},
            facts.anchors,  # lines of other modules; the statements moved with their tree
            facts.doubtful,
        )
    except _Inside:
        return None
