"""The abstract values the interpreter tracks for each name.

A value says whether it certainly carries an autograd graph, and which forward
computations ("sites") that graph certainly contains. Sites have identity: each
abstract evaluation of an expression makes a new one, so the same line in loop
iteration 1 and iteration 2 gives two sites, as torch builds two graph nodes.
"""

from __future__ import annotations

import ast
import enum
import itertools
from collections.abc import Iterable
from typing import Any

from ..record import field, record


class Grad(enum.Enum):
    NONE = "none"  # certainly no grad_fn and not requiring grad
    LEAF = "leaf"  # a leaf that requires grad
    GRAPH = "graph"  # certainly has a grad_fn
    UNKNOWN = "unknown"


class Ty(enum.Enum):
    TENSOR = "tensor"
    NUMBER = "number"  # a Python int/float/bool
    NONE_OBJ = "None"
    MODULE = "module"
    OPTIMIZER = "optimizer"
    PARAMS = "params"  # model.parameters() and friends
    LIST = "list"
    TUPLE = "tuple"
    DICT = "dict"
    FUNC = "function"  # a function or class defined in the analysed file
    QUAL = "qualified"  # a reference to an imported API, e.g. torch.nn.Linear
    OTHER = "other"
    UNKNOWN = "unknown"


_GRAPH = Grad.GRAPH
_LEAF = Grad.LEAF


class GradMode(enum.Enum):
    ON = "on"
    OFF = "off"
    MAYBE = "maybe"


_TENSOR = Ty.TENSOR
IPath = tuple[tuple[int, int], ...]  # (id of loop node, iteration number) for each enclosing loop


class Site:
    """One forward computation: a graph node (or a module call made of several)."""

    __slots__ = (
        "node",
        "saves",
        "ipath",
        "saved",
        "module",
        "call_args",
        "binding",
        "inputs",
        "hazard",
        "seq",
        "stmts",
        "saves_own_output",
        "frozen",
        "per_element",
        "inner_from",
    )

    def __init__(
        self,
        node: ast.AST,
        stmts: tuple[ast.stmt, ...],
        saves: bool,
        ipath: IPath,
        saved: frozenset[object] = frozenset(),
        module: ModuleInst | None = None,
        call_args: tuple[tuple[ast.expr, Val], ...] = (),
        inputs: tuple[Val, ...] = (),
        hazard: tuple[ast.AST, str] | None = None,
    ) -> None:
        self.node = node
        self.stmts = stmts  # the statements being executed when it was made, outermost first
        self.saves = saves
        self.ipath = ipath
        # Identities of the tensors this node saved for backward (see Val.obj).
        self.saved = saved
        # For a call of an nn.Module: the instance and its arguments (GAN analysis).
        self.module = module
        self.call_args = call_args
        self.inputs = inputs
        # A graph hazard built into the callee, e.g. ReLU(inplace=True) after Sigmoid.
        self.hazard = hazard
        self.binding: tuple[str, int] | None = None
        self.seq = 0  # creation order
        # It saved its own output (sigmoid, exp...): kept as a flag, since a set holding the site
        # itself would be a reference cycle.
        self.saves_own_output = False
        # A call of a module whose parameters were frozen: its graph reaches no parameter of it.
        self.frozen = False
        # Made in the one abstract pass of a comprehension over many elements: a different node
        # in each element of its result (as for a list filled in a loop).
        self.per_element = False
        # A module call whose forward ran here: the first seq of the sites its forward made (they
        # are this marker's inside; the graph view draws them as one node).
        self.inner_from: int | None = None

    def __repr__(self) -> str:
        return f"Site({type(self.node).__name__}@{getattr(self.node, 'lineno', '?')}, ipath={self.ipath})"


_OBJ_IDS = itertools.count(1)


