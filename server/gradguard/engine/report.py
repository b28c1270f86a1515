"""The reporter: hands what the interpreter observes to the rules' checks (see observations.py)
and keeps what they make of it: positions, findings, findings held until the analysis ends."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..findings import Finding, FixRef, Related, Span
from ..observations import (
    CarriedInAttribute,
    CarriedState,
    Check,
    FakeReused,
    FreedGraphReused,
    GradientsReapplied,
    GraphAccumulated,
    Observation,
    RetainMasksReuse,
    SavedTensorChanged,
    StaleGraphReused,
    StepBeforeBackward,
)
from ..record import record
from ..rules import RULES, checks
from .chain import chain_text
from .modules import LINE_BLOCK, ForeignModule, VirtualLines
from .positions import Positions
from .state import BackwardRun, Dirt, LoopFrame
from .torchapi import requires_grad_flag
from .values import Grad, IPath, Site, Taint, Ty, Val

if TYPE_CHECKING:
    from .evaluate import Evaluator

# Words a function must contain to be worth analysing on its own (a cheap pre-filter).
# Every rule needs one of these in the function: a backward, a leaf that requires grad,
# a numpy conversion, a detach, or an accumulation into something inside a loop.
# Each test looks for plain substrings first (`in` scans far faster than an alternation of
# patterns, which `re` must try at every position) and runs a pattern only to confirm a hit.
_DETACH_AT_END = re.compile(r"\.detach\(\)\s*$", re.M)
_WEIGHT_OR_BIAS = re.compile(r"\.weight\b|\.bias\b")
_INPLACE_CALL = re.compile(r"[a-z]_\(")
_INDEX_WRITE = re.compile(r"\]\s*=[^=]")
_ACCUMULATE_SUM = re.compile(r"= *\w+ *\+")
_NET = re.compile(r"net\b")
_SELF_CALL = re.compile(r"self\.\w+\(")


def _relevant_text(text: str) -> bool:
    if (
        ".backward(" in text
        or "autograd." in text
        or ".numpy(" in text
        or "asarray(" in text
        or "np.array(" in text
    ):
        return True
    if ".detach()" in text and _DETACH_AT_END.search(text):
        return True
    if _leaf_source(text) and _inplace(text):
        return True
    return _loops(text) and _accumulates(text) and _graph_words(text)


def _leaf_source(text: str) -> bool:
    if (
        "requires_grad=True" in text
        or "requires_grad_()" in text
        or "Parameter(" in text
        or ".parameters(" in text
    ):
        return True
    return (".weight" in text or ".bias" in text) and bool(_WEIGHT_OR_BIAS.search(text))


def _inplace(text: str) -> bool:
    if "-=" in text or "+=" in text or "*=" in text or "/=" in text:
        return True
    if "_(" in text and _INPLACE_CALL.search(text):
        return True
    return "]" in text and bool(_INDEX_WRITE.search(text))


def _loops(text: str) -> bool:
    """A line that starts a `for` or `while` statement (after blank space only)."""
    for word in ("for", "while"):
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            starts_line = text[text.rfind("\n", 0, at) + 1 : at].isspace() or at == 0 or text[at - 1] == "\n"
            if starts_line and not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
                return True
            at = text.find(word, end)
    return False


def _accumulates(text: str) -> bool:
    if "+=" in text or ".append(" in text:
        return True
    return "+" in text and bool(_ACCUMULATE_SUM.search(text))


def _graph_words(text: str) -> bool:
    if "loss" in text or "criterion" in text or "model" in text or "torch." in text or "F." in text:
        return True
    if "net" in text and _NET.search(text):
        return True
    return "self." in text and bool(_SELF_CALL.search(text))


_FREEZES = re.compile(r"requires_grad\s*=\s*False|requires_grad_\(\s*(requires_grad\s*=\s*)?False")


# Findings whose code raises at run time (the others are silent).
_RAISING = frozenset(
    {"GG101", "GG102", "GG103", "GG104", "GG105", "GG106", "GG107", "GG108", "GG109", "GG110", "GG111"}
)
# Of those, the ones whose fix changes no autograd state: `.numpy()` on a tensor that requires grad
# raises, and its fix (`.detach().cpu().numpy()`) gives the same array. The path goes on as the
# fixed program's would, so the next such call (`loss.numpy()` on the line after `pred.numpy()`) is
# reported too, instead of surfacing only once the first is fixed.
_LOCAL_RAISE = frozenset({"GG110"})


@record(frozen=True, slots=True)
class BackwardInfo:
    """What one backward call does to the graphs it reaches (for the hover on `.backward(`)."""

    span: Span
    target: str
    kind: str  # "backward" or "grad"
    retains: bool  # retain_graph/create_graph: the buffers stay
    frees: tuple[tuple[str, int], ...]  # (forward expression, line) whose saved buffers it frees
    needed_later: bool  # a later backward needs what it freed (there is a finding about it)


# Marks, in Reporter.exempt, an accumulator a backward consumed (not merely returned or handed on).
_BY_BACKWARD = "by-backward"
# Each observation type -> the rules' checks of it, gathered once.
_CHECKS = checks()

# What the analysis of one unit (a top-level function or class, see engine.incremental) leaves in
# the reporter: empty when the unit starts, merged into the file's when it ends. The rest of the
# reporter is about the text and its positions, the same for every unit.
_UNIT_FIELDS = (
    "findings",
    "pending_acc",
    "exempt",
    "dead_kept",
    "_once",
    "backward_runs",
    "steps_run",
    "cell_writes",
    "cell_names",
    "cell_reads",
    "pending_steps",
    "pending_masks",
    "carried",
    "anchors",
    "doubtful",
)


@record(slots=True)
class UnitFacts:
    """What one unit's analysis found, to merge now and to replay while the unit is unchanged."""

    findings: dict[tuple[str, Span], Finding]
    pending_acc: dict[object, Finding]
    exempt: set[object]
    dead_kept: set[object]
    backward_runs: list[BackwardRun]
    steps_run: list[tuple[int, ast.Call]]
    pending_steps: dict[Span, tuple[ast.Call, ast.AST]]
    pending_masks: dict[Span, tuple[Finding, LoopFrame]]
    carried: dict[tuple[int, int], list[tuple[frozenset[str], Finding]]]
    # Code of other modules it ran (see ran_from): where it is shown, and where it may not run.
    anchors: dict[int, ast.stmt]
    doubtful: set[int]


# Between two backward passes: code that clears the gradients the first one made (so removing the
# second leaves none), or an optimizer step (so retain_graph=True still meets changed weights).
_CLEARS_GRADS = re.compile(r"\bzero_grad\s*\(|\.grad\s*=(?!=)")
_STEPS = re.compile(r"\.step\s*\(")  # an optimizer's step, as text (optimizers we cannot resolve)


def _discards_detach_of(node: ast.AST, names: list[str]) -> bool:
    """Is ``node`` a statement `x.detach()` whose result is thrown away, for one of ``names``?"""
    if not _is_discarded_detach(node):
        return False
    receiver = node.value.func.value  # type: ignore[attr-defined]
    return isinstance(receiver, ast.Name) and receiver.id in names


def _rule(code: str) -> Any:
    return RULES.get(code)


