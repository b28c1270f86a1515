"""What the engine observes, and what a rule's check may ask of the reporter.

The engine interprets the program and publishes an observation each time it sees something a
rule may want to judge (a backward on a value with no graph, a backward on a non-scalar, an
in-place change of a leaf...). A rule module holds its own check for the observations it cares
about, in a ``CHECKS`` table (observation type -> function), beside its documentation and
examples; ``gradguard.rules.checks()`` gathers them. This module imports nothing of the engine
or of the rules at run time, so the dependencies go one way: engine -> rules -> observations.

Each observation states facts the engine established with certainty; "unknown" is never
published. Checks turn facts into findings through :class:`Context`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .record import record

if TYPE_CHECKING:
    from .engine.state import BackwardRun
    from .engine.values import Taint
    from .findings import Finding, FixRef, Related, Span


class Context(Protocol):
    """The reporter's side that checks use: positions, fixes and findings."""

    def span(self, node: ast.AST) -> Span: ...

    def text(self, node: ast.AST | None) -> str: ...

    def name(self, node: ast.AST) -> str:
        """The name an assignment binds ``node``'s value to, else its text (for messages)."""
        ...

    def fix(self, code: str, fix_id: str, kind: str, **params: Any) -> FixRef: ...

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
        covers: tuple[object, frozenset[str]] | None = None,
    ) -> Finding:
        """Report a finding. With ``unless_consumed`` (the key of a GraphAccumulated), it is held
        back and stands at the end only if that accumulator was never consumed; with
        ``unless_unstepped`` (a RetainMasksReuse's), only if an optimizer step around that loop
        was seen by then. ``covers``: (group, names) of a finding about carried state: dropped if
        an earlier finding of the group named all of them, and replacing those naming fewer."""
        ...

    def backward_related(self, run: BackwardRun, message: str, role: str) -> Related: ...

    def once(self, key: object) -> bool:
        """True the first time ``key`` is asked in this analysis (one finding per cause)."""
        ...

    def reads_after(self, stmt: ast.stmt, name: str) -> str | None:
        """How the local ``name`` is read after ``stmt`` in its function: None (not at all),
        "number" (only as `name.item()` or `float(name)`), or "other"."""
        ...


# -- the source itself --------------------------------------------------------------------------


@record(frozen=True, slots=True)
class Unparsable:
    """The source (or one notebook cell) does not parse with the Python running gradguard, so
    nothing in it was analysed. ``kind`` is the exception's name (``SyntaxError``,
    ``IndentationError``...), ``reason`` the parser's words, ``cell`` True for one notebook cell
    left out of an otherwise analysed notebook."""

    span: Span
    kind: str
    reason: str
    cell: bool = False


# -- backward passes -----------------------------------------------------------------------------


# Why a value has no graph, when a rule words its message by it (the engine's cause of the value).
# A reentrant checkpoint's output is an autograd Function's: it requires grad only when an input does.
CHECKPOINT_CAUSE = "a reentrant `checkpoint()` of inputs that do not require grad"


@record(frozen=True, slots=True)
class NoGraphBackward:
    """A backward on a value that certainly has no grad_fn (torch raises "element 0 of tensors
    does not require grad"), with recording certainly on. ``penalty``: the graph was cut by an
    ``autograd.grad`` without ``create_graph`` whose result the value is built from."""

    run: BackwardRun
    penalty: Taint | None
    number: bool = False  # a Python number (after `.item()`), which has no `.backward()` at all


@record(frozen=True, slots=True)
class NonScalarBackward:
    """``backward()`` without ``gradient=`` on a tensor that certainly has not one element.
    ``shape``: its shape, sizes None where unknown; None when only the element count is known."""

    run: BackwardRun
    shape: tuple[int | None, ...] | None


@record(frozen=True, slots=True)
class PenaltyBackward:
    """A backward through a value built from an ``autograd.grad`` result made without
    ``create_graph=True`` (that part of the loss is a constant)."""

    run: BackwardRun
    penalty: Taint


# -- operations ----------------------------------------------------------------------------------