class ModuleInst:
    """An nn.Module instance made in the analysed code."""

    __slots__ = (
        "cls_name",
        "has_params",
        "user_class",
        "children",
        "kind",
        "kwargs",
        "trained",
        "frozen",
        "name",
        "hazard",
        "seq_children",
        "params_obj",
        "attrs",
        "key",
        "origin",
        "alike",
        "many",
    )

    def __init__(self, cls_name: str, has_params: bool, user_class: Any = None, kind: str = "layer") -> None:
        self.cls_name = cls_name
        self.has_params = has_params
        self.user_class = user_class  # engine.modules.ClassInfo for classes in the file
        self.children: dict[str, ModuleInst] = {}
        self.kind = kind  # "layer", "loss", "activation", "rnn", "lstm", "lstmcell", "container", "user"
        self.kwargs: dict[str, Any] = {}
        self.trained = False  # its parameters were given to an optimizer
        self.frozen = False  # requires_grad_(False) / eval-only evidence
        self.name: str | None = None
        self.hazard: tuple[ast.AST, str] | None = None
        self.seq_children: list[ModuleInst] = []
        self.params_obj = object()  # identity of its parameter tensors
        self.attrs: dict[str, Val] = {}  # attributes set by its __init__ (structure only is trusted)
        # Its attributes live in the state as heap cells named "<key>.<attr>", so they are
        # flow-sensitive, joined and carried across loop iterations like local names.
        self.key = f"@{next(_OBJ_IDS)}"
        self.origin: ast.AST | None = None  # the constructor call (nn.ReLU(inplace=True))
        # Its one entry of seq_children stands for a number not known of alike layers (a ModuleList
        # of a comprehension or generator), so any index gives that layer.
        self.alike = False
        # It stands for several modules made alike (one per element of a comprehension or of a loop
        # not followed iteration by iteration): what is done to one of them is not done to all.
        self.many = False

    def mark_trained(self) -> None:
        """Its parameters go to an optimizer: so do those of every sub-module."""
        self.trained = True
        for child in list(self.children.values()) + self.seq_children:
            if not child.trained:
                child.mark_trained()

    def modules(self) -> list[ModuleInst]:
        """It and all its sub-modules."""
        out = [self]
        for child in list(self.children.values()) + self.seq_children:
            out.extend(child.modules())
        return out

    def all_params_objs(self) -> set[object]:
        return {m.params_obj for m in self.modules()}

    def clone(self, memo: dict[int, ModuleInst]) -> ModuleInst:
        """A deep copy (``copy.deepcopy(model)``): the same structure with parameters of its own,
        which no optimizer steps yet. ``memo`` maps id(original) -> copy for every sub-module."""
        done = memo.get(id(self))
        if done is not None:
            return done
        new = ModuleInst(self.cls_name, self.has_params, self.user_class, self.kind)
        memo[id(self)] = new
        new.kwargs = dict(self.kwargs)
        new.frozen = self.frozen
        new.hazard = self.hazard
        new.origin = self.origin
        new.alike = self.alike
        new.children = {k: c.clone(memo) for k, c in self.children.items()}
        new.seq_children = [c.clone(memo) for c in self.seq_children]
        new.attrs = {k: remap_module(v, memo) for k, v in self.attrs.items()}
        return new

    def __repr__(self) -> str:
        return f"ModuleInst({self.cls_name})"


@record(frozen=True, slots=True, eq=False)
class OneParam:
    """One parameter of a layer, as a loop over `named_parameters()` binds it (a tensor's ``info``):
    its layer, its name in the layer, the names of all the layer's parameters, and the modules
    that hold the layer (the model first). Setting its `requires_grad` freezes only it."""

    owner: ModuleInst
    name: str
    siblings: tuple[str, ...]
    chain: tuple[ModuleInst, ...]
    complete: bool  # the list it came from has every parameter of the model


def param_module(val: Val) -> ModuleInst | None:
    """The module whose parameter(s) a tensor is, when known (`layer.weight`, a loop over
    `model.parameters()` or `model.named_parameters()`)."""
    info = val.info
    if isinstance(info, ModuleInst):
        return info
    return info.owner if isinstance(info, OneParam) else None