class Reporter:
    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = Positions(source)
        # Other modules of the project whose code the analysis runs (see engine.modules), by block.
        self.modules: dict[int, ForeignModule] = {}
        # A statement of another module -> the statement of this file that ran it (first seen).
        self.anchors: dict[int, ast.stmt] = {}
        self.doubtful: set[int] = set()  # lines of other modules run only where they may not run
        # Inside `try:` bodies whose handlers catch RuntimeError (and `pytest.raises` blocks): an
        # error raised there is the program's own business, not a finding.
        self.catching = 0
        self._unresolved_freezes: bool | None = None if _FREEZES.search(source) else False
        self.findings: dict[tuple[str, Span], Finding] = {}
        self.pending_acc: dict[object, Finding] = {}
        self.exempt: set[object] = set()
        self.dead_kept: set[object] = set()  # running values of graphs already backpropagated
        self._once: set[object] = set()
        self.checks: dict[type, list[Check]] = _CHECKS
        self.backward_runs: list[BackwardRun] = []
        self.steps_run: list[tuple[int, ast.Call]] = []  # optimizer steps, in order: (seq, call)
        self.blind_backwards: list[int] = []  # seqs of backwards over graph parts not known
        self.anonymous_inputs: dict[Site, bool] = {}  # per graph node: has an input of unknown nodes
        # Where each statement sits (see blocks.annotate_blocks): made on first use, since a file
        # with nothing to report (a library module) never asks.
        self._blocks: dict[int, list[ast.stmt]] | None = None  # id(statement) -> its list
        self._scopes: dict[int, int] = {}  # id(statement) -> id of its function (0: module code)
        self._body: list[ast.stmt] = []
        # Heap cell ("@3.hidden") -> the statement that last wrote a graph into it (the cause of GG104).
        self.cell_writes: dict[str, ast.stmt] = {}
        self.cell_names: dict[str, str] = {}  # heap cell -> how the code names it (`self.hidden`)
        self.cell_reads: dict[str, list[tuple[Val, IPath]]] = {}  # heap cell -> values read in loops
        self.raised = False  # a finding of an error torch raises was just made (the path ends)
        self.raised_code = ""  # the code of that finding
        # GG201 found through `.grad` (see finish): the backward's span -> (step, backward statement)
        self.pending_steps: dict[Span, tuple[ast.Call, ast.AST]] = {}
        # GG302 in a loop with no optimizer step seen yet (see masked): kept until the end.
        self.pending_masks: dict[Span, tuple[Finding, LoopFrame]] = {}
        self.single_trips: set[int] = set()  # ids of the loops known to run exactly once
        # ids of the loops that stand for an L-BFGS step's calls of its closure -> that step and the
        # closure (whose body is what such a loop's text is)
        self.closure_steps: dict[int, tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        # GG104 findings of one loop and backward, with the names each says carry the state: one
        # that names them all stands for the others (one bug, one squiggle).
        self.carried: dict[tuple[int, int], list[tuple[frozenset[str], Finding]]] = {}
        # Syntax facts of loops, asked once each; only during the analysis, while the tree is alive.
        self._first_reads: dict[tuple[int, str], ast.Name | None] = {}
        self._read_first: dict[tuple[int, str], bool] = {}
        # Assignments and returns, and function definitions: what `name` looks through, made once.
        self._simple: list[ast.stmt] | None = None
        self._functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = None
        self._segments: dict[tuple[int, int | None], str] = {}

    def annotate_later(self, body: list[ast.stmt]) -> None:
        self._body = body

    @property
    def blocks(self) -> dict[int, list[ast.stmt]]:
        if self._blocks is None:
            from .blocks import annotate_blocks

            self._blocks = {}
            annotate_blocks(self._body, self._blocks, self._scopes)
        return self._blocks

    @property
    def scopes(self) -> dict[int, int]:
        if self._blocks is None:
            self.blocks  # noqa: B018 (made together)
        return self._scopes

    def first_read(self, loop: ast.AST, name: str) -> ast.Name | None:
        """``_first_read``, once per loop and name (every reuse in a loop asks again)."""
        key = (id(loop), name)
        if key not in self._first_reads:
            self._first_reads[key] = _first_read(loop, name)
        return self._first_reads[key]

    def body_of(self, loop: LoopFrame) -> ast.AST:
        """What a loop runs, to read its text: the closure for an L-BFGS step's calls of it."""
        made = self.closure_steps.get(id(loop.node))
        return made[1] if made is not None else loop.node

    def read_before_write(self, loop: ast.AST, name: str) -> bool:
        key = (id(loop), name)
        found = self._read_first.get(key)
        if found is None:
            found = self._read_first[key] = _read_before_write(loop, name)
        return found

    @property
    def unresolved_freezes(self) -> bool:
        """Does the file freeze parameters in a way the interpreter does not follow?

        It follows `m.requires_grad_(False)` and `p.requires_grad = False` / `p.requires_grad_(False)`
        where `p` is a loop variable over `m.parameters()` or `m.named_parameters()`, or a module's
        `weight`/`bias`."""
        if self._unresolved_freezes is None:
            self._unresolved_freezes = _has_unresolved_freeze(self.source)
        return self._unresolved_freezes

    # -- plumbing --------------------------------------------------------------------

    def segment(self, node: ast.AST) -> str:
        start = getattr(node, "lineno", 1) - 1
        end = getattr(node, "end_lineno", start + 1)
        key = (start, end)
        text = self._segments.get(key)
        if text is None:
            # Asked again for every function, loop and call: joined once (not while empty: the
            # lines of a module not registered yet).
            text = "\n".join(self.pos.lines[start:end])
            if text:
                self._segments[key] = text
        return text

    def mentions(self, node: ast.AST, pattern: re.Pattern[str]) -> bool:
        return bool(pattern.search(self.segment(node)))

    def relevant(self, func: ast.AST) -> bool:
        """Worth analysing on its own: a cheap text test before the interpreter runs."""
        return _relevant_text(self.segment(func))

    def span(self, node: ast.AST) -> Span:
        return self.pos.span(node)

    def text(self, node: ast.AST | None) -> str:
        """The node's source for a message: whole when it fits; else the name the code bound it to,
        so a message says `loss` rather than `criterion(model(x), ...)[...]`; else shortened."""
        if node is None:
            return "value"
        text = self.pos.text(node)
        if not self.pos.shortened(node, text):
            return text
        stmt = self._statement_of(node)
        bound = _bound_to(stmt, node) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        return self.pos.text(bound) if bound is not None else text

    def name(self, node: ast.AST) -> str:
        """How the code names the value of ``node``: the name an assignment binds it to (`grads` in
        `grads, = torch.autograd.grad(...)`, `grad` in `grad = torch.autograd.grad(...)[0]`), the
        helper that returns it (`time_derivative(...)`), else its source text. A message about a
        value says `grads`, not a shortened call."""
        stmt = self._statement_of(node)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            bound = _bound_to(stmt, node)
            if bound is not None:
                return self.pos.text(bound)
        elif isinstance(stmt, ast.Return) and _whole_or_first(stmt.value, node):
            func = self._function_of(stmt)
            if func is not None:
                return f"{func.name}(...)"
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr == "append"
            and len(stmt.value.args) == 1
            and _whole_or_first(stmt.value.args[0], node)
        ):
            return self.pos.text(stmt.value.func.value)  # `grads.append(torch.autograd.grad(...)[0])`
        return self.text(node)

    def holder(self, site: Site, avoid: tuple[str, ...] = ()) -> str | None:
        """The variable the statement that computed ``site`` assigns (`h` for the encoder call in
        `h = torch.relu(encoder(x))`), unless it is one of ``avoid``: the value a reader knows."""
        stmt = site.stmts[-1] if site.stmts else None
        target = _bound_name(stmt) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if target is None or (isinstance(target, ast.Name) and target.id == "_"):
            return None
        text = self.text(target)
        return None if text in avoid else text

    def _statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The assignment, return or call statement whose value contains ``node`` (found by
        position, then identity)."""
        if self._simple is None:
            self._index_statements()
        line = getattr(node, "lineno", 0)
        for stmt in self._simple or ():
            value = getattr(stmt, "value", None)
            if value is not None and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                if any(n is node for n in ast.walk(value)):
                    return stmt
        return None

    def _function_of(self, stmt: ast.stmt) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function whose body holds ``stmt``."""
        around = [
            f
            for f in self._functions or ()
            if f.lineno <= stmt.lineno <= (f.end_lineno or f.lineno) and f is not stmt
        ]
        return max(around, key=lambda f: f.lineno, default=None)

    def reads_after(self, stmt: ast.stmt, name: str) -> str | None:
        """How the local ``name`` is read after ``stmt`` in the same function (or module code):
        None (not at all), "number" (only as `name.item()` or `float(name)`), or "other"."""
        scope = self.scopes.get(id(stmt))
        if scope is None:
            return "other"
        end = stmt.end_lineno or stmt.lineno
        loads = numbers = 0
        seen: set[int] = set()
        for block in self.blocks.values():
            if id(block) in seen:
                continue
            seen.add(id(block))
            for other in block:
                if self.scopes.get(id(other)) != scope or other.lineno <= end:
                    continue
                for n in ast.walk(other):
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                        loads += 1
                    elif isinstance(n, ast.Call) and _reads_as_number(n, name):
                        numbers += 1
        return None if not loads else "number" if loads == numbers else "other"

    def _index_statements(self) -> None:
        """The statements `name` looks through, gathered once from the statement lists."""
        seen: set[int] = set()
        self._simple, self._functions = [], []
        for block in self.blocks.values():
            if id(block) in seen:
                continue
            seen.add(id(block))
            for stmt in block:
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Return)) or (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                ):
                    self._simple.append(stmt)
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._functions.append(stmt)

    def add(
        self,
        code: str,
        node: ast.AST | None,
        fields: dict[str, Any],
        related: list[Related] | None = None,
        fixes: list[FixRef] | None = None,
        chain: str = "",
        variant: str | None = None,
        span: Span | None = None,
        unless_consumed: object = None,
        unless_unstepped: object = None,
        covers: tuple[Any, frozenset[str]] | None = None,
    ) -> Finding:
        """A finding of ``code`` at ``span``, else at ``node`` (one of the two is given); what
        ``unless_consumed``, ``unless_unstepped`` and ``covers`` do: see observations.Context.add."""
        rule = _rule(code)
        template = None
        if rule is not None:
            template = rule.variants.get(variant) if variant else rule.message
            template = template or rule.message
        message = (
            _format(template, fields)
            if template
            else f"{code}: " + ", ".join(f"{k}={v}" for k, v in fields.items())
        )
        if span is None:
            assert node is not None, "a finding needs a node or a span"
            span = self.span(node)
        where = span
        finding = Finding(code, message, where, tuple(related or ()), tuple(fixes or ()), chain)
        if unless_consumed is not None:
            self.pending_acc.setdefault(unless_consumed, finding)
            return finding
        same, named = (self.carried.setdefault(covers[0], []), covers[1]) if covers else (None, frozenset())
        if same is not None and _covered(same, named):
            return finding  # another graph these names carry, already reported with them
        if isinstance(unless_unstepped, LoopFrame):
            self.pending_masks.setdefault(finding.span, (finding, unless_unstepped))
            return finding
        if code in _RAISING:
            if code not in _LOCAL_RAISE:
                self.raised = True  # the program stops here: nothing after it runs on this path
                self.raised_code = code
            if self.catching:
                # The program catches that error itself (a tutorial showing it): not reported,
                # though it still stands for the carried state it names.
                if same is not None:
                    self.supersede(same, named, finding)
                return finding
        self.findings.setdefault((code, where), finding)
        if same is not None:
            self.supersede(same, named, finding)
        return finding

    def fix(self, code: str, fix_id: str, kind: str, **params: Any) -> FixRef:
        rule = _rule(code)
        title, tradeoff = (rule.fixes.get(fix_id) if rule is not None else None) or (fix_id, "")
        # A fix the rule does not classify is never applied unasked.
        applicability = (rule.safety.get(fix_id) if rule is not None else None) or ("unsafe", "")
        json_params = {k: (v.to_json() if isinstance(v, Span) else v) for k, v in params.items()}
        return FixRef(kind, title, tradeoff, json_params, applicability[0])

    def between(self, a: ast.stmt | None, b: ast.stmt | None, pattern: re.Pattern[str]) -> bool:
        """Does the code strictly between statements ``a`` and ``b`` (by lines) match ``pattern``?
        Unknown positions count as a match: a fix is withheld rather than guessed."""
        if a is None or b is None or getattr(a, "end_lineno", None) is None:
            return True
        lines = self.pos.lines[(a.end_lineno or a.lineno) : b.lineno - 1]
        return bool(pattern.search("\n".join(lines)))

    def same_scope(self, a: ast.stmt | None, b: ast.stmt | None) -> bool:
        """Are both statements in the same function (or both module code)? A fix made for one
        finding stays there: an edit inside a helper would change every caller of it."""
        return (
            a is not None
            and b is not None
            and id(a) in self.scopes
            and self.scopes.get(id(a)) == self.scopes.get(id(b))
        )

    def same_block(self, a: ast.stmt, b: ast.stmt) -> bool:
        block = self.blocks.get(id(a))
        return block is not None and block is self.blocks.get(id(b))

    def block_of(self, stmt: ast.stmt, loop: ast.AST) -> list[ast.stmt] | None:
        """The statement list holding both ``stmt`` and, after it, ``loop``."""
        block = self.blocks.get(id(stmt))
        if block is None or not isinstance(loop, ast.stmt) or block is not self.blocks.get(id(loop)):
            return None
        if block.index(stmt) < block.index(loop):
            return block
        return None

    def rebuild_statement(self, run: BackwardRun, dirt: Dirt, site: Site) -> ast.stmt | None:
        """The statement that built the late loss, to move just before its backward so the loss is
        computed from the stepped weights: found only when that statement and the backward share
        a block with the step between them, the statement itself saved what the step changed
        (``site``: moving it alone recomputes that part), and nothing in between reads the loss's
        name or rebinds a name the statement reads."""
        target, stmt, step = run.target, run.stmt, dirt.node
        if not isinstance(target, ast.Name) or stmt is None or not isinstance(step, ast.stmt):
            return None
        block = self.blocks.get(id(stmt))
        if block is None or block is not self.blocks.get(id(step)):
            return None
        at = block.index(stmt)
        build = _last_assignment(block, at, target.id)
        if build is None or not build < block.index(step) < at:
            return None
        if all(block[build] is not t for t in site.stmts):
            return None  # the stale part was computed by an earlier statement the move leaves behind
        reads = {
            n.id for n in ast.walk(block[build]) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        for between in block[build + 1 : at]:
            for n in ast.walk(between):
                if isinstance(n, ast.Name) and (
                    n.id == target.id or isinstance(n.ctx, ast.Store) and n.id in reads
                ):
                    return None
        return block[build]

    def recompute_shared_text(self, run: BackwardRun, site: Site, step: ast.Call) -> str | None:
        """The source that computes the shared part and the second loss again, to insert just
        before that loss's backward (from the stepped weights): found when the shared part's
        assignment, the loss's assignment, the step and the backward are statements of one block
        in that order, and nothing between the step and the backward rebinds a name the two
        assignments read."""
        target, stmt = run.target, run.stmt
        if not isinstance(target, ast.Name) or not isinstance(stmt, ast.Expr) or not site.stmts:
            return None
        block = self.blocks.get(id(stmt))
        shared = site.stmts[-1]
        if block is None or self.blocks.get(id(shared)) is not block:
            return None
        at = block.index(stmt)
        stepped = next(
            (i for i, s in enumerate(block[:at]) if isinstance(s, ast.Expr) and s.value is step), None
        )
        build = _last_assignment(block, at, target.id)
        first = next((i for i, s in enumerate(block[:at]) if s is shared), None)
        if stepped is None or build is None or first is None or not first < build < stepped:
            return None
        if not (
            isinstance(shared, ast.Assign)
            and len(shared.targets) == 1
            and isinstance(shared.targets[0], ast.Name)
        ):
            return None
        reads = {
            n.id
            for s in (shared, block[build])
            for n in ast.walk(s.value)  # type: ignore[attr-defined]
            if isinstance(n, ast.Name)
        }
        for between in block[stepped + 1 : at]:
            if any(
                isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in reads
                for n in ast.walk(between)
            ):
                return None
        texts = []
        for s in (shared, block[build]):
            whole = self.segment(s)
            own = ast.get_source_segment(self.source, s, padded=True) if s.lineno < LINE_BLOCK else None
            if own is None or own.strip() != whole.strip():
                return None  # not alone on its lines (`a = 1; h = f(x)`): copying the lines copies more
            texts.append(textwrap.dedent(whole))
        return "\n".join(texts)

    # -- units (see engine.incremental) ---------------------------------------------------

    def unit_begin(self) -> dict[str, Any]:
        """A unit starts: it sees none of what earlier units left (its result must not depend on
        them, to be replayed alone). Returns the file's own, for ``unit_end``."""
        saved = {name: getattr(self, name) for name in _UNIT_FIELDS}
        for name, value in saved.items():
            setattr(self, name, type(value)())
        self.raised = False
        return saved

    def unit_end(self, saved: dict[str, Any]) -> UnitFacts:
        """The unit's facts; the file's are back, with them merged in."""
        facts = UnitFacts(
            self.findings,
            self.pending_acc,
            self.exempt,
            self.dead_kept,
            self.backward_runs,
            self.steps_run,
            self.pending_steps,
            self.pending_masks,
            self.carried,
            self.anchors,
            self.doubtful,
        )
        for name, value in saved.items():
            setattr(self, name, value)
        self.raised = False
        self.merge(facts)
        return facts

    def merge(self, facts: UnitFacts) -> None:
        """A unit's facts, in the order the units run (an earlier unit's finding at a place wins)."""
        dropped: set[tuple[str, Span]] = set()
        for loop_and_call, entries in facts.carried.items():
            # One loop's carried state reached from two units (a method run alone, and inlined
            # where it is called): judged as one, as carried_state does within a unit.
            same = self.carried.setdefault(loop_and_call, [])
            for named, finding in entries:
                if _covered(same, named):
                    dropped.add((finding.code, finding.span))
                else:
                    self.supersede(same, named, finding)
        for key, finding in facts.findings.items():
            if key not in dropped or finding.code != "GG104":
                self.findings.setdefault(key, finding)
        for acc, pending in facts.pending_acc.items():
            self.pending_acc.setdefault(acc, pending)
        self.exempt |= facts.exempt
        self.dead_kept |= facts.dead_kept
        self.backward_runs.extend(facts.backward_runs)
        self.steps_run.extend(facts.steps_run)
        for span, step in facts.pending_steps.items():
            self.pending_steps.setdefault(span, step)
        for span, mask in facts.pending_masks.items():
            self.pending_masks.setdefault(span, mask)
        for line, stmt in facts.anchors.items():  # as ran_from: the first statement seen wins
            if line not in self.anchors:
                self.anchors[line] = stmt
                self.doubtful.discard(line)
        self.doubtful |= facts.doubtful - self.anchors.keys()

    def publish(self, observation: Observation) -> None:
        """An observation of the engine: every rule that checks this kind judges it."""
        for check in self.checks.get(type(observation), ()):
            check(self, observation)

    def once(self, key: object) -> bool:
        if key in self._once:
            return False
        self._once.add(key)
        return True

    def backward_seen(self, run: BackwardRun) -> None:
        self.backward_runs.append(run)

    def backward_summaries(self) -> list[BackwardInfo]:
        """Per backward call: which forward computations' saved buffers it frees (or keeps)."""
        by_call: dict[Span, tuple[BackwardRun, dict[Span, str]]] = {}
        for run in self.backward_runs:
            span = self.span(run.call)
            _, frees = by_call.setdefault(span, (run, {}))
            if run.val.grad is not Grad.GRAPH:
                continue
            for site in sorted(run.val.sites, key=lambda x: x.seq):
                if site.saves and getattr(site.node, "lineno", 0) < LINE_BLOCK:  # this file's code only
                    where = self.span(site.node)
                    if where not in frees:
                        frees[where] = self.text(site.node)
        reused = {r.span for f in self.findings.values() for r in f.related if r.role == "freed"}
        out = []
        for span, (run, frees) in sorted(by_call.items()):
            if span.line >= LINE_BLOCK:
                continue  # a backward in another module: hovers are for this file's code
            out.append(
                BackwardInfo(
                    span,
                    self.text(run.target),
                    run.kind,
                    run.retain,
                    tuple((text, where.line) for where, text in frees.items()),
                    span in reused,
                )
            )
        return out

    def results(self) -> list[Finding]:
        found = sorted(self.findings.values(), key=lambda f: (f.span, f.code))
        return self.relocated(found) if self.modules else found

    # -- findings whose story runs through other modules ----------------------------------

    def add_module(self, mod: ForeignModule) -> None:
        """Another module's code is about to run: its lines and statements become known."""
        if not self.modules:
            self.pos.lines = VirtualLines(self.pos.lines, self.modules)  # type: ignore[assignment]
        self.modules[mod.block] = mod
        blocks, scopes = mod.annotations()
        self.blocks.update(blocks)
        self.scopes.update(scopes)
        self._simple = self._functions = None  # indexed again with its statements when asked

    def ran_from(self, stmt: ast.stmt, stack: list[ast.stmt], certain: bool = True) -> None:
        """A statement of another module runs, called (through any depth) from a statement of this
        file: that statement is where a finding about it is shown. Not ``certain``: it ran in an arm
        of that module's code whose condition is unknown (it may never run from here)."""
        if stmt.lineno in self.anchors:
            return
        if not certain:
            self.doubtful.add(stmt.lineno)
            return
        for outer in reversed(stack):
            if outer.lineno < LINE_BLOCK:
                self.anchors[stmt.lineno] = outer
                self.doubtful.discard(stmt.lineno)
                return

    def _anchor(self, line: int) -> ast.stmt | None:
        found = self.anchors.get(line)
        if found is not None or line in self.doubtful:
            return found
        # A node inside a statement: the nearest statement before it in the same module that ran.
        block = line // LINE_BLOCK
        before = [k for k in (*self.anchors, *self.doubtful) if k // LINE_BLOCK == block and k <= line]
        return self.anchors.get(max(before)) if before else None

    def _place(self, span: Span) -> tuple[Span, ForeignModule | None]:
        mod = self.modules.get(span.line // LINE_BLOCK)
        if mod is None:
            return span, None
        shift = mod.block * LINE_BLOCK
        return Span(span.line - shift, span.col, span.end_line - shift, span.end_col), mod

    def _rewrite(self, text: str) -> str:
        """Line numbers of other modules in a message, written as that module's own."""

        def one(m: re.Match[str]) -> str:
            line = int(m.group(2))
            mod = self.modules.get(line // LINE_BLOCK)
            if mod is None:
                return m.group(0)
            own = line - mod.block * LINE_BLOCK
            return f"{mod.display} line {own}" if m.group(1) else f"{mod.display}:{own}"

        return _VIRTUAL_LINE.sub(one, text)

    def relocated(self, findings: list[Finding]) -> list[Finding]:
        """Findings in this file's terms. One whose place is in another module is shown on the
        statement of this file that ran that code, and says where the cause is; one this file never
        reached (that module's own business) is left to that module's own analysis. A fix is kept
        only when every edit it makes is in this file."""
        out: dict[tuple[str, Span], Finding] = {}
        for f in findings:
            span, message, origin = f.span, self._rewrite(f.message), None
            if span.line >= LINE_BLOCK:
                anchor = self._anchor(span.line)
                if anchor is None:
                    continue
                origin = self._place(span)
                start = self.span(anchor)
                # The statement's first line (a loop that ran it is marked at its head, not whole).
                end = start.end_col if start.end_line == start.line else len(self.pos.lines[start.line - 1])
                span = Span(start.line, start.col, start.line, end)
                message = f"{message} (in {origin[1].display if origin[1] else '?'}, line {origin[0].line})"
            related = []
            if origin is not None and origin[1] is not None:
                related.append(Related(origin[0], f"here, in {origin[1].display}", "note", origin[1].path))
            for r in f.related:
                where, mod = self._place(r.span)
                related.append(Related(where, self._rewrite(r.message), r.role, mod.path if mod else r.path))
            fixes = () if origin is not None else tuple(x for x in f.fixes if not _mentions_virtual(x.params))
            chain = self._rewrite(f.chain)
            out.setdefault((f.code, span), Finding(f.code, message, span, tuple(related), fixes, chain))
        return sorted(out.values(), key=lambda f: (f.span, f.code))

    def finish(self) -> None:
        for finding, loop in self.pending_masks.values():
            if self.steps_around(loop):
                self.findings.setdefault((finding.code, finding.span), finding)
        for span, (step, backward) in self.pending_steps.items():
            if ("GG201", span) not in self.findings and not any(
                f.code == "GG201" and any(r.span == self.span(step) for r in f.related)
                for f in self.findings.values()
            ):
                self.publish(GradientsReapplied(backward, step))
        # What only the interpreter needed: drop it (an Analysis keeps the reporter for hovers).
        self.cell_reads.clear()
        self.cell_writes.clear()
        for key, finding in self.pending_acc.items():
            # A running value of graphs already backpropagated is consumed only by a backward,
            # whichever unit of the file saw it returned or handed on.
            dead = key in self.dead_kept and (_BY_BACKWARD, key) not in self.exempt
            if key not in self.exempt or dead:
                self.findings.setdefault((finding.code, finding.span), finding)

    def backward_related(self, run: BackwardRun, message: str, role: str) -> Related:
        return Related(self.span(run.call), message, role)

    def next_iteration_fails(self, run: BackwardRun) -> Related:
        return self.backward_related(
            run, "raises here in the next iteration: the graph is already freed", "reused"
        )

    # -- GG101–GG105, GG302: a backward meets buffers an earlier backward freed ------

    def reuse(
        self, run: BackwardRun, site: Site, first: BackwardRun, loops: list[LoopFrame], virtual: bool
    ) -> None:
        differing = _differing_loop(first.ipath, run.ipath)
        loop = next((f for f in loops if id(f.node) == differing), None) if differing is not None else None
        site_in_loop = differing is not None and any(l_id == differing for l_id, _ in site.ipath)
        calls = loop is not None and id(loop.node) in self.closure_steps
        if calls:
            # Between two calls of an L-BFGS closure only a graph built before the step is plainly
            # stale (GG103); state carried from call to call or kept by retain_graph is not judged.
            if virtual or site_in_loop or loop is None or loop.exact:
                return
            chain = chain_text(run.val, site, self.pos, None)
        else:
            chain = chain_text(run.val, site, self.pos, loop.node if loop else None)
        built = Related(self.span(site.node), f"graph built here: {self.text(site.node)}", "built")
        earlier = ", in an earlier call of the closure" if calls else ", in an earlier iteration"
        freed = Related(
            self.span(first.call),
            f"graph freed here: the backward of {self.text(first.target)}"
            + (earlier if differing is not None else ""),
            "freed",
        )
        if loop is None:
            ended = _ended_loops(first.ipath, run.ipath)
            if ended and len(site.ipath) < len(first.ipath):
                if not ended <= self.single_trips:
                    # Freed inside a loop that has ended, on a graph built before it: that loop's
                    # own second iteration already meets it (reported there).
                    return
                # That loop ran once; a later loop reads the graph again, built before both.
                built_in = {l_id for l_id, _ in site.ipath}
                later = next(
                    (
                        f
                        for f in reversed(loops)
                        if id(f.node) not in built_in and any(l_id == id(f.node) for l_id, _ in run.ipath)
                    ),
                    None,
                )
                if later is not None and not virtual:
                    self.stale_graph(run, site, first, later, chain, built, freed, earlier=True)
                    return
            # Within one iteration, retain_graph=True for a second pass over the same graph is
            # legitimate (e.g. a GAN's D step then G step on one fake): only cross-iteration reuse
            # is masked by it.
            if not virtual:
                self.same_pass_reuse(run, site, first, chain, built, freed)
            return
        if loop.exact and not loop.numbered and not site_in_loop and run.val.root is not first.val.root:
            # A loop over a known list of losses (`for loss in losses.values(): loss.backward()`):
            # each iteration backpropagates another loss through the shared forward. Kept for the
            # next one with retain_graph=True (per-task gradients, PCGrad) while nothing in the loop
            # changes the weights between the passes, that is what it is for.
            if not virtual:
                self.same_pass_reuse(run, site, first, chain, built, freed)
                return
            if not loop.stepped and not loop.changed_inplace:
                return
        if not site_in_loop and not virtual and not calls and self.one_update(loop):
            # The iterations' losses all go into one step after the loop (a loss per layer or per
            # head of one forward): several backward passes over a shared forward (GG102).
            self.same_pass_reuse(run, site, first, chain, built, freed)
            return
        gan = self.gan_pattern(run, site, first)
        if virtual:
            hidden = "passed" if gan is not None else "carried" if site_in_loop else "stale"
            self.masked(run, site, first, loop, hidden, chain)
            return
        if not site_in_loop:
            self.stale_graph(run, site, first, loop, chain, built, freed)
        else:
            self.carried_state(run, site, first, loop, chain, built, freed)

    def other_step_after(self, run: BackwardRun, optimizer: ast.expr) -> bool:
        """Does a statement after ``run``'s, in its block, step an optimizer spelled otherwise?"""
        block = self.blocks.get(id(run.stmt)) if run.stmt is not None else None
        if block is None or run.stmt is None:
            return False
        spelled = self.text(optimizer)
        for stmt in block[block.index(run.stmt) + 1 :]:
            for node in ast.walk(stmt):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "step"
                    and self.text(node.func.value) != spelled
                ):
                    return True
        return False

    def one_update(self, loop: LoopFrame) -> bool:
        """Is the loop part of one update: no step in it (as run or as written), and the statements
        after it in its block step an optimizer before any other loop or backward?"""
        block = self.blocks.get(id(loop.node))
        if block is None or loop.stepped or _STEPS.search(self.segment(loop.node)):
            return False
        for stmt in block[block.index(loop.node) + 1 :]:
            text = self.segment(stmt)
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) or ".backward(" in text:
                return False
            if _STEPS.search(text):
                return True
        return False

    def same_pass_reuse(
        self, run: BackwardRun, site: Site, first: BackwardRun, chain: str, built: Related, freed: Related
    ) -> None:
        gan = self.gan_pattern(run, site, first)
        if gan is not None:
            self.gan_fake(
                run,
                first,
                gan,
                [
                    built,
                    freed,
                    self.backward_related(run, "raises here: the graph is already freed", "reused"),
                ],
                chain=chain,
            )
            return
        # The same loss again (or a value built on that loss itself): a double backward, not two
        # losses that share a forward.
        same = first.val.root is not None and (
            run.val.root is first.val.root or first.val.root in run.val.sites
        )
        # Paths joined after the first backward (`if flag: loss *= 0`) lose the root, not the sites.
        same = same or bool(first.val.sites) and first.val.sites <= run.val.sites
        loss = self.text(run.target)
        other = self.text(first.target)
        related = [
            built,
            freed,
            self.backward_related(run, "raises here: the graph is already freed", "reused"),
        ]
        retain_ok = self.same_scope(first.stmt, run.stmt) and not self.between(first.stmt, run.stmt, _STEPS)
        if same:
            # Removing the second backward keeps training only if the first runs before it every
            # time (same block); both fixes stay in the function of the finding.
            removable = (
                isinstance(run.stmt, ast.Expr)
                and run.stmt.value is run.call
                and first.stmt is not None
                and first.kind == "backward"
                and run.call is not first.call  # one statement run twice (a helper): both would go
                and self.same_block(first.stmt, run.stmt)
                and not self.between(first.stmt, run.stmt, _CLEARS_GRADS)
            )
            freed_again = FreedGraphReused(
                run, first, True, tuple(related), chain, removable=removable, retain_ok=retain_ok
            )
            self.publish(freed_again)
            return
        # The shared part by the name the code gives it (`h` of `h = torch.relu(encoder(x))`).
        holder = self.holder(site, avoid=(loss, other))
        shared = holder or self.text(site.node)
        shared_line = site.stmts[-1].lineno if holder else getattr(site.node, "lineno", 0)
        step = next((call for seq, call in self.steps_run if first.seq < seq < run.seq), None)
        if step is not None:
            # A step between the two passes changed weights: neither a summed backward nor a kept
            # graph gives the second loss what it means; the shared part must be computed again.
            related.insert(2, Related(self.span(step), "changes the weights in between", "freed"))
            recompute = self.recompute_shared_text(run, site, step)
            self.publish(
                FreedGraphReused(
                    run, first, False, tuple(related), chain, shared, shared_line, step=step,
                    recompute=recompute,
                )
            )
            return
        root = run.val.root
        summable = bool(
            root is not None
            and loss != other  # one name backpropagated per iteration: no sum to write
            and getattr(root, "seq", 0) < first.seq
            and isinstance(first.stmt, ast.Expr)
            and isinstance(run.stmt, ast.Expr)
            and first.kind == run.kind == "backward"
            and isinstance(first.target, ast.Name)
            and isinstance(run.target, ast.Name)
            and first.stmt.value is first.call
            and run.stmt.value is run.call
            and not first.call.args
            and not run.call.args
            and self.same_block(first.stmt, run.stmt)
        )
        freed_again = FreedGraphReused(
            run, first, False, tuple(related), chain, shared, shared_line, retain_ok=retain_ok,
            summable=summable,
        )
        self.publish(freed_again)

    def gan_fake(
        self,
        run: BackwardRun,
        first: BackwardRun,
        gan: tuple[Site, ast.expr],
        related: list[Related],
        chain: str = "",
        step: Dirt | None = None,
    ) -> None:
        """Publishes the GAN pattern: GG105's check reports it at the fake to detach."""
        d_site, arg_node = gan
        optimizer = step.target if step is not None else None
        where = step.node if step is not None else None
        self.publish(
            FakeReused(run, first, arg_node, self.disc_name(d_site), tuple(related), chain, where, optimizer)
        )

    def disc_name(self, d_site: Site) -> str:
        """The discriminator as the code names it where it is called (`self.netD`), else the
        module's variable (the first name it was bound to may be a helper's loop variable)."""
        node = d_site.node
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            return self.text(node.func)
        if d_site.module and d_site.module.name:
            return d_site.module.name
        return self.text(node.func if isinstance(node, ast.Call) else node)

    def trains_the_fake(
        self, run: BackwardRun, gan: tuple[Site, ast.expr], peek: Callable[[ast.expr], Val]
    ) -> bool:
        """Does an optimizer stepped right after ``run`` (in its block) train parameters the fake
        was made with? Then the second loss goes through the discriminator on purpose, to train the
        fake's maker (a VAE-GAN's encoder through the discriminator's features), and detaching the
        fake would stop that training: the fault is the step between the two backwards (GG111)."""
        block = self.blocks.get(id(run.stmt)) if run.stmt is not None else None
        if block is None or run.stmt is None:
            return False
        fake = next((v for n, v in gan[0].call_args if n is gan[1]), None)
        if fake is None:
            return False
        for stmt in block[block.index(run.stmt) + 1 :]:
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) or ".backward(" in self.segment(stmt):
                break
            for node in ast.walk(stmt):
                func = node.func if isinstance(node, ast.Call) else None
                if isinstance(func, ast.Attribute) and func.attr == "step":
                    info = peek(func.value).info
                    objs = getattr(info, "objs", None)
                    makers = (s.module for s in fake.sites if s.module is not None)
                    if objs and any(m.all_params_objs() & objs for m in makers):
                        return True
        return False

    def gan_pattern(self, run: BackwardRun, site: Site, first: BackwardRun) -> tuple[Site, ast.expr] | None:
        """The first loss went through D(fake) and the second goes through another call of D on fake."""
        # The outermost call first (a model's own call, not the layers inlined inside it).
        for d_site in sorted(first.val.sites, key=lambda x: -x.seq):
            if d_site.module is None or site is d_site or not d_site.module.has_params:
                continue  # a discriminator has weights to train (a criterion module has none)
            for arg_node, arg_val in d_site.call_args:
                if site not in arg_val.sites:
                    continue

                # The same tensor (the fake) goes into the same module again for the second loss,
                # as it is or made again from it (pix2pix concatenates the fake with its input in
                # each step: `torch.cat((real_A, fake_B), 1)`).
                def same_fake(v: Val, given: Val = arg_val) -> bool:
                    # The same tensor, or one made from it by an op that saves nothing (a view, a
                    # concatenation), on either side. A value whose last op is not known (made on
                    # two paths: `if img.ndimension() == 4:`) is the same when its graph is.
                    root = given.root
                    if root is None:
                        return v.sites == given.sites
                    return v.root is root or (v.root is not None and bool(_near(v.root) & _near(root)))

                for other in sorted(run.val.sites, key=lambda x: x.seq):
                    if (
                        other is not d_site
                        # A GAN calls D on the fake in two places (its own step, G's step); one call
                        # run in two iterations of a loop is a loss per iteration (GG102's).
                        and other.node is not d_site.node
                        and other.module is d_site.module
                        and any(same_fake(v) for _, v in other.call_args)
                    ):
                        # The detach belongs in the discriminator's own update, whose loss calls D
                        # on real data too: usually the first backward, but the G step may come first.
                        if _module_calls(run.val, other) > 1 and _module_calls(first.val, d_site) == 1:
                            node = next(n for n, v in other.call_args if same_fake(v))
                            return other, node
                        return d_site, arg_node
        return None

    def stale_graph(
        self,
        run: BackwardRun,
        site: Site,
        first: BackwardRun,
        loop: LoopFrame,
        chain: str,
        built: Related,
        freed: Related,
        earlier: bool = False,
    ) -> None:
        """``earlier``: the graph was freed by a backward of an earlier loop that ran once, and this
        loop's first iteration meets it."""
        name, bind_line = self.stale_name(site, loop)
        read = self.first_read(self.body_of(loop), name)
        # The squiggle goes on the statement to change: the one before the loop that built the
        # graph (the move-into-loop fix moves it); else on the first read in the loop.
        binder = self.build_statement(site, loop, name)
        bound = _bound_name(binder) if binder is not None else None
        anchor: ast.AST = bound or binder or read or run.call
        if binder is not None:
            bind_line = binder.lineno  # the line the message names is the one the squiggle is on
        # Moved into this loop, the statements would be gone for the earlier loop that reads them.
        move = None if earlier else self.move_parts(run, loop)
        # Passes over one graph on purpose (Hessian rows, a saliency map per class): each pass's
        # gradients are read and nothing in the loop changes weights, so keeping the graph is the
        # cheaper repair, and it comes first. (A loop that only backpropagates looks like training
        # without its step: the forward belongs in the loop.)
        repeats = (
            not earlier
            and (run.kind == "grad" or _reads_grad(self.body_of(loop)))  # each pass's gradients are used
            and not loop.changed_inplace  # in place anywhere it ran, functions it called included
            and not self.steps_around(loop)
            and _leaves_weights_alone(self.body_of(loop))
        )
        step = self.closure_steps.get(id(loop.node))
        fails = (
            self.backward_related(run, "raises here: the graph is already freed", "reused")
            if earlier
            else self.backward_related(
                run, "raises here in the next call: the graph is already freed", "reused"
            )
            if step is not None
            else self.next_iteration_fails(run)
        )
        related = [built, freed, fails]
        if binder is not None and read is not None:
            where = "the closure" if step is not None else "the loop"
            related.insert(1, Related(self.span(read), f"read in {where} here: {name}", "reused"))
        calls = (self.text(step[0]), step[1].name) if step is not None else None
        seen = StaleGraphReused(
            run, first, anchor, name, bind_line, tuple(related), chain, move, bool(repeats), earlier, calls
        )
        self.publish(seen)

    def build_statement(self, site: Site, loop: LoopFrame, name: str) -> ast.stmt | None:
        """The innermost statement that built the value ``name`` held when the loop began (in a
        helper the program called before the loop, say)."""
        cell = self.stale_cell(site, loop)
        if cell is not None and (self.cell_names.get(cell) or cell) == name:
            return self.cell_writes[cell]  # the statement that stored it on the object
        val = loop.starts.get(1, {}).get(name)
        root = val.root if val is not None and val.root is not None else site
        inside = {id(n) for n in ast.walk(self.body_of(loop))}
        run_in_loop: set[str] | None = None
        if self._functions is None:
            self._index_statements()
        for stmt in root.stmts:
            # The loop's own function bound the name (`weights, aux = make_operator(alpha)`): that
            # statement is what changes, not the helper's line that happened to build the graph.
            if (
                id(stmt) not in inside
                and isinstance(stmt, (ast.Assign, ast.AnnAssign))
                and loop.scope is not None
                and self._function_of(stmt) is loop.scope
                and _binds_name(stmt, name)
            ):
                return stmt
        for stmt in reversed(root.stmts):
            if id(stmt) in inside or not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                continue
            if len(root.stmts) > 1:
                # Not in a helper the loop runs too (`extract_features` for the target and for each
                # step's output): changed there, it would cut the loop's own graph as well. Nor in
                # a module's forward: the call of the model is what runs before the loop.
                if run_in_loop is None:
                    run_in_loop = self.functions_run_in(self.body_of(loop))
                func = self._function_of(stmt)
                if func is not None and (func.name in run_in_loop or func.name == "forward"):
                    continue
            return stmt
        return None

    def functions_run_in(self, loop: ast.AST) -> set[str]:
        """The names of the file's functions a loop calls, directly or through others (by name)."""
        if self._functions is None:
            self._index_statements()
        bodies: dict[str, list[ast.AST]] = {}
        for f in self._functions or ():
            bodies.setdefault(f.name, []).append(f)
        found: set[str] = set()
        todo: list[ast.AST] = [loop]
        while todo:
            for n in ast.walk(todo.pop()):
                if not isinstance(n, ast.Call):
                    continue
                func = n.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name is not None and name in bodies and name not in found:
                    found.add(name)
                    todo.extend(bodies[name])
        return found

    def stale_name(self, site: Site, loop: LoopFrame) -> tuple[str, int]:
        """The pre-loop name through which the loop reaches the stale graph (read first in the loop)."""
        best: tuple[tuple[int, int], str, int] | None = None
        for name, val in loop.starts.get(1, {}).items():
            if "." in name or not _reaches(val, site):
                continue
            body = self.body_of(loop)
            read = self.first_read(body, name)
            if read is not None and _cut_at(body, read):
                # `x = x.clone().detach()` at the top, `print(loss.item())`: a read only to cut its
                # graph; a later read may still carry it (`loss.backward()`).
                read = _carrying_read(body, name)
            if read is None:
                continue
            line = val.root.binding[1] if val.root is not None and val.root.binding else site.node.lineno  # type: ignore[attr-defined]
            key = (read.lineno, read.col_offset)
            if best is None or key < best[0]:
                best = (key, name, line)
        if best is not None:
            return best[1], best[2]
        cell = self.stale_cell(site, loop)
        if cell is not None:
            return self.cell_names.get(cell) or cell, self.cell_writes[cell].lineno
        if site.binding:
            return site.binding
        return self.text(site.node), getattr(site.node, "lineno", 0)

    def stale_cell(self, site: Site, loop: LoopFrame) -> str | None:
        """An object's attribute that held the stale graph when the loop began and that the loop
        read (`self.fake_B`, set by `self.forward()` and read by a method the loop calls)."""
        for key, val in sorted(loop.starts.get(1, {}).items()):
            if key[0] != "@" or key not in self.cell_writes or not _reaches(val, site):
                continue
            if any(
                v is val and any(l_id == id(loop.node) for l_id, _ in ipath)
                for v, ipath in self.cell_reads.get(key, ())
            ):
                return key
        return None

    def move_parts(self, run: BackwardRun, loop: LoopFrame) -> dict[str, Any] | None:
        """Params of move-into-loop for every pre-loop statement of the stale graph, when that is safe."""
        loop_id = id(loop.node)
        stmts: list[ast.stmt] = []
        # An L-BFGS step's calls of its closure: the statements move into the closure.
        made = self.closure_steps.get(loop_id)
        target: ast.stmt = made[1] if made is not None else loop.node
        if made is not None and made[1].decorator_list:
            return None
        loop_block = self.blocks.get(id(target))
        if loop_block is None:
            return None  # a comprehension followed as a loop: no statement to move into
        for s in run.val.sites:
            if any(l_id == loop_id for l_id, _ in s.ipath):
                continue
            stmt = next((t for t in s.stmts if self.blocks.get(id(t)) is loop_block), None)
            if stmt is None or not isinstance(stmt, ast.Assign):
                return None
            if all(stmt is not t for t in stmts):
                stmts.append(stmt)
        if not stmts:
            return None
        stmts.sort(key=lambda n: (n.lineno, n.col_offset))
        block = self.block_of(stmts[0], target)
        if block is None:
            return None
        moved_names: set[str] = set()
        for stmt in stmts:
            assert isinstance(stmt, ast.Assign)
            if self.block_of(stmt, target) is not block:
                return None
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                return None
            moved_names.add(stmt.targets[0].id)
        first, last = block.index(stmts[0]), block.index(target)
        moved_ids = {id(t) for t in stmts}
        read_by_moved = {n.id for t in stmts for n in ast.walk(t.value) if isinstance(n, ast.Name)}  # type: ignore[attr-defined]
        for between in block[first:last]:
            if id(between) in moved_ids:
                continue
            for node in ast.walk(between):
                if isinstance(node, ast.Name) and (
                    node.id in moved_names or (node.id in read_by_moved and isinstance(node.ctx, ast.Store))
                ):
                    return None
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and node.id in moved_names and isinstance(node.ctx, ast.Store):
                return None
        # A moved name read after the loop (a second loop over the same value) would hold the last
        # iteration's graph there, or nothing: that use needs its own forward, so no move.
        for after in block[last + 1 :]:
            if any(isinstance(n, ast.Name) and n.id in moved_names for n in ast.walk(after)):
                return None
        if made is not None and not self._closure_keeps_reads(made, block[last + 1 :], read_by_moved):
            return None
        return {"stmts": [self.span(t).to_json() for t in stmts], "loop": self.span(target).to_json()}

    @staticmethod
    def _closure_keeps_reads(
        made: tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef], after: list[ast.stmt], reads: set[str]
    ) -> bool:
        """Moved into the closure, do the statements still read what they read? Not when the closure
        binds one of those names (it would be its own local), nor when the names are bound again
        between the closure's definition and the step that calls it."""
        step, func = made
        own = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
        own |= {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if own & reads:
            return False
        for stmt in after:
            if any(n is step for n in ast.walk(stmt)):
                return True
            names = [n for n in ast.walk(stmt) if isinstance(n, ast.Name)]
            stores = {n.id for n in names if isinstance(n.ctx, ast.Store)}
            if stores & reads:
                return False
        return False  # the step is not in the closure's block: where it runs is not clear

    def carried_names(self, site: Site, loop: LoopFrame, first: BackwardRun | None = None) -> list[str]:
        """Names that carry this graph into the iteration after the one whose backward (``first``)
        freed it, by their first read in the loop."""
        found: list[tuple[tuple[int, int], str]] = []
        for name, val in _after_free(loop, first).items():
            if not _reaches(val, site):
                continue
            read = self.first_read(loop.node, name)
            if read is not None and self.read_before_write(loop.node, name):
                found.append(((read.lineno, read.col_offset), name))
        return [name for _, name in sorted(found)]

    def detach_all(self, names: list[str], loop: LoopFrame, first: BackwardRun | None = None) -> str | None:
        texts = [self.detach_text(n, loop, first) for n in names]
        if not texts or any(t is None for t in texts):
            return None
        return "\n".join(t for t in texts if t)

    def detach_text(self, carried: str, loop: LoopFrame, first: BackwardRun | None = None) -> str | None:
        """`h = h.detach()` (or the tuple form) if the carried value's structure is certain."""
        val = _after_free(loop, first).get(carried)
        if val is None:
            return None
        init = loop.starts.get(1, {}).get(carried)
        if init is None:
            # Not bound when the loop starts (set inside it, `if i == 0: h = ...`): a detach at the
            # loop's top would read it before it exists.
            return None
        if val.ty is Ty.TENSOR:
            structure = "tensor"
        elif val.ty is Ty.TUPLE and val.elts and all(e.is_tensor for e in val.elts):
            structure = "tuple"
        else:
            return None
        optional = init is not None and init.is_none_literal
        if (
            init is not None
            and not optional
            and init.ty is not val.ty
            and not (init.is_tensor and structure == "tensor")
        ):
            return None
        expr = f"{carried}.detach()" if structure == "tensor" else f"tuple(s.detach() for s in {carried})"
        text = f"{carried} = {expr}"
        return f"if {carried} is not None:\n    {text}" if optional else text

    def carried_state(
        self,
        run: BackwardRun,
        site: Site,
        first: BackwardRun,
        loop: LoopFrame,
        chain: str,
        built: Related,
        freed: Related,
        step: Dirt | None = None,
    ) -> None:
        """GG104 on the names that carry the graph; ``step``: the graph was kept (retain_graph=True)
        and that step changed weights it saved, which is why the next backward raises."""
        names = self.carried_names(site, loop, first)
        if not names:
            if step is None:
                self.carried_cell(run, site, loop, chain, built, freed)
            return
        read = self.first_read(loop.node, names[0])
        text = self.detach_all(names, loop, first)
        # `h.detach()` thrown away in this loop (GG112): assigning it is the repair, so a second
        # `h = h.detach()` at the loop's top would only repeat it once both fixes are applied.
        tried = any(_discards_detach_of(stmt, names) for stmt in ast.walk(loop.node))
        safe = text and not tried and id(loop.node) in self.blocks  # a `for`, not a comprehension
        related = [built, freed]
        if step is not None:
            related.append(Related(self.span(step.node), "changes the weights that graph saved", "freed"))
            related.append(
                self.backward_related(
                    run, "raises here in the next iteration: it needs the old weights", "reused"
                )
            )
        else:
            related.append(self.next_iteration_fails(run))
        anchor = read if read is not None else run.call
        group = (id(loop.node), id(run.call))
        where = step.node if step is not None else None
        seen = CarriedState(
            run, loop.node, anchor, tuple(names), tuple(related), chain, text if safe else None, where, group
        )
        self.publish(seen)

    def supersede(
        self, same: list[tuple[frozenset[str], Finding]], named: frozenset[str], finding: Finding
    ) -> None:
        """``finding`` names more of one loop's carried state than earlier ones: it stands for them."""
        for earlier, found in same:
            if earlier < named and self.findings.get((found.code, found.span)) is found:
                del self.findings[(found.code, found.span)]
        same.append((named, finding))

    def carried_cell(
        self, run: BackwardRun, site: Site, loop: LoopFrame, chain: str, built: Related, freed: Related
    ) -> None:
        """State carried in an object's attribute (``self.hidden``), possibly set by another method:
        published at the statement that stores the graph-carrying value."""
        found = self.carrying_cell(run, site, loop)
        if found is None:
            return
        name, stmt, whole = found
        related = (built, freed, self.next_iteration_fails(run))
        stored = whole.ty in (Ty.DICT, Ty.LIST, Ty.OTHER)  # a record too
        self.publish(CarriedInAttribute(run, stmt, name, related, chain, stored))

    def carrying_cell(
        self, run: BackwardRun, site: Site, loop: LoopFrame
    ) -> tuple[str, ast.stmt, Val] | None:
        """The object's attribute that carries ``site`` into the loop's next iteration, read there
        by this backward's loss: its name, the statement that stored it, and what it held."""
        fallback: tuple[str, ast.stmt, Val] | None = None
        for key, whole in sorted(loop.starts.get(2, {}).items()):
            if key[0] != "@" or not _reaches(whole, site):
                continue
            second = (id(loop.node), 2)
            if not any(v is whole and second in ipath for v, ipath in self.cell_reads.get(key, ())):
                continue  # reset before the next iteration read it: this cell carries nothing
            # The cell, or a member of the tuple it holds (an LSTM's (h, c)), that this loss read.
            # A tensor written into by index (`self.cache[:, :n] = k`) has no op of its own: it
            # holds the freed node itself.
            val = next(
                (
                    v
                    for v in (whole, *(whole.elts or ()))
                    if (v.root in run.val.sites if v.root is not None else site in v.sites)
                ),
                None,
            )
            if val is None:
                continue
            holder = None if key in self.cell_writes else self.holding_cell(key, loop)
            if holder is not None:
                # A field of a record the object keeps (`self.state = SimState(pos=..., ...)`): the
                # statement that keeps the record for the next iteration is the one to change.
                held_key, held = holder
                name = self.cell_names.get(held_key) or held_key.split(".", 1)[1]
                return name, self.cell_writes[held_key], held
            root = val.root
            stmt = self.cell_writes.get(key) or (root.stmts[-1] if root is not None and root.stmts else None)
            if stmt is not None and fallback is None:
                fallback = (
                    self.cell_names.get(key) or whole.label or val.label or key.split(".", 1)[1],
                    stmt,
                    whole,
                )
        return fallback

    def holding_cell(self, key: str, loop: LoopFrame) -> tuple[str, Val] | None:
        """The object's attribute that the previous iteration set to the object whose field ``key``
        is (a new record each iteration, not a long-lived object whose field changed in place)."""
        owner = key.split(".", 1)[0]
        before = loop.starts.get(1, {})
        for held_key, held in sorted(loop.starts.get(2, {}).items()):
            if held_key in self.cell_writes and held.module is not None and held.module.key == owner:
                earlier = before.get(held_key)
                if earlier is None or earlier.module is None or earlier.module.key != owner:
                    return held_key, held
        return None

    def steps_around(self, loop: LoopFrame) -> bool:
        """Does an optimizer step in this loop or a loop around it (steps followed into the
        functions they call count), or in the text of the function (or module code) around it
        (for optimizers the engine cannot resolve)? Rule scope by intent: several passes over one
        graph without a step are what the code wants (saliency per class, gradient checks)."""
        frame: LoopFrame | None = loop
        while frame is not None:
            if frame.stepped:
                return True
            frame = frame.parent
        scope = loop.scope
        if scope is None:
            return bool(_STEPS.search(self.source))
        return self.mentions(scope, _STEPS)

    def masked(
        self,
        run: BackwardRun,
        site: Site,
        first: BackwardRun,
        loop: LoopFrame | None,
        hidden: str,
        chain: str,
    ) -> None:
        """Publishes what ``first``'s retain_graph=True hides (GG302's check reports it): ``hidden``
        is "stale" (GG103's bug), "carried" (GG104's) or "passed" (GG105's)."""
        kw = first.retain_kw
        if kw is None:
            return
        real: dict[str, Any] | None = None
        names: tuple[str, ...] = ()
        line = 0
        fake: ast.expr | None = None
        disc: str | None = None
        if hidden == "stale" and loop is not None and not loop.stepped and _built_around(site, loop):
            # Passes over a graph an enclosing loop builds anew in each of its iterations, with no
            # step between them (a Jacobian row by row, per-sample gradients, a loss per head):
            # the graph is dropped before any step could make it stale. That is what the flag is for.
            return
        if hidden == "stale" and loop is not None:
            kind = "stale"
            name, line = self.stale_name(site, loop)
            names = (name,)
            move = self.move_parts(run, loop)
            if move:
                real = {"kind": "move-into-loop", "params": move}
        elif hidden == "carried" and loop is not None:
            kind = "carried"
            carried = self.carried_names(site, loop, first)
            cell = self.carrying_cell(run, site, loop) if not carried else None
            if not carried and cell is None:
                return
            # An object's attribute (`self.hidden`) set in a method the loop calls: no fix written.
            names = tuple(carried or ([cell[0]] if cell is not None else []))
            text = self.detach_all(carried, loop, first) if carried else None
            if text and id(loop.node) in self.blocks:  # a `for` statement, not a comprehension
                real = {
                    "kind": "insert-loop-top",
                    "params": {"loop": self.span(loop.node).to_json(), "text": text},
                }
        else:
            kind = "passed"
            gan = self.gan_pattern(run, site, first)
            if gan is not None:
                fake, disc = gan[1], self.disc_name(gan[0])
                real = {
                    "kind": "append",
                    "params": {"expr": self.span(gan[1]).to_json(), "suffix": ".detach()"},
                }
        # An enclosing loop may step the optimizer later in its iteration: decided at the end.
        unstepped = loop if loop is not None and not self.steps_around(loop) else None
        self.publish(
            RetainMasksReuse(run, first, kw, site.node, kind, names, line, fake, disc, real, unstepped, chain)
        )

    # -- GG107, GG111, GG203 -------------------------------------------------------------

    def dirty_backward(
        self,
        run: BackwardRun,
        site: Site,
        dirt: Dirt,
        loops: list[LoopFrame],
        peek: Callable[[ast.expr], Val] | None = None,
    ) -> None:
        saved_related = Related(
            self.span(site.node), f"saved for backward here: {self.text(site.node)}", "built"
        )
        if dirt.kind == "step":
            first = dirt.retained_by
            if first is None:
                if dirt.certain:
                    # A graph built before the step and first backpropagated after it.
                    rebuild = self.rebuild_statement(run, dirt, site)
                    step, optimizer, backward_at, loss = _step_where_it_diverges(dirt, run)
                    if backward_at is not None:
                        rebuild = None  # its move would land inside the helper that backpropagates
                    seen = StepBeforeBackward(
                        run, None, site.node, step, optimizer, rebuild, False, backward_at, loss
                    )
                    self.publish(seen)
                return
            differing = _differing_loop(first.ipath, run.ipath)
            loop = next((f for f in loops if id(f.node) == differing), None)
            if run.call is first.call and first.retain_kw is not None and loop is not None:
                # The same backward, one iteration later, walks the graph it retained last time:
                # the graph is carried across iterations and retain_graph=True only hid that.
                in_loop = any(l_id == differing for l_id, _ in site.ipath)
                chain = chain_text(run.val, site, self.pos, loop.node)
                self.masked(run, site, first, loop, "carried" if in_loop else "stale", chain)
                if in_loop and dirt.certain:
                    # Not only hidden: the step changed weights the kept graph saved, so the next
                    # iteration's backward raises after all (the in-place version error).
                    kept = self.backward_related(first, "retain_graph=True keeps the graph", "freed")
                    self.carried_state(run, site, first, loop, chain, saved_related, kept, step=dirt)
                return
            gan = self.gan_pattern(run, site, first)
            if gan is not None and peek is not None and self.trains_the_fake(run, gan, peek):
                gan = None  # the loss is meant to train what made the fake: no detach belongs there
            if gan is not None:
                # A D step on the fake the G step already used: detach it there. Moving the G step
                # after this backward would silence the error and let the D loss train G.
                fails = self.backward_related(
                    run, "raises here: it needs the weights from before the step", "reused"
                )
                self.gan_fake(run, first, gan, [saved_related, fails], step=dirt)
                return
            other = self.other_step_after(run, dirt.target)
            movable = (
                isinstance(dirt.node, ast.stmt)
                and run.stmt is not None
                and run.call is not first.call
                and self.same_block(dirt.node, run.stmt)
                and not other
            )
            seen = StepBeforeBackward(
                run, first, site.node, dirt.node, dirt.target, None, movable, other_step=other
            )
            self.publish(seen)
            return
        self.publish(
            SavedTensorChanged(
                run,
                site.node,
                dirt.node,
                dirt.target,
                dirt.stmt,
                through_data=dirt.kind == "data",
                element=dirt.element,
            )
        )

    # -- GG301 ---------------------------------------------------------------------------

    def accumulate(
        self,
        stmt: ast.stmt,
        acc: str,
        value_node: ast.expr,
        value: Val,
        key: object,
        dead: bool = False,
        inside: ast.stmt | None = None,
    ) -> None:
        """An accumulation of a graph-carrying value across iterations, published for GG301's
        check; its finding stands at the end unless the accumulator is later consumed
        (backpropagated, returned, handed on). ``dead``: that graph was already backpropagated, so
        only a backward (which raises) consumes it."""
        if key not in self.pending_acc:
            self.publish(
                GraphAccumulated(
                    stmt,
                    acc,
                    value_node,
                    not value.is_tensor,
                    value.is_tensor and value.shape == (),
                    value.root.node if value.root else None,
                    inside,
                    key,
                )
            )
        if dead:
            # Only a backward consumes it now (which then raises: the bug another rule tells, as
            # for a sum that a carried hidden state ties to a freed graph); returned or handed
            # on, it is still dead weight, whatever an earlier iteration did with it.
            self.dead_kept.add(key)

    def grads_never_cleared(self, step: ast.Call, backward: ast.AST) -> None:
        """GG201 found by following `.grad` through the program (helpers and methods included): the
        backward that added onto applied gradients, and the step that applies them again. Reported at
        the end, unless the loop check found the same step (its finding has a fix)."""
        self.pending_steps.setdefault(self.span(backward), (step, backward))

    def exempt_taints(self, taints: frozenset[Taint], backward: bool = False) -> None:
        """The accumulators marked in ``taints`` are consumed: returned, handed on, or (``backward``)
        backpropagated. A running value of graphs already backpropagated (an average of losses) is
        consumed only by a backward, which then raises: returning it hands on nothing a caller can
        use, as for a sum of them (see Evaluator.dead_graph)."""
        for t in taints:
            if t.kind == "accumulated" and (backward or t.key not in self.dead_kept):
                self.exempt.add(t.key)
                if backward:
                    self.exempt.add((_BY_BACKWARD, t.key))

    # -- GG201 ---------------------------------------------------------------------------

    def training_loop(
        self, loop: ast.For | ast.While | ast.AsyncFor, env: dict[str, Val], ev: Evaluator
    ) -> None:
        from .training_loop import check_zero_grad

        check_zero_grad(self, loop, env, ev)


def _covered(same: list[tuple[frozenset[str], Finding]], named: frozenset[str]) -> bool:
    """Did a GG104 finding of the same loop and backward already name all of ``named``?"""
    return any(named <= earlier for earlier, _ in same)


def _last_assignment(block: list[ast.stmt], before: int, name: str) -> int | None:
    """The index of the last plain `name = ...` among the block's statements before ``before``."""
    for i in range(before - 1, -1, -1):
        stmt = block[i]
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == name
        ):
            return i
    return None