@record(frozen=True, slots=True)
class NumpyOnGrad:
    """``.numpy()`` (or ``np.array(t)``) on a tensor that certainly requires grad."""

    call: ast.Call
    recv: ast.expr
    array_call: bool
    # The tensor is one of a list's elements (`np.mean(losses)`): no single expression to change.
    in_list: bool = False


@record(frozen=True, slots=True)
class DiscardedDetach:
    """``x.detach()`` as a statement on its own, ``x`` a tensor. ``carried``: ``x`` is a name an
    enclosing loop reads before it writes it (state carried into the next iteration)."""

    stmt: ast.Expr
    call: ast.Call
    carried: bool = False


@record(frozen=True, slots=True)
class FlagOnNonLeaf:
    """``x.requires_grad = ...`` on a tensor that certainly has a graph (not a leaf), which raises.
    ``carried``: the statement that built it, when that was an earlier iteration of a loop of this
    function (an attack's image moved along its gradient and not detached), else None."""

    stmt: ast.stmt
    target: ast.Attribute
    carried: ast.stmt | None


@record(frozen=True, slots=True)
class LeafInplace:
    """An in-place change of a leaf tensor that requires grad while recording is certainly on.
    ``torch_name``: how the file names torch (for a ``with torch.no_grad():`` fix), if known."""

    stmt: ast.stmt
    target: ast.expr
    op: ast.AST
    torch_name: str | None


@record(frozen=True, slots=True)
class MultiviewInplace:
    """An in-place change, with recording on, of one of the views that ``chunk``/``split``/
    ``unbind`` returned from a tensor that requires grad (torch raises right there)."""

    stmt: ast.stmt
    target: ast.expr
    op: ast.AST
    split: ast.AST


@record(frozen=True, slots=True)
class SequentialHazard:
    """A backward through a model call whose ``nn.Sequential`` has a layer with ``inplace=True``
    right after one that saved its output for backward. ``layer``: that layer's constructor call;
    ``saved_by``: the class name of the layer before it."""

    run: BackwardRun
    model_call: ast.AST
    layer: ast.AST
    saved_by: str


@record(frozen=True, slots=True)
class InputGradRead:
    """A read, in a loop, of the ``.grad`` of a tensor the code made (not a parameter) after a
    backward that added onto what an earlier iteration left there and read; nothing cleared it."""

    backward: ast.AST
    read: ast.Attribute


@record(frozen=True, slots=True)
class DiscardedGradients:
    """``optimizer.zero_grad()`` in a later iteration of a loop, run on every path of it, that clears
    gradients a backward (``backward``) added for this optimizer alone and no step has applied."""

    stmt: ast.stmt
    call: ast.Call
    backward: ast.stmt
    step: ast.stmt | None  # that optimizer's `step()` later in the loop, where the clear belongs


@record(frozen=True, slots=True)
class SavedTensorChanged:
    """A backward that needs a tensor ``saved_by`` saved, after ``op`` changed that tensor in place
    (``target``; ``stmt``: the statement holding the change). ``through_data``: the change went
    through ``.data``, so autograd does not notice and the gradient is silently wrong."""

    run: BackwardRun
    saved_by: ast.AST
    op: ast.AST
    target: ast.expr
    stmt: ast.stmt | None
    through_data: bool
    # ``target`` is an element of a Python list or dict (`laterals[i] += x`), not part of a tensor.
    element: bool = False


@record(frozen=True, slots=True)
class GraphAccumulated:
    """A value that carries a graph (``value``, a tensor, or a record holding graph tensors when
    ``record``) added to an accumulator (``acc``, its text) that outlives the iteration, at
    ``stmt``. ``built``: where the value's graph was built, if known; ``scalar``: the value is a
    tensor known to have shape (); ``inside``: the statement that sums it, when ``stmt`` is the
    call the value is passed to (a meter's ``update(loss)``). ``key`` names the accumulator: the
    finding stands only if the engine never sees that accumulator consumed (backpropagated,
    returned, handed on), which it knows only when the analysis ends."""

    stmt: ast.stmt
    acc: str
    value: ast.expr
    record: bool
    scalar: bool
    built: ast.AST | None
    inside: ast.stmt | None
    key: object