def remap_module(val: Val, memo: dict[int, ModuleInst]) -> Val:
    """``val`` as it is inside a deep copy: its module the copy's, a tensor a new object."""
    copy = memo.get(id(val.module)) if val.module is not None else None
    if copy is None and val.module is not None:
        copy = val.module.clone(memo)
    if copy is not None:
        return val.with_(module=copy)
    if val.is_tensor:
        return val.with_(obj=object())
    return val


@record(frozen=True, slots=True)
class Taint:
    # "grad-no-graph" (GG202), "param-grad" (a parameter's gradient, constant: GG202 once it is a
    # penalty), "accumulated" / "carried" (GG301)
    kind: str
    node: ast.AST
    key: object = None


@record(slots=True)
class Val:
    grad: Grad = Grad.UNKNOWN
    ty: Ty = Ty.UNKNOWN
    sites: frozenset[Site] = frozenset()
    root: Site | None = None
    obj: object = None  # identity of the tensor object, for in-place/version tracking
    shape: tuple[int | None, ...] | None = None  # see shapes.py
    elts: tuple[Val, ...] | None = None  # exact elements of a tuple, list or dict (its values)
    keys: tuple[object, ...] | None = None  # Ty.DICT: the constant keys of elts, in order
    # A list of unknown length: what holds of every element (None: nothing known, or no element).
    item: Val | None = None
    module: ModuleInst | None = None
    qual: str | None = None  # for Ty.QUAL: the qualified name; for Ty.FUNC: the function's name
    # Ty.FUNC: the ast node; Ty.OPTIMIZER: OptimizerInfo; a parameter tensor: its ModuleInst
    info: Any = None
    cause: tuple[str, ast.AST] | None = None  # why it has no grad_fn, and where
    taints: frozenset[Taint] = frozenset()
    via_data: bool = False  # obtained through .data
    is_none_literal: bool = False
    label: str | None = None  # the name it was last bound to (for the hover's chain)
    truth: bool | None = None  # a Python bool (or int) whose truth value is known
    # One of the views a multi-view op (chunk, split, unbind) returned: the call. Autograd
    # forbids changing such a view in place.
    view_of: ast.AST | None = None
    # A known Python number or string (a literal, a default, a name bound to one, a dict key the
    # program iterates over): the value itself, in a 1-tuple.
    lit: tuple[object] | None = None
    # Certainly more (or fewer) elements than one, though the shape is not known: broadcast with a
    # tensor of known size other than 1 (`per_sample_loss * weights`). A list: certainly two or more.
    plural: bool = False
    # A view (basic indexing) of a leaf tensor that requires grad: changing it in place raises.
    leaf_view: bool = False
    # A list: the graph nodes of elements it certainly still holds (appended in the iterations
    # followed), whatever else it holds. What `torch.stack(outputs)` certainly depends on.
    held: frozenset[Site] = frozenset()
    # A list certainly not empty (appended to in the iterations followed, or made from such lists),
    # whatever its elements. Not used to decide branches: only what a call on it certainly meets.
    nonempty: bool = False

    @property
    def requires_grad(self) -> bool:
        grad = self.grad
        return grad is _GRAPH or grad is _LEAF

    @property
    def is_tensor(self) -> bool:
        grad = self.grad
        return self.ty is _TENSOR or grad is _GRAPH or grad is _LEAF

    def with_(self, **changes: Any) -> Val:
        # The hottest copy of the analysis: dataclasses.replace re-runs __init__ through keyword
        # parsing, and a loop over the field names is 8x slower than these plain slot copies.
        # (tests/test_engine.py checks that every field is copied.)
        new = _new_val(Val)
        new.grad = self.grad
        new.ty = self.ty
        new.sites = self.sites
        new.root = self.root
        new.obj = self.obj
        new.shape = self.shape
        new.elts = self.elts
        new.keys = self.keys
        new.item = self.item
        new.module = self.module
        new.qual = self.qual
        new.info = self.info
        new.cause = self.cause
        new.taints = self.taints
        new.via_data = self.via_data
        new.is_none_literal = self.is_none_literal
        new.label = self.label
        new.truth = self.truth
        new.view_of = self.view_of
        new.lit = self.lit
        new.plural = self.plural
        new.leaf_view = self.leaf_view
        new.held = self.held
        new.nonempty = self.nonempty
        for name, value in changes.items():
            _set(new, name, value)
        return new