def _leaves_weights_alone(loop: ast.AST) -> bool:
    """Does the loop's own text change no tensor a graph may have saved? No step, no `.data`, no
    in-place method, no augmented assignment, and writes into an element or attribute only of a name
    the loop body bound first (`e_i = torch.zeros_like(g)`, then `e_i[i] = 1`). Clearing `.grad`
    (`zero_grad()`) changes no saved tensor."""
    fresh: set[str] = set()
    for stmt in getattr(loop, "body", []):
        for node in ast.walk(stmt):
            if isinstance(node, ast.AugAssign):
                return False
            if isinstance(node, ast.Attribute) and node.attr in ("data", "step"):
                return False
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr.endswith("_")
                and not node.func.attr.startswith("_")
            ):
                return False
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    root = _write_root(target)
                    if root is not target and not (isinstance(root, ast.Name) and root.id in fresh):
                        return False
                fresh.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return True


def _reads_grad(loop: ast.AST) -> bool:
    """Does the loop body read a `.grad` (what each pass computed: a saliency value per class)?"""
    return any(
        isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.ctx, ast.Load)
        for stmt in getattr(loop, "body", [])
        for n in ast.walk(stmt)
    )


def _write_root(target: ast.expr) -> ast.expr:
    """The name under an element or attribute written to (`e_i` of `e_i.view(-1)[i] = 1.0`)."""
    node = target
    while True:
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return node


