"""The interpreter's state at one program point, and how two paths' states join."""

from __future__ import annotations

import ast
from typing import Any

from ..record import field, record, replace
from .values import UNKNOWN, GradMode, IPath, Site, Val, join


@record(slots=True)
class BackwardRun:
    """One abstract execution of a backward call (``.backward()``, ``autograd.grad/backward``)."""

    call: ast.Call
    stmt: ast.stmt | None
    val: Val
    target: ast.expr | None
    ipath: IPath
    seq: int
    retain: bool
    retain_kw: ast.keyword | None
    kind: str  # "backward" or "grad"
    # What the graph view draws: the nodes whose buffers this pass freed, and the node whose freed
    # buffers (or in-place changed saved tensor) made it raise.
    frees: tuple[Site, ...] = ()
    reached: Site | None = None
    changed: Site | None = None
    changed_by: ast.AST | None = None  # the in-place write on the tensor ``changed`` saved
    stack: tuple[ast.stmt, ...] = ()  # the statements being executed, outermost first
    # For each call into the helper that ran it: the caller's statement and its spelling of the
    # backpropagated value (None where that is not a parameter), innermost first.
    spelled: tuple[tuple[ast.stmt, ast.expr | None], ...] = ()


@record(slots=True)
class Dirt:
    """An in-place change to a tensor some graph node saved."""

    node: ast.AST  # the statement or call that changed it (its text is the op)
    kind: str  # "inplace", "data", "step"
    target: ast.expr  # the changed tensor (for a step: the optimizer)
    retained_by: BackwardRun | None = None
    stmt: ast.stmt | None = None  # the statement holding the change
    # A step: it certainly changed a parameter this node saved (a backward gave it a gradient).
    certain: bool = False
    # The changed tensor is an element of a Python list or dict (`laterals[i] += x`), not part of
    # a tensor: rebinding the element out of place fixes it (no copy of the container).
    element: bool = False
    # A step: the statements being executed, outermost first, and for each call into the helper
    # that stepped, how the caller spells the optimizer there (None where it is not a parameter).
    stack: tuple[ast.stmt, ...] = ()
    spelled: tuple[tuple[ast.stmt, ast.expr | None], ...] = ()


@record(slots=True)
class State:
    env: dict[str, Val] = field(default_factory=dict)
    freed: dict[Site, BackwardRun] = field(default_factory=dict)  # must-freed saved buffers
    vfreed: dict[Site, BackwardRun] = field(default_factory=dict)  # kept alive only by retain_graph=True
    dirty: dict[Site, Dirt] = field(default_factory=dict)
    retained: dict[Site, BackwardRun] = field(default_factory=dict)
    mode: GradMode = GradMode.ON

    def copy(self) -> State:
        return State(
            dict(self.env),
            dict(self.freed),
            dict(self.vfreed),
            dict(self.dirty),
            dict(self.retained),
            self.mode,
        )


def _meet(a: dict[Site, Any], b: dict[Site, Any]) -> dict[Site, Any]:
    if a is b:
        return dict(a)
    return {k: v for k, v in a.items() if k in b}


def _meet_dirt(a: dict[Site, Dirt], b: dict[Site, Dirt]) -> dict[Site, Dirt]:
    """Changes made on every path; a step is certain only where it is on each path."""
    out = _meet(a, b)
    for site, dirt in out.items():
        if dirt.certain and not b[site].certain:
            out[site] = replace(dirt, certain=False)
    return out


def join_states(states: list[State | None]) -> State | None:
    """What certainly holds on every live path."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0].copy()
    first = live[0]
    # Built from the first path directly (no copy of it first): joins run at every branch and loop.
    env, freed, vfreed, dirty, retained, mode = (
        first.env,
        first.freed,
        first.vfreed,
        first.dirty,
        first.retained,
        first.mode,
    )
    for other in live[1:]:
        other_env = other.env
        joined: dict[str, Val] = {}
        for name, val in env.items():
            theirs = other_env.get(name, _MISSING)
            if theirs is val:
                joined[name] = val
            elif theirs is _MISSING:
                joined[name] = UNKNOWN
            else:
                joined[name] = join(val, theirs)  # type: ignore[arg-type]
        for name in other_env:
            if name not in joined:
                joined[name] = UNKNOWN
        env = joined
        freed = _meet(freed, other.freed)
        vfreed = _meet(vfreed, other.vfreed)
        dirty = _meet_dirt(dirty, other.dirty)
        retained = _meet(retained, other.retained)
        if mode is not other.mode:
            mode = GradMode.MAYBE
    return State(env, freed, vfreed, dirty, retained, mode)


_MISSING = object()


@record(slots=True)
class LoopFrame:
    node: ast.For | ast.While | ast.AsyncFor
    iteration: int = 1
    exact: bool = False  # one iteration per element of a known sequence
    # Those elements are a counter's numbers: each iteration runs the same code again (as in any
    # loop), not another of a sequence of distinct losses.
    numbered: bool = False
    starts: dict[int, dict[str, Val]] = field(default_factory=dict)
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)
    stepped: bool = False  # an optimizer's step() ran in it (directly or in a function it called)
    scope: ast.AST | None = None  # the function it is in (None: module code)
    parent: LoopFrame | None = None  # the loop around it, if any (also across calls)
    # Iteration 1 changed a tensor in place: a second iteration may change one the first saved
    # (a recurrent state updated with `+=`), even with no backward in the loop.
    changed_inplace: bool = False
    # That second iteration is followed only for what it changes in place: the sums and lists it
    # builds are judged in the loops that repeat (a rollout's buffer is consumed after it).
    probe: bool = False
    # Iteration 1 added a graph into an object's attribute (`self.total += loss` in a meter): the
    # second iteration is a real one, where that sum, still there, is judged (GG301).
    accumulates: bool = False
    # Iteration 1 passed by an arm that may run a backward (`if step > warmup: agent.learn()` with
    # `step` counted in the loop): the second iteration, where such counts are widened, may take it.
    skipped_backprop: bool = False
    # Optimizers (ids) whose step in this loop is under an accumulation gate not known here
    # (`if i % k == 0:`): whether the last iteration stepped is not known after the loop.
    unstepped: set[int] = field(default_factory=set)
    # The evaluator's sequence number when the current iteration began: a graph node numbered
    # after it was built in this iteration.
    seq_start: int = 0
    # A counter the loop binds, iteration k its k-th number: (name, first number, stride, how
    # many iterations the program runs). The last iteration followed stands for all the rest.
    counter: tuple[str, int, int, int] | None = None