_new_val = object.__new__
_set = object.__setattr__
UNKNOWN = Val()
NUMBER = Val(Grad.NONE, Ty.NUMBER)
TRUE = Val(Grad.NONE, Ty.NUMBER, truth=True)
FALSE = Val(Grad.NONE, Ty.NUMBER, truth=False)
OTHER = Val(Grad.NONE, Ty.OTHER)
NONE_VAL = Val(Grad.NONE, Ty.NONE_OBJ, is_none_literal=True)


@record(slots=True)
class OptimizerInfo:
    modules: list[ModuleInst] = field(default_factory=list)
    objs: set[object] = field(default_factory=set)  # parameter identities it steps
    # The state cell of its parameters' `.grad` (see Evaluator.set_grads).
    grads_key: str = field(default_factory=lambda: f"@grads{next(_OBJ_IDS)}")
    # One `step(closure)` calls the closure again and again (L-BFGS with max_iter >= 2: once, then
    # once per iteration of its search), so each call's backward meets what the last one freed.
    reevaluates: bool = False


NO_GRAD_CAUSE = "computing it under `torch.no_grad()`"
INFERENCE_CAUSE = "computing it under `torch.inference_mode()`"
GRAD_OFF_CAUSES = (NO_GRAD_CAUSE, INFERENCE_CAUSE)
# An array made by `.numpy()` and what NumPy computes from it: no graph comes back from it.
NUMPY_CAUSE = "computing it in NumPy (`.numpy()`)"


def _both_no_grad(a: tuple[str, object] | None, b: tuple[str, object] | None) -> bool:
    """Both computed under no_grad (on different lines): that is why neither has a graph."""
    return a is not None and b is not None and a[0] in GRAD_OFF_CAUSES and b[0] in GRAD_OFF_CAUSES


def join(a: Val, b: Val) -> Val:
    """What certainly holds of a value that is ``a`` on one path and ``b`` on another."""
    if a is b:
        return a
    if a.grad is not b.grad or a.ty is not b.ty:
        # An accumulation on either path stays marked (`total = 0` then `total += loss` in a loop
        # that may not run): the mark only exempts it from a finding once it is consumed.
        taints = _join_taints(a.taints, b.taints)
        if a.requires_grad and b.requires_grad and a.grad is not b.grad:
            return Val(Grad.UNKNOWN, Ty.TENSOR if a.is_tensor and b.is_tensor else Ty.UNKNOWN, taints=taints)
        return Val(Grad.UNKNOWN, a.ty if a.ty is b.ty else Ty.UNKNOWN, taints=taints)
    elts = None
    keys = None
    item = None
    if a.elts is not None and b.elts is not None and len(a.elts) == len(b.elts) and a.keys == b.keys:
        elts = tuple(join(x, y) for x, y in zip(a.elts, b.elts, strict=False))
        keys = a.keys
    elif a.ty is Ty.LIST or a.ty is Ty.DICT and a.keys is None and b.keys is None:
        ia, ib = elements(a), elements(b)
        item = ia if ib is EMPTY else ib if ia is EMPTY else join(ia, ib) if ia and ib else None
    held = a.held & b.held if a.held and b.held else frozenset()
    if a.ty is Ty.LIST and elts is None and (a.elts or b.elts):
        # Known elements on one path (`ys = [y0]` then one append), more on the other (two): the
        # graphs of the elements both certainly hold stay held (what `torch.stack(ys)` meets).
        held = _held_by(a) & _held_by(b)
    return Val(
        grad=a.grad,
        ty=a.ty,
        sites=a.sites & b.sites,
        root=a.root if a.root is b.root else None,
        obj=a.obj if a.obj is b.obj else None,
        shape=a.shape if a.shape == b.shape else None,
        elts=elts,
        keys=keys,
        item=item if item is not EMPTY else None,
        module=a.module if a.module is b.module else _either_loss(a.module, b.module),
        qual=a.qual if a.qual == b.qual else None,
        info=a.info if a.info is b.info else None,
        cause=a.cause if a.cause == b.cause or _both_no_grad(a.cause, b.cause) else None,
        taints=_join_taints(a.taints, b.taints),
        via_data=a.via_data and b.via_data,
        is_none_literal=a.is_none_literal and b.is_none_literal,
        label=a.label if a.label == b.label else None,
        truth=a.truth if a.truth is b.truth else None,
        view_of=a.view_of if a.view_of is b.view_of else None,
        lit=a.lit if a.lit is b.lit or _same_lit(a.lit, b.lit) else None,
        plural=a.plural and b.plural,
        held=held,
        nonempty=_nonempty(a) and _nonempty(b),
    )