def _cut_at(scope: ast.AST, read: ast.Name) -> bool:
    """Is this read the receiver of a call that cuts the graph (`x.detach()`, `x.clone().detach()`,
    `x.item()`), so its graph goes no further?"""
    for node in ast.walk(scope):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("detach", "item", "tolist", "numpy"):
            continue
        recv = node.func.value
        while True:
            if (
                isinstance(recv, ast.Call)
                and isinstance(recv.func, ast.Attribute)
                and recv.func.attr
                in (
                    "clone",
                    "cpu",
                    "contiguous",
                )
            ):
                recv = recv.func.value
            elif isinstance(recv, ast.Attribute) and recv.attr == "data":
                recv = recv.value
            else:
                break
        if recv is read:
            return True
    return False


_VIRTUAL_LINE = re.compile(r"\b(lines? )?(\d{7,})\b")


def _mentions_virtual(value: object) -> bool:
    """Does a fix's parameter name a place in another module (a line of a virtual block)?"""
    if isinstance(value, int) and not isinstance(value, bool):
        return value >= LINE_BLOCK
    if isinstance(value, dict):
        return any(_mentions_virtual(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_mentions_virtual(v) for v in value)
    return False


def _format(template: str, fields: dict[str, Any]) -> str:
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def _module_calls(val: Val, call: Site) -> int:
    """How many calls of ``call``'s module made ``val``'s graph."""
    return sum(1 for s in val.sites if s.module is call.module and s.call_args)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def _step_where_it_diverges(
    dirt: Dirt, run: BackwardRun
) -> tuple[ast.AST, ast.expr, ast.stmt | None, ast.expr | None]:
    """Where a step inside a helper is told: the call of the helper in the function that also
    leads to the failing backward (`take_step(critic_opt, ...)` before `take_step(actor_opt,
    actor_loss)`), since the helper's own `optimizer.step()` serves every call of it; with the
    optimizer as spelled there, and the call that leads to the backward with its loss. A step in
    the backward's own function (or one whose names cannot be told there) stays where it is."""
    unchanged = (dirt.node, dirt.target, None, None)
    if not dirt.stack or not run.stack:
        return unchanged
    shared = 0
    for a, b in zip(dirt.stack, run.stack, strict=False):
        if a is not b:
            break
        shared += 1
    place = next((s for s in dirt.stack[shared:] if not isinstance(s, _COMPOUND)), None)
    if place is None or place is dirt.stack[-1]:
        return unchanged
    optimizer = next((expr for stmt, expr in dirt.spelled if stmt is place), None)
    there = next((s for s in run.stack[shared:] if not isinstance(s, _COMPOUND)), None)
    loss = next((expr for stmt, expr in run.spelled if stmt is there), None)
    if optimizer is None or there is None or there is run.stack[-1] or loss is None:
        return unchanged
    return place, optimizer, there, loss


def _bound_name(stmt: ast.stmt) -> ast.expr | None:
    """The name (or attribute) a single-target assignment binds: the squiggle of a stale graph."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
        return targets[0]
    return None


# Ops whose result holds its inputs' values as they are: views and concatenations.
_KEEPS_VALUES = frozenset(
    {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "view", "reshape", "flatten"}
    | {"squeeze", "unsqueeze", "permute", "transpose", "t", "expand", "contiguous", "clone", "to"}
)


def _near(site: Site) -> set[Site]:
    """The op itself, and, when it is a view or a concatenation, the ops that made its inputs:
    what a tensor re-made for another call of the same module shares with the original. (A sum
    mixes its inputs: an FPN level `lateral(c3) + p4` is not `p4` made again.)"""
    node = site.node
    func = node.func if isinstance(node, ast.Call) else None
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    keeps = isinstance(node, ast.Subscript) or name in _KEEPS_VALUES
    return {site} | (_input_roots(site) if keeps and not site.saves else set())


def _input_roots(site: Site) -> set[Site]:
    """The ops that made the inputs of ``site`` (through a tuple or list argument too)."""
    out: set[Site] = set()
    for given in site.inputs:
        for v in given.elts if given.elts is not None else (given,):
            if v.root is not None:
                out.add(v.root)
    return out


def _whole_or_first(value: ast.expr | None, node: ast.AST) -> bool:
    """Is ``value`` the value of ``node`` itself, or its one kept element (`f(...)[0]`), perhaps
    negated (`forces = -torch.autograd.grad(...)[0]`)?"""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    if value is node:
        return True
    return (
        isinstance(value, ast.Subscript)
        and value.value is node
        and isinstance(value.slice, ast.Constant)
        and isinstance(value.slice.value, int)
    )


def _bound_to(stmt: ast.Assign | ast.AnnAssign, node: ast.AST) -> ast.expr | None:
    """The target that ``stmt`` binds the value of ``node`` to: ``node`` is its whole value, or the
    one element it keeps (`x = f(...)[0]`, `x, = f(...)`)."""
    target = _bound_name(stmt)
    if target is None and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        pack = stmt.targets[0]
        if isinstance(pack, (ast.Tuple, ast.List)) and len(pack.elts) == 1 and stmt.value is node:
            target = pack.elts[0]  # `grads, = torch.autograd.grad(...)`
    if not isinstance(target, (ast.Name, ast.Attribute)) or (
        isinstance(target, ast.Name) and target.id == "_"
    ):
        return None
    return target if _whole_or_first(stmt.value, node) else None


def _ended_loops(first: tuple[tuple[int, int], ...], later: tuple[tuple[int, int], ...]) -> set[int]:
    """The loops ``first`` ran inside that do not enclose ``later`` (that have ended)."""
    later_loops = {loop_id for loop_id, _ in later}
    return {loop_id for loop_id, _ in first if loop_id not in later_loops}


def _differing_loop(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> int | None:
    for (la, ia), (lb, ib) in zip(a, b, strict=False):
        if la != lb:
            return None
        if ia != ib:
            return la
    return None


def _reaches(val: Val, site: Site, depth: int = 4) -> bool:
    """Does ``val`` hold the graph node ``site``: itself, or in what it contains (its elements, or
    the nodes a list filled in a loop holds)?"""
    if site in val.sites or site in val.held:
        return True
    if depth <= 0:
        return False
    inner = (*(val.elts or ()), *((val.item,) if val.item is not None else ()))
    return any(_reaches(e, site, depth - 1) for e in inner)


def name_loads(stmt: ast.AST, name: str, skip: set[int]) -> Iterator[ast.Name]:
    """The reads of ``name`` in ``stmt``, but for the nodes in ``skip``."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            if id(node) not in skip:
                yield node


def _binds_name(stmt: ast.Assign | ast.AnnAssign, name: str) -> bool:
    """Does the statement bind the plain name (alone or in a tuple of targets)?"""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _carrying_read(loop: ast.AST, name: str) -> ast.Name | None:
    """The first read of ``name`` in the loop body that is not only cut (`.item()`, `.detach()`).
    None after a statement of the body binds ``name`` again (`x = x.clone().detach()`): the reads
    after it see the new value, not the one the loop began with."""
    for stmt in getattr(loop, "body", []):
        reads = sorted(name_loads(stmt, name, set()), key=lambda n: (n.lineno, n.col_offset))
        found = next((n for n in reads if not _cut_at(loop, n)), None)
        if found is not None:
            return found
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        ):
            return None
    return None