@record(frozen=True, slots=True)
class RetainMasksReuse:
    """``first``'s ``retain_graph=True`` (``keyword``) kept a graph (built at ``built``) that
    ``run``, a later iteration's backward, reaches again; without the flag that backward would
    raise, so the flag hides a bug of ``kind``: "stale", a graph built before the loop (``names[0]``
    on ``line``); "carried", state ``names`` carry across iterations (never detached); "passed",
    a graph passed on without `.detach()` (``fake`` into ``disc`` when it is the GAN pattern).
    ``real``: the engine's edit for the real bug (a fix part: kind and params), None when it
    writes none. ``unless_unstepped``: None, or the loop whose optimizer step decides at the end
    whether the flag masks anything (no step around it seen yet)."""

    run: BackwardRun
    first: BackwardRun
    keyword: ast.keyword
    built: ast.AST
    kind: str
    names: tuple[str, ...]
    line: int
    fake: ast.expr | None
    disc: str | None
    real: dict[str, Any] | None
    unless_unstepped: object
    chain: str


@record(frozen=True, slots=True)
class StepBeforeBackward:
    """The optimizer step ``step`` (of ``optimizer``) changed weights that ``built`` saved for
    ``run``'s backward before that backward ran, so it certainly raises the in-place version error.
    ``first``: the earlier backward that kept the graph with retain_graph=True (both backwards go
    through it; it is ``run``'s own call one iteration earlier when ``first.call is run.call``),
    None when the graph was built before the step and first backpropagated after it.
    ``rebuild``: the statement that built the loss, safe to move just before ``run``'s statement
    (recomputing it from the stepped weights), if there is one; ``step_movable``: the step may
    move after ``run``'s statement, in the same block."""

    run: BackwardRun
    first: BackwardRun | None
    built: ast.AST
    step: ast.AST
    optimizer: ast.expr
    rebuild: ast.stmt | None
    step_movable: bool
    # The step and the backward ran in helpers (`take_step(critic_opt, critic_loss)` then
    # `take_step(actor_opt, actor_loss)`): ``step`` is the call that stepped, ``optimizer`` its
    # argument, and these are the call that backpropagated and how it names the loss.
    backward_at: ast.stmt | None = None
    loss: ast.expr | None = None
    # Another optimizer steps after ``run``'s backward (a GAN's G, an actor after its critic): the
    # second loss is meant for it, so moving this step after that backward would let that loss
    # into this optimizer's update.
    other_step: bool = False


@record(frozen=True, slots=True)
class FakeReused:
    """The GAN pattern: ``first``'s loss went through the discriminator ``disc`` on ``fake`` and
    ``run``'s loss calls ``disc`` again on that same fake, whose generator graph ``first`` already
    freed (or, with ``step``, an optimizer step of ``optimizer`` changed the weights it saved).
    ``related``: the places the engine traced (graph built, freed, where it raises)."""

    run: BackwardRun
    first: BackwardRun
    fake: ast.expr
    disc: str
    related: tuple[Related, ...]
    chain: str = ""
    step: ast.AST | None = None
    optimizer: ast.expr | None = None


@record(frozen=True, slots=True)
class FreedGraphReused:
    """In one pass, ``run``'s backward reaches buffers that ``first``'s backward freed (torch
    raises "Trying to backward through the graph a second time"). ``same``: it is the same loss
    again, or a value built on that loss (a double backward, GG101); else two losses share a part
    of one forward (GG102): ``shared``, by the name the code gives it, built on ``shared_line``.
    ``related``: the places the engine traced (built, freed, where it raises). What the engine
    found safe to edit: ``removable``, the second backward statement can go (the first runs before
    it every time); ``retain_ok``, retain_graph=True on the first (same scope, no step between);
    ``step``, an optimizer step run between the two, with ``recompute``, the source of the
    statements to run again before the second backward (None when no safe copy exists);
    ``summable``, the two backward statements can become one on the sum of the losses."""

    run: BackwardRun
    first: BackwardRun
    same: bool
    related: tuple[Related, ...]
    chain: str
    shared: str = ""
    shared_line: int = 0
    removable: bool = False
    retain_ok: bool = False
    step: ast.Call | None = None
    recompute: str | None = None
    summable: bool = False