def _nonempty(val: Val) -> bool:
    return val.nonempty or bool(val.held) or bool(val.elts)


def _held_by(val: Val) -> frozenset[Site]:
    """The graph nodes a list certainly holds: its known elements' and those it is known to hold."""
    return val.held | frozenset(held_sites(val.elts)) if val.elts else val.held


def _either_loss(a: ModuleInst | None, b: ModuleInst | None) -> ModuleInst | None:
    """One of two loss modules (`nn.MSELoss() if lsgan else nn.BCEWithLogitsLoss()`): for the
    graph, calling either is the same (a number built from the inputs), unless their reductions
    differ."""
    if a is None or b is None or a.kind != "loss" or b.kind != "loss":
        return None
    keys = ("reduction", "reduce", "size_average")
    return a if all(a.kwargs.get(k) == b.kwargs.get(k) for k in keys) else None


def _same_lit(a: tuple[object] | None, b: tuple[object] | None) -> bool:
    return a is not None and b is not None and type(a[0]) is type(b[0]) and a[0] == b[0]


def _join_taints(a: frozenset[Taint], b: frozenset[Taint]) -> frozenset[Taint]:
    # "accumulated" only exempts from a finding, so any path keeps it; the others
    # cause findings, so they must hold on both paths.
    if a == b:
        return a
    return frozenset(t for t in a | b if t.kind == "accumulated" or (t in a and t in b))


# "No element at all": the join of an empty list's elements (bottom: join(EMPTY, v) is v).
EMPTY = Val(Grad.NONE, Ty.OTHER, label="<empty>")


def elements(val: Val) -> Val | None:
    """What certainly holds of every element of a list or tuple: EMPTY for none, None if unknown."""
    if val.elts is not None:
        if not val.elts:
            return EMPTY
        out = val.elts[0]
        for e in val.elts[1:]:
            out = join(out, e)
        return out
    return val.item


def held_sites(vals: Iterable[Val], depth: int = 4) -> set[Site]:
    """The graph nodes these values hold, the ones inside their tuples, lists and dicts included
    (`losses["actor"]` keeps its graph as much as `actor_loss` does)."""
    out: set[Site] = set()
    stack: list[tuple[Val, int]] = []
    for val in vals:
        out.update(val.sites)
        if val.held or val.elts or val.item is not None:
            stack.append((val, depth))
    while stack:
        val, left = stack.pop()
        out.update(val.held)
        if left <= 0:
            continue
        for inner in (*(val.elts or ()), *((val.item,) if val.item is not None else ())):
            out.update(inner.sites)
            if inner.held or inner.elts or inner.item is not None:
                stack.append((inner, left - 1))
    return out