def _first_read(loop: ast.AST, name: str) -> ast.Name | None:
    """The first read of ``name`` in the loop body that can carry its graph somewhere."""
    best: ast.Name | None = None
    for stmt in getattr(loop, "body", []):
        skip: set[int] = set()
        for n in ast.walk(stmt):
            if _is_discarded_detach(n):  # `h.detach()` alone reads h but carries nothing
                skip.update(id(m) for m in ast.walk(n))
            elif isinstance(n, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
                skip.add(id(n.left))  # nor does `h is None`
        for node in name_loads(stmt, name, skip):
            if best is None or (node.lineno, node.col_offset) < (best.lineno, best.col_offset):
                best = node
        if best is not None:
            return best
    return best


def _built_around(site: Site, loop: LoopFrame) -> bool:
    """Was ``site`` built in the current iteration of a loop around ``loop``?"""
    frame = loop.parent
    while frame is not None:
        if any(l_id == id(frame.node) for l_id, _ in site.ipath):
            return True
        frame = frame.parent
    return False


def _read_before_write(loop: ast.AST, name: str) -> bool:
    """Is ``name`` read in the loop body before the body assigns it (its value from the last iteration)?"""

    def loads(node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node)
        )

    def stores(node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node)
        )

    def block(stmts: list[ast.stmt]) -> bool | None:
        for stmt in stmts:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if stmt.value is not None and loads(stmt.value):
                    return True
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(loads(t) for t in targets):
                    return True
                if any(stores(t) for t in targets):
                    return False
            elif isinstance(stmt, ast.AugAssign):
                if loads(stmt.value) or stores(stmt.target):
                    return True
            elif isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                head = [getattr(stmt, "test", None), getattr(stmt, "iter", None)]
                if any(h is not None and loads(h) for h in head):
                    return True
                if isinstance(stmt, ast.For) and stores(stmt.target):
                    continue  # its body reads what the loop binds it to (`for lp in memory:`)
                inner = block(getattr(stmt, "body", []))
                if inner is True or (inner is False and not isinstance(stmt, ast.If)):
                    return inner
                if isinstance(stmt, ast.If) and block(stmt.orelse):
                    return True
                # A write under an `if` may not run: what follows decides.
            else:
                if loads(stmt):
                    return True
                if stores(stmt):
                    return False
        return None

    return bool(block(list(getattr(loop, "body", []))))