@record(frozen=True, slots=True)
class StaleGraphReused:
    """A graph built before a loop (held by ``name``, bound on ``built_line``) and freed by the
    first iteration's backward (``first``; with ``earlier``, by an earlier loop that ran once), met
    again by ``run``'s backward in a later iteration, which raises. ``anchor``: the statement to
    change (the one that built the graph, else its first read in the loop). ``move``: the engine's
    move-into-loop edit (its params), None when none is safe. ``repeats``: the passes over one graph
    are meant (each pass's gradients are read, nothing changes the weights): only the backward
    lacks retain_graph=True, a plain second backward (GG101) rather than a stale graph (GG103)."""

    run: BackwardRun
    first: BackwardRun
    anchor: ast.AST
    name: str
    built_line: int
    related: tuple[Related, ...]
    chain: str
    move: dict[str, Any] | None
    repeats: bool
    earlier: bool
    # The loop is an L-BFGS step's calls of its closure: (the step as written, the closure's name).
    closure: tuple[str, str] | None = None


@record(frozen=True, slots=True)
class CarriedState:
    """Local names (``names``, the first one read at ``anchor``) carry a graph from one iteration of
    ``loop`` into the next, so ``run``'s backward in the next iteration reaches buffers this one
    freed (or, with ``step``, buffers kept by retain_graph=True whose weights that optimizer step
    changed) and raises. ``detach``: the statement(s) that detach them at the loop's top, when the
    engine found that edit safe. ``group``: the (loop, backward) whose findings are judged together:
    one naming more of the carried state stands for those naming less."""

    run: BackwardRun
    loop: ast.AST
    anchor: ast.AST
    names: tuple[str, ...]
    related: tuple[Related, ...]
    chain: str
    detach: str | None
    step: ast.AST | None
    group: object


@record(frozen=True, slots=True)
class CarriedInAttribute:
    """An object's attribute (``name``, e.g. `self.hidden`, possibly set by another method) carries
    a graph across iterations; ``stmt`` stores the graph-carrying value into it, and ``run``'s
    backward in the next iteration raises. ``stored``: the attribute holds a container or record
    that holds the tensor, not the tensor itself."""

    run: BackwardRun
    stmt: ast.AST
    name: str
    related: tuple[Related, ...]
    chain: str
    stored: bool


@record(frozen=True, slots=True)
class GradientsNeverCleared:
    """A training loop whose ``step`` (of ``optimizer``) applies gradients that nothing in the loop
    clears, so each backward adds onto all earlier iterations' (``backward``: the statement that
    adds onto them, the first backward before the step). ``cleared_before``: a `zero_grad()` of
    that optimizer written once before the loop; ``anchor``: the statement of the loop's body before
    which the clear belongs (None when the engine found no safe place)."""

    step: ast.Call
    optimizer: ast.expr
    backward: ast.stmt | None
    cleared_before: ast.stmt | None
    anchor: ast.stmt | None


@record(frozen=True, slots=True)
class ZeroGradBetween:
    """``zero_grad`` (a statement of ``optimizer``) runs after ``backward`` and before ``step`` of
    the same block with no backward between it and the step: the step applies no gradients."""

    zero_grad: ast.stmt
    optimizer: ast.expr
    backward: ast.stmt
    step: ast.stmt


@record(frozen=True, slots=True)
class GradientsReapplied:
    """Found by following `.grad` through the program (helpers and methods included): ``backward``
    adds onto gradients that ``step`` already applied, and ``step`` applies them again; published at
    the end, unless the loop check reported that step."""

    backward: ast.AST
    step: ast.Call


Observation = (
    Unparsable
    | GradientsNeverCleared
    | ZeroGradBetween
    | GradientsReapplied
    | CarriedState
    | CarriedInAttribute
    | StaleGraphReused
    | FreedGraphReused
    | FakeReused
    | StepBeforeBackward
    | RetainMasksReuse
    | GraphAccumulated
    | SavedTensorChanged
    | NoGraphBackward
    | DiscardedGradients
    | NonScalarBackward
    | PenaltyBackward
    | NumpyOnGrad
    | DiscardedDetach
    | FlagOnNonLeaf
    | LeafInplace
    | MultiviewInplace
    | SequentialHazard
    | InputGradRead
)
Check = Callable[[Context, Any], None]