def _is_discarded_detach(stmt: ast.AST) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "detach"
    )


def _has_unresolved_freeze(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    param_vars: set[str] = set()
    module_vars: set[str] = set()  # `for m in model.modules():` (each submodule: not followed)
    applied: set[str] = set()  # `model.apply(freeze)`: run on every submodule, not followed
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            it = node.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
                names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
                if it.func.attr in ("parameters", "named_parameters"):
                    param_vars.update(names)
                elif it.func.attr in ("modules", "children", "named_modules", "named_children"):
                    module_vars.update(names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "apply"
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            applied.add(node.args[0].id)
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.name in applied:
            if _FREEZES.search(ast.unparse(func)):
                return True
    for node in ast.walk(tree):
        target: ast.expr | None = None
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets
        ):
            target = next(t for t in node.targets if isinstance(t, ast.Attribute)).value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
        ):
            flag = requires_grad_flag(node)
            if not (isinstance(flag, ast.Constant) and flag.value is False):
                continue
            target = node.func.value
            if isinstance(target, ast.Name) and target.id in module_vars:
                return True
            if not (isinstance(target, ast.Name) and target.id in param_vars):
                continue  # `module.requires_grad_(False)` is followed as it runs
        if target is None:
            continue
        if isinstance(target, ast.Name) and target.id in param_vars:
            continue
        if isinstance(target, ast.Attribute) and target.attr in ("weight", "bias"):
            continue
        return True
    return False


def _reads_as_number(call: ast.Call, name: str) -> bool:
    """`name.item()` or `float(name)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "item" and not call.args:
        return isinstance(func.value, ast.Name) and func.value.id == name
    if isinstance(func, ast.Name) and func.id == "float" and len(call.args) == 1:
        arg = call.args[0]
        return isinstance(arg, ast.Name) and arg.id == name
    return False


def _after_free(loop: LoopFrame, first: BackwardRun | None) -> dict[str, Val]:
    """The names at the start of the iteration after the one ``first`` ran in: iteration 2 of a loop
    followed twice; in one followed number by number (`if (t + 1) % k == 0: loss.backward()`), the
    one after that backward, where a running sum it consumed has been reset."""
    if first is not None:
        for loop_id, iteration in first.ipath:
            if loop_id == id(loop.node) and iteration + 1 in loop.starts:
                return loop.starts[iteration + 1]
    return loop.starts.get(2, {})
